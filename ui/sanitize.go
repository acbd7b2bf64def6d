package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// hiddenCharsNote is shown when server text had invisible characters.
const hiddenCharsNote = "This request contained invisible or control characters, which can disguise text; elicitray removed them."

// textCleaner strips hidden characters from many strings and remembers
// whether any had some.
type textCleaner struct{ found bool }

func (c *textCleaner) clean(s string) string {
	out, found := elicit.Visible(s)
	c.found = c.found || found
	return out
}

// cleanPrompt returns p with every server-sent text a person reads made
// visible: serverInfo, tool, message, and the form's titles, descriptions
// and option labels. Values sent back (option values, names) stay as the
// server sent them. The bool reports whether anything was removed.
func cleanPrompt(p *Prompt) (*Prompt, bool) {
	var c textCleaner
	q := *p
	q.ServerInfo, q.Tool, q.Message = c.clean(p.ServerInfo), c.clean(p.Tool), c.clean(p.Message)
	if p.Form != nil {
		f := *p.Form
		f.Fields = make([]elicit.Field, len(p.Form.Fields))
		for i, fld := range p.Form.Fields {
			fld.Title, fld.Description = c.clean(fld.Title), c.clean(fld.Description)
			if fld.Title == "" && p.Form.Fields[i].Title == "" {
				// The label falls back to the name: a name is shown too.
				if n := c.clean(fld.Name); n != fld.Name {
					fld.Title = n
				}
			}
			opts := make([]elicit.Option, len(fld.Options))
			for j, o := range fld.Options {
				opts[j] = elicit.Option{Value: o.Value, Label: c.clean(o.Label)}
			}
			fld.Options = opts
			f.Fields[i] = fld
		}
		q.Form = &f
	}
	return &q, c.found
}

// hiddenCharsWarning is the line that says hidden characters were removed.
func hiddenCharsWarning() fyne.CanvasObject {
	l := widget.NewLabel(hiddenCharsNote)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.WarningImportance
	return container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), nil, l)
}
