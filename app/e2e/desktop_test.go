//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/internal/testkit"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui"
)

// The helpers below drive the real program as a user's desktop would: a host
// (the official Go SDK) runs `elicitray wrap`, the wrapper starts the hub, the
// hub shows windows on the X server in DISPLAY, and xdotool types into them.

// desktopWait bounds every wait for something a person would see (a window,
// a tool result, a hub): generous, because a loaded machine may take seconds
// to start Fyne; a working run never waits that long.
const desktopWait = 60 * time.Second

// pollEvery is how often a wait looks again.
const pollEvery = 50 * time.Millisecond

// pressAgain is how long answer waits for a window to close before it
// presses the key again.
const pressAgain = 200 * time.Millisecond

// pressPastGuard is how far apart a test presses a key on a prompt window
// whose key guard it cannot see end (no ui.ArmedProperty: Wine): more than
// the guard's half second, which each key that goes down while the window
// is held starts again.
const pressPastGuard = time.Second

// needDisplay skips a test that shows windows when there is no X server,
// except in CI, where a skipped end-to-end test would hide a broken set-up;
// and under -short (make check), which shows none.
func needDisplay(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("shows desktop windows: not in the short tier (-short)")
	}
	if os.Getenv("DISPLAY") != "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("this test shows desktop windows and needs DISPLAY: run under make test")
	}
	t.Skip("this test shows desktop windows and needs DISPLAY: run under make test (Xvfb)")
}

// desktop is one test's user session: its own ELICITRAY_HOME, the hub the
// wrappers start there, and the windows that hub shows.
type testDesktop struct {
	t     *testing.T
	home  string
	paths paths.Paths
	// display is the X server the hub shows its windows on, which xdotool
	// and the watches of the test look at: the run's (DISPLAY), or the
	// test's own (newParallelDesktop).
	display string
	logs    []string // wrapper logs (stderr), shown when a test fails
	// mark is an environment entry every process started for the test
	// has, however detached: how stop finds them (ELICITRAY_HOME=home).
	mark string
	// env is the environment of the wrappers and commands the test runs;
	// nil is the test's own (with ELICITRAY_HOME).
	env []string
	// hostEnv is the environment of the host programs the test runs (which
	// start wrappers themselves); nil is the test's own.
	hostEnv []string
	// hostOptions are the Go SDK host's (connect); nil declares no
	// elicitation.
	hostOptions *mcp.ClientOptions
	// unmaps tells a window found (window) from the same X window shown
	// again for a later prompt: the window process reuses hidden windows.
	unmaps *unmapWatch
}

// unmapWatch counts the X server's unmaps of top-level windows, to tell
// whether a window was unmapped since it was found.
type unmapWatch struct {
	mu     sync.Mutex
	conn   *xgb.Conn
	counts map[string]int // by window id, as xdotool prints it
	marks  map[string]int // counts[id] when window found id
}

// newUnmapWatch watches the root window's children on display.
func newUnmapWatch(t *testing.T, display string) *unmapWatch {
	t.Helper()
	return &unmapWatch{conn: watchRoot(t, display), counts: map[string]int{}, marks: map[string]int{}}
}

// watchRoot connects to the X server on display and asks for the events of
// the root window's children (maps, unmaps). An X server whose last client
// left (the previous test's) resets and refuses connections meanwhile:
// those are tried again.
func watchRoot(t *testing.T, display string) *xgb.Conn {
	t.Helper()
	deadline := time.Now().Add(desktopWait)
	for {
		conn, err := xgb.NewConnDisplay(display)
		if err == nil {
			root := xproto.Setup(conn).DefaultScreen(conn).Root
			err = xproto.ChangeWindowAttributesChecked(conn, root, xproto.CwEventMask,
				[]uint32{xproto.EventMaskSubstructureNotify}).Check()
			if err == nil {
				t.Cleanup(conn.Close)
				return conn
			}
			conn.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("watching the X server's windows: %v", err)
		}
		time.Sleep(pollEvery)
	}
}

