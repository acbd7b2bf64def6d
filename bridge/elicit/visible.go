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
