//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/desktop"
	"github.com/elicitray/elicitray/app/internal/testkit"
)

// installedDesktop is a user whose elicitray was installed by `make
// install` into ~/.local of a home of the test's own: its launcher entry in
// $XDG_DATA_HOME/applications names the installed binary, and autostart
// entries go to its $XDG_CONFIG_HOME/autostart.
type installedDesktop struct {
	*testDesktop
	bin       string   // the installed elicitray
	env       []string // the user's environment
	autostart string   // where `autostart on` writes its entry
	marker    string   // where the hub keeps the offer's answer
}

func newInstalledDesktop(t *testing.T) *installedDesktop {
	t.Helper()
	d := newParallelDesktop(t)
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	prefix := filepath.Join(home, ".local")
	makeIn(t, "install", "PREFIX="+prefix, "INSTALL_BIN="+testkit.Binary(t))
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ELICITRAY_HOME=" + d.home,
		"DISPLAY=" + d.display, "XDG_RUNTIME_DIR=" + t.TempDir(),
		"XDG_DATA_HOME=" + filepath.Join(prefix, "share"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_DIRS=" + filepath.Join(tmp, "no-system-data")}
	if xa := os.Getenv("XAUTHORITY"); xa != "" {
		env = append(env, "XAUTHORITY="+xa)
	}
	d.env = env
	return &installedDesktop{testDesktop: d, bin: filepath.Join(prefix, "bin", "elicitray"), env: env,
		autostart: filepath.Join(home, ".config", "autostart", appID+".desktop"),
		marker:    filepath.Join(filepath.Dir(d.paths.HubLog), desktop.AutostartMarker)}
}

// startHub starts bin's hub in the user's environment, its output in the
// hub's log, as a login or a wrapper would.
func (u *installedDesktop) startHub(bin string) *exec.Cmd {
	u.t.Helper()
	hub := exec.Command(bin, "hub")
	hub.Env = u.env
	logf, err := os.Create(u.paths.HubLog)
	if err != nil {
		u.t.Fatal(err)
	}
	hub.Stdout, hub.Stderr = logf, logf
	if err := hub.Start(); err != nil {
		u.t.Fatal(err)
	}
	u.t.Cleanup(func() {
		hub.Process.Signal(syscall.SIGTERM)
		hub.Wait()
		logf.Close()
	})
	return hub
}

// run runs bin with args in the user's environment and fails the test
// when it fails.
func (u *installedDesktop) run(bin string, args ...string) string {
	u.t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = u.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		u.t.Fatalf("elicitray %s: %v\n%s%s", strings.Join(args, " "), err, out, u.diagnostics())
	}
	return string(out)
}

// quit stops hub with `elicitray quit` and waits until it exited.
func (u *installedDesktop) quit(hub *exec.Cmd) {
	u.t.Helper()
	u.run(u.bin, "quit")
	if err := hub.Wait(); err != nil {
		u.t.Fatalf("the hub exited with %v:\n%s", err, u.hubLog())
	}
}

// onlyMenu opens the menu window with bin and checks that it is the one
// window on the screen: no offer came before it (the hub sends the offer
// before it serves commands, and the window process shows windows in the
// order sent). It returns the window, to wait for it to go once the hub
// quit: a window process goes a moment after its hub, and a window of the
// last hub still on the screen is not the next one's.
func (u *installedDesktop) onlyMenu(bin string) string {
	u.t.Helper()
	u.run(bin, "menu")
	win, _ := u.window() // fails on two windows
	if got := u.title(win); got != "elicitray — menu" {
		u.t.Fatalf("the screen shows %q where only the menu window should be%s", got, u.diagnostics())
	}
	return win
}

// offer waits for the first-run offer and returns its window.
func (u *installedDesktop) offer() string {
	u.t.Helper()
	win, _ := u.window()
	if got := u.title(win); got != "elicitray — start at login?" {
		u.t.Fatalf("the first start of the installed elicitray shows %q, want the autostart offer%s", got, u.diagnostics())
	}
	u.settle() // its first frames drawn: keys from now on reach it
	return win
}

