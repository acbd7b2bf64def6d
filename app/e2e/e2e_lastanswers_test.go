//go:build linux

package e2e

import (
	"testing"

	"github.com/jezek/xgb/xproto"
)

// approvalServerScript is the TypeScript SDK server with the change-approval
// guard (request_change, up to three rounds) and drop_database.
const approvalServerScript = "../../testdata/npm/approvalserver.mjs"

// TestEndToEndLastAnswersNeverDecide (issue 24) drives the real wrapper and
// hub on the X server, with a server written on the TypeScript SDK: the
// change-approval guard and a drop_database form, each answered once with
// production values and then asked again. The second time every window opens
// as the server asks: the environment on its default (dev) or on none, roll
// back on failure ticked, the production confirmation and "I understand the
// risk" unticked; only the free text typed last time comes back, and Return
// alone sends none of it. make screenshots keeps both runs' windows.
func TestEndToEndLastAnswersNeverDecide(t *testing.T) {
	needDisplay(t)
	d := newParallelDesktop(t)
	// Eleven prompts answered as fast as keys go: the rate limit is not
	// what this tests.
	d.config("[servers.changes]\nburst = 50\n")
	cs := d.connect("changes", systemNode(t), needNPM(t, approvalServerScript, tsSDKPackage)[0])

	// changeRequest calls request_change, approves its summary (round 1)
	// and returns the call and the change request's window (round 2).
	changeRequest := func() (<-chan toolCall, string) {
		call := d.call(cs, "request_change")
		win, _ := d.window()
		d.answer(win, "Return")
		win, _ = d.window()
		return call, win
	}

	// The first run: prod, no roll back, production confirmed.
	call, win := changeRequest()
	d.typeInto(win, "checkout")
	d.xdo("key", "--window", win, "Tab")
	d.xdo("type", "--window", win, "pool exhaustion")
	// Tab to the environment, Right twice: dev → staging → prod; Tab to
	// roll back on failure, Space unticks it.
	d.xdo("key", "--window", win, "Tab", "Right", "Right", "Tab", "space")
	d.screenshot("lastanswers-first-run.png")
	d.answer(win, "Return")
	win, _ = d.window() // round 3: production
	d.press(win, "space")
	d.answer(win, "Return")
	const run1 = `executed {"environment":"prod","reason":"pool exhaustion","rollback_on_failure":false,"service":"checkout"}`
	if got := d.result(call); got != run1 {
		t.Fatalf("the first run ended %q, want %q", got, run1)
	}

	// Asked again, Return alone sends nothing: the form holds last
	// answers. Escape after it cancels round 2.
	call, win = changeRequest()
	// The form, taller than the summary shown before it in the same
	// reused window, is on the screen whole: its buttons too.
	d.onScreen(win)
	d.screenshot("lastanswers-second-run.png")
	d.keysClosing(win, "Return", "Escape")
	d.closed(win)
	if got := d.result(call); got != "aborted in round 2" {
		t.Fatalf("Return then Escape on the pre-filled change request ended %q, want it aborted in round 2: Return must send no last answer", got)
	}

	// Again: Return moves to the first last answer, from where Shift+Tab
	// reaches Submit, which sends them, with the server's defaults: roll back
	// ticked; prod chosen by hand. Round 3 opens unticked, and Return there
	// sends what the server preset: blocked.
	call, win = changeRequest()
	d.press(win, "Return", "Tab", "Tab", "Right", "Right", "Return", "shift+Tab")
	d.answer(win, "space")
	win, _ = d.window()
	d.screenshot("lastanswers-production-again.png")
	d.answer(win, "Return")
	const run3 = `blocked {"environment":"prod","reason":"pool exhaustion","rollback_on_failure":true,"service":"checkout"}`
	if got := d.result(call); got != run3 {
		t.Fatalf("the third run ended %q, want %q", got, run3)
	}

	// drop_database: confirmed in production once; asked again, nothing is
	// chosen or ticked for the user.
	call = d.call(cs, "drop_database")
	win, _ = d.window()
	d.typeInto(win, "orders")
	d.xdo("key", "--window", win, "Tab", "Right", "Right", "Tab", "space")
	d.answer(win, "Return")
	if got := d.result(call); got != "dropped orders in production" {
		t.Fatalf("the first drop_database ended %q", got)
	}
	call = d.call(cs, "drop_database")
	win, _ = d.window()
	d.screenshot("lastanswers-drop-again.png")
	// Return: the environment is required and none is chosen, so it goes
	// there; Right Right chooses production; Return again stops at the
	// remembered database; Shift+Tab, Space: Submit.
	d.press(win, "Return", "Right", "Right", "Return", "shift+Tab")
	d.answer(win, "space")
	if got := d.result(call); got != "kept orders" {
		t.Errorf("the second drop_database ended %q, want \"kept orders\": \"I understand the risk\" must open unticked", got)
	}
}

// press presses keys in prompt window win once it takes input (armed).
func (d *testDesktop) press(win string, keys ...string) {
	d.t.Helper()
	if !d.armed(win) {
		d.t.Fatalf("window %s went before it took input%s", win, d.diagnostics())
	}
	d.xdo(append([]string{"key", "--window", win}, keys...)...)
}

// onScreen fails unless window win lies wholly on the screen.
func (d *testDesktop) onScreen(win string) {
	d.t.Helper()
	conn, id, _ := d.armedProperty(win)
	defer conn.Close()
	root := xproto.Setup(conn).DefaultScreen(conn)
	geo, err := xproto.GetGeometry(conn, xproto.Drawable(id)).Reply()
	if err != nil {
		d.t.Fatalf("the geometry of window %s: %v", win, err)
	}
	at, err := xproto.TranslateCoordinates(conn, id, root.Root, 0, 0).Reply()
	if err != nil {
		d.t.Fatalf("the position of window %s: %v", win, err)
	}
	if at.DstX < 0 || at.DstY < 0 || int(at.DstX)+int(geo.Width) > int(root.WidthInPixels) || int(at.DstY)+int(geo.Height) > int(root.HeightInPixels) {
		d.t.Errorf("window %s, %dx%d at (%d, %d), reaches past the %dx%d screen: its buttons are out of sight",
			win, geo.Width, geo.Height, at.DstX, at.DstY, root.WidthInPixels, root.HeightInPixels)
	}
}
