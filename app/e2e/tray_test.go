//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png" // the app icon, to compare with the tray's
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/internal/testkit"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/assets"
	"github.com/elicitray/elicitray/history"
)

// These tests run the real hub on a session bus of their own, as a desktop
// session would: one with a tray host (a StatusNotifier watcher, played by
// the test), one whose bus has none, and one with no session bus at all.
// They read and click the tray menu over DBus as a tray host does
// (StatusNotifierItem and com.canonical.dbusmenu, which fyne.io/systray
// exports on Linux).

// trayWait bounds every wait for the hub: generous, because a loaded machine
// may take seconds to start Fyne; a working run never waits that long.
const trayWait = 15 * time.Second

// trayPoll is how often a wait looks again.
const trayPoll = 50 * time.Millisecond

// trayNoHostLog is what the hub logs when the session has no tray host
// (hubgui.go).
const trayNoHostLog = "no tray host"

// trayWantMenu is the tray menu as a tray host shows it right after the hub
// starts (ui/tray.go: the first line is pendingText(0), greyed out; no
// server has asked yet, so the mute submenu has none).
var trayWantMenu = []string{
	"No prompts waiting [disabled]",
	"-----",
	"Pause all prompts",
	"Mute for an hour",
	"  (no servers yet) [disabled]",
	"-----",
	"History…",
	"Settings…",
	"-----",
	"Quit",
}

func TestTrayWithWatcher(t *testing.T) {
	needDisplay(t)
	t.Parallel()
	e := newTestEnv(t, false)
	trayNoLeftovers(t, e.home)
	addr := trayStartBus(t)
	conn := trayConnect(t, addr)
	items := trayServeWatcher(t, conn)
	hub := trayStartHub(t, e, addr)

	var item trayItem
	select {
	case item = <-items:
	case <-hub.exited:
		t.Fatalf("the hub exited without registering a tray icon:\n%s", hub.log())
	case <-time.After(trayWait):
		t.Fatalf("the hub registered no tray icon (StatusNotifierItem) within %v:\n%s", trayWait, hub.log())
	}
	// The hub decides on its tray before Fyne starts the tray, which then
	// registers: the log line would be there by now.
	if log := hub.log(); strings.Contains(log, trayNoHostLog) {
		t.Errorf("the hub registered a tray icon but logged that there is no tray host:\n%s", log)
	}

	itemObj := conn.Object(item.bus, item.path)
	trayCheckIcon(t, itemObj, hub)
	menuPath := trayMenuPath(t, itemObj, hub)
	menu := conn.Object(item.bus, menuPath)

	// Fyne fills the menu once the tray is up: wait for the last entry.
	var got []trayEntry
	deadline := time.Now().Add(trayWait)
	for {
		var err error
		got, err = trayReadMenu(t.Context(), menu)
		if err == nil && trayFind(got, "Quit") != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tray menu has no Quit within %v (last read: %v, %v):\n%s", trayWait, trayLines(got), err, hub.log())
		}
		time.Sleep(trayPoll)
	}
	if diff := cmp.Diff(trayWantMenu, trayLines(got)); diff != "" {
		t.Errorf("tray menu mismatch (-want +got):\n%s", diff)
	}

	// Pausing from the tray: the item then offers to resume, and back.
	trayClickUntil(t, menu, hub, "Pause all prompts", "Resume prompts")
	trayClickUntil(t, menu, hub, "Resume prompts", "Pause all prompts")

	trayClickQuit(t, menu, hub)
	hub.checkCleanExit(t, "after Quit in the tray menu")
}

