package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/ui/state"
)

// isOpen reports whether w is one of a's windows.
func isOpen(a fyne.App, w fyne.Window) bool {
	for _, o := range a.Driver().AllWindows() {
		if o == w {
			return true
		}
	}
	return false
}

// closeKey is a way to close a window from the keyboard.
type closeKey struct {
	name  string
	press func(c fyne.Canvas)
}

var closeKeys = []closeKey{
	{"Escape", func(c fyne.Canvas) { pressKey(c, fyne.KeyEscape) }},
	{"Ctrl+W", func(c fyne.Canvas) { typeShortcut(c, closeShortcut) }},
}

// TestHistoryClosesOnEscapeAndCtrlW: Escape and Ctrl+W close the history
// window wherever the focus is: the search entry (focused when the window
// opens), the other filters, the table, a button, or nothing (issue 9).
func TestHistoryClosesOnEscapeAndCtrlW(t *testing.T) {
	for _, key := range closeKeys {
		for _, tt := range []struct {
			focus string
			of    func(v *historyView) fyne.Focusable
		}{
			{"as opened (the search entry)", nil},
			{"nothing", func(*historyView) fyne.Focusable { return nil }},
			{"server filter", func(v *historyView) fyne.Focusable { return v.filters.server }},
			{"action filter", func(v *historyView) fyne.Focusable { return v.filters.action }},
			{"date entry", func(v *historyView) fyne.Focusable { return v.filters.from }},
			{"table", func(v *historyView) fyne.Focusable { return v.list }},
			{"Export button", func(v *historyView) fyne.Focusable { return v.exportB }},
		} {
			t.Run(key.name+"/"+tt.focus, func(t *testing.T) {
				a := test.NewTempApp(t)
				hw := showHistory(a, newFakeHistory(sampleRecords()...), &historyOptions{spawn: func(f func()) { f() }})
				c := hw.Window().Canvas()
				if tt.of == nil {
					if c.Focused() != hw.view.filters.text {
						t.Fatalf("focus on %T when the window opens, want the search entry", c.Focused())
					}
				} else if f := tt.of(hw.view); f == nil {
					c.Unfocus()
				} else {
					c.Focus(f)
				}
				key.press(c)
				if isOpen(a, hw.Window()) {
					t.Errorf("the history window is still open after %s", key.name)
				}
			})
		}
	}
}

// TestHistoryEscapeLeavesDialogs: Escape while a question is open over the
// history window does not close the window under it.
func TestHistoryEscapeLeavesDialogs(t *testing.T) {
	a := test.NewTempApp(t)
	hw := showHistory(a, newFakeHistory(sampleRecords()...), &historyOptions{spawn: func(f func()) { f() }})
	t.Cleanup(hw.Window().Close)
	c := hw.Window().Canvas()
	test.Tap(hw.view.clearB) // "Clear the history?"
	if c.Overlays().Top() == nil {
		t.Fatal("Clear all… asked nothing")
	}
	c.Unfocus()
	pressKey(c, fyne.KeyEscape)
	if !isOpen(a, hw.Window()) {
		t.Error("Escape over the Clear question closed the history window")
	}
}

// TestSettingsClosesOnEscapeAndCtrlW: with nothing changed, Escape and
// Ctrl+W close the settings window wherever the focus is, saving nothing.
func TestSettingsClosesOnEscapeAndCtrlW(t *testing.T) {
	for _, key := range closeKeys {
		for _, tt := range []struct {
			focus string
			of    func(v *settingsView) fyne.Focusable
		}{
			{"nothing", func(*settingsView) fyne.Focusable { return nil }},
			{"a default's entry", func(v *settingsView) fyne.Focusable { return v.defaults.every.entry }},
			{"a server's entry", func(v *settingsView) fyne.Focusable { return v.servers[0].timeout.entry }},
			{"a rule", func(v *settingsView) fyne.Focusable { return v.servers[1].rule }},
			{"the add entry", func(v *settingsView) fyne.Focusable { return v.addName }},
			{"Save", func(v *settingsView) fyne.Focusable { return v.saveBtn }},
			{"Remove", func(v *settingsView) fyne.Focusable { return v.servers[0].remove }},
		} {
			t.Run(key.name+"/"+tt.focus, func(t *testing.T) {
				a := test.NewTempApp(t)
				var saved []state.Settings
				w, v := showSettings(a, sampleSettings(), func(s state.Settings) error {
					saved = append(saved, s)
					return nil
				})
				c := w.Canvas()
				if f := tt.of(v); f != nil {
					c.Focus(f)
				}
				key.press(c)
				if isOpen(a, w) {
					t.Errorf("the settings window is still open after %s", key.name)
				}
				if len(saved) != 0 {
					t.Errorf("%s saved %+v", key.name, saved)
				}
			})
		}
	}
}

