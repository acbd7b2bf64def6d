//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// promptWait bounds every wait for a window or an answer: a loaded machine
// may take seconds to start a hub; a working run never waits that long.
const promptWait = 60 * time.Second

// desk is one run's user session: an ELICITRAY_HOME of its own, a host (the
// harness) running `elicitray wrap -- server` in a host's stripped
// environment, and the hub that wrapper starts.
type desk struct {
	b    bins
	home string
	env  []string
	peer *mcpPeer
	log  *os.File // the wrapper's stderr
}

func newDesk(b bins) (*desk, error) {
	home, err := os.MkdirTemp(b.dir, "desk-")
	if err != nil {
		return nil, err
	}
	d := &desk{b: b, home: home, env: hostEnv(home)}
	if d.log, err = os.Create(filepath.Join(home, "wrapper.log")); err != nil {
		return nil, err
	}
	// The wrapper finds the display in its host's environment (this
	// process's), as it does under a real host (DESIGN.md, "Hosts strip
	// the environment").
	d.peer, err = startPeer([]string{b.elicitray, "wrap", "--name", "bench", "--", b.server}, d.env, d.log)
	if err != nil {
		d.log.Close()
		return nil, err
	}
	return d, nil
}

// ask makes the server send elicitation/create, waits for the window and
// dismisses it with Escape. It returns the time from the server's write to
// the window's MapNotify and from the Escape that answered to the server's
// read of the answer, which must be cancel (PROTOCOL.md §5).
func (d *desk) ask(x *xwatch) (toWindow, toAnswer time.Duration, err error) {
	x.drain()
	type reply struct {
		line []byte
		err  error
	}
	done := make(chan reply, 1)
	ended := make(chan struct{})
	go func() {
		line, err := d.peer.request(`"tools/call","params":{"name":"ask","arguments":{}}`)
		done <- reply{line, err}
		close(ended)
	}()
	win, mapped, err := x.prompt(promptWait, ended)
	if err != nil {
		return 0, 0, fmt.Errorf("%w%s", err, d.logs())
	}
	p, err := x.dismiss(win, promptWait)
	if err != nil {
		return 0, 0, fmt.Errorf("%w%s", err, d.logs())
	}
	var r reply
	select {
	case r = <-done:
	case <-time.After(promptWait):
		return 0, 0, fmt.Errorf("no tools/call result within %v after the window closed%s", promptWait, d.logs())
	}
	if r.err != nil {
		return 0, 0, fmt.Errorf("tools/call ask: %w%s", r.err, d.logs())
	}
	var res struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.line, &res); err != nil || len(res.Result.Content) == 0 {
		return 0, 0, fmt.Errorf("tools/call ask answered %.200s", r.line)
	}
	var action string
	var sent, answered int64
	if _, err := fmt.Sscanf(res.Result.Content[0].Text, "action=%s sent=%d answered=%d", &action, &sent, &answered); err != nil {
		return 0, 0, fmt.Errorf("tools/call ask answered %q", res.Result.Content[0].Text)
	}
	if action != "cancel" {
		return 0, 0, fmt.Errorf("Escape answered %q, want cancel", action)
	}
	if os.Getenv("ELICITRAY_BENCH_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "bench: sent %s mapped %s\n", time.Unix(0, sent).Format("15:04:05.000000"), mapped.Format("15:04:05.000000"))
	}
	// Timed from when xdotool had sent the key (from its start, should the
	// answer come sooner).
	toAnswer = time.Duration(answered - p.end.UnixNano())
	if toAnswer < 0 {
		toAnswer = time.Duration(answered - p.start.UnixNano())
	}
	return time.Duration(mapped.UnixNano() - sent), toAnswer, nil
}

