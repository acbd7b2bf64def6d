package ui

import (
	"strings"
	"unicode"

	"github.com/mtibben/confusables"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/ui/lang"
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
// server sent them; text defaults come cleaned from elicit
// (Field.DefaultHidden), as they are sent. The bool reports whether
// anything was removed.
func cleanPrompt(p *Prompt) (*Prompt, bool) {
	var c textCleaner
	q := *p
	q.ServerInfo, q.Tool, q.Message = c.clean(p.ServerInfo), c.clean(p.Tool), c.clean(p.Message)
	if p.Form != nil {
		f := *p.Form
		f.Fields = make([]elicit.Field, len(p.Form.Fields))
		for i, fld := range p.Form.Fields {
			// elicit removed them from the default already, so that the
			// entry shows what is sent; the user is told all the same.
			c.found = c.found || fld.DefaultHidden
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

// control is one of the window's own controls: its label as shown, and
// that label and its English one as read (read).
type control struct {
	shown string
	read  [2]string
}

// ownControls are the window's own controls, which no server text may
// pass for: the check boxes (matched at the start of a text, from the
// words that start them: "☑ Always answer this way" is one) and the
// buttons (matched whole).
func ownControls() (checks, buttons []control) {
	c := func(english, shown string) control { return control{shown, [2]string{read(english), read(shown)}} }
	checks = []control{
		c("Don't ask again", lang.L(muteLabel)),
		c("Always answer this way", lang.L(rememberLabel)),
	}
	buttons = []control{
		c("Submit", lang.L("Submit")), c("Decline", lang.L("Decline")), c("Cancel", lang.L("Cancel")),
		c("Approve", lang.L("Approve")), c("Deny", lang.L("Deny")), c("Open in browser", lang.L("Open in browser")),
	}
	return checks, buttons
}

// imitation returns the label, as shown, of the control of checks or
// buttons that server text s passes for, or "". Compared as a person
// reads them (read): the check boxes' labels at the start of s, the
// buttons' as any piece of s between brackets, bars or runs of spaces
// ("[ Submit ]   [ Decline ]").
func imitation(s string, checks, buttons []control) string {
	text := read(s)
	if text == "" {
		return ""
	}
	for _, c := range checks {
		if strings.HasPrefix(text, c.read[0]) || strings.HasPrefix(text, c.read[1]) {
			return c.shown
		}
	}
	if len(buttons) == 0 {
		return ""
	}
	pieces := strings.FieldsFunc(norm.NFKC.String(s), func(r rune) bool { return strings.ContainsRune("[]()<>|{}", r) || r == '\t' })
	for _, piece := range pieces {
		for part := range strings.SplitSeq(piece, "  ") {
			p := read(part)
			for _, b := range buttons {
				if p != "" && (p == b.read[0] || p == b.read[1]) {
					return b.shown
				}
			}
		}
	}
	return ""
}

// read is text as a person reads it, for comparing with a control's
// label: NFKC, case folded, the letters that look alike taken as one
// (Unicode's confusable skeleton: a Cyrillic о is an o), without
// apostrophes, with one space for each run of spaces, and without the
// box, tick and bullet signs, brackets and spaces around.
func read(t string) string {
	t = confusables.Skeleton(cases.Fold().String(norm.NFKC.String(t)))
	t = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Pi, unicode.Pf) || r == '\'' || r == '\u02bc' || r == '`' {
			return -1
		}
		return r
	}, t)), " ")
	return strings.TrimFunc(t, func(r rune) bool { return !unicode.In(r, unicode.L, unicode.N) })
}

// imitationIn returns the first own control's label that a text of p's
// form or message passes for (imitation), line by line, or "". A field's
// title and a choice are drawn as a field's and a choice's: only the check
// boxes' labels count there ("Cancel" is a fair choice, "Approve" a fair
// check box).
func imitationIn(p *Prompt) string {
	texts := strings.Split(p.Message, "\n")
	var labels []string // drawn as labels of their own fields and choices
	if p.Form != nil {
		for _, f := range p.Form.Fields {
			labels = append(labels, f.Label())
			texts = append(texts, strings.Split(f.Description, "\n")...)
			for _, o := range f.Options {
				labels = append(labels, o.Label)
			}
		}
	}
	checks, buttons := ownControls() // read once, for every text
	for _, t := range texts {
		if l := imitation(t, checks, buttons); l != "" {
			return l
		}
	}
	for _, t := range labels {
		if l := imitation(t, checks, nil); l != "" {
			return l
		}
	}
	return ""
}

// imitationWarning is the line that says the server's text looks like the
// window's own control named label, and where the real ones are.
func imitationWarning(label string) fyne.CanvasObject {
	l := widget.NewLabel(lang.L("This request has text that looks like elicitray's own “{{.Label}}”. That is the server's: elicitray's own controls are only on the shaded band at the bottom of this window.",
		map[string]any{"Label": label}))
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.WarningImportance
	return container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), nil, l)
}

// hiddenCharsWarning is the line that says hidden characters were removed.
func hiddenCharsWarning() fyne.CanvasObject {
	l := widget.NewLabel(lang.L(hiddenCharsNote))
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.WarningImportance
	return container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), nil, l)
}

// maxSpaceRun is the most blank characters shown in a row within a line of
// server text: enough to indent, too few to push the rest out of sight.
const maxSpaceRun = 8

// collapseBlank returns server text as a window shows it: blank lines
// (empty, or only spaces and blank characters) before the first line of
// text and after the last are dropped, each run of them in between becomes
// one empty line, a line's trailing blanks go, and a run of more than
// maxSpaceRun blanks within a line is cut to maxSpaceRun. A message of
// 20,000 blank lines and then the real question would otherwise fill the
// bounded message box, and the clip at maxMessage, with nothing to read.
// The history keeps the message as the server sent it.
func collapseBlank(m string) string {
	var b strings.Builder
	b.Grow(min(len(m), 4*maxMessage))
	pending := false // a blank line is owed before the next line of text
	for line := range strings.SplitSeq(m, "\n") {
		line = strings.TrimRightFunc(line, blankRune)
		if line == "" {
			pending = b.Len() > 0
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if pending {
				b.WriteByte('\n')
			}
		}
		pending = false
		run := 0
		for _, r := range line {
			if run = run + 1; !blankRune(r) {
				run = 0
			}
			if run <= maxSpaceRun {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// blankRune reports whether r shows as blank space: Unicode white space
// (tabs, no-break and ideographic spaces…) and the letters and symbols that
// render as nothing (Hangul fillers, the blank Braille pattern), which
// servers use to pad text where spaces would be trimmed. Invisible format
// characters are gone already (see elicit.Visible).
func blankRune(r rune) bool {
	switch r {
	case '\u115F', '\u1160', '\u2800', '\u3164', '\uFFA0':
		return true
	}
	return unicode.IsSpace(r)
}
