// Package chars measures, cuts, capitalises and pads text the way people
// see it: by characters (Unicode extended grapheme clusters, UAX #29) and,
// for a terminal, by display width in columns. A byte or a rune is not a
// character: 服 is three bytes, "é" may be e and U+0301, "👩‍👩‍👧‍👦" is seven
// runes, and a cut between them prints "\xe6" or a lone accent; 数据库 is
// three characters but six columns, so padding by characters shifts every
// column after it.
//
// One mechanism serves everything elicitray shortens, capitalises, pads or
// cuts (labels, messages, errors, badges, the CLI's tables, log lines):
// github.com/rivo/uniseg for clusters and widths. Its widths are a
// monospace terminal's (East Asian wide and fullwidth 2, emoji with emoji
// presentation and flags 2, combining marks 0, ambiguous 1), which is what
// terminals that follow wcwidth show; a window's proportional font is
// measured by Fyne, so windows cut by characters, never by width.
//
// The package imports no Fyne and nothing of elicitray, so bridge, history,
// app and ui may all use it. Nothing here keeps state; every function is
// safe for concurrent use.
package chars

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// Ellipsis marks where text was cut.
const Ellipsis = "…"

// Count is the number of characters in s.
func Count(s string) int {
	return uniseg.GraphemeClusterCount(s)
}

// All yields the characters of s in order.
func All(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for rest, state := s, -1; rest != ""; {
			var c string
			c, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
			if !yield(c) {
				return
			}
		}
	}
}

// Index is the byte offset in s after its first n characters: s[:Index(s,
// n)] is at most n characters and never ends inside one. It is len(s) when
// s has n characters or fewer.
func Index(s string, n int) int {
	i, state := 0, -1
	for ; n > 0 && i < len(s); n-- {
		var c string
		c, _, _, state = uniseg.FirstGraphemeClusterInString(s[i:], state)
		i += len(c)
	}
	return i
}

// Cut is s cut to at most n characters, the last of them Ellipsis when
// anything was left out.
func Cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n { // a character is at least a byte: most text needs no counting
		return s
	}
	if i := Index(s, n); i == len(s) {
		return s
	}
	return s[:Index(s, n-1)] + Ellipsis
}

// CutMiddle is s cut to at most n characters by leaving out its middle,
// marked with Ellipsis: three fifths of what is kept from its start, the
// rest from its end. Texts that share a long start stay apart ("Deploy …
// (dry run only)" and "Deploy … (FOR REAL)"). Below 3 characters it is
// Cut.
func CutMiddle(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	count := Count(s)
	if count <= n {
		return s
	}
	if n < 3 {
		return Cut(s, n)
	}
	head := (n - 1) * 3 / 5
	return s[:Index(s, head)] + Ellipsis + s[Index(s, count-(n-1-head)):]
}

// Width is the number of terminal columns s takes.
func Width(s string) int {
	return uniseg.StringWidth(s)
}

// CutWidth is s cut to at most n columns, ending with Ellipsis when
// anything was left out. A character wider than the columns left is left
// out whole.
func CutWidth(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if Width(s) <= n {
		return s
	}
	i, w, state := 0, 0, -1
	for i < len(s) {
		c, _, cw, st := uniseg.FirstGraphemeClusterInString(s[i:], state)
		if w+cw > n-1 { // the Ellipsis's column
			break
		}
		i, w, state = i+len(c), w+cw, st
	}
	return s[:i] + Ellipsis
}

// Pad is s followed by spaces up to n columns; s as it is when it is that
// wide already.
func Pad(s string, n int) string {
	return s + strings.Repeat(" ", max(n-Width(s), 0))
}

// Bytes is the longest start of s that has at most n bytes and ends
// between characters, for a log line that keeps a byte budget: s[:n] can
// end inside a character's UTF-8 bytes, which then print as "\xe6\x9c".
// Bytes that are not UTF-8 count as characters of one byte.
func Bytes[T ~string | ~[]byte](s T, n int) T {
	if len(s) <= n {
		return s
	}
	// Whether a character ends at a byte depends only on what comes before
	// and on the rune that follows: the copy needs one rune past n.
	str := string(s[:min(len(s), n+utf8.UTFMax)])
	i, state := 0, -1
	for i < len(str) {
		c, _, _, st := uniseg.FirstGraphemeClusterInString(str[i:], state)
		if i+len(c) > n {
			break
		}
		i, state = i+len(c), st
	}
	return s[:i]
}

// Capitalize is s with its first character in title case, the rest as it
// is. A character of a script without case (服, ب, ש, न) and one that is
// not a letter stay as they are, and so does a first word that already
// has a capital after its start: it is a name written so (iPhone, eBay).
func Capitalize(s string) string {
	first, rest, _, _ := uniseg.FirstGraphemeClusterInString(s, -1)
	word, _, _ := strings.Cut(rest, " ")
	if strings.IndexFunc(word, unicode.IsUpper) >= 0 {
		return s
	}
	// Title case, not upper case, and for no language in particular: "ǆ"
	// becomes "ǅ", "ß" "Ss", e with U+0301 an E with it. A Caser keeps
	// state, so each call has its own.
	return cases.Title(language.Und, cases.NoLower).String(first) + rest
}