// sync counts every unmap the X server made before now: a round trip, then
// the events queued before its reply.
func (u *unmapWatch) sync() {
	_, _ = xproto.GetInputFocus(u.conn).Reply()
	for {
		ev, err := u.conn.PollForEvent()
		if ev == nil && err == nil {
			return
		}
		if um, ok := ev.(xproto.UnmapNotifyEvent); ok {
			u.counts[strconv.FormatUint(uint64(um.Window), 10)]++
		}
	}
}

// mark notes that window win was found on the screen now. A nil watch
// notes nothing.
func (u *unmapWatch) mark(win string) {
	if u == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.sync()
	u.marks[win] = u.counts[win]
}

// unmappedSince reports whether win was unmapped since it was marked.
func (u *unmapWatch) unmappedSince(win string) bool {
	if u == nil {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.sync()
	m, ok := u.marks[win]
	return ok && u.counts[win] > m
}

// newDesktop gives t its own ELICITRAY_HOME, set in the test process, on
// the run's display and session bus, and, in Cleanup, stops its hub and
// checks that no process started for it is left.
func newDesktop(t *testing.T) *testDesktop {
	t.Helper()
	needDesktopTools(t)
	d := &testDesktop{t: t, home: testkit.Home(t), display: os.Getenv("DISPLAY")}
	d.unmaps = newUnmapWatch(t, d.display)
	d.paths = paths.FromEnv(os.Getenv)
	d.mark = "ELICITRAY_HOME=" + d.home
	t.Cleanup(d.stop)
	return d
}

// newParallelDesktop is newDesktop for a test that runs in parallel with
// others (it calls t.Parallel): its home, X server and session bus are its
// own (newTestEnv), given to every process it starts in d.env and
// d.hostEnv, never set in the test process.
func newParallelDesktop(t *testing.T) *testDesktop {
	t.Helper()
	t.Parallel()
	needDesktopTools(t)
	e := newTestEnv(t, true)
	d := &testDesktop{t: t, home: e.home, display: e.display, env: e.vars, hostEnv: e.vars}
	d.unmaps = newUnmapWatch(t, d.display)
	d.paths = paths.Under(d.home)
	d.mark = "ELICITRAY_HOME=" + d.home
	t.Cleanup(d.stop)
	return d
}

// needDesktopTools skips a test that shows windows where there is no X
// server (needDisplay), and fails it without the tools that drive them.
func needDesktopTools(t *testing.T) {
	t.Helper()
	needDisplay(t)
	for _, tool := range []string{"xdotool", "import", "Xvfb", "dbus-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to drive windows (make deps-system installs it): %v", tool, err)
		}
	}
}

// environ is the environment of the processes d starts: d.env, or the
// test process's when that is nil.
func (d *testDesktop) environ() []string {
	if d.env != nil {
		return d.env
	}
	return os.Environ()
}

// x is the X client name args… (xdotool, import) on d's display.
func (d *testDesktop) x(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+d.display)
	return cmd
}

// with is d for subtest t.
func (d *testDesktop) with(t *testing.T) *testDesktop {
	c := *d
	c.t = t
	return &c
}

// connect runs `elicitray wrap --name name -- server…` as the official Go
// SDK's host would, and initializes a session at protocol version 2025-11-25
// (legacy elicitation, PROTOCOL.md §1). The host has no ElicitationHandler,
// so it declares no elicitation itself: the wrapper does.
func (d *testDesktop) connect(name string, server ...string) *mcp.ClientSession {
	d.t.Helper()
	return d.connectVia(nil, name, server...)
}

// connectVia is connect with the wrapper started through launcher (e.g.
// setsid -f), as a host that runs it through another program would.
func (d *testDesktop) connectVia(launcher []string, name string, server ...string) *mcp.ClientSession {
	d.t.Helper()
	return d.connectWrap(launcher, "2025-11-25", append([]string{"--name", name, "--"}, server...))
}

