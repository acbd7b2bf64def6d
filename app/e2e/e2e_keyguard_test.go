//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jezek/xgb/xproto"
)

// TestTypingBeforeArmedGoesNowhere (issue 14, "a prompt you notice"): a
// user typing in another window — a password, say — as a prompt pops up
// types nothing into it: what xdotool types into the window right after it
// maps, before the window takes input (ui.ArmedProperty), is nowhere in
// what the server receives. Typed once the window says it takes input, the
// name reaches the server as typed, and Return sends it once the person
// turned to the window (Tab).
func TestTypingBeforeArmedGoesNowhere(t *testing.T) {
	server := everythingServer(t)
	d := newParallelDesktop(t)
	cs := d.connect("everything", server)
	const early = "hunter2"
	for attempt := 1; ; attempt++ {
		call := d.call(cs, "trigger-elicitation-request")
		win, _ := d.mapped()
		d.xdo("type", "--delay", "1", "--window", win, early)
		if d.armedNow(win) {
			// The machine took the whole guard to get here: the keys may
			// have come after it, which proves nothing. Again.
			d.answer(win, "Escape")
			d.result(call)
			if attempt == 5 {
				t.Skipf("in %d tries the window took input before the keys typed as it appeared had been sent: too loaded a machine", attempt)
			}
			continue
		}
		d.typeInto(win, "Ada")
		// Keys went down as it opened: the window takes no answer until
		// the person turns to it (Tab), and Tab back keeps the name field.
		d.xdo("key", "--window", win, "Tab", "shift+Tab")
		d.answer(win, "Return")
		text := d.result(call)
		if strings.Contains(text, early) {
			t.Errorf("keys typed as the window appeared reached the server:\n%s", text)
		}
		want := rawResult{Action: "accept", Content: everythingAccepted("Ada")}
		if diff := cmp.Diff(want, parseRawResult(t, text)); diff != "" {
			t.Errorf("ElicitResult the server received mismatch (-want +got):\n%s", diff)
		}
		return
	}
}

// armedNow reports whether prompt window win has ui.ArmedProperty now:
// it takes input.
func (d *testDesktop) armedNow(win string) bool {
	d.t.Helper()
	conn, id, atom := d.armedProperty(win)
	defer conn.Close()
	r, err := xproto.GetProperty(conn, false, id, atom.Atom, xproto.AtomCardinal, 0, 1).Reply()
	return err == nil && r.ValueLen > 0
}
