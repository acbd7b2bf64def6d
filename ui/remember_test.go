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

// TestPromptPrefill: a form asked again starts with the values last given
// in place of its defaults (text, boolean, number, multi select), and
// Submit alone sends them; a secret field never takes one.
func TestPromptPrefill(t *testing.T) {
	h := rememberHarness(t, shipSchema, Prompt{Prefill: map[string]any{
		"city": "Lisbon", "express": true, "qty": json.Number("3"), "tags": []string{"fragile"},
	}})
	if got := h.row("city").entry.Text; got != "Lisbon" {
		t.Errorf("City shows %q, want the value last given", got)
	}
	h.v.onSubmit()
	want := map[string]any{"city": "Lisbon", "express": true, "qty": json.Number("3"), "tags": []string{"fragile"}}
	if diff := cmp.Diff(want, h.only().Content); diff != "" {
		t.Errorf("content mismatch (-want +got):\n%s", diff)
	}

	h = rememberHarness(t, `{"type":"object","properties":{"password":{"type":"string","format":"password"}}}`,
		Prompt{Prefill: map[string]any{"password": "hunter2"}})
	if got := h.row("password").entry.Text; got != "" {
		t.Errorf("the secret field shows %q, want it empty", got)
	}
}