// connectWrap runs `elicitray wrap ARGS…` (through launcher, if any) as
// the official Go SDK's host, and initializes a session at version.
func (d *testDesktop) connectWrap(launcher []string, version string, args []string) *mcp.ClientSession {
	d.t.Helper()
	name := "server"
	for i, a := range args {
		if a == "--name" && i+1 < len(args) {
			name = args[i+1]
		}
	}
	logPath := filepath.Join(d.t.TempDir(), "wrapper-"+name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		d.t.Fatal(err)
	}
	d.logs = append(d.logs, logPath)
	argv := append(append(append([]string{}, launcher...), testkit.Binary(d.t), "wrap"), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = d.env
	// A file, not a buffer: exec.Cmd.Wait would wait for every holder of a pipe.
	cmd.Stderr = logf
	host := mcp.NewClient(&mcp.Implementation{Name: "elicitray-e2e-host", Version: "1.0.0"}, d.hostOptions)
	cs, err := host.Connect(d.t.Context(), &mcp.CommandTransport{Command: cmd},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		logf.Close()
		d.t.Fatalf("connecting to elicitray wrap: %v%s", err, d.diagnostics())
	}
	if v := cs.InitializeResult().ProtocolVersion; v != version {
		d.t.Errorf("session at protocol version %q, want %s", v, version)
	}
	d.t.Cleanup(func() {
		// Closing the session closes the wrapper's stdin: the wrapper stops
		// its server and exits (the hub stays, as for a real host).
		if err := cs.Close(); err != nil {
			d.t.Logf("closing the MCP session: %v", err)
		}
		logf.Close()
	})
	return cs
}

// toolCall is the outcome of one tools/call.
type toolCall struct {
	res *mcp.CallToolResult
	err error
}

// call starts tools/call name in the background: it blocks until someone
// answers the elicitation it causes.
func (d *testDesktop) call(cs *mcp.ClientSession, name string) <-chan toolCall {
	return d.callArgs(cs, name, map[string]any{})
}

// callArgs is call with the call's arguments.
func (d *testDesktop) callArgs(cs *mcp.ClientSession, name string, args map[string]any) <-chan toolCall {
	ch := make(chan toolCall, 1)
	ctx := d.t.Context()
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		ch <- toolCall{res, err}
	}()
	return ch
}

// result waits for a call's result and returns its text, failing the test
// on an error result.
func (d *testDesktop) result(ch <-chan toolCall) string {
	d.t.Helper()
	text, isError := d.outcome(ch)
	if isError {
		d.t.Fatalf("tools/call returned an error result: %s%s", text, d.diagnostics())
	}
	return text
}

// outcome waits for a call's result: its text, and whether it is an error
// result.
func (d *testDesktop) outcome(ch <-chan toolCall) (text string, isError bool) {
	d.t.Helper()
	select {
	case c := <-ch:
		if c.err != nil {
			d.t.Fatalf("tools/call failed: %v%s", c.err, d.diagnostics())
		}
		var b strings.Builder
		for _, content := range c.res.Content {
			if tc, ok := content.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), c.res.IsError
	case <-time.After(desktopWait):
		d.t.Fatalf("no tools/call result within %v (held for a window nobody saw?)%s", desktopWait, d.diagnostics())
	}
	return "", false
}

// hubPID is the PID the running hub wrote in its lock file, or 0 while there
// is none (no hub yet, or one still writing it).
func (d *testDesktop) hubPID() int {
	b, err := os.ReadFile(d.paths.Lock)
	if err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return pid
		}
	}
	// On a full disk the lock file stays empty: ask the socket who listens.
	conn, err := net.Dial("unix", d.paths.Socket)
	if err != nil {
		return 0
	}
	defer conn.Close()
	_, pid, err := platform.Peer(conn, true)
	if err != nil {
		return 0
	}
	return pid
}

// window waits for the hub's prompt window and returns its X window id and
// the hub's PID. Only windows of the hub named in the lock file count, so
// windows of other tests on the same X server never do; there must be
// exactly one, as prompts queue. A prompt window is returned once it takes
// input (armed), as a person starts typing once the window is ready.
func (d *testDesktop) window() (win string, hubPID int) {
	d.t.Helper()
	return d.windowUnless(nil, nil)
}

// windowUnless is window, except that it fails at once when ended closes
// before a window appears: the call that was to ask has ended, and why says
// how it ended.
func (d *testDesktop) windowUnless(ended <-chan struct{}, why func() string) (win string, hubPID int) {
	d.t.Helper()
	win, hubPID = d.mappedUnless(ended, why)
	if d.isPrompt(win) {
		d.armed(win)
	}
	return win, hubPID
}