// TestSettingsAsksBeforeDiscarding: with changes not saved, Escape, Ctrl+W,
// Close and the window's close button ask first; Keep editing keeps the
// window and the changes, Discard closes it without saving. A value typed
// and put back is no change.
func TestSettingsAsksBeforeDiscarding(t *testing.T) {
	ways := append(closeKeys,
		closeKey{"Close", nil},
		closeKey{"the window's close button", nil},
	)
	for _, way := range ways {
		t.Run(way.name, func(t *testing.T) {
			h := newSettingsHarness(t, sampleSettings())
			var asked []confirmCall
			h.v.confirm = func(title, message, ok, dismiss string, done func(bool)) {
				asked = append(asked, confirmCall{title, message, ok, done})
			}
			closeIt := func() {
				switch way.name {
				case "Close":
					test.Tap(h.v.closeBtn)
				case "the window's close button":
					h.v.onClose() // what ShowSettings's close intercept calls
				default:
					h.c.Focus(h.field("github", "Every").entry)
					way.press(h.c)
				}
			}
			h.retype("github", "Burst", "9")
			h.retype("github", "Burst", "1") // as it was
			closeIt()
			if len(asked) != 0 || h.closed != 1 {
				t.Fatalf("unchanged: asked %d times, closed %d; want no question and closed", len(asked), h.closed)
			}
			h.closed = 0
			h.retype("", "Timeout", "5m")
			closeIt()
			if len(asked) != 1 || h.closed != 0 {
				t.Fatalf("changed: asked %d times, closed %d; want one question and open", len(asked), h.closed)
			}
			if q := asked[0]; q.title != "Discard your changes?" || q.ok != "Discard" {
				t.Errorf("asked %q with %q", q.title, q.ok)
			}
			closeIt() // again while the question is open: one question
			if len(asked) != 1 {
				t.Errorf("asked %d times while the first question was open", len(asked))
			}
			asked[0].done(false) // Keep editing
			if h.closed != 0 || h.field("", "Timeout").entry.Text != "5m" {
				t.Errorf("Keep editing: closed %d, timeout %q; want open with the change", h.closed, h.field("", "Timeout").entry.Text)
			}
			closeIt()
			asked[len(asked)-1].done(true) // Discard
			if h.closed != 1 || len(h.saved) != 0 {
				t.Errorf("Discard: closed %d, %d saves; want closed, nothing saved", h.closed, len(h.saved))
			}
		})
	}
}

// TestShowSettingsAsksInADialog: the question is a dialog over the window,
// and Discard there closes it.
func TestShowSettingsAsksInADialog(t *testing.T) {
	a := test.NewTempApp(t)
	w, v := showSettings(a, sampleSettings(), func(state.Settings) error { return nil })
	v.defaults.burst.entry.SetText("8")
	typeShortcut(w.Canvas(), closeShortcut)
	top := w.Canvas().Overlays().Top()
	if top == nil || !isOpen(a, w) {
		t.Fatal("Ctrl+W with a change closed the window without asking")
	}
	if texts := visibleTexts(top); !contains(texts, "The settings you changed are not saved. Close the window and discard the changes?") {
		t.Errorf("the dialog says %q", texts)
	}
	pressKey(w.Canvas(), fyne.KeyEscape) // Escape over the question does not close the window
	if !isOpen(a, w) {
		t.Fatal("Escape over the question closed the window")
	}
	for _, b := range buttonsUnder(top) {
		if b.Text == "Discard" {
			test.Tap(b)
		}
	}
	if isOpen(a, w) {
		t.Error("Discard did not close the window")
	}
}

// buttonsUnder lists the visible buttons under o.
func buttonsUnder(o fyne.CanvasObject) []*widget.Button {
	var out []*widget.Button
	walkVisible(o, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*widget.Button); ok {
			out = append(out, b)
			return false
		}
		return true
	})
	return out
}
