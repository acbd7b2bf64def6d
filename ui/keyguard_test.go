package ui

import (
	"encoding/json"
	"github.com/elicitray/elicitray/ui/lang"
	"os"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// TestMain gives Fyne elicitray's translations, as the window process
// does, and keeps prompt windows from arming on a timer of their own, on
// another goroutine than the test's: a test that needs a window to take
// input arms it (PromptWindow.arm), as the guard's end would.
func TestMain(m *testing.M) {
	LoadTranslations()
	after = func(time.Duration, func()) func() { return func() {} }
	os.Exit(m.Run())
}

// typeOnCanvas types text into c the way the GLFW driver does: to the
// focused widget, else to the canvas, where nothing takes it.
func typeOnCanvas(c fyne.Canvas, text string) {
	for _, r := range text {
		if f := c.Focused(); f != nil {
			f.TypedRune(r)
		} else if typed := c.OnTypedRune(); typed != nil {
			typed(r)
		}
	}
}

// TestTypingBeforeArmedGoesNowhere: a user typing in another window as a
// prompt pops up (a password, say) types nothing into it, even into a
// field that has the focus: no letters, no editing keys, no paste, no
// ticked box. Once the guard has passed, typing fills the field.
func TestTypingBeforeArmedGoesNowhere(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	clock := &fakeClock{t: time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC)}
	h.v.now = clock.now
	h.v.armedAt = clock.t.Add(keyGuard)

	name := h.row("fullName").entry
	h.c.Focus(name)
	test.Type(name, "hunter2")
	greeting := h.row("greeting").entry
	h.c.Focus(greeting)
	greeting.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
	fyne.CurrentApp().Clipboard().SetContent("pasted")
	greeting.TypedShortcut(&fyne.ShortcutPaste{Clipboard: fyne.CurrentApp().Clipboard()})
	agree := h.row("agree").check
	test.Tap(agree)
	agree.TypedRune(' ')
	if got := []any{name.Text, greeting.Text, agree.Checked}; !cmp.Equal(got, []any{"", "Hello from the team.", false}) {
		t.Fatalf("input before the guard's end changed the form: name %q, greeting %q, agree %v", got[0], got[1], got[2])
	}

	clock.t = clock.t.Add(keyGuard)
	h.c.Focus(name)
	test.Type(name, "Ada")
	test.Tap(agree)
	if name.Text != "Ada" || !agree.Checked {
		t.Errorf("after the guard: name %q, agree %v; want what was typed and ticked", name.Text, agree.Checked)
	}
}

// TestHeldKeyTypesNothing: a key held down since before the guard ended
// (its auto-repeat, in a desktop window) types nothing into the field that
// then has the focus; a key pressed afterwards does.
func TestHeldKeyTypesNothing(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	clock := &fakeClock{t: time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC)}
	h.v.now = clock.now
	h.v.armedAt = clock.t.Add(keyGuard)
	h.v.keys.presses = true // as in a desktop window
	name := h.row("fullName").entry
	h.c.Focus(name)
	name.KeyDown(&fyne.KeyEvent{Name: fyne.KeyX}) // during the guard
	clock.t = clock.t.Add(keyGuard)
	for i := 0; i < 5; i++ {
		name.TypedRune('x') // its repeats, after it
	}
	if name.Text != "" {
		t.Fatalf("a key held since the guard typed %q", name.Text)
	}
	name.KeyDown(&fyne.KeyEvent{Name: fyne.KeyA})
	name.TypedRune('a')
	name.KeyUp(&fyne.KeyEvent{Name: fyne.KeyA})
	if name.Text != "a" {
		t.Errorf("a key pressed after the guard typed %q, want \"a\"", name.Text)
	}
}

