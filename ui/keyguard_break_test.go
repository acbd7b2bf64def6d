package ui

import (
	"net/url"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// heldKeys is what a user typing in another window sends a prompt that
// pops up under it: for each widget Tab reaches, once, a space (ticks a
// box, opens a list), a letter, an arrow (moves a choice), a paste; and
// Return (submits).
func heldKeys(c fyne.Canvas) {
	seen := map[fyne.Focusable]bool{}
	for i := 0; i < 30; i++ {
		c.FocusNext() // Tab
		f := c.Focused()
		if f == nil {
			typeOnCanvas(c, " x")
			continue
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		f.TypedRune(' ')
		f.TypedRune('x')
		f.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
		if s, ok := f.(fyne.Shortcutable); ok {
			fyne.CurrentApp().Clipboard().SetContent("pasted")
			s.TypedShortcut(&fyne.ShortcutPaste{Clipboard: fyne.CurrentApp().Clipboard()})
		}
	}
	pressKey(c, fyne.KeyReturn)
}

// TestHeldPromptTakesNoKeysAnywhere: a held prompt of every kind of field
// takes nothing from keys on any widget that Tab reaches — the entries,
// check boxes, lists, the mute box, the buttons: after them, armed and
// submitted unchanged, the answer is the form's defaults, not muted. A
// form of only a check box, and a URL prompt, likewise answer nothing
// while held.
func TestHeldPromptTakesNoKeysAnywhere(t *testing.T) {
	a := test.NewTempApp(t)
	_, form := loadCase(t, "all-kinds.json")
	var untouched, got []Answer
	ref := ShowPrompt(a, &Prompt{Server: "demo", Message: "Fill?", Form: form}, func(an Answer) { untouched = append(untouched, an) })
	ref.arm()
	ref.view.onDecline()

	pw := ShowPrompt(a, &Prompt{Server: "demo", Message: "Fill?", Form: form}, func(an Answer) { got = append(got, an) })
	heldKeys(pw.win.Canvas())
	if len(got) != 0 {
		t.Fatalf("a held prompt answered %+v", got)
	}
	pw.arm()
	values, errs := pw.view.values()
	refVals, _ := ref.view.values()
	if diff := cmp.Diff(refVals, values); diff != "" || pw.view.mute.Checked {
		t.Errorf("keys while held changed the form (-untouched +got):\n%s\nmuted %v, errors %v", diff, pw.view.mute.Checked, errs)
	}
	pw.view.onCancel()

	only, err := elicit.Parse([]byte(`{"type":"object","properties":{"ok":{"type":"boolean","title":"OK?"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var gotOnly []Answer
	box := ShowPrompt(a, &Prompt{Server: "demo", Message: "OK?", Form: only}, func(an Answer) { gotOnly = append(gotOnly, an) })
	heldKeys(box.win.Canvas())
	if len(gotOnly) != 0 || box.view.rows[0].check.Checked {
		t.Fatalf("a held check-box prompt took keys: answers %+v, ticked %v", gotOnly, box.view.rows[0].check.Checked)
	}
	box.view.onCancel()

	link, _ := url.Parse("https://example.com/sign-in")
	var opened []string
	var gotURL []Answer
	up := ShowURLPrompt(a, &URLPrompt{Server: "demo", Message: "Sign in", Check: elicit.CheckURL(link.String()),
		Open: func(u *url.URL) error { opened = append(opened, u.String()); return nil }},
		func(an Answer) { gotURL = append(gotURL, an) })
	heldKeys(up.win.Canvas())
	if len(opened) != 0 {
		t.Fatalf("a held URL prompt opened %v (answers %+v)", opened, gotURL)
	}
	for _, an := range gotURL {
		if an.Action == actionAccept || an.Action == "decline" {
			t.Fatalf("a held URL prompt answered %+v", an)
		}
	}
}

// TestKeptWindowHeldAgain: the second prompt of a burst, in the window
// the first one left (KeepPromptWindows), opens held as a new window
// would: no focus, typing and Tab go nowhere, nothing answers, until it
// arms; then it takes input.
func TestKeptWindowHeldAgain(t *testing.T) {
	a := test.NewTempApp(t)
	KeepPromptWindows(a)
	t.Cleanup(func() { spare = spareWindow{} })
	form, err := elicit.Parse([]byte(`{"type":"object","properties":{"name":{"type":"string","title":"Name"}},"required":["name"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var answers []Answer
	p1 := ShowPrompt(a, &Prompt{Server: "db", Message: "Who?", Form: form}, func(an Answer) { answers = append(answers, an) })
	p1.arm()
	w1 := p1.win
	c := w1.Canvas()
	typeOnCanvas(c, "Ada")
	pressKey(c, fyne.KeyReturn)
	if len(answers) != 1 || answers[0].Action != actionAccept {
		t.Fatalf("the first prompt answered %+v, want accept", answers)
	}
	p2 := ShowPrompt(a, &Prompt{Server: "web", Message: "Who?", Form: form}, func(an Answer) { answers = append(answers, an) })
	if p2.win != w1 {
		t.Fatalf("the second prompt got a new window, want the kept one")
	}
	c = p2.win.Canvas()
	if f := c.Focused(); f != nil {
		t.Errorf("the kept window's next prompt gives the focus to %T while held", f)
	}
	if !p2.view.submit.Disabled() || !p2.view.decline.Disabled() || p2.view.hint.Text != heldCue {
		t.Errorf("the kept window's next prompt is not held: Submit dimmed %v, Decline dimmed %v, hint %q",
			p2.view.submit.Disabled(), p2.view.decline.Disabled(), p2.view.hint.Text)
	}
	typeOnCanvas(c, "Bob")
	heldKeys(c)
	if len(answers) != 1 || p2.view.rows[0].entry.Text != "" {
		t.Fatalf("the held second prompt took keys: answers %+v, name %q", answers, p2.view.rows[0].entry.Text)
	}
	p1.arm() // the first prompt's arm, late: it is over
	if !p2.view.submit.Disabled() || p2.view.hint.Text != heldCue {
		t.Errorf("the first prompt's late arm armed the second")
	}
	p2.arm()
	typeOnCanvas(c, "Cy")
	pressKey(c, fyne.KeyReturn)
	want := []Answer{{Action: actionAccept, Content: map[string]any{"name": "Ada"}}, {Action: actionAccept, Content: map[string]any{"name": "Cy"}}}
	if diff := cmp.Diff(want, answers); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// armTimer is a key guard's wait as the test's after starts it.
type armTimer struct {
	arm     func()
	stopped bool
}

// TestTypingOnKeepsTheWindowHeld (a break-it session's finding): someone
// typing into another window when an approval takes the focus, or takes
// the place of the prompt before it, keeps it held as long as they type:
// each key that goes down starts the guard's wait again, and the Return
// that ends their sentence answers nothing (it approved the call, decided
// by "user"). keyGuard after their last key it arms, and a Return pressed
// then answers once they turned to the window (Tab, or a click). Back at
// the front after the user worked elsewhere, it
// takes no answering key until keyGuard passed with none going down;
// typing into it is not held then.
func TestTypingOnKeepsTheWindowHeld(t *testing.T) {
	a := test.NewTempApp(t)
	var timers []*armTimer
	after = func(_ time.Duration, f func()) func() {
		tm := &armTimer{arm: f}
		timers = append(timers, tm)
		return func() { tm.stopped = true }
	}
	t.Cleanup(func() { after = func(time.Duration, func()) func() { return func() {} } })
	live := func() *armTimer {
		t.Helper()
		var on []*armTimer
		for _, tm := range timers {
			if !tm.stopped {
				on = append(on, tm)
			}
		}
		if len(on) != 1 {
			t.Fatalf("%d waits to arm are on, want 1", len(on))
		}
		return on[0]
	}
	form, err := elicit.Parse([]byte(`{"type":"object","properties":{"note":{"type":"string","title":"Note"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var answers []Answer
	pw := ShowPrompt(a, &Prompt{Server: "bank", Message: "Approve the wire transfer of $10,000 to account 666?", Form: form},
		func(an Answer) { answers = append(answers, an) })
	clock := &fakeClock{t: time.Now()}
	b := &pw.view.promptBase
	b.now = clock.now
	b.keys.presses = true // a desktop window reports presses
	c := pw.win.Canvas()
	press := func(key fyne.KeyName, r rune) {
		ev := &fyne.KeyEvent{Name: key}
		b.keys.keyDown(ev) // as the driver does, to the focused widget or the canvas
		if r != 0 {
			typeOnCanvas(c, string(r))
		} else {
			pressKey(c, key)
		}
		b.keys.keyUp(ev)
	}
	for _, r := range "please do not deploy anything yet" {
		clock.t = clock.t.Add(250 * time.Millisecond)
		before := live()
		press(fyne.KeyName(string(r)), r)
		if live() == before {
			t.Fatalf("a key while held did not start the wait again")
		}
	}
	clock.t = clock.t.Add(250 * time.Millisecond)
	press(fyne.KeyReturn, 0)
	if len(answers) != 0 || !b.held {
		t.Fatalf("typing on, then Return: answers %+v, held %v; want none, held", answers, b.held)
	}
	// Quiet for keyGuard (they stopped to read what they wrote): it arms,
	// but their Return answers nothing until they turn to this window,
	// and the window says so. Tab is turning to it.
	clock.t = clock.t.Add(keyGuard)
	live().arm()
	if b.held || pw.view.rows[0].entry.Text != "" {
		t.Fatalf("after keyGuard with no key: held %v, note %q; want armed, empty", b.held, pw.view.rows[0].entry.Text)
	}
	clock.t = clock.t.Add(time.Second)
	press(fyne.KeyReturn, 0)
	if len(answers) != 0 || pw.view.hint.Text != attendCue {
		t.Fatalf("Return after a pause in typing that went on as the window opened: answers %+v, hint %q; want none, and the window saying why",
			answers, pw.view.hint.Text)
	}
	clock.t = clock.t.Add(time.Second)
	press(fyne.KeyTab, 0)
	if pw.view.hint.Text == attendCue {
		t.Errorf("after Tab the window still says %q", attendCue)
	}
	clock.t = clock.t.Add(time.Second)
	fg := a.Lifecycle().(interface{ OnEnteredForeground() func() }).OnEnteredForeground()
	if fg == nil {
		t.Fatal("the prompt window does not hear it come back to the front")
	}
	fg() // the user worked elsewhere, and the window is back at the front
	hint := pw.view.hint.Text
	press(fyne.KeyReturn, 0)
	clock.t = clock.t.Add(keyGuard / 2)
	press(fyne.KeyReturn, 0)
	if len(answers) != 0 || pw.view.hint.Text != heldCue {
		t.Fatalf("Return just after the window came back to the front: answers %+v, hint %q; want none, and the window saying it is not ready yet",
			answers, pw.view.hint.Text)
	}
	clock.t = clock.t.Add(keyGuard)
	timers[len(timers)-1].arm() // the wait to say what it said before: over
	if pw.view.hint.Text != hint {
		t.Errorf("keyGuard after the last key the hint says %q, want %q again", pw.view.hint.Text, hint)
	}
	press(fyne.KeyReturn, 0)
	if len(answers) != 1 || answers[0].Action != actionAccept {
		t.Errorf("Return keyGuard after the last key: answers %+v, want one accept", answers)
	}
}

// TestKeptWindowShowsNothingOfTheLastPrompt (a break-it session's
// finding): a choice list left open in a prompt the server then cancelled
// is not over the next prompt, which takes the same window: it covered the
// next form's fields with the last one's choices.
func TestKeptWindowShowsNothingOfTheLastPrompt(t *testing.T) {
	a := test.NewTempApp(t)
	KeepPromptWindows(a)
	t.Cleanup(func() { spare = spareWindow{} })
	region, err := elicit.Parse([]byte(`{"type":"object","properties":{"region":{"type":"string","title":"Region","enum":["Europe (Frankfurt)","US East","Asia Pacific"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p1 := ShowPrompt(a, &Prompt{Server: "cloud", Message: "Where?", Form: region}, func(Answer) {})
	p1.arm()
	test.Tap(p1.view.rows[0].sel)
	if p1.win.Canvas().Overlays().Top() == nil {
		t.Fatal("tapping the choice opened no list")
	}
	w1 := p1.win
	p1.Close() // the server cancelled it
	owner, err := elicit.Parse([]byte(`{"type":"object","properties":{"to":{"type":"string","title":"Share with","enum":["alice","mallory"]}},"required":["to"]}`))
	if err != nil {
		t.Fatal(err)
	}
	p2 := ShowPrompt(a, &Prompt{Server: "github", Message: "Transfer ownership of the org?", Form: owner}, func(Answer) {})
	if p2.win != w1 {
		t.Fatal("the second prompt got a new window, want the kept one")
	}
	if top := p2.win.Canvas().Overlays().Top(); top != nil {
		t.Errorf("the next prompt shows the last one's %T over its form", top)
	}
}

// TestClickTurnsToTheWindow: after keys went down as a prompt opened, it
// says at once, armed, that it waits for a click; a click anywhere in it
// (here on its text, which takes no click) is the person turning to it:
// Return then answers.
func TestClickTurnsToTheWindow(t *testing.T) {
	a := test.NewTempApp(t)
	form, err := elicit.Parse([]byte(`{"type":"object","properties":{"note":{"type":"string","title":"Note"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var answers []Answer
	pw := ShowPrompt(a, &Prompt{Server: "bank", Message: "Approve?", Form: form}, func(an Answer) { answers = append(answers, an) })
	b := &pw.view.promptBase
	b.keys.presses = true
	c := pw.win.Canvas()
	returnKey := func() {
		ev := &fyne.KeyEvent{Name: fyne.KeyReturn}
		b.keys.keyDown(ev)
		pressKey(c, fyne.KeyReturn)
		b.keys.keyUp(ev)
	}
	b.keys.keyDown(&fyne.KeyEvent{Name: fyne.KeyH}) // typing for another window as it opened
	pw.arm()
	if pw.view.hint.Text != attendCue {
		t.Errorf("armed after keys went down while held, the window says %q, want %q", pw.view.hint.Text, attendCue)
	}
	returnKey()
	if len(answers) != 0 {
		t.Fatalf("Return before the person turned to the window answered %+v", answers)
	}
	// A click on the window's text, which takes no click itself.
	test.TapCanvas(c, fyne.NewPos(4, 4))
	if pw.view.hint.Text == attendCue {
		t.Errorf("after a click in the window it still says %q", attendCue)
	}
	returnKey()
	if len(answers) != 1 || answers[0].Action != actionAccept {
		t.Errorf("Return after a click in the window: answers %+v, want one accept", answers)
	}
}
