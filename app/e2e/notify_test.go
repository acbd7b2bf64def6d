//go:build linux

package e2e

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/desktop"
	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/paths"

	"github.com/elicitray/elicitray/app/session"
	"github.com/godbus/dbus/v5"
)

// notificationServer is a notification server on a test's bus: it keeps
// every notification it is sent.
type fakeNotifications struct {
	got chan [2]string // title, body
}

func (f *fakeNotifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	f.got <- [2]string{summary, body}
	return 1, nil
}

func (f *fakeNotifications) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "test-notifier", "elicitray tests", "1.0", "1.2", nil
}

// serveNotifications serves org.freedesktop.Notifications on the bus at addr.
func serveNotifications(t *testing.T, addr string) *fakeNotifications {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	f := &fakeNotifications{got: make(chan [2]string, 16)}
	if err := conn.Export(f, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning org.freedesktop.Notifications: %v %v", reply, err)
	}
	return f
}

// startTestHub starts the real hub with env, its output in its log (under
// env's ELICITRAY_HOME) as a wrapper would, and stops it after the test.
func startTestHub(t *testing.T, env []string) *exec.Cmd {
	t.Helper()
	hub := exec.Command(testkit.Binary(t), "hub")
	hub.Env = env
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "ELICITRAY_HOME="); ok {
			home = v
		}
	}
	logf, err := os.Create(paths.Under(home).HubLog)
	if err != nil {
		t.Fatal(err)
	}
	hub.Stdout, hub.Stderr = logf, logf
	if err := hub.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		hub.Process.Signal(syscall.SIGTERM)
		hub.Wait()
		logf.Close()
	})
	return hub
}

// TestNotificationsFindTheBus (issue 9): a hub started without
// DBUS_SESSION_BUS_ADDRESS — as a wrapper whose host stripped it would, with
// no dbus-launch — sends its notifications to the bus in the user's runtime
// directory, and doctor names the notification server there.
func TestNotificationsFindTheBus(t *testing.T) {
	t.Parallel()
	needDisplay(t)
	e := newTestEnv(t, false)
	home := e.home
	runtimeDir := t.TempDir()
	addr := testkit.SessionBus(t, runtimeDir)
	notes := serveNotifications(t, addr)
	// A config mistake is a notification the hub sends as it starts.
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("timeout = \"soon\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ELICITRAY_HOME=" + home,
		"DISPLAY=" + e.display, "XDG_RUNTIME_DIR=" + runtimeDir}
	if xa := os.Getenv("XAUTHORITY"); xa != "" {
		env = append(env, "XAUTHORITY="+xa)
	}
	startTestHub(t, env)
	// (The bus has no tray host: the hub also says where its menu is.)
	if n := notes.find(t, "soon"); n == nil {
		log, _ := os.ReadFile(paths.Under(home).HubLog)
		t.Fatalf("no notification naming the config mistake reached the session bus within %v; hub log:\n%s", desktopWait, log)
	}

	doctorEnv := []string{"XDG_RUNTIME_DIR=" + runtimeDir, "DBUS_SESSION_BUS_ADDRESS="}
	out, _, _ := e.run(t, nil, doctorEnv, "doctor")
	if l := testkit.DoctorLine(out, "Notifications"); l != "✓ Notifications: test-notifier 1.0 shows desktop notifications." {
		t.Errorf("Notifications line %q\n%s", l, out)
	}
}

// TestNotificationsWithoutBus: with no session bus at all, the hub says so
// once in its log instead of failing each notification silently, and keeps
// its own files — Fyne's preferences too — under ELICITRAY_HOME, with no
// "Preferences load error" in its log.
func TestNotificationsWithoutBus(t *testing.T) {
	t.Parallel()
	needDisplay(t)
	e := newTestEnv(t, false)
	home := e.home
	userHome := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("timeout = \"soon\"\nrules = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + userHome, "PATH=" + os.Getenv("PATH"), "ELICITRAY_HOME=" + home,
		"DISPLAY=" + e.display, "XDG_RUNTIME_DIR=" + t.TempDir()}
	if xa := os.Getenv("XAUTHORITY"); xa != "" {
		env = append(env, "XAUTHORITY="+xa)
	}
	startTestHub(t, env)
	p := paths.Under(home)
	deadline := time.Now().Add(desktopWait)
	const said = "desktop notifications cannot be shown: this session has no D-Bus session bus"
	var log string
	for !strings.Contains(log, said) {
		if time.Now().After(deadline) {
			t.Fatalf("the hub's log does not say %q:\n%s", said, log)
		}
		time.Sleep(pollEvery)
		b, _ := os.ReadFile(p.HubLog)
		log = string(b)
	}
	if !hubAnswers(t.Context(), p) {
		t.Fatalf("the hub does not answer:\n%s", log)
	}
	if n := strings.Count(log, "desktop notifications cannot be shown"); n != 1 {
		t.Errorf("the hub said %d times that notifications cannot be shown, want once:\n%s", n, log)
	}
	if strings.Contains(log, "Preferences load error") || strings.Contains(log, "Fyne error") {
		t.Errorf("Fyne errors in the hub's log:\n%s", log)
	}
	// Fyne runs in the hub's window process, which the hub starts as it
	// starts (windows.prestart), in the hub's environment.
	fyneDir := filepath.Join(home, "desktop", "config", "fyne", "io.github.elicitray")
	for {
		_, err := os.Stat(fyneDir)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("Fyne's files are not under ELICITRAY_HOME: %v", err)
			break
		}
		time.Sleep(pollEvery)
	}
	var outside []string
	filepath.Walk(userHome, func(path string, info os.FileInfo, err error) error {
		if err == nil && path != userHome {
			outside = append(outside, path)
		}
		return nil
	})
	if len(outside) > 0 {
		t.Errorf("the hub wrote outside ELICITRAY_HOME: %v", outside)
	}
}

