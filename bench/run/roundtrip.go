//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// mcpPeer is a server the harness talks to as a host, one line at a time,
// through whatever stands between (nothing, the bare relay, the wrapper).
type mcpPeer struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	nextID int
}

// startPeer starts argv with env and initializes an MCP session at
// 2025-11-25 (PROTOCOL.md §2): initialize, its reply, then
// notifications/initialized.
func startPeer(argv, env []string, stderr io.Writer) (*mcpPeer, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	p := &mcpPeer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := p.request(`"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"elicitray-bench-host","version":"1.0.0"}}`); err != nil {
		p.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// request sends method (the JSON from the method's name on: `"ping"` or
// `"tools/call","params":{…}`) with the next id and returns its reply,
// skipping any other line (a notification) meanwhile.
func (p *mcpPeer) request(methodAndParams string) ([]byte, error) {
	p.nextID++
	id := strconv.Itoa(p.nextID)
	if _, err := io.WriteString(p.in, `{"jsonrpc":"2.0","id":`+id+`,"method":`+methodAndParams+"}\n"); err != nil {
		return nil, err
	}
	return p.reply(id)
}

// reply reads lines until the reply to id.
func (p *mcpPeer) reply(id string) ([]byte, error) {
	want := []byte(`"id":` + id + `,`)
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("reading the reply to %s: %w", id, err)
		}
		if bytes.Contains(line, want) && !bytes.Contains(line, []byte(`"method"`)) {
			return line, nil
		}
	}
}

// close ends the session: stdin closed, the process waited for.
func (p *mcpPeer) close() error {
	p.in.Close()
	return p.cmd.Wait()
}

// roundTrip measures what the wrapper adds to one request's round trip: a
// host sends ping, or a small tools/call, one at a time and waits for the
// reply, to the bench server directly, through the bare relay, and through
// elicitray wrap. The three sessions run side by side and take turns, one
// request each, so a change in the machine's load meets all three; the
// first round is a warm-up. Added = the percentile through X minus the
// same percentile direct. Issue 12's target: elicitray's added p50 within
// 10 µs of the bare relay's.
func roundTrip(b bins, o options) []row {
	home, err := os.MkdirTemp(b.dir, "home-")
	if err != nil {
		return []row{failed("round trip", err)}
	}
	env := hostEnv(home)
	type config struct {
		name string
		argv []string
		peer *mcpPeer
		got  map[string][]time.Duration
	}
	configs := []*config{
		{name: "direct", argv: []string{b.server}},
		{name: "relay", argv: []string{b.relay, "--", b.server}},
		{name: "wrap", argv: []string{b.elicitray, "wrap", "--name", "bench", "--", b.server}},
	}
	// One file for the three processes' stderr: writes to a file need no
	// lock between them.
	logPath := filepath.Join(home, "stderr.log")
	log, err := os.Create(logPath)
	if err != nil {
		return []row{failed("round trip", err)}
	}
	defer log.Close()
	for _, c := range configs {
		p, err := startPeer(c.argv, env, log)
		if err != nil {
			for _, c := range configs {
				if c.peer != nil {
					c.peer.close()
				}
			}
			return []row{failed("round trip", fmt.Errorf("%s: %w (%s)", c.name, err, tail(readFile(logPath))))}
		}
		c.peer, c.got = p, map[string][]time.Duration{}
	}
	defer func() {
		for _, c := range configs {
			c.peer.close()
		}
	}()
	methods := []struct{ name, req string }{
		{"ping", `"ping"`},
		{"tools/call", `"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}`},
	}
	// The three take turns request by request, each turn starting with the
	// next of them, so that the machine's load (other processes, the
	// harness's own garbage collection) falls on the three alike and none
	// always follows the same one.
	for round := 0; round <= o.rtRounds; round++ {
		for i := range o.rtPerRound {
			for _, m := range methods {
				for k := range configs {
					c := configs[(i+k)%len(configs)]
					start := time.Now()
					if _, err := c.peer.request(m.req); err != nil {
						return []row{failed("round trip", fmt.Errorf("%s, %s: %w (%s)", c.name, m.name, err, tail(readFile(logPath))))}
					}
					if round > 0 {
						c.got[m.name] = append(c.got[m.name], time.Since(start))
					}
				}
			}
		}
	}
	var rows []row
	for _, m := range methods {
		pct := func(c *config, q float64) time.Duration { return percentile(c.got[m.name], q) }
		direct, relay, wrap := configs[0], configs[1], configs[2]
		added := func(c *config, q float64) time.Duration { return pct(c, q) - pct(direct, q) }
		extra := added(wrap, 0.5) - added(relay, 0.5)
		rows = append(rows, row{
			measure: "added round trip, " + m.name + ": p50 (p90, p99)",
			baseline: fmt.Sprintf("bare relay %s (%s, %s); direct %s", plus(added(relay, 0.5)), plus(added(relay, 0.9)), plus(added(relay, 0.99)),
				micro(pct(direct, 0.5))),
			elicitray: fmt.Sprintf("%s (%s, %s)", plus(added(wrap, 0.5)), plus(added(wrap, 0.9)), plus(added(wrap, 0.99))),
			ratio:     fmt.Sprintf("%s over the bare relay (%d requests each)", plus(extra), len(wrap.got[m.name])),
			target:    "≤ +10 µs over the bare relay: " + yes(extra <= 10*time.Microsecond),
		})
	}
	return rows
}

// percentile is the q-quantile of ds (nearest rank).
func percentile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s)) + 0.5)
	if i >= len(s) {
		i = len(s) - 1
	}
	if i < 0 {
		return 0
	}
	return s[i]
}

func micro(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/1e3) }

func plus(d time.Duration) string {
	if d < 0 {
		return "−" + micro(-d)
	}
	return "+" + micro(d)
}
