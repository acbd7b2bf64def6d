package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/ui/lang"
)

// "Always answer this way" (Answer.Remember) and the values last given
// (Prompt.Prefill): a form prompt offers the check box between its status
// line and its buttons, so Tab reaches it after "Don't ask again for an
// hour" and before the buttons. The URL prompt never offers it: a link is
// opened only after the user's consent, each time (PROTOCOL.md §6).
//
// A remembered value never decides for the user (issue 24): only a
// free-text field for which the server set no default takes one
// (elicit.Field.Prefillable), so every check box, choice and server default
// opens as the server asks; each such field says under it that it holds the
// user's last answer, a bar above the form says so too and clears them all
// at once, and Return does not send them: it moves to the first and says
// that Submit does. A field the user edits in the window is theirs again.

// rememberLabel is the text of the check box that sets Answer.Remember.
const rememberLabel = "Always answer this way (this server, this question)"

// The texts that mark pre-filled values.
const (
	lastAnswerNote  = "Your last answer, not the server's"
	lastAnswersBar  = "Marked fields hold your last answers, not the server's. Return does not send them: check them, then press Submit."
	lastAnswerClear = "Clear last answers"
	lastAnswerHeld  = "Press Submit to send your last answers."
)

// rememberBox makes the check box; unticked, so that remembering is always
// the user's own act.
func (b *promptBase) rememberBox() fyne.CanvasObject {
	b.remember = newKeyCheck(b.keys, lang.L(rememberLabel), nil)
	return b.remember
}

// initialValue is what field f starts with, and whether it is the user's
// last answer: the value last given for it when it may be pre-filled,
// else its default.
func initialValue(f *elicit.Field, defaults, prefill map[string]any) (any, bool) {
	if v, ok := prefill[f.Name].(string); ok && v != "" && f.Prefillable() {
		return v, true
	}
	return defaults[f.Name], false
}

// hasSecretField reports whether form has a secret-looking field: such a
// form is never remembered, whatever the hub offers.
func hasSecretField(form *elicit.Form) bool {
	if form == nil {
		return false
	}
	for _, f := range form.Fields {
		if f.Sensitive {
			return true
		}
	}
	return false
}

// lastAnswerMark is the line under a field holding the user's last answer.
func lastAnswerMark() fyne.CanvasObject {
	return note(theme.HistoryIcon(), widget.WarningImportance, lang.L(lastAnswerNote))
}

// buildLastAnswers makes the bar that says the form holds last answers,
// with the button that clears them all; hidden when none does.
func (v *promptView) buildLastAnswers() fyne.CanvasObject {
	v.clearLast = newKeyButton(v.keys, lang.L(lastAnswerClear), v.onClearLast, v.onClearLast)
	v.lastBar = container.NewBorder(nil, nil, nil, container.NewVBox(v.clearLast),
		note(theme.HistoryIcon(), widget.WarningImportance, lang.L(lastAnswersBar)))
	v.showLastAnswers()
	return v.lastBar
}

// rememberedRows are the fields still holding the user's last answer.
func (v *promptView) rememberedRows() []*fieldRow {
	var rows []*fieldRow
	for _, r := range v.rows {
		if r.remembered() {
			rows = append(rows, r)
		}
	}
	return rows
}

// showLastAnswers marks each field while it holds a last answer, and shows
// the bar while any does.
func (v *promptView) showLastAnswers() {
	if v.lastBar == nil {
		return
	}
	any := false
	for _, r := range v.rows {
		if r.lastMark != nil {
			showIf(r.lastMark, r.remembered())
		}
		any = any || r.remembered()
	}
	showIf(v.lastBar, any)
}

// showIf shows o when show is set and hides it otherwise.
func showIf(o fyne.CanvasObject, show bool) {
	if show {
		o.Show()
	} else {
		o.Hide()
	}
}

// onClearLast empties every field holding a last answer: the form is as
// the server asked.
func (v *promptView) onClearLast() {
	rows := v.rememberedRows()
	for _, r := range rows {
		r.last = false
		r.entry.SetText("")
	}
	v.showLastAnswers()
	v.validate()
	if len(rows) > 0 && v.canvas != nil {
		v.canvas.Focus(rows[0].focusTarget())
	}
}

// holdLastAnswers is Return on a form holding last answers: nothing is
// sent, the first is focused, and the hint says that Submit sends them.
func (v *promptView) holdLastAnswers(rows []*fieldRow) {
	if v.canvas != nil {
		v.canvas.Focus(rows[0].focusTarget())
	}
	// Not the hint's usual grey: this is why the key did nothing.
	v.hint.Importance = widget.WarningImportance
	v.hint.SetText(lang.L(lastAnswerHeld))
}

// remembered reports whether the field holds the user's last answer: it
// was pre-filled with it, and its text is that answer still. An edit that
// ends on the same text (a space typed and deleted) leaves it the last
// answer, which Return does not send.
func (r *fieldRow) remembered() bool {
	return r.last && r.entry != nil && r.entry.Text == valueText(r.initial)
}