// answered waits until the marker holds the answer.
func (u *installedDesktop) answered(want string) {
	u.t.Helper()
	deadline := time.Now().Add(desktopWait)
	for {
		b, err := os.ReadFile(u.marker)
		if err == nil && string(b) == want+"\n" {
			return
		}
		if time.Now().After(deadline) {
			u.t.Fatalf("the offer's answer is %q (%v), want %q; hub log:\n%s", b, err, want, u.hubLog())
		}
		time.Sleep(pollEvery)
	}
}

// TestAutostartOfferYes (issue 13): the first hub of an installed
// elicitray asks "Start elicitray when you log in?"; Start at login (from
// the keyboard: Tab, Tab, Space) writes the autostart entry that
// `autostart on` writes, for the installed binary; the next start does not
// ask again.
func TestAutostartOfferYes(t *testing.T) {
	u := newInstalledDesktop(t)
	hub := u.startHub(u.bin)
	win := u.offer()
	u.screenshot("autostart-offer.png")
	if _, err := os.Lstat(u.autostart); err == nil {
		t.Fatalf("%s exists before the offer was answered", u.autostart)
	}
	u.keysClosing(win, "Tab", "Tab", "space")
	u.closed(win)
	u.answered("yes")
	entry, err := os.ReadFile(u.autostart)
	if err != nil {
		t.Fatalf("Start at login wrote no autostart entry: %v\nhub log:\n%s", err, u.hubLog())
	}
	if !strings.Contains(string(entry), "\nTryExec="+u.bin+"\n") {
		t.Errorf("the autostart entry does not start the installed elicitray %s:\n%s", u.bin, entry)
	}
	if out := u.run(u.bin, "autostart", "status"); !strings.HasPrefix(out, "autostart on: "+u.autostart+" starts the hub") {
		t.Errorf("autostart status after Start at login: %q", out)
	}
	if fi, err := os.Lstat(u.marker); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the answer's file %s: %v, %v; want this user's alone (0600)", u.marker, fi.Mode(), err)
	}
	u.quit(hub)

	// The next start: no offer, autostart left as it is.
	hub = u.startHub(u.bin)
	u.onlyMenu(u.bin)
	if strings.Contains(u.hubLog(), "whether to start it at login") {
		t.Errorf("the second start asked again:\n%s", u.hubLog())
	}
	u.quit(hub)
}

// TestAutostartOfferNotNow: the elicitray of the build directory (as tests
// and `make demo` run it) is not asked, even where an installed one's
// launcher entry exists; the installed one is, and Not now writes no
// autostart entry, and is not asked again.
func TestAutostartOfferNotNow(t *testing.T) {
	u := newInstalledDesktop(t)
	hub := u.startHub(testkit.Binary(t))
	menu := u.onlyMenu(testkit.Binary(t))
	u.quit(hub)
	u.closed(menu)
	if _, err := os.Lstat(u.marker); err == nil {
		t.Errorf("the build directory's elicitray kept an answer (%s) it never asked for", u.marker)
	}

	hub = u.startHub(u.bin)
	win := u.offer()
	u.keysClosing(win, "Tab", "space") // Not now
	u.closed(win)
	u.answered("not now")
	if _, err := os.Lstat(u.autostart); err == nil {
		t.Errorf("Not now wrote the autostart entry %s", u.autostart)
	}
	u.quit(hub)

	hub = u.startHub(u.bin)
	u.onlyMenu(u.bin)
	u.quit(hub)
	if _, err := os.Lstat(u.autostart); err == nil {
		t.Errorf("after Not now a later start wrote the autostart entry %s", u.autostart)
	}
}

