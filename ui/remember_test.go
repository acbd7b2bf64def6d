package ui

import (
	"encoding/json"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// rememberHarness shows p's form on a test canvas as ShowPrompt does.
func rememberHarness(t *testing.T, schema string, p Prompt) *promptHarness {
	t.Helper()
	test.NewTempApp(t)
	form, err := elicit.Parse(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	p.Server, p.Message, p.Form = "shop", "Ship where?", form
	h := &promptHarness{t: t}
	h.v = newPromptView(&p, func(a Answer) { h.answers = append(h.answers, a) })
	h.v.closeWindow = func() { h.closed++ }
	h.w = test.NewTempWindow(t, h.v.content)
	h.w.Resize(fyne.NewSize(560, 700))
	h.c = h.w.Canvas()
	h.v.attach(h.c)
	h.v.focusFirst()
	return h
}

// rememberChecks are the visible "Always answer this way" check boxes.
func rememberChecks(o fyne.CanvasObject) []*keyCheck {
	var out []*keyCheck
	walkVisible(o, func(o fyne.CanvasObject) bool {
		if c, ok := o.(*keyCheck); ok && c.Text == rememberLabel {
			out = append(out, c)
			return false
		}
		if _, ok := o.(*widget.Check); ok {
			return false
		}
		return true
	})
	return out
}

const shipSchema = `{"type":"object","properties":{
	"city":{"type":"string","title":"City"},
	"express":{"type":"boolean","title":"Express","default":false},
	"qty":{"type":"integer","title":"Quantity","default":1},
	"tags":{"type":"array","items":{"type":"string","enum":["gift","fragile"]}}},
	"required":["city"]}`

// TestPromptRememberOffered: a form the hub may remember offers the check
// box, unticked; ticking it goes with the answer as Answer.Remember, and
// an answer without it carries none.
func TestPromptRememberOffered(t *testing.T) {
	for _, tick := range []bool{false, true} {
		h := rememberHarness(t, shipSchema, Prompt{CanRemember: true})
		boxes := rememberChecks(h.v.content)
		if len(boxes) != 1 {
			t.Fatalf("%d %q check boxes shown, want 1", len(boxes), rememberLabel)
		}
		if boxes[0].Checked {
			t.Fatal("the check box starts ticked: remembering must be the user's own act")
		}
		if tick {
			test.Tap(boxes[0])
		}
		h.typeInto("city", "Lisbon")
		h.v.onSubmit()
		if a := h.only(); a.Remember != tick || a.Action != actionAccept {
			t.Errorf("ticked %v: answer %+v, want Remember %v with accept", tick, a, tick)
		}
	}
}

// TestPromptRememberNotOffered: no check box where the hub offers none, nor
// on a form with a secret field even if it did (a secret is never stored).
func TestPromptRememberNotOffered(t *testing.T) {
	for _, tt := range []struct {
		name   string
		schema string
		can    bool
	}{
		{"not offered", shipSchema, false},
		{"secret field", `{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string","format":"password"}}}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := rememberHarness(t, tt.schema, Prompt{CanRemember: tt.can})
			if n := len(rememberChecks(h.v.content)); n != 0 {
				t.Errorf("%d %q check boxes shown, want none", n, rememberLabel)
			}
			if h.v.remember != nil {
				t.Error("the prompt can still answer Remember")
			}
		})
	}
}

// The change request of the demo's change-approval guard (round 2) and its
// production confirmation (round 3), and a drop_database form: the forms
// where a remembered value once answered for the user (issue 24).
const (
	changeSchema = `{"type":"object","properties":{
	"service":{"type":"string","title":"Service"},
	"reason":{"type":"string","title":"Reason"},
	"environment":{"type":"string","title":"Target environment","enum":["dev","staging","prod"],"default":"dev"},
	"rollback_on_failure":{"type":"boolean","title":"Roll back on failure","default":true},
	"ticket":{"type":"string","title":"Ticket","default":"none"}},
	"required":["service","reason","environment"]}`
	confirmSchema = `{"type":"object","properties":{"confirm":{"type":"boolean","title":"Yes, change production"}}}`
	dropSchema    = `{"type":"object","properties":{
	"database":{"type":"string","title":"Database"},
	"environment":{"type":"string","oneOf":[{"const":"staging","title":"Staging"},{"const":"prod","title":"Production"}]},
	"tags":{"type":"array","items":{"type":"string","enum":["audit","urgent"]}},
	"copies":{"type":"integer","title":"Copies"},
	"understand":{"type":"boolean","title":"I understand the risk"}},
	"required":["database","environment","understand"]}`
)

// lastAnswers are what an older remembered.json may hold for those forms:
// a value for every field, the user's production answers among them.
var lastAnswers = map[string]any{
	"service": "checkout", "reason": "pool exhaustion", "environment": "prod", "rollback_on_failure": false,
	"ticket": "OPS-1", "confirm": true, "database": "orders", "tags": []string{"urgent"}, "copies": json.Number("3"),
	"understand": true,
}

// TestPromptPrefillOnlyFreeText: a form asked again opens exactly as the
// server asks (its choices, check boxes and defaults), whatever was
// answered last time; only free text with no server default takes the last
// answer, marked as such under the field and in a bar above the form.
func TestPromptPrefillOnlyFreeText(t *testing.T) {
	h := rememberHarness(t, changeSchema, Prompt{Prefill: lastAnswers})
	for name, want := range map[string]string{"service": "checkout", "reason": "pool exhaustion", "ticket": "none"} {
		if got := h.row(name).entry.Text; got != want {
			t.Errorf("%s shows %q, want %q", name, got, want)
		}
	}
	if got := h.row("environment").sel.Selected; got != "dev" {
		t.Errorf("the environment opens on %q, want the server's default dev", got)
	}
	if !h.row("rollback_on_failure").check.Checked {
		t.Error("roll back on failure opens unticked, want the server's default (ticked)")
	}
	if n := countVisible(h.v.content, lastAnswerNote); n != 2 {
		t.Errorf("%d fields are marked %q, want service and reason", n, lastAnswerNote)
	}
	if !contains(visibleTexts(h.v.content), lastAnswersBar) {
		t.Errorf("no bar says the form holds last answers; the window shows %q", visibleTexts(h.v.content))
	}

	h = rememberHarness(t, confirmSchema, Prompt{Prefill: lastAnswers})
	if h.row("confirm").check.Checked {
		t.Error("the production confirmation opens ticked")
	}
	if contains(visibleTexts(h.v.content), lastAnswersBar) {
		t.Error("a form with no pre-filled field says it holds last answers")
	}

	h = rememberHarness(t, dropSchema, Prompt{Prefill: lastAnswers})
	if h.row("understand").check.Checked {
		t.Error("\"I understand the risk\" opens ticked")
	}
	if got := h.row("environment").sel.SelectedIndex(); got != -1 {
		t.Errorf("the environment opens on choice %d, want none chosen", got)
	}
	for _, c := range h.row("tags").multi {
		if c.Checked {
			t.Errorf("tag %q opens ticked", c.Text)
		}
	}
	if got := h.row("copies").entry.Text; got != "" {
		t.Errorf("the number of copies opens as %q, want it empty (a number is no free text)", got)
	}
	if got := h.row("database").entry.Text; got != "orders" {
		t.Errorf("the database opens as %q, want the last answer", got)
	}

	h = rememberHarness(t, `{"type":"object","properties":{"password":{"type":"string","format":"password"}}}`,
		Prompt{Prefill: map[string]any{"password": "hunter2"}})
	if got := h.row("password").entry.Text; got != "" {
		t.Errorf("the secret field shows %q, want it empty", got)
	}
}

// TestPromptReturnKeepsLastAnswers: Return never sends a last answer the
// user did not touch in this window: it moves to the first and says that
// Submit does; Submit sends them; a field the user edits is theirs again.
func TestPromptReturnKeepsLastAnswers(t *testing.T) {
	h := rememberHarness(t, changeSchema, Prompt{Prefill: lastAnswers})
	h.press(fyne.KeyReturn)
	if len(h.answers) != 0 {
		t.Fatalf("Return sent %+v with the last answers in it", h.answers)
	}
	if h.c.Focused() != h.row("service").entry {
		t.Error("Return did not move to the first field holding a last answer")
	}
	if got := h.v.hint.Text; got != lastAnswerHeld || h.v.hint.Importance != widget.WarningImportance {
		t.Errorf("the hint says %q (importance %v), want %q in the warning colour", got, h.v.hint.Importance, lastAnswerHeld)
	}
	test.Tap(h.v.submit)
	want := map[string]any{"service": "checkout", "reason": "pool exhaustion", "environment": "dev", "rollback_on_failure": true, "ticket": "none"}
	if diff := cmp.Diff(want, h.only().Content); diff != "" {
		t.Errorf("Submit sent (-want +got):\n%s", diff)
	}

	// The Submit button reached from the keyboard sends them too: the
	// user chose it.
	h = rememberHarness(t, changeSchema, Prompt{Prefill: lastAnswers})
	h.c.Focus(h.v.submit)
	h.press(fyne.KeyReturn)
	if a := h.only(); a.Action != actionAccept {
		t.Errorf("Return on the Submit button answered %q, want accept", a.Action)
	}

	// Edited, each field is the user's own: the marks go, and Return
	// submits once none is left.
	h = rememberHarness(t, changeSchema, Prompt{Prefill: lastAnswers})
	h.retype("service", "search")
	if n := countVisible(h.v.content, lastAnswerNote); n != 1 {
		t.Errorf("%d fields are marked after service was retyped, want 1 (reason)", n)
	}
	h.press(fyne.KeyReturn)
	if len(h.answers) != 0 {
		t.Fatalf("Return sent %+v while reason still held the last answer", h.answers)
	}
	h.retype("reason", "pool exhaustion at peak")
	if contains(visibleTexts(h.v.content), lastAnswersBar) {
		t.Error("the bar stays after every last answer was edited")
	}
	h.press(fyne.KeyReturn)
	if got := h.only().Content["reason"]; got != "pool exhaustion at peak" {
		t.Errorf("Return sent reason %q, want what the user made of it", got)
	}
}

// TestPromptClearLastAnswers: one action empties every field holding a last
// answer, so the form is as the server asked; Return then sends nothing
// until the required fields are filled in.
func TestPromptClearLastAnswers(t *testing.T) {
	h := rememberHarness(t, changeSchema, Prompt{Prefill: lastAnswers})
	test.Tap(h.v.clearLast)
	for _, name := range []string{"service", "reason"} {
		if got := h.row(name).entry.Text; got != "" {
			t.Errorf("%s still shows %q after %q", name, got, lastAnswerClear)
		}
	}
	if got := h.row("ticket").entry.Text; got != "none" {
		t.Errorf("the server's default ticket became %q", got)
	}
	texts := visibleTexts(h.v.content)
	if contains(texts, lastAnswersBar) || contains(texts, lastAnswerNote) {
		t.Errorf("the last answers are still marked after clearing: %q", texts)
	}
	h.press(fyne.KeyReturn)
	if len(h.answers) != 0 {
		t.Fatalf("Return sent %+v with the required fields empty", h.answers)
	}
}

// countVisible counts the visible labels reading text under o.
func countVisible(o fyne.CanvasObject, text string) int {
	n := 0
	for _, l := range visibleLabels(o) {
		if l.Text == text {
			n++
		}
	}
	return n
}

// TestPromptLastAnswerEditedBack: an edit that ends on the same text (a
// space typed and deleted) leaves the field the last answer: still marked,
// still not sent by Return; edited to other text and back by hand, it is
// the last answer again.
func TestPromptLastAnswerEditedBack(t *testing.T) {
	h := rememberHarness(t, changeSchema, Prompt{Prefill: lastAnswers})
	e := h.row("service").entry
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyRight}) // the focus selected it all: to its end
	e.TypedRune(' ')

	if n := countVisible(h.v.content, lastAnswerNote); n != 1 {
		t.Errorf("%d fields marked while service reads %q, want reason alone", n, e.Text)
	}
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
	if n := countVisible(h.v.content, lastAnswerNote); n != 2 {
		t.Errorf("%d fields marked after service was edited back to %q, want 2", n, e.Text)
	}
	h.retype("reason", "other")
	h.retype("reason", "pool exhaustion")
	h.press(fyne.KeyReturn)
	if len(h.answers) != 0 {
		t.Fatalf("Return sent %+v: the fields hold the last answers again", h.answers)
	}
}