func TestTrayAbsentRunsClean(t *testing.T) {
	needDisplay(t)
	t.Parallel()
	for _, tt := range []struct {
		name string
		bus  bool // whether the session has a bus (without a watcher)
	}{
		{name: "bus without watcher", bus: true},
		{name: "no session bus", bus: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, false)
			trayNoLeftovers(t, e.home)
			addr := ""
			if tt.bus {
				addr = trayStartBus(t)
			}
			hub := trayStartHub(t, e, addr)

			trayWaitAnswers(t, paths.Under(e.home), hub)
			// The hub serves only after deciding on its tray: the log line,
			// if any, is there by now.
			if n := strings.Count(hub.log(), trayNoHostLog); n != 1 {
				t.Errorf("the hub logged %q %d times, want once:\n%s", trayNoHostLog, n, hub.log())
			}

			if err := hub.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatalf("sending SIGTERM to the hub: %v", err)
			}
			hub.checkCleanExit(t, "after SIGTERM")
		})
	}
}

// trayBusConfig is a session bus that activates no services, so it starts
// no process of its own; %s is the directory of its socket.
const trayBusConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// trayStartBus starts a private session bus (dbus-daemon) for t, stopped in
// Cleanup, and returns its address.
func trayStartBus(t *testing.T) string {
	t.Helper()
	// Short: the socket lives here, and unix socket paths are limited.
	dir, err := os.MkdirTemp("", "er-bus-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	config := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(config, fmt.Appendf(nil, trayBusConfig, dir), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dbus-daemon", "--config-file="+config, "--nofork", "--nopidfile", "--print-address")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting dbus-daemon (make deps-system installs it): %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	type line struct {
		s   string
		err error
	}
	addr := make(chan line, 1)
	go func() {
		s, err := bufio.NewReader(out).ReadString('\n')
		addr <- line{strings.TrimSpace(s), err}
	}()
	// stderr may be read only once the daemon is gone.
	failed := func(format string, args ...any) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("dbus-daemon "+format+":\n%s", append(args, stderr.String())...)
	}
	select {
	case l := <-addr:
		if l.err != nil || l.s == "" {
			failed("printed no address (%v)", l.err)
		}
		return l.s
	case <-time.After(trayWait):
		failed("printed no address within %v", trayWait)
	}
	return ""
}

// trayConnect connects the test to the bus at addr, until Cleanup.
func trayConnect(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connecting to the test's session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// trayItem is a registered StatusNotifierItem: a tray icon.
type trayItem struct {
	bus  string // the unique bus name of its process
	path dbus.ObjectPath
}

// trayWatcher is the StatusNotifier watcher a tray host runs, reduced to
// what fyne.io/systray uses: it records the items that register.
type trayWatcher struct {
	items chan trayItem
	props *prop.Properties

	mu    sync.Mutex
	paths []string // RegisteredStatusNotifierItems
}

// RegisterStatusNotifierItem is org.kde.StatusNotifierWatcher's method. The
// item names either its bus name or, as fyne.io/systray does, its object
// path on the caller's connection.
func (w *trayWatcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	item := trayItem{bus: service, path: "/StatusNotifierItem"}
	if strings.HasPrefix(service, "/") {
		item = trayItem{bus: string(sender), path: dbus.ObjectPath(service)}
	}
	w.mu.Lock()
	w.paths = append(w.paths, item.bus+string(item.path))
	w.props.SetMust("org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems", slices.Clone(w.paths))
	w.mu.Unlock()
	select {
	case w.items <- item:
	default: // only the first registrations count
	}
	return nil
}

// trayServeWatcher makes the test the session's tray host: it owns
// org.kde.StatusNotifierWatcher on conn. Registered items arrive on the
// channel.
func trayServeWatcher(t *testing.T, conn *dbus.Conn) <-chan trayItem {
	t.Helper()
	const (
		path  = dbus.ObjectPath("/StatusNotifierWatcher")
		iface = "org.kde.StatusNotifierWatcher"
	)
	w := &trayWatcher{items: make(chan trayItem, 8)}
	if err := conn.Export(w, path, iface); err != nil {
		t.Fatalf("exporting the watcher: %v", err)
	}
	props, err := prop.Export(conn, path, prop.Map{iface: {
		"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
		"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitTrue},
		"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
	}})
	if err != nil {
		t.Fatalf("exporting the watcher's properties: %v", err)
	}
	w.props = props
	reply, err := conn.RequestName(iface, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("taking %s on the test's bus: %v (reply %v)", iface, err, reply)
	}
	return w.items
}

// trayHub is one `elicitray hub` process.
type trayHub struct {
	cmd     *exec.Cmd
	logPath string        // its stderr
	exited  chan struct{} // closed once it exited; then err is its Wait error
	err     error
}

// trayStartHub starts `elicitray hub` in e's environment (its
// ELICITRAY_HOME), with session bus busAddr (none when empty), and stops it
// in Cleanup if it still runs.
func trayStartHub(t *testing.T, e *testEnv, busAddr string) *trayHub {
	t.Helper()
	h := &trayHub{logPath: filepath.Join(t.TempDir(), "hub.log"), exited: make(chan struct{})}
	logf, err := os.Create(h.logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	var env []string
	for _, kv := range e.vars {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "DBUS_SESSION_BUS_ADDRESS", "LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES":
			continue // set below; the LC_ ones would override LANG
		}
		env = append(env, kv)
	}
	env = append(env, "LANG=en_US.UTF-8")
	if busAddr != "" {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+busAddr)
	}
	h.cmd = exec.Command(testkit.Binary(t), "hub")
	h.cmd.Env = env
	// A file, not a buffer: the log can be read while the hub runs.
	h.cmd.Stderr = logf
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("starting the hub: %v", err)
	}
	go func() {
		h.err = h.cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-h.exited:
			return
		default:
		}
		_ = h.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-h.exited:
		case <-time.After(trayWait):
			t.Errorf("the hub did not stop within %v of SIGTERM; killing it:\n%s", trayWait, h.log())
			_ = h.cmd.Process.Kill()
			<-h.exited
		}
	})
	return h
}

