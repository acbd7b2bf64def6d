package bridge

import "bytes"

// methodKey is the member that, spelt after a deciding one, sends a line
// to the full path.
var methodKey = []byte(`"method"`)

// hasMethodKey reports whether b spells methodKey, as bytes.Contains does.
// It is the relay's second look at every byte of a passing line (the
// first finds its newline), so it must cost little more than that one:
// bytes.Contains falls back to a byte-at-a-time search in JSON, where its
// first byte, the quote, is everywhere. On amd64 methodCandidate looks at
// 16 bytes a step for the key's first two bytes at once
// (methodkey_amd64.s); each candidate is then compared whole.
func hasMethodKey(b []byte) bool {
	for {
		i := methodCandidate(b)
		if i < 0 {
			break
		}
		if string(b[i:i+len(methodKey)]) == string(methodKey) {
			return true
		}
		b = b[i+1:]
	}
	return bytes.Contains(b[candidateEnd(len(b)):], methodKey)
}
