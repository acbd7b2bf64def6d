package ui

import (
	"slices"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/chars"
)

// bidiLabel is a label of server text that may hold right-to-left words.
// Fyne wraps or cuts the text it is given from its left end, which after
// reordering (bidiText) is the end of a right-to-left line: so the label
// breaks or cuts its logical text for its width first and reorders each
// line after (UAX #9 orders lines once broken, L1–L2). Text holding no
// right-to-left letter is left to Fyne as in any label.
type bidiLabel struct {
	widget.Label
	logical string  // the text as written
	width   float32 // the text width Text was made for; 0 for none yet
}

// newBidiLabel is a label of s, wrapped at words or cut with an ellipsis.
func newBidiLabel(s string, wrap bool) *bidiLabel {
	l := &bidiLabel{}
	l.ExtendBaseWidget(l)
	if wrap {
		l.Wrapping = fyne.TextWrapWord
	} else {
		l.Truncation = fyne.TextTruncateEllipsis
	}
	l.SetText(s)
	return l
}

// SetText shows s, reordered for the width last laid out at.
func (l *bidiLabel) SetText(s string) {
	l.logical = s
	l.Text = bidiText(s)
	l.width = 0
	l.fit(l.Size().Width)
	l.Label.Refresh()
}

// Resize breaks or cuts the text for the new width before Fyne lays it out.
func (l *bidiLabel) Resize(size fyne.Size) {
	if l.fit(size.Width) {
		l.Label.Refresh()
	}
	l.Label.Resize(size)
}

// fit makes Text the logical text broken (wrapping) or cut (truncation)
// for a label width wide, each line reordered, and reports whether Text
// changed.
func (l *bidiLabel) fit(width float32) bool {
	width -= 2 * theme.InnerPadding()
	// Right-to-left text is broken here, to reorder each line; so is text
	// written without spaces (Chinese, Japanese), which Fyne would break
	// before a full stop or comma (noLineStart).
	if width <= 0 || width == l.width || !strings.ContainsFunc(l.logical, func(r rune) bool { return rtlRune(r) || unspaced(r) }) {
		return false
	}
	l.width = width
	size := theme.TextSize()
	if l.SizeName != "" {
		size = theme.Size(l.SizeName)
	}
	var text string
	switch {
	case l.Wrapping != fyne.TextWrapOff:
		text = bidiWrapped(l.logical, width, size, l.TextStyle)
	case l.Truncation == fyne.TextTruncateEllipsis:
		text = bidiText(cutToWidth(l.logical, width, size, l.TextStyle))
	default:
		text = bidiText(l.logical)
	}
	changed := text != l.Text
	l.Text = text
	return changed
}

// cutToWidth returns the first line of s, or as much of its start as fits
// width with "…" after it.
func cutToWidth(s string, width, size float32, style fyne.TextStyle) string {
	s, _, _ = strings.Cut(s, "\n")
	if fyne.MeasureText(s, size, style).Width <= width {
		return s
	}
	r := slices.Collect(chars.All(s)) // cut between characters, never inside one
	lo, hi := 0, len(r)               // the longest fitting prefix is lo characters long
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fyne.MeasureText(strings.Join(r[:mid], "")+"…", size, style).Width <= width {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return strings.Join(r[:lo], "") + "…"
}

// unspaced reports whether r belongs to a script written without spaces
// between words, whose lines break between characters.
func unspaced(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Bopomofo)
}
