package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/ui/state"
)

// TestSettingsRememberedAnswers: Settings lists the remembered answers;
// Forget takes one out of the list and Save hands its number over to be
// forgotten, with the pre-fill option as ticked. Forgetting is a change:
// Close asks first.
func TestSettingsRememberedAnswers(t *testing.T) {
	s := sampleSettings()
	s.Remember = state.RememberSettings{Prefill: true, Rules: []state.RememberedAnswer{
		{ID: 1, Server: "shop", Message: "Ship to which city?", Answer: `accept {"city":"Lisbon"}`, Expires: time.Date(2026, 12, 31, 0, 0, 0, 0, time.Local)},
		{ID: 4, Server: "bank", Message: "Pay now?", Answer: "decline"},
	}}
	h := newSettingsHarness(t, s)
	text := labelsText(h.v.content)
	for _, want := range []string{`shop: accept {"city":"Lisbon"} — “Ship to which city?” — until 31 Dec 2026`, "bank: decline — “Pay now?”"} {
		if !strings.Contains(text, want) {
			t.Errorf("Settings does not list %q:\n%s", want, text)
		}
	}
	var forget []*closeButton
	walkVisible(h.v.content, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*closeButton); ok && b.Text == "Forget" {
			forget = append(forget, b)
		}
		return true
	})
	if len(forget) != 2 {
		t.Fatalf("%d Forget buttons, want one per rule", len(forget))
	}
	asked := false
	h.v.confirm = func(_, _, _, _ string, done func(bool)) { asked = true }
	test.Tap(forget[0])
	if strings.Contains(labelsText(h.v.content), "Ship to which city?") {
		t.Error("a forgotten rule is still listed")
	}
	h.v.onClose()
	if !asked || h.closed != 0 {
		t.Errorf("Close after Forget: asked %v, closed %d; want the question and the window open", asked, h.closed)
	}
	test.Tap(h.v.remember.prefill)
	h.v.onSave()
	if len(h.saved) != 1 {
		t.Fatalf("%d saves", len(h.saved))
	}
	want := state.RememberSettings{Prefill: false, Rules: s.Remember.Rules[1:], Forget: []int{1}}
	if diff := cmp.Diff(want, h.saved[0].Remember); diff != "" {
		t.Errorf("saved mismatch (-want +got):\n%s", diff)
	}
}

// labelsText is the text of the visible labels under o, one a line.
func labelsText(o fyne.CanvasObject) string {
	var b strings.Builder
	for _, l := range visibleLabels(o) {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}
