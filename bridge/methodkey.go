package bridge

import "bytes"

// methodKey is the member that, spelt after a deciding one, sends a line
// to the full path.
var methodKey = []byte(`"method"`)

// hasMethodKey reports whether b spells methodKey as a JSON string: plainly,
// as bytes.Contains would find it, or with any of its letters escaped
// ("\u006dethod"), which every peer's JSON parser reads as "method" too
// (RFC 8259 §7), and the full path (scanEnvelope) as well. It is the
// relay's second look at every byte of a passing line (the first finds its
// newline), so it must cost little more than that one: bytes.Contains
// falls back to a byte-at-a-time search in JSON, where its first byte, the
// quote, is everywhere. On amd64 methodCandidate looks at 16 bytes a step
// for a quote followed by 'm' or a backslash, the only ways the key can
// begin (methodkey_amd64.s); each candidate is then compared whole.
func hasMethodKey(b []byte) bool {
	for {
		i := methodCandidate(b)
		if i < 0 {
			break
		}
		if methodKeyAt(b[i:]) {
			return true
		}
		b = b[i+1:]
	}
	for b = b[candidateEnd(len(b)):]; ; b = b[1:] {
		i := bytes.IndexByte(b, '"')
		if i < 0 {
			return false
		}
		b = b[i:]
		if methodKeyAt(b) {
			return true
		}
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
	if string(b[:len(methodKey)]) == string(methodKey) {
		return true
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
