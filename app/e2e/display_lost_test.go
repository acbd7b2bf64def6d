//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/elicitray/elicitray/app/desktop"
	"github.com/elicitray/elicitray/app/internal/testkit"

	"github.com/elicitray/elicitray/app/platform"
)

// privateX is an X server of the test's own (Xvfb), which the test may end
// as a user's X server ends: a logout, a crash, a killed VNC session.
type privateX struct {
	display string // ":N"
	cmd     *exec.Cmd
	exited  chan struct{}
}

// startX starts Xvfb on display (":N"), or on a display number Xvfb finds
// free itself when display is "" (-displayfd: it writes the number it took
// once it accepts connections; -noreset, as the Makefile's). It returns
// once clients can connect, and ends the server when the test does, if
// the test did not.
func startX(t *testing.T, display string) *privateX {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Fatalf("Xvfb is needed for a display of the test's own (make deps-system installs it): %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	args := []string{"-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp", "-noreset"}
	if display != "" {
		args = append([]string{display}, args...)
	}
	x := &privateX{cmd: exec.Command("Xvfb", args...), exited: make(chan struct{})}
	x.cmd.ExtraFiles = []*os.File{w}
	var stderr bytes.Buffer
	x.cmd.Stderr = &stderr
	if err := x.cmd.Start(); err != nil {
		w.Close()
		t.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	go func() {
		_ = x.cmd.Wait()
		close(x.exited)
	}()
	t.Cleanup(x.kill)
	n, err := bufio.NewReader(r).ReadString('\n')
	if strings.TrimSpace(n) == "" {
		t.Fatalf("Xvfb %s said no display number (%v)\n%s", strings.Join(args, " "), err, stderr.String())
	}
	x.display = ":" + strings.TrimSpace(n)
	return x
}

// kill ends the X server at once, as a crash would (SIGKILL: it closes no
// client connection itself), and waits until it is gone.
func (x *privateX) kill() {
	_ = x.cmd.Process.Signal(syscall.SIGKILL)
	<-x.exited
}

// TestHubStopsWhenItsDisplayGoes: the X server a hub shows its windows on
// ends while a prompt is on screen. The hub stops by itself, saying why in
// hub.log, and lets go of its lock and socket; it does not stay to answer
// every later prompt cancel ("its process ended"). The next prompt starts
// a new hub on the display there is then, and the user answers it there.
// With no display there, doctor says prompts cannot be shown.
func TestHubStopsWhenItsDisplayGoes(t *testing.T) {
	needDisplay(t) // xdotool comes with make test's
	t.Parallel()
	// A display number no other test's X server takes while this one's is
	// ended, before it starts again there.
	x := startX(t, unusedDisplay(t))
	d := newParallelDesktopOn(t, x.display, desktop.LingerEnv+"=30s")
	cs := d.connect("demo", testkit.Binary(t), "demo-server")

	first := d.call(cs, "confirm_deploy")
	_, oldHub := d.window()
	x.kill()
	if got := d.result(first); got != "cancel" {
		t.Errorf("the prompt on screen when its display went got %q, want cancel", got)
	}
	d.waitFor("the hub on the display that went exits", func() bool { return len(ownProcesses(d.mark, oldHub)) == 0 })
	lock, err := os.OpenFile(d.paths.Lock, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := platform.TryLock(lock); err != nil {
		t.Errorf("the hub's lock %s is still held after it stopped: %v", d.paths.Lock, err)
	}
	lock.Close()
	if hubAnswers(t.Context(), d.paths) {
		t.Errorf("something still answers on the hub's socket %s", d.paths.Socket)
	}
	hubLog, _ := os.ReadFile(d.paths.HubLog)
	if want := "the display DISPLAY=" + x.display + " is gone (its X server ended or closed the connection), so the hub stops"; !bytes.Contains(hubLog, []byte(want)) {
		t.Errorf("hub.log does not say %q:\n%s", want, hubLog)
	}

	t.Run("doctor", func(t *testing.T) {
		out, _, code := testkit.RunBinary(t, os.Environ(), testkit.NoSession(t), d.env, "doctor")
		if l := testkit.DoctorLine(out, "Display"); code != 1 || !strings.HasPrefix(l, "✗ Display: ") ||
			!strings.Contains(out, "Prompts cannot be shown: ") || strings.Contains(out, "Prompts can be shown.") {
			t.Errorf("exit %d, Display line %q, want ✗ and \"Prompts cannot be shown\":\n%s", code, l, out)
		}
	})

	// The user's X server is back (they logged in again): the next prompt
	// is shown there, by a new hub, and answered.
	x = startX(t, x.display)
	d.unmaps = newUnmapWatch(t, d.display)
	second := d.call(cs, "confirm_deploy")
	win, newHub := d.window()
	if newHub == oldHub {
		t.Fatalf("the window belongs to hub %d, the one whose display went", newHub)
	}
	d.answer(win, "Return")
	if got, want := d.result(second), `accept: {"confirm":false,"environment":"staging"}`; got != want {
		t.Errorf("on the new display, the server got %q, want %q%s", got, want, d.diagnostics())
	}
	for _, r := range d.history() {
		if strings.Contains(r.Reason, "could not be shown") {
			t.Errorf("history holds a prompt that was never shown: %+v", r)
		}
	}
	// Its own X server ending in Cleanup stops this hub too.
	x.kill()
	d.waitFor("the second hub exits with its display", func() bool { return len(ownProcesses(d.mark, newHub)) == 0 })
}
