package bridge

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// A "method" that hasMethodKey missed would let a line that mixes a result
// with a method pass the relay unread (quick.go), so it must agree with
// a search for the key in any case on every length and position, near
// misses included.
func TestHasMethodKeyAgrees(t *testing.T) {
	filler := []byte(strings.Repeat(`{"id":1,"m":"d","method_":"xmethod"}`, 4))
	for n := 0; n <= len(filler); n++ {
		for p := 0; p+len(methodKey) <= n; p++ {
			b := append([]byte(nil), filler[:n]...)
			copy(b[p:], methodKey)
			if !hasMethodKey(b) {
				t.Fatalf("hasMethodKey misses %q at %d in %q", methodKey, p, b)
			}
			for k := range len(methodKey) {
				near := append([]byte(nil), b...)
				near[p+k] ^= 0x20 // "Method", "mEthod", `"method` + "\x02"…
				if got, want := hasMethodKey(near), containsFolded(near); got != want {
					t.Fatalf("hasMethodKey(%q) = %v, want %v", near, got, want)
				}
			}
		}
		if got, want := hasMethodKey(filler[:n]), containsFolded(filler[:n]); got != want {
			t.Fatalf("hasMethodKey(%q) = %v, want %v", filler[:n], got, want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(`"methodx:,{}`)
	for range 20000 {
		b := make([]byte, rng.IntN(200))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if got, want := hasMethodKey(b), containsFolded(b); got != want {
			t.Fatalf("hasMethodKey(%q) = %v, want %v", b, got, want)
		}
	}
}

// The relay's second look at a passing 1 kB line, against bytes.Contains:
// a text result (few quotes), structured content (a quote every few
// bytes) and text with escapes.
func BenchmarkHasMethodKey(b *testing.B) {
	text := `,"result":{"content":[{"type":"text","text":"` + strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", 27) + `"}]}}`
	dense := `,"result":{"structuredContent":{"items":[` + strings.Repeat(`{"id":12,"name":"ab","ok":true},`, 30) + `{}]}}`
	// Text as Python's json.dumps writes it (ensure_ascii): newlines and
	// accented letters escaped, so the line is also searched for an
	// escaped letter of the key.
	escaped := `,"result":{"content":[{"type":"text","text":"` + strings.Repeat(`caf\u00e9 cr\u00e8me\n`, 50) + `"}]}}`
	for _, c := range []struct{ name, line string }{{"text", text}, {"structured", dense}, {"escaped", escaped}} {
		line := []byte(c.line)
		b.Run(c.name+"/hasMethodKey", func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if hasMethodKey(line) {
					b.Fatal("found a method in a result")
				}
			}
		})
		b.Run(c.name+"/bytes.Contains", func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if bytes.Contains(line, methodKey) {
					b.Fatal("found a method in a result")
				}
			}
		})
	}
}

// containsFolded is what hasMethodKey finds in unescaped bytes: methodKey
// with its letters in any case (encoding/json matches keys so).
func containsFolded(b []byte) bool {
	lower := bytes.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, b)
	return bytes.Contains(lower, methodKey)
}

// TestMethodCandidateFirst: the vector search returns the first `"m` or
// `"M` before candidateEnd, in every length and position (its steps run in
// pairs, and a candidate in the second step of a pair must not hide one in
// the first), and says there was a backslash when one comes before it.
func TestMethodCandidateFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	alphabet := []byte(`"mM\ax`)
	for range 200000 {
		b := make([]byte, rng.IntN(120))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
			if rng.IntN(3) > 0 {
				b[i] = 'a'
			}
		}
		end := candidateEnd(len(b))
		want := -1
		for i := range end {
			if b[i] == '"' && b[i+1]|0x20 == 'm' {
				want = i
				break
			}
		}
		got, esc := methodCandidate(b)
		if got != want {
			t.Fatalf("methodCandidate(%q) = %d, want %d", b, got, want)
		}
		upTo := end
		if want >= 0 {
			upTo = want
		}
		if !esc && bytes.IndexByte(b[:upTo], '\\') >= 0 {
			t.Fatalf("methodCandidate(%q): no backslash said, with one before %d", b, upTo)
		}
	}
}
