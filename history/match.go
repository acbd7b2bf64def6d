package history

// The text match of a search (Query.Text): a record matches when its
// message, server, tool or serverInfo name, folded (searchText: lower case,
// without the invisible characters people do not type), contains the
// query, folded. The search blocks (search.go) rule out the records that
// cannot match before these tests run.

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// textFilter returns the search blocks' filter for q.Text, or nil when it
// cannot narrow the search (no text, or text shorter than a trigram).
func (q Query) textFilter(tx *bolt.Tx) *textFilter {
	if q.Text == "" {
		return nil
	}
	return newTextFilter(tx, searchText(q.Text))
}

// searchText is s as a search compares it: in lower case, the letters and
// digits Arabic and Persian keyboards type differently as one (folded),
// and without the invisible format characters that some text holds and
// that a person searching does not type: Persian's zero-width non-joiner inside words
// (می‌دهید is found by میدهید, and the other way round), the joiner, a
// soft hyphen, a zero-width space, word joiners and a byte order mark,
// and the marks and overrides of text direction. ASCII text has none.
func searchText(s string) string {
	s = strings.ToLower(s)
	if !strings.ContainsFunc(s, folded) {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case unseen(r):
			return -1
		case r == 'ي' || r == 'ى':
			return 'ی' // Arabic yeh and alef maksura as Persian yeh
		case r == 'ك':
			return 'ک' // Arabic kaf as Persian keheh
		case r >= '٠' && r <= '٩':
			return '0' + r - '٠' // Arabic-Indic digits
		case r >= '۰' && r <= '۹':
			return '0' + r - '۰' // Persian digits
		}
		return r
	}, s)
}

// folded reports whether searchText changes r: an unseen character, or a
// letter or digit that Arabic and Persian keyboards type differently
// (ي and ی, ك and ک, ٤ and ۴ and 4): a Persian user's search finds text an
// Arabic keyboard wrote, and the other way round.
func folded(r rune) bool {
	return unseen(r) || r == 'ي' || r == 'ى' || r == 'ك' || r >= '٠' && r <= '٩' || r >= '۰' && r <= '۹'
}

// unseen reports whether r is one of the characters searchText drops.
func unseen(r rune) bool {
	switch {
	case r == '\u00ad', r == '\u061c', r == '\ufeff':
		return true
	case r < '\u200b' || r > '\u2069':
		return false
	}
	return r <= '\u200f' || r >= '\u202a' && r <= '\u202e' || r >= '\u2060' && r <= '\u2064' || r >= '\u2066'
}

// matcher returns a test for the fields of q that keys cannot answer.
func (q Query) matcher() func(*rawRecord) bool {
	text := q.textMatcher()
	return func(rr *rawRecord) bool {
		if q.Action != "" && string(rr.action) != q.Action {
			return false
		}
		if q.DecidedBy != "" && string(rr.decidedBy) != q.DecidedBy {
			return false
		}
		if q.Mode != "" && string(rr.mode) != q.Mode {
			return false
		}
		return text == nil || text(rr)
	}
}

// textMatcher returns a test of q.Text alone, which needs only the fields
// rawRecord.parseHead reads, so that a search parses whole only the
// records whose text matches; nil when q has no text. A text of nothing
// but characters searchText drops (a right-to-left override, say) finds
// the records that hold it as written: someone looking for text that
// hides behind such characters finds it, not every record.
func (q Query) textMatcher() func(*rawRecord) bool {
	if q.Text == "" {
		return nil
	}
	lower := searchText(q.Text)
	if lower == "" {
		lower = strings.ToLower(q.Text)
		in := func(s []byte) bool { return strings.Contains(strings.ToLower(string(s)), lower) }
		return func(rr *rawRecord) bool { return in(rr.message) || in(rr.server) || in(rr.tool) || in(rr.infoName) }
	}
	text := newFoldedText(lower)
	return func(rr *rawRecord) bool {
		return text.in(rr.message) || text.in(rr.server) || text.in(rr.tool) || text.in(rr.infoName)
	}
}

// containsFold reports whether searchText(string(s)) contains lower, which
// is folded already and not empty.
func containsFold(s []byte, lower string) bool {
	return newFoldedText(lower).in(s)
}

// foldedText is a search's text in lower case, with the byte of it that
// ASCII text holds least often, which the search looks for first.
type foldedText struct {
	lower        string
	at           int  // the index in lower of the rarest byte
	rare, rareUp byte // that byte, and its upper case for a letter
}

// commonBytes are the bytes of ASCII text from the most common on, roughly
// as English and identifiers have them; bytes not here are rarer still.
const commonBytes = " etaoinsrhldcumfpgwybvk-_.,0123456789/:x'jqz?!\"#@"

// newFoldedText prepares a search for lower.
func newFoldedText(lower string) foldedText {
	t := foldedText{lower: lower}
	rank := len(commonBytes)
	for i := range len(lower) {
		c := lower[i]
		r := strings.IndexByte(commonBytes, c)
		if r < 0 {
			r = len(commonBytes)
		}
		if i == 0 || r > rank {
			t.at, rank = i, r
		}
	}
	if lower != "" {
		t.rare, t.rareUp = lower[t.at], lower[t.at]
		if 'a' <= t.rare && t.rare <= 'z' {
			t.rareUp -= 'a' - 'A'
		}
	}
	return t
}

// in reports whether searchText(string(s)) contains t, which is not
// empty. For ASCII s it compares in place, without the copy ToLower makes,
// and finds the places a match can start by its rarest byte with
// IndexByte, which is much faster than a loop: a search over a large
// history reads every message.
func (t foldedText) in(s []byte) bool {
	if !isASCII(s) {
		return strings.Contains(searchText(string(s)), t.lower)
	}
	n := len(t.lower)
	if len(s) < n {
		return false
	}
	// The rarest byte of a match lies from t.at to end.
	end := len(s) - n + 1 + t.at
	for i := t.at; i < end; i++ {
		window := s[i:end]
		j := bytes.IndexByte(window, t.rare)
		if t.rareUp != t.rare {
			if j >= 0 {
				window = window[:j]
			}
			if k := bytes.IndexByte(window, t.rareUp); k >= 0 {
				j = k
			}
		}
		if j < 0 {
			return false
		}
		i += j
		if equalLowerASCII(s[i-t.at:i-t.at+n], t.lower) {
			return true
		}
	}
	return false
}

// isASCII reports whether s holds ASCII only, eight bytes at a time.
func isASCII(s []byte) bool {
	for len(s) >= 8 {
		if binary.LittleEndian.Uint64(s)&0x8080808080808080 != 0 {
			return false
		}
		s = s[8:]
	}
	for _, c := range s {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// equalLowerASCII reports whether ASCII s in lower case equals lower.
func equalLowerASCII(s []byte, lower string) bool {
	for i := range len(lower) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
