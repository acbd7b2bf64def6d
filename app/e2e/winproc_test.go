//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/desktop"
	"github.com/elicitray/elicitray/app/internal/testkit"

	"github.com/elicitray/elicitray/app/hubapi"

	"github.com/jezek/xgb/xproto"

	"github.com/elicitray/elicitray/bridge"
)

// The window process (winproc.go, wincmd.go), with real processes: the
// built binary as hub, its `elicitray ui` child drawing on the test's X
// server, and prompts sent on the hub's socket as a wrapper sends them.

// winHub is a hub the test started itself, and a wrapper's connection to it.
type winHub struct {
	d       *testDesktop
	cmd     *exec.Cmd
	exited  chan struct{}
	conn    net.Conn
	enc     *json.Encoder
	replies chan hubapi.Message // the hub's replies, in order
}

// startWinHub runs `elicitray hub` for d with the window process's linger
// set to linger (in d.env, or in the test process when that is nil), and
// connects to it as a wrapper does.
func startWinHub(d *testDesktop, linger string) *winHub {
	t := d.t
	t.Helper()
	if d.env == nil {
		t.Setenv(desktop.LingerEnv, linger)
	}
	if err := os.MkdirAll(filepath.Dir(d.paths.HubLog), 0o700); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(d.paths.HubLog)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	h := &winHub{d: d, cmd: exec.Command(testkit.Binary(t), "hub"), exited: make(chan struct{}), replies: make(chan hubapi.Message, 16)}
	if d.env != nil {
		h.cmd.Env = slices.Concat(d.env, []string{desktop.LingerEnv + "=" + linger})
	}
	h.cmd.Stderr = logf
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("starting the hub: %v", err)
	}
	go func() {
		_ = h.cmd.Wait()
		close(h.exited)
	}()
	deadline := time.Now().Add(desktopWait)
	for !hubAnswers(t.Context(), d.paths) {
		select {
		case <-h.exited:
			t.Fatalf("the hub exited before answering%s", d.diagnostics())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hub does not answer within %v%s", desktopWait, d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
	h.conn, err = net.Dial("unix", d.paths.Socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.conn.Close() })
	h.enc = json.NewEncoder(h.conn)
	go func() {
		defer close(h.replies)
		br := bufio.NewReader(h.conn)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			var m hubapi.Message
			if hubapi.Decode(line, &m) == nil {
				h.replies <- m
			}
		}
	}()
	return h
}

// ask sends a form-mode prompt of server "winproc" under id.
func (h *winHub) ask(id uint64) {
	h.d.t.Helper()
	req := &bridge.Request{ID: strconv.FormatUint(id, 10), Time: time.Now(), Server: "winproc", Mode: "form",
		Message:         "Prompt " + strconv.FormatUint(id, 10),
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}
	if err := h.enc.Encode(hubapi.Message{Op: hubapi.OpPrompt, ID: id, Request: req}); err != nil {
		h.d.t.Fatalf("sending prompt %d: %v", id, err)
	}
}

// reply waits for the hub's answer to prompt id.
func (h *winHub) reply(id uint64) bridge.Result {
	h.d.t.Helper()
	select {
	case m, ok := <-h.replies:
		if !ok {
			h.d.t.Fatalf("the hub closed the connection before answering prompt %d%s", id, h.d.diagnostics())
		}
		if m.ID != id || m.Result == nil {
			h.d.t.Fatalf("the hub answered %+v, want the result of prompt %d%s", m, id, h.d.diagnostics())
		}
		return *m.Result
	case <-time.After(desktopWait):
		h.d.t.Fatalf("no answer to prompt %d within %v%s", id, desktopWait, h.d.diagnostics())
	}
	panic("unreachable")
}

// windowProcs lists the hub's window processes (its `elicitray ui`
// children, zombies left out).
func (h *winHub) windowProcs() []string {
	var procs []string
	for _, pid := range childPIDs(strconv.Itoa(h.cmd.Process.Pid)) {
		cmdline, _ := os.ReadFile("/proc/" + pid + "/cmdline")
		if strings.HasSuffix(string(cmdline), "\x00ui\x00") && !zombie(pid) {
			procs = append(procs, pid)
		}
	}
	return procs
}

// windowProc is the one window process running.
func (h *winHub) windowProc() string {
	h.d.t.Helper()
	procs := h.windowProcs()
	if len(procs) != 1 {
		h.d.t.Fatalf("the hub runs window processes %v, want one%s", procs, h.d.diagnostics())
	}
	return procs[0]
}

