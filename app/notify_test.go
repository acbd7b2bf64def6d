package app

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// sessionBus starts a real dbus-daemon for the test with its socket at
// dir/bus, where a user's runtime directory has it, and stops it after.
func sessionBus(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skipf("dbus-daemon is needed (make deps-system installs dbus): %v", err)
	}
	addr := "unix:path=" + filepath.Join(dir, "bus")
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--address="+addr, "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("dbus-daemon did not start: %v", err)
	}
	return addr
}

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

// startTestHub starts the real hub with env, its output in its log as a
// wrapper would, and stops it after the test.
func startTestHub(t *testing.T, env []string) *exec.Cmd {
	t.Helper()
	hub := exec.Command(elicitrayBin, "hub")
	hub.Env = env
	logf, err := os.Create(DefaultPaths().HubLog)
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
	needDisplay(t)
	home := testHome(t)
	runtimeDir := t.TempDir()
	addr := sessionBus(t, runtimeDir)
	notes := serveNotifications(t, addr)
	// A config mistake is a notification the hub sends as it starts.
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("timeout = \"soon\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ELICITRAY_HOME=" + home,
		"DISPLAY=" + os.Getenv("DISPLAY"), "XDG_RUNTIME_DIR=" + runtimeDir}
	if xa := os.Getenv("XAUTHORITY"); xa != "" {
		env = append(env, "XAUTHORITY="+xa)
	}
	startTestHub(t, env)
	select {
	case n := <-notes.got:
		if !strings.Contains(n[0]+" "+n[1], "soon") {
			t.Errorf("notification %q does not name the config mistake", n)
		}
	case <-time.After(desktopWait):
		log, _ := os.ReadFile(DefaultPaths().HubLog)
		t.Fatalf("no notification reached the session bus within %v; hub log:\n%s", desktopWait, log)
	}

	doctorEnv := []string{"XDG_RUNTIME_DIR=" + runtimeDir, "DBUS_SESSION_BUS_ADDRESS="}
	out, _, _ := runElicitray(t, nil, doctorEnv, "doctor")
	if l := line(out, "Notifications"); l != "✓ Notifications: test-notifier 1.0 shows desktop notifications." {
		t.Errorf("Notifications line %q\n%s", l, out)
	}
}

// TestNotificationsWithoutBus: with no session bus at all, the hub says so
// once in its log instead of failing each notification silently, and keeps
// its own files — Fyne's preferences too — under ELICITRAY_HOME, with no
// "Preferences load error" in its log.
func TestNotificationsWithoutBus(t *testing.T) {
	needDisplay(t)
	home := testHome(t)
	userHome := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("timeout = \"soon\"\nrules = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + userHome, "PATH=" + os.Getenv("PATH"), "ELICITRAY_HOME=" + home,
		"DISPLAY=" + os.Getenv("DISPLAY"), "XDG_RUNTIME_DIR=" + t.TempDir()}
	if xa := os.Getenv("XAUTHORITY"); xa != "" {
		env = append(env, "XAUTHORITY="+xa)
	}
	startTestHub(t, env)
	p := DefaultPaths()
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
