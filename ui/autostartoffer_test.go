package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestAutostartOffer: the first-start offer answers once, yes only for
// Start at login; Not now, Escape and Ctrl+W answer no;
// each closes the window. Nothing has the focus as it opens, so Space and
// Return (meant for another window) answer nothing; Tab reaches Not now,
// then Start at login.
func TestAutostartOffer(t *testing.T) {
	for _, tt := range []struct {
		name string
		do   func(w fyne.Window, v *offerView)
		want bool
	}{
		{"Start at login", func(w fyne.Window, v *offerView) { test.Tap(v.yes) }, true},
		{"Not now", func(w fyne.Window, v *offerView) { test.Tap(v.no) }, false},
		{"Escape", func(w fyne.Window, v *offerView) { pressKey(w.Canvas(), fyne.KeyEscape) }, false},
		{"Ctrl+W", func(w fyne.Window, v *offerView) { typeShortcut(w.Canvas(), closeShortcut) }, false},
		{"Tab Tab Space", func(w fyne.Window, v *offerView) {
			c := w.Canvas()
			c.FocusNext()
			c.FocusNext()
			pressKey(c, fyne.KeySpace)
		}, true},
		{"Tab Space", func(w fyne.Window, v *offerView) {
			c := w.Canvas()
			c.FocusNext()
			pressKey(c, fyne.KeySpace)
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			var answers []bool
			w, view := showAutostartOffer(a, func(yes bool) { answers = append(answers, yes) })
			c := w.Canvas()
			if c.Focused() != nil {
				t.Fatalf("focus on %T as the offer opens, want none", c.Focused())
			}
			// Keys meant for another window answer nothing.
			pressKey(c, fyne.KeySpace)
			pressKey(c, fyne.KeyReturn)
			if len(answers) != 0 {
				t.Fatalf("Space or Return answered the offer with nothing focused: %v", answers)
			}
			tt.do(w, view)
			if len(answers) != 1 || answers[0] != tt.want {
				t.Errorf("answers %v, want [%v]", answers, tt.want)
			}
			if isOpen(a, w) {
				t.Error("the offer window stayed open after its answer")
			}
		})
	}
}