// hubPID is the hub's pid: the one its lock file names (app.LockHub), else
// a process of this home's that the wrapper did not start as its server.
func (d *desk) hubPID() int {
	if b, err := os.ReadFile(filepath.Join(d.home, "run", "hub.lock")); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
				return pid
			}
		}
	}
	mine := tree(d.peer.cmd.Process.Pid)
	for _, pid := range marked("ELICITRAY_HOME=" + d.home) {
		if !slices.Contains(mine, pid) {
			return pid
		}
	}
	return 0
}

// logs is the wrapper's and the hub's logs, for an error.
func (d *desk) logs() string {
	var s strings.Builder
	for _, f := range []string{d.log.Name(), filepath.Join(d.home, "hub.log")} {
		if b, err := os.ReadFile(f); err == nil && len(b) > 0 {
			fmt.Fprintf(&s, " [%s: %s]", filepath.Base(f), tail(string(b)))
		}
	}
	return s.String()
}

// close ends the host's session, asks the hub to quit (elicitray quit) and
// waits for every process started in this home to end, killing what is
// left after a while.
func (d *desk) close() {
	hub := d.hubPID()
	d.peer.close()
	d.log.Close()
	quit := execIn(d.env, d.b.elicitray, "quit")
	_ = quit.Run()
	if hub > 0 {
		waitExit(hub, 10*time.Second)
	}
	for _, pid := range marked("ELICITRAY_HOME=" + d.home) {
		if !waitExit(pid, 2*time.Second) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			waitExit(pid, 2*time.Second)
		}
	}
}

