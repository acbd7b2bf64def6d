package ui

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/ui/lang"
	"github.com/elicitray/elicitray/ui/state"
)

// The settings window's "Remembered answers" section: the answers given
// with "Always answer this way" (app/remember/remember.go), each with Forget, and
// whether forms asked again start with the values last given. Forget takes
// the row out; Save forgets it.

// rememberSection is the section's widgets and state.
type rememberSection struct {
	prefill *closeCheck
	list    *fyne.Container
	none    *widget.Label
	rules   []state.RememberedAnswer
	forget  []int
	changed func()
}

// buildRemember makes the section for s.
func (v *settingsView) buildRemember(s state.RememberSettings) fyne.CanvasObject {
	sec := &rememberSection{rules: s.Rules, changed: func() { v.validate() }}
	v.remember = sec
	sec.prefill = newCloseCheck(v.keys, lang.L("Pre-fill free-text fields asked again with the text last typed, marked (never secrets, choices or check boxes)"), nil)
	sec.prefill.Checked = s.Prefill
	sec.list = container.NewVBox()
	sec.none = helpLabel(lang.L("No answers are remembered."))
	for _, r := range s.Rules {
		sec.list.Add(sec.row(v.keys, r))
	}
	sec.none.Hidden = len(s.Rules) > 0
	return container.NewVBox(heading(lang.L("Remembered answers")),
		helpLabel(lang.L("Answers given with “Always answer this way”: each later request of that server in the same tool call, "+
			"with the same message and form, gets it without a window. Forget one to be asked again (“elicitray rules” does the same).")),
		sec.none, sec.list, sec.prefill)
}

// row is one rule's line and its Forget button.
func (sec *rememberSection) row(keys *windowKeys, r state.RememberedAnswer) fyne.CanvasObject {
	// The answer's action in the user's language, its content as sent; the
	// server's name and message each in their own visual order (bidiText).
	action, content, _ := strings.Cut(oneLine(r.Answer), " ")
	answer := strings.TrimSpace(recordTerm(action) + " " + content)
	text := fmt.Sprintf("%s: %s — “%s”", bidiText(chars.CutMiddle(oneLine(r.Server), maxLabel/2)),
		bidiText(chars.Cut(answer, maxLabel)), bidiText(chars.Cut(oneLine(r.Message), maxLabel)))
	if !r.Expires.IsZero() {
		text += lang.L(" — until {{.Date}}", map[string]any{"Date": r.Expires.Local().Format(lang.L("2 Jan 2006"))})
	}
	label := widget.NewLabel(text)
	label.Wrapping = fyne.TextWrapWord
	var box *fyne.Container
	forget := newCloseButton(keys, lang.L("Forget"), theme.DeleteIcon(), func() {
		sec.forget = append(sec.forget, r.ID)
		sec.list.Remove(box)
		sec.none.Hidden = len(sec.forget) < len(sec.rules)
		sec.none.Refresh()
		sec.changed()
	})
	forget.Importance = widget.LowImportance
	box = container.NewBorder(nil, nil, nil, forget, label)
	return box
}

// now is the section as the window holds it, for Save.
func (sec *rememberSection) now() state.RememberSettings {
	if sec == nil {
		return state.RememberSettings{}
	}
	var left []state.RememberedAnswer
	for _, r := range sec.rules {
		if !slices.Contains(sec.forget, r.ID) {
			left = append(left, r)
		}
	}
	return state.RememberSettings{Prefill: sec.prefill.Checked, Rules: left, Forget: append([]int(nil), sec.forget...)}
}

// snapshot is the section's state for settingsView.snapshot.
func (sec *rememberSection) snapshot() string {
	if sec == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "prefill=%v forget=%v", sec.prefill.Checked, sec.forget)
	return b.String()
}

// closeCheck is a check box that hands Escape and Ctrl+W to its window;
// Space still toggles it.
type closeCheck struct {
	widget.Check
	keys *windowKeys
}

func newCloseCheck(keys *windowKeys, label string, changed func(bool)) *closeCheck {
	c := &closeCheck{keys: keys}
	c.Text = label
	c.OnChanged = changed
	c.ExtendBaseWidget(c)
	return c
}

// TypedKey catches Escape, which widget.Check would swallow.
func (c *closeCheck) TypedKey(ev *fyne.KeyEvent) { c.keys.typedKey(ev, c.Check.TypedKey) }
