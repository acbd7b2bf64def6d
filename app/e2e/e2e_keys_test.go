//go:build linux

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestHeldKeyAnswersNothing (found by a new user, issue 9's review): a
// Return held down after it answered one prompt must not answer the prompt
// queued behind it. X auto-repeat keeps sending the key's press, with no
// release, to whichever window has the focus; the next window never saw the
// key go down, so its first repeat arrives there as a press, long after the
// half-second guard. The held key answers nothing; the Escape pressed after
// it cancels the second prompt.
func TestHeldKeyAnswersNothing(t *testing.T) {
	server := everythingServer(t)
	d := newParallelDesktop(t)
	cs := d.connect("everything", server)
	first := d.call(cs, "trigger-elicitation-request")
	win1, _ := d.window()
	second := d.call(cs, "trigger-elicitation-request")
	d.typeInto(win1, "Ada")
	d.answer(win1, "Return")
	if text := d.result(first); !strings.Contains(text, "Name: Ada") {
		t.Fatalf("the first prompt was not accepted with the name typed:\n%s", text)
	}

	win2, _ := d.window()
	d.typeInto(win2, "Grace") // a form Return would submit
	// The key, held: as a user saw it, its first press reaches the new
	// window after X's auto-repeat delay (660 ms), past the guard; then
	// its presses keep coming for a second, then its release. The pause is
	// part of what the user did, not a wait for the program.
	time.Sleep(660 * time.Millisecond)
	for end := time.Now().Add(time.Second); time.Now().Before(end) && d.visible(win2); {
		d.x("xdotool", "keydown", "--window", win2, "Return").Run()
	}
	if d.visible(win2) {
		d.xdo("keyup", "--window", win2, "Return")
		d.answer(win2, "Escape")
	}
	if got := parseRawResult(t, d.result(second)).Action; got != "cancel" {
		t.Errorf("the second prompt was answered %q, want cancel: the held Return answered it", got)
	}
}
