package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// "Always answer this way" (Answer.Remember) and the values last given
// (Prompt.Prefill): a form prompt offers the check box between its status
// line and its buttons, so Tab reaches it after "Don't ask again for an
// hour" and before the buttons. The URL prompt never offers it: a link is
// opened only after the user's consent, each time (PROTOCOL.md §6).

// rememberLabel is the text of the check box that sets Answer.Remember.
const rememberLabel = "Always answer this way (this server, this question)"

// rememberBox makes the check box; unticked, so that remembering is always
// the user's own act.
func (b *promptBase) rememberBox() fyne.CanvasObject {
	b.remember = newKeyCheck(b.keys, lang.L(rememberLabel), nil)
	return b.remember
}

// initialValue is what field f starts with: the value last given for it
// when there is one (never a secret's), else its default.
func initialValue(f *elicit.Field, defaults, prefill map[string]any) any {
	if v, ok := prefill[f.Name]; ok && !f.Sensitive {
		return v
	}
	return defaults[f.Name]
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
