package bridge

import "bytes"

// methodKey is the member that, spelt after a deciding one, sends a line
// to the full path.
var methodKey = []byte(`"method"`)

// hasMethodKey reports whether b spells, as a JSON string, a key some peer
// reads as methodKey: plainly, with letters escaped ("\u006dethod"), which
// every JSON parser reads as "method" (RFC 8259 §7), or in another case
// ("Method", "METHOD"), which encoding/json, the parser of mcp-go's
// client, matches to a field named method (no character outside ASCII
// folds to its letters there). scanEnvelope reads them all, and a server
// line that has one where the relay cannot place it is dropped
// (oneline.go).
//
// It is the relay's second look at every byte of a passing line (the
// first finds its newline), so it must cost little more than that one:
// bytes.Contains falls back to a byte-at-a-time search in JSON, where its
// first byte, the quote, is everywhere. On amd64 methodCandidate looks at
// 16 bytes a step (32 with AVX2) for the key's first two bytes at once,
// and says whether it met a backslash (methodkey_amd64.s); each candidate
// is then compared whole. Only a line with a backslash is searched for an escaped letter
// of the key (escapesLetter), and only one with such an escape, which JSON
// encoders never write, quote by quote.
func hasMethodKey(b []byte) bool {
	whole, esc := b, false
	for {
		i, e := methodCandidate(b)
		esc = esc || e
		if i < 0 {
			break
		}
		if foldedKeyAt(b[i:]) {
			return true
		}
		b = b[i+1:]
	}
	tail := b[candidateEnd(len(b)):]
	if hasFoldedKey(tail) {
		return true
	}
	if !esc && bytes.IndexByte(tail, '\\') < 0 {
		return false
	}
	return escapesLetter(whole) && hasEscapedMethodKey(whole)
}

// foldedKeyAt reports whether b starts with `"method"` in any case.
func foldedKeyAt(b []byte) bool {
	if len(b) < len(methodKey) || b[0] != '"' || b[len(methodKey)-1] != '"' {
		return false
	}
	for j, c := range methodKey[1 : len(methodKey)-1] {
		if b[j+1]|0x20 != c {
			return false
		}
	}
	return true
}

// hasFoldedKey reports whether b holds `"method"` in any case, looking at
// each quote: for the few bytes methodCandidate leaves.
func hasFoldedKey(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '"')
		if i < 0 {
			return false
		}
		if foldedKeyAt(b[i:]) {
			return true
		}
		b = b[i+1:]
	}
}

// escapesLetter reports whether b holds a \u escape of a character from
// U+0040 to U+007F (`\u004` to `\u007`), among them every letter of
// "method" in either case: a key spelt with an escaped letter has one.
func escapesLetter(b []byte) bool {
	if escapedLetter(b) >= 0 {
		return true
	}
	for b = b[escapedLetterEnd(len(b)):]; ; b = b[1:] {
		i := bytes.Index(b, []byte(`\u00`))
		if i < 0 || i+4 >= len(b) {
			return false
		}
		if b = b[i:]; '4' <= b[4] && b[4] <= '7' {
			return true
		}
	}
}

// hasEscapedMethodKey reports whether a quote of b starts a JSON string
// that reads "method", escapes and all (methodKeyAt).
func hasEscapedMethodKey(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '"')
		if i < 0 {
			return false
		}
		if methodKeyAt(b[i:]) {
			return true
		}
		b = b[i+1:]
	}
}

// methodKeyAt reports whether b starts with a JSON string that reads
// "method" in any case (methodKeyPrefix).
func methodKeyAt(b []byte) bool {
	match, _ := methodKeyPrefix(b)
	return match
}

// methodKeyPrefix reports whether b starts with a JSON string that reads
// "method" in any case, each letter plain or as a \u escape (match), or
// with the start of one that b ends inside (short): the tail of a long
// line holds those bytes for its next piece (lineTail.search). A quote
// that is itself escaped (\"method\" inside a string) is no key: the
// string it would close ends with \", not ".
func methodKeyPrefix(b []byte) (match, short bool) {
	if len(b) == 0 || b[0] != '"' {
		return false, false
	}
	j := 1
	for _, c := range []byte("method") {
		switch {
		case j >= len(b):
			return false, true
		case b[j]|0x20 == c:
			j++
		case b[j] != '\\':
			return false, false
		case j+6 > len(b):
			return false, true // an escape b ends inside
		case b[j+1] == 'u' && hex4(b[j+2:j+6])|0x20 == int(c):
			j += 6
		default:
			return false, false
		}
	}
	if j >= len(b) {
		return false, true
	}
	return b[j] == '"', false
}

// hex4 returns the value of four hex digits, or -1.
func hex4(h []byte) int {
	v := 0
	for _, c := range h[:4] {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | int(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return -1
		}
	}
	return v
}
