//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// TestMenuWindowOnDesktop (issue 13): `elicitray menu` starts the hub and
// opens the tray's menu in a window; from the keyboard, as a person without
// a mouse would, it pauses and resumes prompts, mutes a server, follows a
// pause made elsewhere (`elicitray pause`: the hub's state reaches the
// open window), opens History (and closes itself), and quits the hub.
func TestMenuWindowOnDesktop(t *testing.T) {
	d := newParallelDesktop(t)
	// A configured server, for the menu to list.
	if err := os.WriteFile(d.paths.Config, []byte("[servers.github]\nrule = \"ask\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d.elicitray("menu")
	win, hubPID := d.window()
	if got := d.title(win); got != "elicitray — menu" {
		t.Fatalf("elicitray menu opened %q", got)
	}
	d.settle() // its first frames drawn: keys from now on reach it

	// The focus starts on Pause all prompts.
	d.xdo("key", "--window", win, "space")
	d.statusSays("Paused", "yes (elicitray resume)")
	d.xdo("key", "--window", win, "space")
	d.statusSays("Paused", "no")
	if !d.visible(win) {
		t.Fatal("pausing closed the menu window")
	}

	// Paused from elsewhere: the open window learns it from the hub (its
	// button now reads Resume prompts: the screen changes), so that the
	// button resumes.
	d.settle()
	before := d.capture()
	d.elicitray("pause")
	d.screenChanged(before)
	d.xdo("key", "--window", win, "space")
	d.statusSays("Paused", "no")

	// Tab: github's Mute; Space mutes it for an hour.
	d.xdo("key", "--window", win, "Tab", "space")
	d.statusSays("Server", "github  rule ask, muted until ")
	d.screenshot("menu.png")

	// Tab: History…; Space opens it, and the menu goes.
	d.keysClosing(win, "Tab", "space")
	d.closed(win)
	hist, _ := d.window()
	if got := d.title(hist); got != "elicitray — history" {
		t.Fatalf("the menu's History… opened %q", got)
	}
	d.answer(hist, "Escape")

	// Again, and up to Quit, the menu's last line (Shift+Tab from Pause
	// wraps to it, however many server lines the window has drawn by
	// then); the hub stops.
	d.elicitray("menu")
	win, _ = d.window()
	d.settle()
	d.keysClosing(win, "shift+Tab", "space")
	deadline := time.Now().Add(desktopWait)
	for len(ownProcesses(d.mark, hubPID)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the menu's Quit did not stop the hub (pid %d)%s", hubPID, d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
	if log := d.hubLog(); !strings.Contains(log, "elicitray hub: stopped") {
		t.Errorf("the hub did not stop cleanly after Quit:\n%s", log)
	}
}

// elicitray runs the real binary with args, as a person in a terminal or
// the launcher would, and fails the test when it fails.
func (d *testDesktop) elicitray(args ...string) string {
	d.t.Helper()
	cmd := exec.Command(testkit.Binary(d.t), args...)
	if d.env != nil {
		cmd.Env = d.env
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		d.t.Fatalf("elicitray %s: %v\n%s%s", strings.Join(args, " "), err, out, d.diagnostics())
	}
	return string(out)
}

// statusSays waits until `elicitray status` has a line for topic that
// starts with want after the topic's column.
func (d *testDesktop) statusSays(topic, want string) {
	d.t.Helper()
	deadline := time.Now().Add(desktopWait)
	var out string
	for {
		out = d.elicitray("status")
		for l := range strings.SplitSeq(out, "\n") {
			if rest, ok := strings.CutPrefix(l, topic); ok && strings.HasPrefix(strings.TrimSpace(rest), want) {
				return
			}
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("elicitray status did not say %s %q within %v:\n%s%s", topic, want, desktopWait, out, d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
}

// screenChanged waits until the screen differs from before by more than a
// text cursor's blink, then until it settles.
func (d *testDesktop) screenChanged(before []byte) {
	d.t.Helper()
	deadline := time.Now().Add(desktopWait)
	for changedPixels(before, d.capture()) < 20 {
		if time.Now().After(deadline) {
			d.t.Fatalf("the screen did not change within %v%s", desktopWait, d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
	d.settle()
}

// hubLog is the hub's log so far.
func (d *testDesktop) hubLog() string {
	b, _ := os.ReadFile(d.paths.HubLog)
	return string(b)
}

// TestHistoryOffersMenuOnDesktop: with no tray host (the test's bus has no
// StatusNotifierWatcher), the history window, what the app launcher opens,
// has Menu… at its bottom left, and it opens the menu window beside it.
func TestHistoryOffersMenuOnDesktop(t *testing.T) {
	d := newParallelDesktop(t)
	seedRealistic(t, d.paths.History, 5)
	d.elicitray("history", "window")
	hist, hubPID := d.window()
	if got := d.title(hist); got != "elicitray — history" {
		t.Fatalf("history window opened %q", got)
	}
	d.settle()
	// Menu… is the bottom bar's first button (the window is 1240×680).
	d.xdo("mousemove", "--window", hist, "40", "656", "click", "1")
	want := []string{"elicitray — history", "elicitray — menu"}
	deadline := time.Now().Add(desktopWait)
	for {
		var titles []string
		for _, w := range d.visibleWindows(strconv.Itoa(hubPID)) {
			titles = append(titles, d.title(w))
		}
		slices.Sort(titles)
		if slices.Equal(titles, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Menu… the screen shows %q, want the history and the menu windows%s", titles, d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
	d.elicitray("quit")
}

// TestDoctorNamesTheMenu: on a session bus with no tray host, doctor's
// Tray line names `elicitray menu`, where the tray's menu is instead.
func TestDoctorNamesTheMenu(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, false)
	runtimeDir := t.TempDir()
	testkit.SessionBus(t, runtimeDir) // no StatusNotifierWatcher on it
	out, _, _ := e.run(t, nil, []string{"XDG_RUNTIME_DIR=" + runtimeDir, "DBUS_SESSION_BUS_ADDRESS="}, "doctor")
	l := testkit.DoctorLine(out, "Tray")
	if !strings.Contains(l, "no tray host") || !strings.Contains(l, "`elicitray menu` opens its menu in a window") {
		t.Errorf("doctor's Tray line on a bus without a tray host: %q\n%s", l, out)
	}
}