// log is what the hub wrote on stderr so far.
func (h *trayHub) log() string {
	b, err := os.ReadFile(h.logPath)
	if err != nil {
		return fmt.Sprintf("(reading the hub's log: %v)", err)
	}
	return string(b)
}

// checkCleanExit waits for the hub to exit and checks that it did so with
// status 0 and without a panic; after says what should have stopped it.
func (h *trayHub) checkCleanExit(t *testing.T, after string) {
	t.Helper()
	select {
	case <-h.exited:
	case <-time.After(trayWait):
		t.Fatalf("the hub still runs %v %s:\n%s", trayWait, after, h.log())
	}
	if h.err != nil {
		t.Errorf("the hub exited %s with %v, want status 0:\n%s", after, h.err, h.log())
	}
	if log := h.log(); strings.Contains(log, "panic") {
		t.Errorf("the hub panicked %s:\n%s", after, log)
	}
}

// trayWaitAnswers waits until the hub at p answers a history query on its
// socket, as `elicitray history` asks it.
func trayWaitAnswers(t *testing.T, p paths.Paths, h *trayHub) {
	t.Helper()
	deadline := time.Now().Add(trayWait)
	for {
		err := trayAsk(p)
		if err == nil {
			return
		}
		select {
		case <-h.exited:
			t.Fatalf("the hub exited (%v) before answering on its socket:\n%s", h.err, h.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hub does not answer on %s within %v (%v):\n%s", p.Socket, trayWait, err, h.log())
		}
		time.Sleep(trayPoll)
	}
}

// trayAsk sends one history query to the hub at p and reads its reply.
func trayAsk(p paths.Paths) error {
	c, err := net.Dial("unix", p.Socket)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(trayWait)); err != nil {
		return err
	}
	if err := json.NewEncoder(c).Encode(hubapi.Message{Op: hubapi.OpHistory, ID: 1, Query: &history.Query{Limit: 1}}); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return err
	}
	var m hubapi.Message
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("hub replied %q: %w", line, err)
	}
	if m.ID != 1 || m.Error != "" {
		return fmt.Errorf("hub replied %q", line)
	}
	return nil
}

