//go:build linux

package e2e

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb/xproto"

	"github.com/elicitray/elicitray/assets"
)

// noticeServer is a notification server on a test's bus that keeps what it
// is told: each notification with its hints, and each CloseNotification.
type noticeServer struct {
	mu     sync.Mutex
	nextID uint32
	notes  chan shownNotice
	closed chan uint32
}

// shownNotice is one Notify call.
type shownNotice struct {
	id          uint32
	title, body string
	hints       map[string]dbus.Variant
}

func (s *noticeServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	s.mu.Unlock()
	s.notes <- shownNotice{id: id, title: summary, body: body, hints: hints}
	return id, nil
}

func (s *noticeServer) CloseNotification(id uint32) *dbus.Error {
	s.closed <- id
	return nil
}

func (s *noticeServer) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "test-notices", "elicitray tests", "1.0", "1.2", nil
}

// serveNotices serves org.freedesktop.Notifications on conn.
func serveNotices(t *testing.T, conn *dbus.Conn) *noticeServer {
	t.Helper()
	s := &noticeServer{notes: make(chan shownNotice, 16), closed: make(chan uint32, 16)}
	if err := conn.Export(s, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning org.freedesktop.Notifications: %v %v", reply, err)
	}
	return s
}

// attentionWatch receives the _NET_WM_STATE requests clients send the root
// window, as a window manager does (SendEvent reaches every client that
// selected SubstructureNotify there, and this desktop has no window
// manager to take them).
type attentionWatch struct {
	state, demands xproto.Atom
	asks           chan attentionAsk
}

// attentionAsk is one _NET_WM_STATE request about DEMANDS_ATTENTION.
type attentionAsk struct {
	win string // as xdotool prints it
	add bool
}

// watchAttention watches the root window of the X server at display.
func watchAttention(t *testing.T, display string) *attentionWatch {
	t.Helper()
	conn := watchRoot(t, display)
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(conn, false, uint16(len(name)), name).Reply()
		if err != nil {
			t.Fatalf("interning %s: %v", name, err)
		}
		return r.Atom
	}
	w := &attentionWatch{state: atom("_NET_WM_STATE"), demands: atom("_NET_WM_STATE_DEMANDS_ATTENTION"), asks: make(chan attentionAsk, 64)}
	go func() {
		for {
			ev, err := conn.WaitForEvent()
			if ev == nil && err == nil {
				return // closed
			}
			cm, ok := ev.(xproto.ClientMessageEvent)
			if !ok || cm.Type != w.state || cm.Format != 32 {
				continue
			}
			d := cm.Data.Data32
			if xproto.Atom(d[1]) != w.demands && xproto.Atom(d[2]) != w.demands {
				continue
			}
			select {
			case w.asks <- attentionAsk{win: strconv.FormatUint(uint64(cm.Window), 10), add: d[0] == 1}:
			default:
			}
		}
	}()
	return w
}

// next waits for the request about win.
func (w *attentionWatch) next(t *testing.T, d *testDesktop, win string) attentionAsk {
	t.Helper()
	deadline := time.After(desktopWait)
	for {
		select {
		case a := <-w.asks:
			if a.win == win {
				return a
			}
		case <-deadline:
			t.Fatalf("no _NET_WM_STATE request about DEMANDS_ATTENTION for window %s within %v%s", win, desktopWait, d.diagnostics())
		}
	}
}

// urgent reports whether xprop shows window win's WM_HINTS with the
// urgency hint.
func urgent(t *testing.T, d *testDesktop, win string) bool {
	t.Helper()
	out, err := d.x("xprop", "-id", win, "WM_HINTS").CombinedOutput()
	if err != nil {
		t.Fatalf("xprop -id %s WM_HINTS: %v\n%s", win, err, out)
	}
	return strings.Contains(string(out), "urgency hint bit is set")
}