// TestHeldPromptSaysSo: a prompt window opens held: nothing has the focus,
// the line beside the buttons says it is not ready yet, the buttons that
// answer are dimmed, and what is typed (also after a Tab into a field)
// goes nowhere. Armed, the first field has the focus, the buttons and the
// hint are as the form makes them, and typing and Return submit.
func TestHeldPromptSaysSo(t *testing.T) {
	a := test.NewTempApp(t)
	form, err := elicit.Parse(json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Name"}},"required":["name"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []Answer
	pw := ShowPrompt(a, &Prompt{Server: "github", Message: "Who?", Form: form}, func(an Answer) { got = append(got, an) })
	v := pw.view
	c := pw.win.Canvas()
	if f := c.Focused(); f != nil {
		t.Errorf("a held prompt gives the focus to %T, want nothing", f)
	}
	if v.hint.Text != heldCue || !v.decline.Disabled() || !v.submit.Disabled() {
		t.Errorf("held: hint %q, Decline dimmed %v, Submit dimmed %v; want %q and both dimmed",
			v.hint.Text, v.decline.Disabled(), v.submit.Disabled(), heldCue)
	}
	typeOnCanvas(c, "hunter2")
	c.FocusNext() // Tab
	typeOnCanvas(c, "hunter2")
	test.Tap(v.mute)
	pressKey(c, fyne.KeyReturn)
	if name := v.rows[0].entry.Text; name != "" || v.mute.Checked || len(got) != 0 {
		t.Fatalf("a held prompt took input: name %q, mute ticked %v, answers %+v", name, v.mute.Checked, got)
	}

	pw.arm()
	if f := c.Focused(); f != fyne.Focusable(v.rows[0].entry) {
		t.Errorf("armed, the focus is on %T, want the first field", f)
	}
	if v.hint.Text != "To submit, fix: “Name”" || v.decline.Disabled() || !v.submit.Disabled() {
		t.Errorf("armed: hint %q, Decline dimmed %v, Submit dimmed %v; want the fields' hint, Decline on, Submit dimmed until valid",
			v.hint.Text, v.decline.Disabled(), v.submit.Disabled())
	}
	typeOnCanvas(c, "Ada")
	pressKey(c, fyne.KeyReturn)
	want := []Answer{{Action: actionAccept, Content: map[string]any{"name": "Ada"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers mismatch (-want +got):\n%s", diff)
	}

	// A URL prompt: Open in browser and Decline dimmed, the focus on
	// Cancel only once armed.
	u := ShowURLPrompt(a, &URLPrompt{Server: "payments", Message: "Connect.", Check: elicit.CheckURL("https://auth.example.com/connect")}, func(Answer) {})
	if f := u.win.Canvas().Focused(); f != nil || !u.urlView.open.Disabled() || !u.urlView.decline.Disabled() || u.urlView.hint.Text != heldCue {
		t.Errorf("held URL prompt: focus %T, Open dimmed %v, Decline dimmed %v, hint %q", f, u.urlView.open.Disabled(), u.urlView.decline.Disabled(), u.urlView.hint.Text)
	}
	u.arm()
	if f := u.win.Canvas().Focused(); f != fyne.Focusable(u.urlView.cancel) || u.urlView.open.Disabled() || u.urlView.hint.Text != "" {
		t.Errorf("armed URL prompt: focus %T, Open dimmed %v, hint %q; want Cancel, Open on, no hint", f, u.urlView.open.Disabled(), u.urlView.hint.Text)
	}
	u.Close()
}

// TestArmedPromptSaysReadyInChinese: armed, a prompt in Chinese no longer
// says it takes input in a moment. Before, the held line was compared with
// its English text, and a Chinese window went on saying it was not ready
// while it was.
func TestArmedPromptSaysReadyInChinese(t *testing.T) {
	withLocale(t, map[string]string{"LANG": "zh_CN.UTF-8"})
	a := test.NewTempApp(t)
	pw := ShowPrompt(a, &Prompt{Server: "prod", Tool: "deploy", ToolCall: true, Message: "运行工具 deploy？"}, func(Answer) {})
	defer pw.Close()
	held := pw.view.hint.Text
	if held != lang.L(heldCue) || held == heldCue {
		t.Fatalf("held, the line says %q, want %q in Chinese", held, heldCue)
	}
	pw.arm()
	if got := pw.view.hint.Text; got == held {
		t.Errorf("armed, the line still says %q", got)
	}
	u := ShowURLPrompt(a, &URLPrompt{Server: "payments", Message: "连接。", Check: elicit.CheckURL("https://auth.example.com/connect")}, func(Answer) {})
	defer u.Close()
	u.arm()
	if got := u.urlView.hint.Text; got == held {
		t.Errorf("armed, the URL prompt's line still says %q", got)
	}
}