// mapped is window without the wait for a prompt to take input: the
// window as soon as it is on the screen.
func (d *testDesktop) mapped() (win string, hubPID int) {
	d.t.Helper()
	return d.mappedUnless(nil, nil)
}

// mappedUnless is mapped, failing at once when ended closes first (see
// windowUnless).
func (d *testDesktop) mappedUnless(ended <-chan struct{}, why func() string) (win string, hubPID int) {
	d.t.Helper()
	deadline := time.Now().Add(desktopWait)
	for {
		select {
		case <-ended:
			d.t.Fatalf("no prompt window appeared: %s%s", why(), d.diagnostics())
		default:
		}
		if pid := d.hubPID(); pid > 0 {
			if ids := d.visibleWindows(strconv.Itoa(pid)); len(ids) == 1 {
				d.unmaps.mark(ids[0])
				return ids[0], pid
			} else if len(ids) > 1 {
				d.t.Fatalf("hub %d shows %d prompt windows at once, want one at a time%s", pid, len(ids), d.diagnostics())
			}
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("no prompt window appeared within %v%s", desktopWait, d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
}

// visibleWindows lists the viewable windows whose title starts with
// "elicitray", and, when pid is not empty, every one of the hub pid and of
// its window process (`elicitray ui`, a child of the hub's).
func (d *testDesktop) visibleWindows(pid string) []string {
	var pids []int
	if pid != "" {
		for _, p := range append([]string{pid}, childPIDs(pid)...) {
			if n, err := strconv.Atoi(p); err == nil {
				pids = append(pids, n)
			}
		}
	}
	return elicitrayWindows(d.display, pids)
}

// childPIDs lists the children of process pid (every thread's).
func childPIDs(pid string) []string {
	tasks, _ := filepath.Glob("/proc/" + pid + "/task/*/children")
	var kids []string
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		kids = append(kids, strings.Fields(string(b))...)
	}
	return kids
}

// promptTitle matches the titles of prompt windows (ui's promptTitle,
// toolCallTitle, urlPromptTitle and a changed tool's), in English and in Chinese, not those of
// the menu, history, settings and start-at-login windows.
var promptTitle = regexp.MustCompile(`^elicitray — (.+ asks|.+ asks to open a link|approve a tool call to .+\?|.+ changed a tool|` +
	`.+ 发来请求|.+ 请求打开链接|批准对 .+ 的工具调用？|.+ 更改了一个工具)$`)

// isPrompt reports whether window win is a prompt window: one that takes
// no input until it is armed. A window gone is none.
func (d *testDesktop) isPrompt(win string) bool {
	out, err := d.x("xdotool", "getwindowname", win).Output()
	return err == nil && promptTitle.MatchString(strings.TrimSpace(string(out)))
}

// armedProperty connects to the X server for window win's
// ui.ArmedProperty: the connection (the caller closes it), the window and
// the property's atom.
func (d *testDesktop) armedProperty(win string) (*xgb.Conn, xproto.Window, *xproto.InternAtomReply) {
	d.t.Helper()
	n, err := strconv.ParseUint(win, 10, 32)
	if err != nil {
		d.t.Fatalf("window id %q: %v", win, err)
	}
	conn, err := xgb.NewConnDisplay(d.display)
	if err != nil {
		d.t.Fatalf("connecting to the X server: %v", err)
	}
	name := ui.ArmedProperty
	atom, err := xproto.InternAtom(conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		conn.Close()
		d.t.Fatalf("interning %s: %v", name, err)
	}
	return conn, xproto.Window(n), atom
}

// armed waits until prompt window win takes input — its key guard over,
// the first field focused — which the window says with the X property
// ui.ArmedProperty, and reports true; or until the window is gone (shown
// again for a later prompt, closed, unmapped), and reports false. It
// waits on the X server's events: PropertyNotify, UnmapNotify.
func (d *testDesktop) armed(win string) bool {
	d.t.Helper()
	conn, id, atom := d.armedProperty(win)
	defer conn.Close()
	if xproto.ChangeWindowAttributesChecked(conn, id, xproto.CwEventMask,
		[]uint32{xproto.EventMaskPropertyChange | xproto.EventMaskStructureNotify}).Check() != nil {
		return false // gone
	}
	events := make(chan xgb.Event, 16)
	done := make(chan struct{})
	defer close(done) // before conn.Close, which ends the reader
	go func() {
		defer close(events)
		for {
			ev, err := conn.WaitForEvent()
			if ev == nil && err == nil {
				return // closed
			}
			if ev == nil {
				continue
			}
			select {
			case events <- ev:
			case <-done:
				return
			}
		}
	}()
	deadline := time.After(desktopWait)
	for {
		// Read after the events were asked for: a change from now on
		// wakes the loop.
		r, err := xproto.GetProperty(conn, false, id, atom.Atom, xproto.AtomCardinal, 0, 1).Reply()
		if err != nil {
			return false // gone
		}
		if r.ValueLen > 0 {
			if d.unmaps.unmappedSince(win) {
				return false // a later prompt's
			}
			return true
		}
	wait:
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					d.t.Fatalf("the X connection closed while waiting for window %s to take input", win)
				}
				switch e := ev.(type) {
				case xproto.PropertyNotifyEvent:
					if e.Atom == atom.Atom {
						break wait
					}
				case xproto.UnmapNotifyEvent, xproto.DestroyNotifyEvent:
					return false
				}
			case <-deadline:
				d.t.Fatalf("prompt window %s did not take input (%s) within %v%s", win, ui.ArmedProperty, desktopWait, d.diagnostics())
			}
		}
	}
}

