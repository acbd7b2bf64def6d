package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// casesDir holds the real-world cases (a copy of the developers' shared
// cases folder, kept in the repository so that a fresh clone tests alone).
const casesDir = "../testdata/cases"

// loadCase reads a cases/*.json elicitation/create request and returns its
// message and parsed requestedSchema.
func loadCase(t *testing.T, name string) (string, *elicit.Form) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(casesDir, name))
	if err != nil {
		t.Fatalf("reading case: %v", err)
	}
	var req struct {
		Params struct {
			Message         string          `json:"message"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatalf("decoding %s: %v", name, err)
	}
	form, err := elicit.Parse(req.Params.RequestedSchema)
	if err != nil {
		t.Fatalf("elicit.Parse(%s): %v", name, err)
	}
	return req.Params.Message, form
}

// promptHarness is a prompt view on a test window, recording answers.
type promptHarness struct {
	t       *testing.T
	v       *promptView
	w       fyne.Window
	c       fyne.Canvas
	answers []Answer
	closed  int
}

// newHarness shows the prompt for case name on a test canvas the way
// ShowPrompt does, with the first field focused and the key guard off.
func newHarness(t *testing.T, name string) *promptHarness {
	t.Helper()
	test.NewTempApp(t)
	msg, form := loadCase(t, name)
	h := &promptHarness{t: t}
	h.v = newPromptView(&Prompt{
		Server:     "demo",
		ServerInfo: "mcp-servers/everything 2.0.0",
		Tool:       "export_report",
		Message:    msg,
		Form:       form,
	}, func(a Answer) { h.answers = append(h.answers, a) })
	h.v.closeWindow = func() { h.closed++ }
	h.w = test.NewTempWindow(t, h.v.content)
	h.w.Resize(fyne.NewSize(560, 700))
	h.c = h.w.Canvas()
	h.v.attach(h.c)
	h.v.focusFirst()
	return h
}

// row returns the row of the field named name.
func (h *promptHarness) row(name string) *fieldRow {
	h.t.Helper()
	for _, r := range h.v.rows {
		if r.f.Name == name {
			return r
		}
	}
	h.t.Fatalf("no field %q", name)
	return nil
}

// typeInto focuses the field's entry, as a click would, and types text
// after what it holds.
func (h *promptHarness) typeInto(name, text string) {
	h.t.Helper()
	e := h.row(name).entry
	if e == nil {
		h.t.Fatalf("field %q has no text entry", name)
	}
	h.c.Focus(e)
	test.Type(e, text)
}

// retype replaces the entry's text the way a user does: select all, type.
func (h *promptHarness) retype(name, text string) {
	h.t.Helper()
	e := h.row(name).entry
	h.c.Focus(e)
	e.TypedShortcut(&fyne.ShortcutSelectAll{})
	if text == "" {
		e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
		return
	}
	test.Type(e, text)
}

// tick taps the check box labelled label in the multi select name.
func (h *promptHarness) tick(name, label string) {
	h.t.Helper()
	for _, c := range h.row(name).multi {
		if c.Text == label {
			test.Tap(c)
			return
		}
	}
	h.t.Fatalf("field %q has no check box %q", name, label)
}

// choose picks label in the single select name.
func (h *promptHarness) choose(name, label string) {
	h.t.Helper()
	s := h.row(name).sel
	if s == nil {
		h.t.Fatalf("field %q is not a single select", name)
	}
	found := false
	for _, o := range s.Options {
		found = found || o == label
	}
	if !found {
		h.t.Fatalf("field %q offers %q, not %q", name, s.Options, label)
	}
	s.SetSelected(label)
}

// press sends a key the way the GLFW driver does: to the focused widget,
// else to the canvas.
func (h *promptHarness) press(key fyne.KeyName) { pressKey(h.c, key) }

// shortcut sends a shortcut the way the GLFW driver does: to the focused
// widget when it handles shortcuts, else to the canvas.
func (h *promptHarness) shortcut(s fyne.Shortcut) { typeShortcut(h.c, s) }

// pressKey sends a key to c the way the GLFW driver does: to the focused
// widget, else to the canvas.
func pressKey(c fyne.Canvas, key fyne.KeyName) {
	ev := &fyne.KeyEvent{Name: key}
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
		return
	}
	if k := c.OnTypedKey(); k != nil {
		k(ev)
	}
}

// typeShortcut sends a shortcut to c the way the GLFW driver does: to the
// focused widget when it handles shortcuts, else to the canvas.
func typeShortcut(c fyne.Canvas, s fyne.Shortcut) {
	if f, ok := c.Focused().(fyne.Shortcutable); ok {
		f.TypedShortcut(s)
		return
	}
	c.(fyne.Shortcutable).TypedShortcut(s)
}

// only returns the single answer given, failing if there is not exactly one.
func (h *promptHarness) only() Answer {
	h.t.Helper()
	if len(h.answers) != 1 {
		h.t.Fatalf("got %d answers %+v, want exactly one", len(h.answers), h.answers)
	}
	if h.closed != 1 {
		h.t.Errorf("window closed %d times after the answer, want once", h.closed)
	}
	return h.answers[0]
}

// labelOf returns the label o is, or nil: a widget.Label, or a bidiLabel's
// (whose own position, not the label's inside it, is where it is drawn).
func labelOf(o fyne.CanvasObject) *widget.Label {
	switch l := o.(type) {
	case *widget.Label:
		return l
	case *bidiLabel:
		return &l.Label
	}
	return nil
}

// visibleLabels lists the visible labels under o.
func visibleLabels(o fyne.CanvasObject) []*widget.Label {
	var out []*widget.Label
	walkVisible(o, func(o fyne.CanvasObject) bool {
		if l := labelOf(o); l != nil {
			out = append(out, l)
			return false
		}
		return true
	})
	return out
}

// walkVisible calls f on every visible object under o, descending into
// containers and widgets while f returns true.
func walkVisible(o fyne.CanvasObject, f func(fyne.CanvasObject) bool) {
	if o == nil || !o.Visible() || !f(o) {
		return
	}
	switch w := o.(type) {
	case *fyne.Container:
		for _, c := range w.Objects {
			walkVisible(c, f)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(w).Objects() {
			walkVisible(c, f)
		}
	}
}

// visibleTexts lists the texts of the visible labels and check boxes under
// o, in layout order: what the user reads.
func visibleTexts(o fyne.CanvasObject) []string {
	var out []string
	walkVisible(o, func(o fyne.CanvasObject) bool {
		switch w := o.(type) {
		case *widget.Label:
			out = append(out, w.Text)
			return false
		case *bidiLabel:
			out = append(out, w.Text)
			return false
		case *keyCheck:
			out = append(out, w.Text)
			return false
		}
		return true
	})
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fakeClock is a settable clock for the key guard and the countdown.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }
