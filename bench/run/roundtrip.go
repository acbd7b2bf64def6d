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
// elicitray wrap. Issue 12's target: elicitray's added p50 within 10 µs of
// the bare relay's.
//
// Each round starts the three sessions anew, lets them warm up, and then
// they take turns, one request each, so a change in the machine's load
// meets all three. A round's difference is its p50 through the wrapper
// minus its p50 through the bare relay; the run reports the median of the
// rounds' differences. Fresh processes each round matter more than more
// requests: where a process's threads land and how its runtime spins
// stays with it for its life, moving all its round trips by ±10 µs on this
// 2-core machine, so one set of processes decided a whole run before.
func roundTrip(b bins, o options) []row {
	home, err := os.MkdirTemp(b.dir, "home-")
	if err != nil {
		return []row{failed("round trip", err)}
	}
	env := hostEnv(home)
	type config struct {
		argv []string
		got  map[string][]time.Duration // every round's round trips
	}
	configs := []*config{
		{argv: []string{b.server}},                                               // direct
		{argv: []string{b.relay, "--", b.server}},                                // the bare relay
		{argv: []string{b.elicitray, "wrap", "--name", "bench", "--", b.server}}, // the wrapper
	}
	argvs := make([][]string, len(configs))
	for i, c := range configs {
		argvs[i] = c.argv
	}
	for _, c := range configs {
		c.got = map[string][]time.Duration{}
	}
	// One file for the three processes' stderr: writes to a file need no
	// lock between them.
	logPath := filepath.Join(home, "stderr.log")
	log, err := os.Create(logPath)
	if err != nil {
		return []row{failed("round trip", err)}
	}
	defer log.Close()
	methods := []struct{ name, req string }{
		{"ping", `"ping"`},
		{"tools/call", `"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}`},
	}
	// extra[method] holds each round's p50 through the wrapper minus its
	// p50 through the bare relay.
	extra := map[string][]time.Duration{}
	for range o.rtRounds {
		got, err := roundTripRound(argvs, env, log, methods, o)
		if err != nil {
			return []row{failed("round trip", fmt.Errorf("%w (%s)", err, tail(readFile(logPath))))}
		}
		for _, m := range methods {
			for i, c := range configs {
				c.got[m.name] = append(c.got[m.name], got[i][m.name]...)
			}
			extra[m.name] = append(extra[m.name], percentile(got[2][m.name], 0.5)-percentile(got[1][m.name], 0.5))
		}
	}
	var rows []row
	for _, m := range methods {
		pct := func(c *config, q float64) time.Duration { return percentile(c.got[m.name], q) }
		direct, relay, wrap := configs[0], configs[1], configs[2]
		added := func(c *config, q float64) time.Duration { return pct(c, q) - pct(direct, q) }
		med := percentile(extra[m.name], 0.5)
		rows = append(rows, row{
			measure: "added round trip, " + m.name + ": p50 (p90, p99)",
			baseline: fmt.Sprintf("bare relay %s (%s, %s); direct %s", plus(added(relay, 0.5)), plus(added(relay, 0.9)), plus(added(relay, 0.99)),
				micro(pct(direct, 0.5))),
			elicitray: fmt.Sprintf("%s (%s, %s)", plus(added(wrap, 0.5)), plus(added(wrap, 0.9)), plus(added(wrap, 0.99))),
			ratio: fmt.Sprintf("%s over the bare relay: median of %d rounds' p50s (%s to %s), %d requests each a round",
				plus(med), len(extra[m.name]), plus(slices.Min(extra[m.name])), plus(slices.Max(extra[m.name])), o.rtPerRound),
			target: "≤ +10 µs over the bare relay: " + yes(med <= 10*time.Microsecond),
		})
	}
	return rows
}

// roundTripRound is one round of roundTrip: a session started for each
// of argvs, o.rtPerRound/5 requests of each method to warm them up, then
// o.rtPerRound of each, taking turns (each turn starting with the next of
// them, so that none always follows the same one), and the sessions
// closed. It returns each session's round trips by method.
func roundTripRound(argvs [][]string, env []string, log io.Writer, methods []struct{ name, req string }, o options) ([]map[string][]time.Duration, error) {
	peers := make([]*mcpPeer, len(argvs))
	defer func() {
		for _, p := range peers {
			if p != nil {
				p.close()
			}
		}
	}()
	for i, argv := range argvs {
		p, err := startPeer(argv, env, log)
		if err != nil {
			return nil, err
		}
		peers[i] = p
	}
	got := make([]map[string][]time.Duration, len(argvs))
	for i := range got {
		got[i] = map[string][]time.Duration{}
	}
	warm := o.rtPerRound / 5
	for i := range warm + o.rtPerRound {
		for _, m := range methods {
			for k := range peers {
				n := (i + k) % len(peers)
				start := time.Now()
				if _, err := peers[n].request(m.req); err != nil {
					return nil, fmt.Errorf("%s, %s: %w", argvs[n][0], m.name, err)
				}
				if i >= warm {
					got[n][m.name] = append(got[n][m.name], time.Since(start))
				}
			}
		}
	}
	return got, nil
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
