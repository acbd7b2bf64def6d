package ui

import (
	"strings"

	"fyne.io/fyne/v2"

	"github.com/elicitray/elicitray/chars"
)

// prewrap breaks s into lines that fit width (Fyne units, the text's own
// width inside a label) in text of size and style: at spaces and tabs,
// and inside a word only where the word alone is wider than a line (text
// written without spaces, such as Chinese). A line's indentation and the
// spacing between its words stay as written (a YAML-like message keeps its
// shape); no-break and ideographic spaces are no places to break. It
// measures each word once, and Fyne caches what it measured, where Fyne's
// own word wrapping measures prefix after prefix of the paragraph to find
// each line's end (see fieldHelp). Lines are filled to a little less than
// width: the sum of the words' widths is a hair off the width of the line
// shaped whole.
func prewrap(s string, width, size float32, style fyne.TextStyle) string {
	limit := width * 0.97
	space := fyne.MeasureText(" ", size, style).Width
	measure := func(t string) float32 {
		switch t {
		case "": // shaped, nothing still costs a font's set-up
			return 0
		case " ":
			return space
		}
		return fyne.MeasureText(t, size, style).Width
	}
	gap := func(r rune) bool { return r == ' ' || r == '\t' }
	var b strings.Builder
	for i, para := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		rest := strings.TrimLeftFunc(para, gap)
		indent := para[:len(para)-len(rest)]
		b.WriteString(indent)
		used, empty, spacing := measure(indent), true, ""
		for rest != "" {
			after := strings.IndexFunc(rest, gap)
			if after < 0 {
				after = len(rest)
			}
			word := rest[:after]
			rest = rest[after:]
			next := strings.TrimLeftFunc(rest, gap)
			space := rest[:len(rest)-len(next)]
			rest = next
			w := measure(word)
			if !empty {
				if sw := measure(spacing); used+sw+w <= limit {
					b.WriteString(spacing)
					used += sw
				} else {
					b.WriteByte('\n') // the spacing at a break goes
					used = 0
				}
			}
			if used+w <= limit {
				b.WriteString(word)
				used += w
			} else {
				used = breakWord(&b, word, used, limit, size, style)
			}
			empty, spacing = false, space
		}
	}
	return b.String()
}

// breakWord writes word, wider than what is left of a line, into b after
// used of the line: as many characters as fit on each line, never breaking inside a
// character (an emoji sequence, a letter and its accents) nor before a
// mark that may not start a line (noLineStart: "。在" stays "在" the next
// line's first). It returns how much of the last line is used.
func breakWord(b *strings.Builder, word string, used, limit, size float32, style fyne.TextStyle) float32 {
	for c := range chars.All(word) {
		w := fyne.MeasureText(c, size, style).Width
		if used > 0 && used+w > limit && !noLineStart(c) {
			b.WriteByte('\n')
			used = 0
		}
		b.WriteString(c)
		used += w
	}
	return used
}

// noLineStart reports whether c is punctuation that may not begin a line
// (the closing and pausing marks of Chinese and Japanese line breaking, and
// their ASCII kin): such a mark stays at the end of the line before, a
// little past its width.
func noLineStart(c string) bool {
	return len(c) > 0 && strings.Contains("。．，、；：？！）］｝」』】〉》”’…·,.;:?!)]}", c)
}
