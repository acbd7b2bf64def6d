package elicit

import (
	"strings"
	"unicode"
)

// Visible returns s without the characters a server could use to make text
// read differently from what it is, for showing server text to people: bidirectional overrides and isolates
// (U+202A–U+202E, U+2066–U+2069), marks and other format characters
// (Unicode category Cf: zero-width spaces and joiners, U+200E/U+200F…) and
// control characters (Cc) other than newline and tab. It reports whether it
// removed any. The server's identity must be unmistakable (PROTOCOL.md §6).
func Visible(s string) (string, bool) {
	hidden := func(r rune) bool {
		return (unicode.Is(unicode.Cc, r) && r != '\n' && r != '\t') || unicode.Is(unicode.Cf, r)
	}
	if strings.IndexFunc(s, hidden) < 0 {
		return s, false
	}
	return strings.Map(func(r rune) rune {
		if hidden(r) {
			return -1
		}
		return r
	}, s), true
}

// entryText returns a text field's default as a one-line entry shows all
// of it: without Visible's hidden characters, and with line breaks (and the
// Unicode line and paragraph separators) as spaces, which such an entry
// would cut the text at. It reports whether it changed s. A default is
// sent as the user sees it or not at all: a NUL or a second line hidden in
// the entry would otherwise reach the server unseen (issue 10).
func entryText(s string) (string, bool) {
	out, hidden := Visible(s)
	if i := strings.IndexAny(out, "\n\u2028\u2029"); i < 0 {
		return out, hidden
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\u2028', '\u2029':
			return ' '
		}
		return r
	}, out), true
}