// trayEntry is one entry of a tray menu.
type trayEntry struct {
	id   int32
	line string // as a tray host shows it: the label, " [disabled]" when greyed out, "-----" for a separator
}

// trayReadMenu reads the whole menu at menu (com.canonical.dbusmenu) as a
// tray host does when the user opens it. Hidden entries are left out;
// entries of submenus are indented.
func trayReadMenu(ctx context.Context, menu dbus.BusObject) ([]trayEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, trayWait)
	defer cancel()
	var (
		revision uint32
		root     struct {
			ID       int32
			Props    map[string]dbus.Variant
			Children []dbus.Variant
		}
	)
	err := menu.CallWithContext(ctx, "com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&revision, &root)
	if err != nil {
		return nil, fmt.Errorf("GetLayout: %w", err)
	}
	var entries []trayEntry
	var walk func(children []dbus.Variant, indent string) error
	walk = func(children []dbus.Variant, indent string) error {
		for _, c := range children {
			// A layout inside a variant comes as its fields: (ia{sv}av).
			f, ok := c.Value().([]any)
			if !ok || len(f) != 3 {
				return fmt.Errorf("menu entry is %s, want (ia{sv}av)", c.Signature())
			}
			id, ok1 := f[0].(int32)
			props, ok2 := f[1].(map[string]dbus.Variant)
			sub, ok3 := f[2].([]dbus.Variant)
			if !ok1 || !ok2 || !ok3 {
				return fmt.Errorf("menu entry is %s, want (ia{sv}av)", c.Signature())
			}
			if v, ok := props["visible"].Value().(bool); ok && !v {
				continue
			}
			line := "-----"
			if typ, _ := props["type"].Value().(string); typ != "separator" {
				line, _ = props["label"].Value().(string)
				if v, ok := props["enabled"].Value().(bool); ok && !v {
					line += " [disabled]"
				}
			}
			entries = append(entries, trayEntry{id: id, line: indent + line})
			if err := walk(sub, indent+"  "); err != nil {
				return err
			}
		}
		return nil
	}
	return entries, walk(root.Children, "")
}

// trayLines is how a tray host shows entries, one line each.
func trayLines(entries []trayEntry) []string {
	var lines []string
	for _, e := range entries {
		lines = append(lines, e.line)
	}
	return lines
}

// trayFind is the entry with line, or nil.
func trayFind(entries []trayEntry, line string) *trayEntry {
	for i := range entries {
		if entries[i].line == line {
			return &entries[i]
		}
	}
	return nil
}

// trayMenuPath is the object path of the item's menu (its Menu property).
func trayMenuPath(t *testing.T, item dbus.BusObject, h *trayHub) dbus.ObjectPath {
	t.Helper()
	v, err := item.GetProperty("org.kde.StatusNotifierItem.Menu")
	if err != nil {
		t.Fatalf("reading the tray icon's Menu property: %v\n%s", err, h.log())
	}
	p, ok := v.Value().(dbus.ObjectPath)
	if !ok || !p.IsValid() {
		t.Fatalf("the tray icon's Menu property is %v, want an object path", v)
	}
	return p
}

// trayCheckIcon checks that the tray icon shows the app icon: a pixmap of its
// size (StatusNotifierItem IconPixmap: a(iiay), ARGB32).
func trayCheckIcon(t *testing.T, item dbus.BusObject, h *trayHub) {
	t.Helper()
	want, _, err := image.DecodeConfig(bytes.NewReader(assets.Icon))
	if err != nil {
		t.Fatalf("decoding the app icon: %v", err)
	}
	v, err := item.GetProperty("org.kde.StatusNotifierItem.IconPixmap")
	if err != nil {
		t.Fatalf("reading the tray icon's IconPixmap: %v\n%s", err, h.log())
	}
	var pixmaps []struct {
		W, H int32
		Pix  []byte
	}
	if err := dbus.Store([]any{v.Value()}, &pixmaps); err != nil {
		t.Fatalf("the tray icon's IconPixmap is %s, want a(iiay): %v", v.Signature(), err)
	}
	for _, p := range pixmaps {
		if int(p.W) == want.Width && int(p.H) == want.Height && len(p.Pix) == want.Width*want.Height*4 {
			return
		}
	}
	var got []string
	for _, p := range pixmaps {
		got = append(got, fmt.Sprintf("%dx%d (%d bytes)", p.W, p.H, len(p.Pix)))
	}
	t.Errorf("the tray icon shows pixmaps %v, want the app icon, %dx%d", got, want.Width, want.Height)
}