// TestAutostartOfferAfterTheFirstWindow: a hub started to show a window
// shows that window alone, and the first-run offer once it is closed. The
// window here is the menu, which `elicitray menu` starts a hub for when
// none runs; a wrapper's first prompt starts its hub the same way
// (session.StartHub). Before, the offer opened first and the window the
// user wanted covered it: two questions at the user's first meeting with
// elicitray, the one on top a prompt that holds up a tool call.
func TestAutostartOfferAfterTheFirstWindow(t *testing.T) {
	u := newInstalledDesktop(t)
	menu := u.onlyMenu(u.bin) // no hub runs: this starts one, for the menu
	// Its log says it will ask, and asks only when it does.
	if log := u.hubLog(); !strings.Contains(log, "it will ask whether to start it at login once the windows it was started for are closed") ||
		strings.Contains(log, "asking whether to start it at login") {
		t.Fatalf("the first hub of the installed elicitray, started for a window, is to ask after it, and its log is to say so:\n%s", log)
	}
	u.answer(menu, "Escape") // fails the test unless it closes
	win := u.offer()
	if log := u.hubLog(); !strings.Contains(log, "the windows it was started for are closed: asking whether to start it at login") {
		t.Errorf("the hub asked and its log does not say so:\n%s", log)
	}
	u.keysClosing(win, "Tab", "space") // Not now
	u.closed(win)
	u.answered("not now")
	u.run(u.bin, "quit")
}

// TestAutostartOfferNotBetweenPrompts: an agent that asks twice in a row
// (elicitray demo, two tools) gets its second prompt alone on the screen,
// and the offer comes once the second is closed and no other followed.
// Before, the offer opened as the first prompt closed, and the second
// prompt came on top of it (found by the break-it session).
func TestAutostartOfferNotBetweenPrompts(t *testing.T) {
	u := newInstalledDesktop(t)
	demo := exec.Command(u.bin, "demo", "--protocol", "2026-07-28", "--tool", "confirm_deploy", "--tool", "pick_environment")
	demo.Env = u.env
	done := u.startLogged(demo, "demo.log")
	for range 2 {
		win, _ := u.window() // fails on two windows
		if got := u.title(win); got != "elicitray — demo asks" {
			t.Fatalf("the screen shows %q where the demo's prompt should be, alone%s", got, u.diagnostics())
		}
		u.answer(win, "Escape")
	}
	win := u.offer()
	u.keysClosing(win, "Tab", "space") // Not now
	u.closed(win)
	u.answered("not now")
	select {
	case <-done:
	case <-time.After(desktopWait):
		t.Fatalf("elicitray demo still runs %v after its last window%s", desktopWait, u.diagnostics())
	}
	u.run(u.bin, "quit")
}

// TestAnswerMarkerNoLinks: the offer's answer is written to a new file of
// this user's alone, never through a link planted in its place (the link's
// target is left as it was), and an answer there already stays.
func TestAnswerMarkerNoLinks(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "state", desktop.AutostartMarker)
	desktop.RememberAnswer(marker, "not now")
	desktop.RememberAnswer(marker, "yes")
	if b, err := os.ReadFile(marker); err != nil || string(b) != "not now\n" {
		t.Errorf("the answer file holds %q (%v), want the first answer only", b, err)
	}
	if fi, err := os.Stat(marker); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the answer file's mode is %v (%v), want 0600", fi.Mode().Perm(), err)
	}

	target := filepath.Join(dir, "someone-elses")
	if err := os.WriteFile(target, []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, "planted", desktop.AutostartMarker)
	if err := os.MkdirAll(filepath.Dir(planted), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, planted); err != nil {
		t.Fatal(err)
	}
	if made, err := desktop.NewMarker(planted, "yes\n"); made {
		t.Errorf("newMarker wrote through a link (err %v)", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs\n" {
		t.Errorf("the link's target now holds %q", b)
	}
	dangling := filepath.Join(dir, "dangling", desktop.AutostartMarker)
	if err := os.MkdirAll(filepath.Dir(dangling), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	if made, _ := desktop.NewMarker(dangling, "yes\n"); made {
		t.Error("newMarker made a file through a dangling link")
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("a dangling link's target was created")
	}
}