// find returns the first notification whose title or body holds text, or
// nil when none came within desktopWait.
func (f *fakeNotifications) find(t *testing.T, text string) []string {
	t.Helper()
	deadline := time.After(desktopWait)
	for {
		select {
		case n := <-f.got:
			if strings.Contains(n[0]+" "+n[1], text) {
				return n[:]
			}
		case <-deadline:
			return nil
		}
	}
}

// TestNoTrayToldOnce (issue 13): a hub on a desktop with no tray host says
// so in a notification the first time one can be shown, naming where the
// tray's menu is instead (the launcher's actions, the menu window, the
// commands); later starts say it only in the log. A start in a session
// with no bus at all, where no notification can be shown, does not count.
func TestNoTrayToldOnce(t *testing.T) {
	t.Parallel()
	needDisplay(t)
	e := newTestEnv(t, false)
	home := e.home
	envIn := func(runtimeDir string) []string {
		env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ELICITRAY_HOME=" + home,
			"DISPLAY=" + e.display, "XDG_RUNTIME_DIR=" + runtimeDir}
		if xa := os.Getenv("XAUTHORITY"); xa != "" {
			env = append(env, "XAUTHORITY="+xa)
		}
		return env
	}

	// A start with no session bus: its log is read as it writes it, to
	// the line saying it listens, so that quit finds it.
	noBus := t.TempDir()
	unseen := exec.Command(testkit.Binary(t), "hub")
	unseen.Env = envIn(noBus)
	out, err := unseen.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	unseen.Stderr = unseen.Stdout
	if err := unseen.Start(); err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	for sc := bufio.NewScanner(out); sc.Scan(); {
		said.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), session.HubStartedLine) {
			break
		}
	}
	if _, _, code := e.run(t, nil, []string{"XDG_RUNTIME_DIR=" + noBus}, "quit"); code != 0 {
		unseen.Process.Kill()
		t.Fatalf("quit: exit %d; hub said:\n%s", code, said.String())
	}
	rest, _ := io.ReadAll(out)
	_ = unseen.Wait()
	if _, err := os.Lstat(filepath.Join(filepath.Dir(paths.Under(home).HubLog), desktop.NoTrayMarker)); err == nil {
		t.Fatalf("a hub that could show no notification (no session bus) marked the no-tray notice as told; it said:\n%s%s", said.String(), rest)
	}

	runtimeDir := t.TempDir()
	addr := testkit.SessionBus(t, runtimeDir) // no StatusNotifierWatcher on it
	notes := serveNotifications(t, addr)
	env := envIn(runtimeDir)
	first := startTestHub(t, env)
	n := notes.find(t, "no tray icons")
	if n == nil {
		log, _ := os.ReadFile(paths.Under(home).HubLog)
		t.Fatalf("the first hub without a tray sent no notification saying so; hub log:\n%s", log)
	}
	for _, want := range []string{"launcher", "Open Menu", "elicitray menu", "Settings", "Pause All Prompts", "elicitray status"} {
		if !strings.Contains(n[1], want) {
			t.Errorf("the notification %q does not name %q", n[1], want)
		}
	}
	if _, _, code := e.run(t, nil, []string{"XDG_RUNTIME_DIR=" + runtimeDir}, "quit"); code != 0 {
		t.Fatalf("quit: exit %d", code)
	}
	_ = first.Wait()

	// The second start: the log says it was told; a config mistake's
	// notification, sent after the tray check, is the only one.
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("timeout = \"later\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	startTestHub(t, env)
	if n := notes.find(t, "later"); n == nil {
		t.Fatal("the second hub sent no notification of its config mistake")
	}
	log, _ := os.ReadFile(paths.Under(home).HubLog)
	if !strings.Contains(string(log), "the desktop was told once") {
		t.Errorf("the second hub's log does not say the desktop was told before:\n%s", log)
	}
	select {
	case n := <-notes.got:
		if strings.Contains(n[1], "no tray icons") {
			t.Errorf("the second hub without a tray said so again: %q", n)
		}
	default:
	}
}