// noWindowProc waits until the hub runs no window process: the linger
// passed, or the process was killed.
func (h *winHub) noWindowProc(why string) {
	h.d.t.Helper()
	deadline := time.Now().Add(desktopWait)
	for len(h.windowProcs()) > 0 {
		if time.Now().After(deadline) {
			h.d.t.Fatalf("the window process %v still runs %v %s%s", h.windowProcs(), desktopWait, why, h.d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
}

// TestWindowProcessOnDemand: the hub starts its window process as it
// starts (a prompt most often comes with the wrapper that started it),
// which shows nothing and goes after its linger when none comes; then none
// runs until a prompt comes; prompts in a burst share one, which goes
// after its linger with no window open; the next prompt starts a new one.
// What it took to map each window, from the prompt's line on the socket,
// is logged (the bench reports it; the X server's map event is the end).
func TestWindowProcessOnDemand(t *testing.T) {
	d := newParallelDesktop(t)
	maps := watchMaps(t, d.display)
	h := startWinHub(d, "1s")
	h.noWindowProc("with no window wanted, after the linger")
	// It showed nothing meanwhile: what it loaded ahead of a window (the
	// OpenGL driver, through a hidden window: ui.WarmUp) maps none.
	select {
	case <-maps.mapped:
		t.Errorf("a window was mapped while no window was wanted")
	default:
	}

	maps.drain()
	sent := time.Now()
	h.ask(1)
	h.ask(2) // queued behind 1
	cold := maps.since(t, sent)
	win, _ := d.window()
	first := h.windowProc()
	if got := d.title(win); !strings.Contains(got, "winproc") {
		t.Errorf("the first window is titled %q, want the asking server winproc", got)
	}
	wantIcon(t, d, win)
	d.answer(win, "Escape")
	if r := h.reply(1); r.Action != bridge.ActionCancel || r.DecidedBy != bridge.DecidedByUser {
		t.Errorf("Escape answered %+v, want cancel by the user", r)
	}
	win, _ = d.window()
	if p := h.windowProc(); p != first {
		t.Errorf("the queued prompt went to window process %s, want the running one, %s", p, first)
	}
	d.answer(win, "Escape")
	if r := h.reply(2); r.Action != bridge.ActionCancel || r.DecidedBy != bridge.DecidedByUser {
		t.Errorf("Escape answered %+v, want cancel by the user", r)
	}

	h.noWindowProc("after its last window closed and the linger passed")
	maps.drain()
	sent = time.Now()
	h.ask(3)
	cold2 := maps.since(t, sent)
	win, _ = d.window()
	if p := h.windowProc(); p == first {
		t.Errorf("the prompt after the linger went to the old window process %s", p)
	}
	d.answer(win, "Escape")
	h.reply(3)
	t.Logf("window mapped after the prompt's line: cold %v, cold again %v", cold, cold2)
}

// TestWindowProcessLingers: a prompt that comes while the window process
// lingers after its last window (here a linger longer than the test) goes
// to that process, warm, and its window has the icon a kept window has.
func TestWindowProcessLingers(t *testing.T) {
	d := newParallelDesktop(t)
	maps := watchMaps(t, d.display)
	h := startWinHub(d, "10m")
	h.ask(1)
	win, _ := d.window()
	first := h.windowProc()
	d.answer(win, "Escape")
	h.reply(1)
	d.closed(win)

	maps.drain()
	sent := time.Now()
	h.ask(2)
	warm := maps.since(t, sent)
	win, _ = d.window()
	if p := h.windowProc(); p != first {
		t.Errorf("a prompt within the linger went to window process %s, want the lingering one, %s", p, first)
	}
	wantIcon(t, d, win) // a kept window's
	d.answer(win, "Escape")
	if r := h.reply(2); r.Action != bridge.ActionCancel || r.DecidedBy != bridge.DecidedByUser {
		t.Errorf("Escape answered %+v, want cancel by the user", r)
	}
	t.Logf("window mapped after the prompt's line, warm: %v", warm)
}

// TestWindowProcessCrash: a window process killed with a prompt on screen
// answers it cancel, decided by error, with a sentence in history; the
// next prompt starts a new window process, whose answer counts.
func TestWindowProcessCrash(t *testing.T) {
	d := newParallelDesktop(t)
	h := startWinHub(d, "30s")
	h.ask(1)
	d.window()
	pid, _ := strconv.Atoi(h.windowProc())
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := h.reply(1)
	if r.Action != bridge.ActionCancel || r.DecidedBy != bridge.DecidedByError || !strings.Contains(r.Reason, "process ended") {
		t.Errorf("the crashed window's prompt was answered %+v, want cancel by error saying its process ended", r)
	}
	recs := d.history()
	if len(recs) != 1 || recs[0].DecidedBy != bridge.DecidedByError || !strings.Contains(recs[0].Reason, "process ended") {
		t.Errorf("history holds %+v, want the one prompt, cancelled by error, saying why", recs)
	}
	// The hub's log counts the prompt: on the screen once the window
	// process said it drew it (winShown), else as sent but not yet shown
	// (killed while Fyne painted the window's first frame).
	if hubLog, _ := os.ReadFile(d.paths.HubLog); !regexp.MustCompile(`\) with (1 prompt\(s\) on screen|0 prompt\(s\) on screen and 1 sent to it but not yet shown); the next window starts a new one`).Match(hubLog) {
		t.Errorf("hub.log does not count the killed window process's one prompt:\n%s", hubLog)
	}
	h.noWindowProc("after it was killed")
	h.ask(2)
	win, _ := d.window()
	if p := h.windowProc(); p == strconv.Itoa(pid) {
		t.Fatalf("the next prompt went to the killed process %s", p)
	}
	d.answer(win, "Escape")
	if r := h.reply(2); r.Action != bridge.ActionCancel || r.DecidedBy != bridge.DecidedByUser {
		t.Errorf("after the crash, Escape answered %+v, want cancel by the user", r)
	}
}

// TestWindowProcessDiesWithHub: a hub killed outright takes its window
// process with it, window and all (newParallelDesktop's Cleanup checks
// that no process of the test's is left).
func TestWindowProcessDiesWithHub(t *testing.T) {
	d := newParallelDesktop(t)
	h := startWinHub(d, "30s")
	h.ask(1)
	win, _ := d.window()
	ui := h.windowProc()
	if err := h.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-h.exited
	deadline := time.Now().Add(desktopWait)
	for {
		if _, err := os.Stat("/proc/" + ui); err != nil || zombie(ui) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window process %s still runs %v after its hub was killed", ui, desktopWait)
		}
		time.Sleep(pollEvery)
	}
	d.closed(win)
}

// wantIcon checks that window win (an X window id) carries elicitray's
// icon for the taskbar: _NET_WM_ICON, 256×256 as assets/icon.png.
func wantIcon(t *testing.T, d *testDesktop, win string) {
	t.Helper()
	out, err := d.x("xprop", "-id", win, "-notype", "32c", "_NET_WM_ICON").Output()
	if err != nil {
		t.Fatalf("xprop _NET_WM_ICON of %s: %v", win, err)
	}
	// "_NET_WM_ICON = 256, 256, …": the width and height come first.
	if !strings.HasPrefix(strings.TrimSpace(string(out)), "_NET_WM_ICON = 256, 256, ") {
		t.Errorf("window %s has no 256×256 icon: %.80s", win, out)
	}
}

// mapWatch receives the X server's map events of top-level windows.
type mapWatch struct{ mapped chan time.Time }

// watchMaps subscribes to the map events of the root window's children on
// display.
func watchMaps(t *testing.T, display string) *mapWatch {
	t.Helper()
	conn := watchRoot(t, display)
	w := &mapWatch{mapped: make(chan time.Time, 64)}
	go func() {
		for {
			ev, err := conn.WaitForEvent()
			if ev == nil && err == nil {
				return // closed
			}
			if _, ok := ev.(xproto.MapNotifyEvent); ok {
				w.mapped <- time.Now()
			}
		}
	}()
	return w
}

// drain forgets the map events so far.
func (w *mapWatch) drain() {
	for {
		select {
		case <-w.mapped:
		default:
			return
		}
	}
}

// since waits for the next map event and returns how long after sent it
// came.
func (w *mapWatch) since(t *testing.T, sent time.Time) time.Duration {
	t.Helper()
	select {
	case at := <-w.mapped:
		return at.Sub(sent)
	case <-time.After(desktopWait):
		t.Fatalf("no window was mapped within %v", desktopWait)
	}
	return 0
}

// TestHubIdleAfterAPrompt: a hub with its tray icon up (a StatusNotifier
// watcher on a bus of the test's) shows one prompt, which is answered; its
// window process lingers, then goes, and the hub stays. How much the idle
// hub then wakes and holds (issue 12: at most one wake-up a second, 60 MB)
// is a measure, taken by make bench (bench/run/idle.go), not here.
func TestHubIdleAfterAPrompt(t *testing.T) {
	d := newParallelDesktop(t)
	// The test's own bus (newParallelDesktop), which the hub is given.
	addr := d.sessionBus()
	items := trayServeWatcher(t, trayConnect(t, addr))
	h := startWinHub(d, "1s")
	select {
	case <-items:
	case <-time.After(desktopWait):
		t.Fatalf("the hub registered no tray icon within %v%s", desktopWait, d.diagnostics())
	}
	h.ask(1)
	win, _ := d.window()
	h.windowProc()
	d.answer(win, "Escape")
	h.reply(1)
	h.noWindowProc("after the linger")
	select {
	case <-h.exited:
		t.Fatalf("the hub exited after its window process went%s", d.diagnostics())
	default:
	}
}

// statusField is the number of field name in a /proc status file, 0 when
// it has none.
func statusField(path, name string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}