// trayClickQuit clicks Quit in the tray menu at menu as a tray host does
// (dbusmenu Event "clicked") and returns once the hub exited. A host shows
// the menu the app has now: Fyne rebuilds the tray menu once the tray is up,
// so when the Quit a click was meant for was replaced meanwhile, the new one
// is clicked. The same entry is never clicked twice.
func trayClickQuit(t *testing.T, menu dbus.BusObject, h *trayHub) {
	t.Helper()
	clicked := map[int32]bool{}
	deadline := time.After(trayWait)
	tick := time.NewTicker(trayPoll)
	defer tick.Stop()
	for {
		entries, err := trayReadMenu(t.Context(), menu)
		if quit := trayFind(entries, "Quit"); err == nil && quit != nil && !clicked[quit.id] {
			clicked[quit.id] = true
			ctx, cancel := context.WithTimeout(t.Context(), trayWait)
			call := menu.CallWithContext(ctx, "com.canonical.dbusmenu.Event", 0,
				quit.id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
			cancel()
			if call.Err != nil {
				t.Logf("clicking Quit (entry %d): %v", quit.id, call.Err) // the hub may be quitting already
			}
		}
		select {
		case <-h.exited:
			return
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the hub still runs %v after Quit was clicked in the tray menu (entries %v):\n%s",
				trayWait, clicked, h.log())
		}
	}
}

// trayClickUntil clicks the entry line in the tray menu at menu, as a tray
// host does, until the menu shows an entry want. Like trayClickQuit, it
// clicks the entry anew when the menu was rebuilt meanwhile, never the same
// entry twice.
func trayClickUntil(t *testing.T, menu dbus.BusObject, h *trayHub, line, want string) {
	t.Helper()
	clicked := map[int32]bool{}
	deadline := time.Now().Add(trayWait)
	for {
		entries, err := trayReadMenu(t.Context(), menu)
		if err == nil && trayFind(entries, want) != nil {
			return
		}
		if e := trayFind(entries, line); err == nil && e != nil && !clicked[e.id] {
			clicked[e.id] = true
			ctx, cancel := context.WithTimeout(t.Context(), trayWait)
			call := menu.CallWithContext(ctx, "com.canonical.dbusmenu.Event", 0,
				e.id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
			cancel()
			if call.Err != nil {
				t.Fatalf("clicking %q (entry %d) in the tray menu: %v\n%s", line, e.id, call.Err, h.log())
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tray menu shows no %q within %v of clicking %q (last read: %v, %v):\n%s",
				want, trayWait, line, trayLines(entries), err, h.log())
		}
		time.Sleep(trayPoll)
	}
}

// trayNoLeftovers checks, in Cleanup after everything else of t, that no
// process started for t (all have ELICITRAY_HOME=home) is left.
func trayNoLeftovers(t *testing.T, home string) {
	t.Helper()
	t.Cleanup(func() {
		want := []byte("ELICITRAY_HOME=" + home + "\x00")
		procs, _ := filepath.Glob("/proc/[0-9]*/environ")
		for _, p := range procs {
			env, err := os.ReadFile(p)
			if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
				continue
			}
			dir := filepath.Dir(p)
			if filepath.Base(dir) == fmt.Sprint(os.Getpid()) {
				continue
			}
			cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
			t.Errorf("process %s is left: %s", filepath.Base(dir), bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
	})
}