// waitUrgent waits until xprop shows win's urgency hint as want.
func waitUrgent(t *testing.T, d *testDesktop, win string, want bool) {
	t.Helper()
	deadline := time.Now().Add(desktopWait)
	for urgent(t, d, win) != want {
		if time.Now().After(deadline) {
			out, _ := d.x("xprop", "-id", win, "WM_HINTS").CombinedOutput()
			t.Fatalf("window %s: urgency hint is not %v within %v:\n%s%s", win, want, desktopWait, out, d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
}

// trayToolTip is the tray icon's ToolTip title and the pixels of its
// icon, as a tray host reads them.
func trayToolTip(t *testing.T, item dbus.BusObject) (string, []byte) {
	t.Helper()
	v, err := item.GetProperty("org.kde.StatusNotifierItem.ToolTip")
	if err != nil {
		t.Fatalf("reading the tray icon's ToolTip: %v", err)
	}
	var tip struct {
		Name  string
		Icons []struct {
			W, H int32
			Pix  []byte
		}
		Title, Text string
	}
	if err := dbus.Store([]any{v.Value()}, &tip); err != nil {
		t.Fatalf("the tray icon's ToolTip is %s: %v", v.Signature(), err)
	}
	v, err = item.GetProperty("org.kde.StatusNotifierItem.IconPixmap")
	if err != nil {
		t.Fatalf("reading the tray icon's IconPixmap: %v", err)
	}
	var pixmaps []struct {
		W, H int32
		Pix  []byte
	}
	if err := dbus.Store([]any{v.Value()}, &pixmaps); err != nil || len(pixmaps) == 0 {
		t.Fatalf("the tray icon's IconPixmap is %s (%v)", v.Signature(), err)
	}
	return tip.Title, pixmaps[0].Pix
}

// waitTray waits until the tray's tooltip says want, and returns the icon
// it then shows.
func waitTray(t *testing.T, d *testDesktop, item dbus.BusObject, want string) []byte {
	t.Helper()
	deadline := time.Now().Add(desktopWait)
	for {
		tip, pix := trayToolTip(t, item)
		if tip == want {
			return pix
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tray's tooltip says %q, not %q, within %v%s", tip, want, desktopWait, d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
}

// appIconARGB is the app icon as IconPixmap carries it (ARGB, row by row).
func appIconARGB(t *testing.T) []byte {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(assets.Icon))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	out := make([]byte, 0, b.Dx()*b.Dy()*4)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			out = append(out, byte(a), byte(r), byte(g), byte(bl))
		}
	}
	return out
}

// TestPromptNoticed (issue 14, "a prompt you notice"): a prompt window,
// through the real wrapper and hub with server-everything eliciting, on a
// session bus of the test's with a tray host and a notification server:
// one desktop notification names the server and the tool, with no sound by
// default (and the message sound when [notice] sound = true); the window
// asks the window manager for attention (the urgency hint in WM_HINTS, read
// with xprop, and _NET_WM_STATE_DEMANDS_ATTENTION asked of the root); the
// tray icon shows one prompt waiting. Answered, the notification is
// withdrawn, the urgency ends and the tray counts none again.
func TestPromptNoticed(t *testing.T) {
	needDisplay(t)
	if _, err := exec.LookPath("xprop"); err != nil {
		t.Fatalf("xprop is needed to read window hints (make deps-system installs x11-utils): %v", err)
	}
	server := everythingServer(t)
	t.Parallel()
	for _, tt := range []struct {
		name   string
		config string
		sound  bool
	}{
		{name: "default"},
		{name: "sound on", config: "[notice]\nsound = true\n", sound: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := newNoticeDesk(t, tt.config) // in parallel (newParallelDesktop)
			cs := d.connect("everything", server)
			call := d.call(cs, "trigger-elicitation-request")
			win, _ := d.window()

			// The notification.
			n := d.note()
			if n.title != "elicitray: everything asks" {
				t.Errorf("notification title %q, want it to name the server", n.title)
			}
			if !strings.Contains(n.body, "trigger-elicitation-request") {
				t.Errorf("notification body %q does not name the tool", n.body)
			}
			if e, ok := n.hints["desktop-entry"]; !ok || e.Value() != "io.github.elicitray" {
				t.Errorf("the notification's hints %v do not name elicitray's launcher entry", n.hints)
			}
			sound, has := n.hints["sound-name"]
			switch {
			case tt.sound && (!has || sound.Value() != "message-new-instant"):
				t.Errorf("with sound = true the notification's hints are %v, want sound-name message-new-instant", n.hints)
			case !tt.sound && has:
				t.Errorf("with no sound configured the notification asks for sound %v", sound)
			}

			// The window asks for attention.
			waitUrgent(t, d.testDesktop, win, true)
			if a := d.asks.next(t, d.testDesktop, win); !a.add {
				t.Errorf("the first _NET_WM_STATE request about window %s removes DEMANDS_ATTENTION", win)
			}

			// The tray counts it.
			itemObj := d.tray()
			plain := appIconARGB(t)
			if pix := waitTray(t, d.testDesktop, itemObj, "elicitray: 1 prompt waiting"); bytes.Equal(pix, plain) {
				t.Error("with a prompt waiting the tray icon is the plain app icon: no count on it")
			}

			// Answered: all of it ends.
			d.answer(win, "Escape")
			if got := parseRawResult(t, d.result(call)).Action; got != "cancel" {
				t.Errorf("the prompt was answered %q, want cancel", got)
			}
			d.withdrawn(n.id)
			if a := d.asks.next(t, d.testDesktop, win); a.add {
				t.Errorf("after the answer, window %s asks for attention again instead of ending it", win)
			}
			waitUrgent(t, d.testDesktop, win, false)
			if pix := waitTray(t, d.testDesktop, itemObj, "elicitray"); !bytes.Equal(pix, plain) {
				t.Error("with no prompt waiting the tray icon is not the app icon again")
			}
			select {
			case extra := <-d.notes.notes:
				t.Errorf("a second notification for one prompt: %q %q", extra.title, extra.body)
			default:
			}
		})
	}
}

// noticeDesk is a test's desktop session with a tray host and a
// notification server on a session bus of its own, the X root watched for
// attention requests.
type noticeDesk struct {
	*testDesktop
	conn  *dbus.Conn
	items <-chan trayItem
	notes *noticeServer
	asks  *attentionWatch
}

// newNoticeDesk starts it, in parallel with other tests
// (newParallelDesktop: its bus is the test's own), with config as
// config.toml when not empty.
func newNoticeDesk(t *testing.T, config string) *noticeDesk {
	t.Helper()
	d := newParallelDesktop(t)
	return noticeOn(t, d, d.sessionBus(), config)
}

// newSerialNoticeDesk is newNoticeDesk on the run's display, its bus set
// in the test process (newDesktop): for a test whose seconds-long timeout
// leaves no time to the load of the tests that run in parallel.
func newSerialNoticeDesk(t *testing.T, config string) *noticeDesk {
	t.Helper()
	addr := trayStartBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	return noticeOn(t, newDesktop(t), addr, config)
}

// noticeOn makes d a noticeDesk whose bus is at addr.
func noticeOn(t *testing.T, d *testDesktop, addr, config string) *noticeDesk {
	t.Helper()
	conn := trayConnect(t, addr)
	n := &noticeDesk{testDesktop: d, conn: conn, items: trayServeWatcher(t, conn), notes: serveNotices(t, conn)}
	n.asks = watchAttention(t, d.display)
	if config != "" {
		if err := os.WriteFile(n.paths.Config, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// note waits for the next notification.
func (n *noticeDesk) note() shownNotice {
	n.t.Helper()
	select {
	case got := <-n.notes.notes:
		return got
	case <-time.After(desktopWait):
		n.t.Fatalf("no notification within %v%s", desktopWait, n.diagnostics())
	}
	return shownNotice{}
}

// withdrawn waits for notification id to be withdrawn.
func (n *noticeDesk) withdrawn(id uint32) {
	n.t.Helper()
	select {
	case got := <-n.notes.closed:
		if got != id {
			n.t.Errorf("CloseNotification(%d), want %d", got, id)
		}
	case <-time.After(desktopWait):
		n.t.Fatalf("notification %d was not withdrawn within %v%s", id, desktopWait, n.diagnostics())
	}
}

// tray is the hub's tray icon on the bus.
func (n *noticeDesk) tray() dbus.BusObject {
	n.t.Helper()
	select {
	case item := <-n.items:
		return n.conn.Object(item.bus, item.path)
	case <-time.After(desktopWait):
		n.t.Fatalf("the hub registered no tray icon within %v%s", desktopWait, n.diagnostics())
	}
	return nil
}

// TestPromptNoticedQueued: two prompts at once are two notifications, one
// at a time: the first prompt's while its window is up (the tray counts
// both), withdrawn when it is answered, before the second's window shows
// with its own; a prompt that times out has its notification withdrawn
// too. It runs alone (newSerialNoticeDesk): under the load of the tests
// in parallel, the first prompt's 3 s ran out before the second came.
func TestPromptNoticedQueued(t *testing.T) {
	needDisplay(t)
	server := everythingServer(t)
	n := newSerialNoticeDesk(t, "timeout = \"3s\"\n")
	cs := n.connect("everything", server)
	first := n.call(cs, "trigger-elicitation-request")
	// On the screen is enough: the 3 s timeout leaves no time to spare.
	win1, _ := n.mapped()
	note1 := n.note()
	second := n.call(cs, "trigger-elicitation-request")
	waitTray(t, n.testDesktop, n.tray(), "elicitray: 2 prompts waiting")
	select {
	case extra := <-n.notes.notes:
		t.Fatalf("a notification for the prompt waiting behind the window: %q %q", extra.title, extra.body)
	default:
	}
	n.answer(win1, "Escape")
	n.withdrawn(note1.id)
	if got := parseRawResult(t, n.result(first)).Action; got != "cancel" {
		t.Errorf("the first prompt was answered %q, want cancel", got)
	}
	n.mapped()
	note2 := n.note()
	if note2.id == note1.id || note2.title != "elicitray: everything asks" {
		t.Errorf("the second prompt's notification: %+v (the first was %d)", note2, note1.id)
	}
	// Left alone, it times out (3 s): its notification goes with it.
	n.withdrawn(note2.id)
	if got := parseRawResult(t, n.result(second)).Action; got != "cancel" {
		t.Errorf("the second prompt, timed out, was answered %q, want cancel", got)
	}
}