// title is the title of window win.
func (d *testDesktop) title(win string) string {
	d.t.Helper()
	out, err := d.x("xdotool", "getwindowname", win).Output()
	if err != nil {
		d.t.Fatalf("xdotool getwindowname %s: %v", win, err)
	}
	return strings.TrimSpace(string(out))
}

// closed waits until window win is no longer on the screen.
func (d *testDesktop) closed(win string) {
	d.t.Helper()
	deadline := time.Now().Add(desktopWait)
	for {
		if !d.visible(win) {
			return
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("window %s still open %v after it was answered%s", win, desktopWait, d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
}

// answer presses key in window win, which the key closes, and returns once
// the window is gone. A prompt ignores keys until it is armed (ui.keyGuard;
// DESIGN.md: "A key pressed just before a window appears must not answer
// it"): answer waits for that (armed), then presses once. Another window
// (history, menu) says nothing of when its first frames take keys: like a
// person whose first key did nothing, answer presses again until it goes.
// It returns the number of presses.
func (d *testDesktop) answer(win, key string) int {
	d.t.Helper()
	d.releaseKeys()
	defer d.releaseKeys(key)
	if d.isPrompt(win) {
		if d.armed(win) {
			d.keysClosing(win, key)
		}
		d.closed(win)
		return 1
	}
	deadline := time.Now().Add(desktopWait)
	for presses := 1; ; presses++ {
		out, err := d.x("xdotool", "key", "--window", win, key).CombinedOutput()
		if !d.visible(win) {
			// The key answered: the window may have gone between the key's
			// press and release, so xdotool's BadWindow is no failure.
			return presses
		}
		if err != nil {
			d.t.Fatalf("xdotool key --window %s %s: %v\n%s%s", win, key, err, out, d.diagnostics())
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("window still open after pressing %s for %v%s", key, desktopWait, d.diagnostics())
		}
		// Give the hub time to act on the key before pressing again; a
		// key it acts on after the window answered is ignored.
		for end := time.Now().Add(pressAgain); time.Now().Before(end); time.Sleep(pollEvery) {
			if !d.visible(win) {
				return presses
			}
		}
	}
}

// visible reports whether window win is on the screen, still showing what
// it showed when window found it.
func (d *testDesktop) visible(win string) bool {
	// Shown again since window found it, it shows a later prompt.
	if d.unmaps.unmappedSince(win) {
		return false
	}
	for _, id := range d.visibleWindows("") {
		if id == win {
			return true
		}
	}
	return false
}

// typeInto types text into the focused field of prompt window win once the
// window takes input (armed): typed before, it goes nowhere, on purpose.
func (d *testDesktop) typeInto(win, text string) {
	d.t.Helper()
	if !d.armed(win) {
		d.t.Fatalf("window %s went before it took input: nothing typed%s", win, d.diagnostics())
	}
	d.xdo("type", "--window", win, text)
}

// xdo runs xdotool with args: typing and key presses go to the window named
// by --window (XSendEvent), which needs no window manager.
func (d *testDesktop) xdo(args ...string) {
	d.t.Helper()
	if out, err := d.x("xdotool", args...).CombinedOutput(); err != nil {
		d.t.Fatalf("xdotool %s: %v\n%s%s", strings.Join(args, " "), err, out, d.diagnostics())
	}
}

// keysClosing presses keys in window win, the last of which closes it: the
// window may go between that key's press and its release, so xdotool's
// BadWindow for the release is no failure once the window is gone.
func (d *testDesktop) keysClosing(win string, keys ...string) {
	d.t.Helper()
	args := append([]string{"key", "--window", win}, keys...)
	if out, err := d.x("xdotool", args...).CombinedOutput(); err != nil && d.visible(win) {
		d.t.Fatalf("xdotool %s: %v\n%s%s", strings.Join(args, " "), err, out, d.diagnostics())
	}
	d.releaseKeys(keys...)
}

// screenshot saves the whole screen as DIR/name when ELICITRAY_SCREENSHOTS
// names a directory (make screenshots: the pictures of docs/). It waits for
// the picture to settle first, so that what was just typed is on it.
func (d *testDesktop) screenshot(name string) {
	d.t.Helper()
	dir := os.Getenv("ELICITRAY_SCREENSHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		d.t.Fatal(err)
	}
	d.settle()
	path := filepath.Join(dir, name)
	// The whole screen, trimmed to the window: Xvfb's background is black.
	if out, err := d.x("import", "-window", "root", "-trim", "+repage", path).CombinedOutput(); err != nil {
		d.t.Fatalf("import -window root %s: %v\n%s", path, err, out)
	}
	d.t.Logf("screenshot: %s", path)
}

// settle waits until three screen captures in a row agree but for a blinking
// text cursor: Fyne paints keys it has handled on a later frame.
func (d *testDesktop) settle() {
	d.t.Helper()
	const cursorPixels = 400 // a text cursor is a few pixels wide, a line high
	prev := d.capture()
	deadline := time.Now().Add(desktopWait)
	for same := 0; same < 2; {
		if time.Now().After(deadline) {
			d.t.Fatalf("the screen kept changing for %v", desktopWait)
		}
		time.Sleep(pollEvery)
		cur := d.capture()
		if changed := changedPixels(prev, cur); changed < cursorPixels {
			same++
		} else {
			same = 0
		}
		prev = cur
	}
}

// capture is the screen as raw RGB bytes.
func (d *testDesktop) capture() []byte {
	d.t.Helper()
	out, err := d.x("import", "-window", "root", "-depth", "8", "rgb:-").Output()
	if err != nil {
		d.t.Fatalf("import -window root rgb:-: %v", err)
	}
	return out
}

// changedPixels counts the RGB pixels that differ between a and b.
func changedPixels(a, b []byte) int {
	if len(a) != len(b) {
		return max(len(a), len(b)) / 3
	}
	n := 0
	for i := 0; i+2 < len(a); i += 3 {
		if a[i] != b[i] || a[i+1] != b[i+1] || a[i+2] != b[i+2] {
			n++
		}
	}
	return n
}

// history is `elicitray history list --json`: every decision, newest first.
func (d *testDesktop) history(flags ...string) []history.Record {
	d.t.Helper()
	cmd := exec.Command(testkit.Binary(d.t), append([]string{"history", "list", "--json"}, flags...)...)
	cmd.Env = d.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		d.t.Fatalf("elicitray history list --json: %v\n%s%s", err, stderr.String(), d.diagnostics())
	}
	var recs []history.Record
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var r history.Record
		if err := dec.Decode(&r); err != nil {
			d.t.Fatalf("elicitray history list --json printed something else than records: %v\n%s", err, out)
		}
		recs = append(recs, r)
	}
	return recs
}

// decision is what the history says about one elicitation, as a person
// reading `elicitray history` sees it.
type decision struct {
	Server     string
	ServerInfo string
	Tool       string
	Action     string
	DecidedBy  string
	Reason     string
	Content    map[string]any
}

func decisionOf(r history.Record) decision {
	return decision{
		Server:     r.Server,
		ServerInfo: r.ServerInfo.Name,
		Tool:       r.Tool,
		Action:     r.Action,
		DecidedBy:  r.DecidedBy,
		Reason:     r.Reason,
		Content:    asDecoded(r.Content),
	}
}

// asDecoded is content as a JSON reader without json.Number decodes it
// (numbers float64), the shape parseRawResult gives what the server got:
// history keeps numbers as json.Number, with every digit.
func asDecoded(content map[string]any) map[string]any {
	if content == nil {
		return nil
	}
	b, err := json.Marshal(content)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// diagnostics is the hub log and the wrapper logs, for failure messages.
func (d *testDesktop) diagnostics() string {
	var b strings.Builder
	hubLog, err := os.ReadFile(d.paths.HubLog)
	if err != nil {
		hubLog = []byte(err.Error())
	}
	b.WriteString("\n--- hub log (" + d.paths.HubLog + ") ---\n")
	b.Write(hubLog)
	list := exec.Command(testkit.Binary(d.t), "history", "list")
	list.Env = d.env
	hist, err := list.CombinedOutput()
	if err != nil {
		hist = append(hist, err.Error()...)
	}
	b.WriteString("\n--- elicitray history list ---\n")
	b.Write(hist)
	for _, p := range d.logs {
		wl, _ := os.ReadFile(p)
		b.WriteString("\n--- wrapper log ---\n")
		b.Write(wl)
	}
	return b.String()
}

// stop kills the hub (a user's hub outlives its wrappers; a test's must
// not) and waits until no process started for this test is left: wrappers,
// servers, hubs. A process left behind would keep the test's session bus
// (dbus-run-session) and X server alive after the run.
func (d *testDesktop) stop() {
	if pid := d.hubPID(); pid > 0 && len(ownProcesses(d.mark, pid)) > 0 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(desktopWait)
	for {
		left := ownProcesses(d.mark, 0)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			d.t.Errorf("processes left %v after the test:\n%s", desktopWait, strings.Join(left, "\n"))
			for _, p := range left {
				pid, _ := strconv.Atoi(strings.Fields(p)[0])
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(pollEvery)
	}
}

// ownProcesses lists ("PID command line") the live processes, other than
// this test, whose environment has the entry want (ELICITRAY_HOME=…, or
// HOME=… for a test without it): everything the test started, however
// detached. With only set, it looks at that PID alone.
func ownProcesses(want string, only int) []string {
	var pids []string
	if only > 0 {
		pids = []string{strconv.Itoa(only)}
	} else {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			if _, err := strconv.Atoi(e.Name()); err == nil {
				pids = append(pids, e.Name())
			}
		}
	}
	self := strconv.Itoa(os.Getpid())
	var left []string
	for _, pid := range pids {
		if pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + pid + "/environ")
		if err != nil || !hasEntry(env, want) || zombie(pid) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + pid + "/cmdline")
		left = append(left, pid+" "+strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return left
}

// hasEntry reports whether the NUL-separated environment env holds entry.
func hasEntry(env []byte, entry string) bool {
	for _, e := range bytes.Split(env, []byte{0}) {
		if string(e) == entry {
			return true
		}
	}
	return false
}

// zombie reports whether process pid has exited and only waits to be
// reaped by its parent.
func zombie(pid string) bool {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name in parentheses, which may contain
	// anything: look after the last ')'.
	s := string(stat)
	rest := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(rest) > 0 && rest[0] == "Z"
}

// rawResult is the ElicitResult server-everything received, as it echoes it
// after "Raw result: ".
type rawResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

var rawResultRE = regexp.MustCompile(`(?s)Raw result: (\{.*\})`)

func parseRawResult(t *testing.T, text string) rawResult {
	t.Helper()
	m := rawResultRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("tool result has no \"Raw result: {…}\":\n%s", text)
	}
	var r rawResult
	if err := json.Unmarshal([]byte(m[1]), &r); err != nil {
		t.Fatalf("tool result's raw result is not JSON: %v\n%s", err, text)
	}
	return r
}

// awaitHub waits until d's hub answers on its socket, failing the test
// after desktopWait with what says why (a log) otherwise.
func (d *testDesktop) awaitHub(says func() string) {
	d.t.Helper()
	deadline := time.Now().Add(desktopWait)
	for !hubAnswers(d.t.Context(), d.paths) {
		if time.Now().After(deadline) {
			d.t.Fatalf("the hub did not answer within %v:\n%s", desktopWait, says())
		}
		time.Sleep(pollEvery)
	}
}

// logOf is awaitHub's says for a log file.
func logOf(path string) func() string {
	return func() string {
		out, _ := os.ReadFile(path)
		return string(out)
	}
}

// hubAnswers reports whether a hub answers a history query on its socket.
func hubAnswers(ctx context.Context, p paths.Paths) bool {
	c := &hubapi.Client{Paths: p} // no start: never starts a hub
	defer c.Close()
	_, err := c.History(ctx, hubapi.HistoryRequest{Query: &history.Query{Limit: 1}})
	return err == nil
}

// releaseKeys releases, in the X server itself (XTEST: xdotool keyup with
// no --window), every key of the combinations keys ("shift+Tab", "alt"),
// and always Alt, Ctrl and Shift. xdotool presses a key with XTEST when
// the window it is sent to has the focus, and with XSendEvent otherwise,
// deciding again for the release: a window that closes on a key's press
// (Escape, Return, Space on Quit, Alt+D) makes the release a synthetic
// event sent to a window that is gone, and leaves the key down in the X
// server. The server then repeats it into the window that has the focus
// next (an Escape closed a new menu window so), or, for a modifier, makes
// every key there Alt+key, Ctrl+key or Shift+key (the menu's Space on Quit
// did nothing), in about a third of runs under load. A release of a key
// that is not down does nothing.
func (d *testDesktop) releaseKeys(keys ...string) {
	d.t.Helper()
	names := []string{"alt", "ctrl", "shift"}
	for _, k := range keys {
		for n := range strings.SplitSeq(k, "+") {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	d.xdo(append([]string{"keyup"}, names...)...)
}

// elicitrayWindows lists the viewable windows on display whose title
// starts with "elicitray" or whose _NET_WM_PID is one of pids, as
// `xdotool search --onlyvisible --pid P --name '^elicitray'` does for one
// P (its conditions are joined by "or" unless --all): asked over one X
// connection of the test's own instead of a process per PID and poll.
// Titles are _NET_WM_NAME (UTF-8), else WM_NAME.
func elicitrayWindows(display string, pids []int) []string {
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil
	}
	defer c.Close()
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
		if err != nil {
			return xproto.AtomNone
		}
		return r.Atom
	}
	netName, utf8, wmPID := atom("_NET_WM_NAME"), atom("UTF8_STRING"), atom("_NET_WM_PID")
	prop := func(w xproto.Window, name, typ xproto.Atom) []byte {
		r, err := xproto.GetProperty(c, false, w, name, typ, 0, 1<<16).Reply()
		if err != nil || r == nil {
			return nil
		}
		return r.Value
	}
	var found []string
	var walk func(w xproto.Window)
	walk = func(w xproto.Window) {
		tree, err := xproto.QueryTree(c, w).Reply()
		if err != nil {
			return
		}
		for _, k := range tree.Children {
			walk(k)
			attrs, err := xproto.GetWindowAttributes(c, k).Reply()
			if err != nil || attrs.MapState != xproto.MapStateViewable {
				continue
			}
			title := prop(k, netName, utf8)
			if title == nil {
				title = prop(k, xproto.AtomWmName, xproto.AtomString)
			}
			ours := strings.HasPrefix(string(title), "elicitray")
			if v := prop(k, wmPID, xproto.AtomCardinal); !ours && len(v) == 4 {
				ours = slices.Contains(pids, int(xgb.Get32(v)))
			}
			if ours {
				found = append(found, strconv.FormatUint(uint64(k), 10))
			}
		}
	}
	walk(xproto.Setup(c).DefaultScreen(c).Root)
	return found
}