// waitExit waits until pid ends (a pidfd becomes readable then), up to
// wait; it reports whether it did.
func waitExit(pid int, wait time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return errors.Is(err, unix.ESRCH)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for end := time.Now().Add(wait); time.Now().Before(end); {
		n, err := unix.Poll(fds, int(time.Until(end).Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0
	}
	return false
}

// fyneFloor times bench/fynewin, runs times: from its start to the X
// server's MapNotify for its window, with the environment the hub gives its
// window process (the display, Mesa's shader cache off, a cache directory
// of its own as a cold desk's ELICITRAY_HOME has). It is the floor under
// the cold window: what starting any Fyne program and mapping its first
// window costs on this machine.
func fyneFloor(b bins, x *xwatch, runs int) ([]time.Duration, error) {
	var ds []time.Duration
	for range runs {
		w, err := startBare(b, x)
		if err != nil {
			return nil, err
		}
		w.stop()
		ds = append(ds, w.mapped.Sub(w.start))
	}
	return ds, nil
}

// bareWindow is a running bench/fynewin whose window is mapped.
type bareWindow struct {
	cmd           *exec.Cmd
	in            io.Closer
	ended         chan struct{}
	start, mapped time.Time
}

// startBare starts bench/fynewin with the environment the hub gives its
// window process (the display, Mesa's shader cache off, caches of its own
// as a cold desk's ELICITRAY_HOME has) and waits for its window's MapNotify.
func startBare(b bins, x *xwatch) (*bareWindow, error) {
	cache, err := os.MkdirTemp(b.dir, "floor-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(b.fynewin)
	cmd.Env = append(hostEnv(cache), "DISPLAY="+os.Getenv("DISPLAY"), "MESA_SHADER_CACHE_DISABLE=true",
		"XDG_CACHE_HOME="+filepath.Join(cache, "cache"), "XDG_CONFIG_HOME="+filepath.Join(cache, "config"))
	if xa, ok := os.LookupEnv("XAUTHORITY"); ok {
		cmd.Env = append(cmd.Env, "XAUTHORITY="+xa) // xvfb-run's display asks for it
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	x.drain()
	w := &bareWindow{cmd: cmd, in: in, ended: make(chan struct{}), start: time.Now()}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", b.fynewin, err)
	}
	go func() { _ = cmd.Wait(); close(w.ended) }()
	if _, w.mapped, err = x.prompt(promptWait, w.ended); err != nil {
		w.stop()
		return nil, fmt.Errorf("bare Fyne window: %w (%s)", err, tail(stderr.String()))
	}
	return w, nil
}

// stop ends the bare window (it quits when its input ends) and waits for it.
func (w *bareWindow) stop() {
	w.in.Close()
	<-w.ended
}

// windowAndIdle measures the time from a server's elicitation/create to
// the prompt's MapNotify, cold (the wrapper has to start a hub) and warm
// (the same hub's second prompt), o.windowRuns runs each, each run in a
// home of its own; and Escape to the server reading cancel. The last run's
// hub, after its prompts, is then watched idle (idle.go).
func windowAndIdle(b bins, o options, window, idle bool) []row {
	x, err := watchX()
	if err == nil {
		if _, lerr := exec.LookPath("xdotool"); lerr != nil {
			x.close()
			err = fmt.Errorf("xdotool, which presses Escape in the prompts, is missing (Debian package xdotool): %w", lerr)
		}
	}
	if err != nil {
		var rows []row
		if window {
			rows = append(rows, failed("window mapped after elicitation/create", err))
		}
		if idle {
			rows = append(rows, failed("idle hub", err))
		}
		return rows
	}
	defer x.close()
	runs := o.windowRuns
	if !window {
		runs = 1
	}
	var cold, warm, answer []time.Duration
	var rows []row
	var floor []time.Duration
	if window {
		if floor, err = fyneFloor(b, x, runs); err != nil {
			rows = append(rows, failed("bare Fyne window (the cold window's baseline)", err))
		}
	}
	for i := range runs {
		d, err := newDesk(b)
		if err != nil {
			return append(rows, failed("window mapped after elicitation/create", err))
		}
		c, a1, err := d.ask(x)
		if err != nil {
			d.close()
			return append(rows, failed("window mapped after elicitation/create, cold", err))
		}
		w, a2, err := d.ask(x)
		if err != nil {
			d.close()
			return append(rows, failed("window mapped after elicitation/create, warm", err))
		}
		cold, warm, answer = append(cold, c), append(warm, w), append(answer, a1, a2)
		if i == runs-1 && idle {
			rows = append(rows, openIdleRow(b, o, d, x))
			rows = append(rows, idleRows(b, o, d)...)
		}
		d.close()
	}
	if !window {
		return rows
	}
	ms := func(ds []time.Duration) (med, lo, hi float64) {
		var f []float64
		for _, d := range ds {
			f = append(f, float64(d)/1e6)
		}
		return median(f), slices.Min(f), slices.Max(f)
	}
	for _, m := range []struct {
		name   string
		ds     []time.Duration
		target float64
		floor  []time.Duration
	}{
		{"window mapped after elicitation/create, cold (no hub)", cold, 300, floor},
		{"window mapped after elicitation/create, warm (second prompt)", warm, 50, nil},
		{"Escape (xdotool's key sent) → server reads cancel", answer, 0, nil},
	} {
		med, lo, hi := ms(m.ds)
		r := row{
			measure:   m.name,
			baseline:  "—",
			elicitray: fmt.Sprintf("%.1f ms", med),
			ratio:     fmt.Sprintf("median of %d (%.1f–%.1f ms)", len(m.ds), lo, hi),
			target:    "—",
		}
		if len(m.floor) > 0 {
			fmed, flo, fhi := ms(m.floor)
			r.baseline = fmt.Sprintf("bare Fyne window %.1f ms (%.1f–%.1f ms)", fmed, flo, fhi)
			r.ratio += fmt.Sprintf("; %+.1f ms over the bare Fyne window", med-fmed)
		}
		if m.target > 0 {
			r.target = fmt.Sprintf("≤ %.0f ms: %s", m.target, yes(med <= m.target))
		}
		rows = append(rows, r)
	}
	// The idle rows follow the window rows in the table.
	if idle {
		n := len(rows) - 3
		rows = append(rows[n:], rows[:n]...)
	}
	return rows
}
