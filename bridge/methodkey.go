package bridge

import "bytes"

// methodKey is the member that, spelt after a deciding one, sends a line
// to the full path.
var methodKey = []byte(`"method"`)

// hasMethodKey reports whether b spells methodKey as a JSON string: plainly,
// as bytes.Contains would find it, or with letters escaped ("\u006dethod"),
// which every peer's JSON parser reads as "method" too (RFC 8259 §7), and
// the full path (scanEnvelope) as well.
//
// It is the relay's second look at every byte of a passing line (the
// first finds its newline), so it must cost little more than that one:
// bytes.Contains falls back to a byte-at-a-time search in JSON, where its
// first byte, the quote, is everywhere. On amd64 methodCandidate looks at
// 16 bytes a step for the key's first two bytes at once, and says whether
// it met a backslash (methodkey_amd64.s); each candidate is then compared
// whole. Only a line with a backslash is searched for an escaped letter
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
		if string(b[i:i+len(methodKey)]) == string(methodKey) {
			return true
		}
		b = b[i+1:]
	}
	tail := b[candidateEnd(len(b)):]
	if bytes.Contains(tail, methodKey) {
		return true
	}
	if !esc && bytes.IndexByte(tail, '\\') < 0 {
		return false
	}
	return escapesLetter(whole) && hasEscapedMethodKey(whole)
}

// escapesLetter reports whether b holds a \u escape of a character from
// U+0060 to U+007F (`\u006`, `\u007`), among them every letter of
// "method": a key spelt with an escaped letter has one.
func escapesLetter(b []byte) bool {
	if escapedLetter(b) >= 0 {
		return true
	}
	for b = b[escapedLetterEnd(len(b)):]; ; b = b[1:] {
		i := bytes.Index(b, []byte(`\u00`))
		if i < 0 || i+4 >= len(b) {
			return false
		}
		if b = b[i:]; b[4] == '6' || b[4] == '7' {
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
// "method": each letter plain or as a \u escape. A quote that is itself
// escaped (\"method\" inside a string) is no key: the string it would
// close ends with \", not ".
func methodKeyAt(b []byte) bool {
	if len(b) < len(methodKey) || b[0] != '"' {
		return false
	}
	j := 1
	for _, c := range []byte("method") {
		switch {
		case j < len(b) && b[j] == c:
			j++
		case j+6 <= len(b) && b[j] == '\\' && b[j+1] == 'u' && hex4(b[j+2:j+6]) == int(c):
			j += 6
		default:
			return false
		}
	}
	return j < len(b) && b[j] == '"'
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
