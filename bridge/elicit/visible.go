package elicit

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/elicitray/elicitray/chars"
)

// Visible returns s without the characters a server could use to make text
// read differently from what it is, for showing server text to people: bidirectional overrides and isolates
// (U+202A–U+202E, U+2066–U+2069), marks and other format characters
// (Unicode category Cf: zero-width spaces and joiners, U+200E/U+200F…) and
// control characters (Cc) other than newline and tab. It reports whether it
// removed any. The server's identity must be unmistakable (PROTOCOL.md §6).
//
// A zero-width joiner that joins two emoji into one character (a ZWJ
// sequence, UAX #29 GB11: 👩‍👩‍👧‍👦, 🏳️‍🌈) is kept: it hides nothing, and
// without it the family showed as four people (issue 24). So is a zero-width
// non-joiner or joiner between two letters of a script whose letters join
// or form conjuncts (Persian "می‌خواهم", Hindi "क्‍ष"): there it is
// spelling, which changes how the word is drawn, as the IDNA rules for it
// (RFC 5892, CONTEXTJ) allow; elsewhere it is removed. So are the tags of a
// recommended subdivision flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿, flagTags), and no other tag characters.
func Visible(s string) (string, bool) {
	out, n := hide(s, "")
	return out, n > 0
}

// Marked is s with each character Visible removes replaced by U+FFFD, for
// text that shows where something was taken out, and how many it replaced.
func Marked(s string) (string, int) {
	return hide(s, "\uFFFD")
}

// hide is s with Visible's hidden characters replaced by mark, and how
// many there were.
func hide(s, mark string) (string, int) {
	hidden := func(r rune) bool {
		return (unicode.Is(unicode.Cc, r) && r != '\n' && r != '\t') || unicode.Is(unicode.Cf, r)
	}
	if strings.IndexFunc(s, hidden) < 0 {
		return s, 0
	}
	var b strings.Builder
	found := 0
	at := 0 // the byte offset of c in s
	for c := range chars.All(s) {
		if flagTags(c) {
			b.WriteString(c)
			at += len(c)
			continue
		}
		for i, r := range c {
			if hidden(r) && !(r == zwj && joinsEmoji(c[i+len(string(zwj)):], hidden)) && !joinsLetters(s, at+i, r) {
				b.WriteString(mark)
				found++
				continue
			}
			b.WriteRune(r)
		}
		at += len(c)
	}
	if found == 0 {
		return s, 0
	}
	return b.String(), found
}

// zwj is ZERO WIDTH JOINER.
const zwj = '\u200D'

// flagTags reports whether character c is one of the subdivision flags
// Unicode recommends (UTS #51 ED-14a, RGI: England, Scotland, Wales): the
// black flag, the tags spelling gbeng, gbsct or gbwls, the cancel tag.
// Tags spell letters nobody sees: any other run of them, in a flag or
// not, is hidden text, as any format character is ("🏴" with tags
// spelling "ignore" showed as a flag).
func flagTags(c string) bool {
	rest, ok := strings.CutPrefix(c, "\U0001F3F4")
	if !ok {
		return false
	}
	tags, ok := strings.CutSuffix(rest, "\U000E007F")
	if !ok {
		return false
	}
	var code strings.Builder
	for _, r := range tags {
		if r < 0xE0020 || r > 0xE007E {
			return false
		}
		code.WriteRune(r - 0xE0000)
	}
	switch code.String() {
	case "gbeng", "gbsct", "gbwls":
		return true
	}
	return false
}

// joinsEmoji reports whether a zero-width joiner followed by rest, the rest
// of its character, joins an emoji to it: within a character, what follows
// a joiner is a mark, another format character, or (GB11) an emoji.
func joinsEmoji(rest string, hidden func(rune) bool) bool {
	r, _ := utf8.DecodeRuneInString(rest)
	return rest != "" && !hidden(r) && !unicode.In(r, unicode.M)
}

// zwnj is ZERO WIDTH NON-JOINER.
const zwnj = '\u200C'

// joiningScripts are the scripts whose letters join, where a zero-width
// non-joiner between two letters keeps them apart (Persian "می‌خواهم").
var joiningScripts = []*unicode.RangeTable{unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian}

// joinsLetters reports whether r, at byte i of s, is a zero-width
// non-joiner or joiner that is spelling there, by RFC 5892's CONTEXTJ
// rules, simplified: either after a virama (a Brahmic script's half forms
// and conjuncts: "क्‍ष"), or a non-joiner between two letters of one
// joining script, marks on the first letter passed over. Anywhere else it
// changes nothing a reader sees, so two texts that look alike would differ.
func joinsLetters(s string, i int, r rune) bool {
	if r != zwnj && r != zwj {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
	if norm.NFC.PropertiesString(string(before)).CCC() == 9 { // a virama
		return unicode.IsLetter(after)
	}
	if r == zwj {
		return false
	}
	for at := i; unicode.Is(unicode.Mn, before) && at > 0; {
		at -= utf8.RuneLen(before)
		before, _ = utf8.DecodeLastRuneInString(s[:at])
	}
	if !unicode.IsLetter(before) || !unicode.IsLetter(after) {
		return false
	}
	for _, script := range joiningScripts {
		if unicode.Is(script, before) && unicode.Is(script, after) {
			return true
		}
	}
	return false
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
