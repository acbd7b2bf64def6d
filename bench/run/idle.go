//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// readFile is path's text, or "" when it cannot be read.
func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// execIn is name args… with environment env.
func execIn(env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	return cmd
}

// usage is what a set of processes did over an idle window.
type usage struct {
	pids     []int
	wakeups  float64 // context switches per second, all threads of all pids
	cpu      float64 // share of one core
	rssKB    int64   // VmRSS at the end, summed
	anonKB   int64
	threads  int
	switches int64
}

// watch samples the processes each of pids and others names at the start
// and at the end of d, and sums what each did in between; a process that started meanwhile
// counts from zero, one that ended is left out.
func watch(pids func() []int, d time.Duration, others ...func() []int) []usage {
	all := append([]func() []int{pids}, others...)
	before := make([]map[int]procStat, len(all))
	for i, f := range all {
		before[i] = map[int]procStat{}
		for _, pid := range f() {
			if s, err := readProc(pid); err == nil {
				before[i][pid] = s
			}
		}
	}
	start := time.Now()
	time.Sleep(d) // the idle window is the measure itself
	took := time.Since(start).Seconds()
	out := make([]usage, len(all))
	for i, f := range all {
		pidsNow := f()
		for pid := range before[i] {
			if !slices.Contains(pidsNow, pid) {
				pidsNow = append(pidsNow, pid)
			}
		}
		u := &out[i]
		for _, pid := range pidsNow {
			s, err := readProc(pid)
			if err != nil {
				continue
			}
			b := before[i][pid]
			u.pids = append(u.pids, pid)
			u.switches += s.switches - b.switches
			u.cpu += float64(s.ticks-b.ticks) / clockTicks / took
			u.rssKB += s.rssKB
			u.anonKB += s.anonKB
			u.threads += s.threads
		}
		u.wakeups = float64(u.switches) / took
	}
	return out
}

func (u usage) String() string {
	return fmt.Sprintf("%.1f wake-ups/s, %.1f MB RSS (%.1f MB anonymous), %d threads, %.2f %% of a core",
		u.wakeups, float64(u.rssKB)/1e3, float64(u.anonKB)/1e3, u.threads, 100*u.cpu)
}

// idleRows watches d's hub (and any process it started, e.g. a window
// process), after its prompts, for o.idleFor, with the host's wrapper still
// connected; and, in the same window, an idle `elicitray wrap -- cat` that
// has had no traffic at all, against its cat. Issue 12's targets: the hub at
// most 1 wake-up per second and 60 MB, the idle wrapper at most 20 MB.
func idleRows(b bins, o options, d *desk) []row {
	hub := d.hubPID()
	if hub == 0 {
		return []row{failed("idle hub", fmt.Errorf("no hub process found in %s%s", d.home, d.logs()))}
	}
	wrap := execIn(d.env, b.elicitray, "wrap", "--name", "idle", "--", "cat")
	in, err := wrap.StdinPipe()
	if err != nil {
		return []row{failed("idle", err)}
	}
	wrap.Stdout = io.Discard
	logPath := filepath.Join(d.home, "idle-wrapper.log")
	log, err := os.Create(logPath)
	if err != nil {
		return []row{failed("idle", err)}
	}
	defer log.Close()
	wrap.Stderr = log
	if err := wrap.Start(); err != nil {
		return []row{failed("idle", err)}
	}
	defer func() {
		in.Close()
		_ = wrap.Wait()
	}()
	time.Sleep(o.settle) // let the last window's close and the new wrapper's start pass
	wrapPID := wrap.Process.Pid
	catPIDs := func() []int {
		t := tree(wrapPID)
		return t[1:]
	}
	if len(catPIDs()) == 0 {
		return []row{failed("idle wrapper", fmt.Errorf("the wrapper started no cat (%s)", tail(readFile(logPath))))}
	}
	// The hub's processes: the hub, whatever it started (a window process,
	// say), and any other process of this home's that no wrapper started,
	// however detached.
	hubPIDs := func() []int {
		pids := tree(hub)
		wrappers := append(tree(d.peer.cmd.Process.Pid), tree(wrapPID)...)
		for _, pid := range marked("ELICITRAY_HOME=" + d.home) {
			if !slices.Contains(wrappers, pid) && !slices.Contains(pids, pid) {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	u := watch(hubPIDs, o.idleFor,
		func() []int { return []int{wrapPID} }, catPIDs)
	hubU, wrapU, catU := u[0], u[1], u[2]
	span := fmt.Sprintf("over %v, %d process(es)", o.idleFor, len(hubU.pids))
	return []row{
		{
			measure:   "idle hub after its prompts, no window open: wake-ups",
			baseline:  "—",
			elicitray: fmt.Sprintf("%.1f /s (%.2f %% of a core)", hubU.wakeups, 100*hubU.cpu),
			ratio:     span,
			target:    "≤ 1 /s: " + yes(hubU.wakeups <= 1),
		},
		{
			measure:   "idle hub: RSS, threads",
			baseline:  "—",
			elicitray: fmt.Sprintf("%.1f MB (%.1f MB anonymous), %d threads", float64(hubU.rssKB)/1e3, float64(hubU.anonKB)/1e3, hubU.threads),
			ratio:     span,
			target:    "≤ 60 MB: " + yes(hubU.rssKB <= 60_000),
		},
		{
			measure:   "idle wrapper (wrap -- cat, no traffic)",
			baseline:  "cat: " + catU.String(),
			elicitray: wrapU.String(),
			ratio:     fmt.Sprintf("%.1f× cat's RSS", float64(wrapU.rssKB)/float64(max(catU.rssKB, 1))),
			target:    "≤ 20 MB: " + yes(wrapU.rssKB <= 20_000),
		},
	}
}

// openIdleRow opens one prompt (bench/server's "ask": a form of one text
// field, which has the focus and so a blinking cursor, and the countdown
// to its timeout) and leaves it untouched: the window process is watched
// for o.idleFor, in the same seconds as bench/fynewin's bare window, also
// untouched. Issue 27's target: at most the bare window's cost plus 0.5 %
// of a core and 20 wake-ups a second. The prompt is dismissed after.
func openIdleRow(b bins, o options, d *desk, x *xwatch) row {
	const measure = "open prompt, untouched: window process"
	hub := d.hubPID()
	if hub == 0 {
		return failed(measure, fmt.Errorf("no hub process found in %s%s", d.home, d.logs()))
	}
	bare, err := startBare(b, x)
	if err != nil {
		return failed(measure, err)
	}
	defer bare.stop()
	x.drain()
	done := make(chan error, 1)
	ended := make(chan struct{})
	go func() {
		_, err := d.peer.request(`"tools/call","params":{"name":"ask","arguments":{}}`)
		done <- err
		close(ended)
	}()
	win, _, err := x.prompt(promptWait, ended)
	if err == nil {
		err = x.waitArmed(win, time.After(promptWait))
	}
	if err != nil {
		return failed(measure, fmt.Errorf("%w%s", err, d.logs()))
	}
	time.Sleep(o.idleSettle) // past the window's first frames, as a person reads
	windowPIDs := func() []int { return tree(hub)[1:] }
	if len(windowPIDs()) == 0 {
		return failed(measure, fmt.Errorf("the hub has no window process%s", d.logs()))
	}
	u := watch(windowPIDs, o.idleFor, func() []int { return []int{bare.cmd.Process.Pid} })
	winU, bareU := u[0], u[1]
	if _, err := x.dismiss(win, promptWait); err != nil {
		return failed(measure, fmt.Errorf("dismissing the prompt after the idle window: %w%s", err, d.logs()))
	}
	if err := <-done; err != nil {
		return failed(measure, fmt.Errorf("tools/call ask: %w%s", err, d.logs()))
	}
	met := winU.wakeups <= bareU.wakeups+20 && winU.cpu <= bareU.cpu+0.005
	return row{
		measure:   measure,
		baseline:  "bare Fyne window: " + bareU.String(),
		elicitray: winU.String(),
		ratio: fmt.Sprintf("%+.1f wake-ups/s, %+.2f %% of a core over the bare window, over %v",
			winU.wakeups-bareU.wakeups, 100*(winU.cpu-bareU.cpu), o.idleFor),
		target: "≤ bare + 20 /s and + 0.5 %: " + yes(met),
	}
}
