//go:build unix

package bridge

import (
	"strings"
	"testing"
)

// TestMethodKeySSE2 runs the vector searches' tests again without AVX2, as
// on an amd64 that lacks it: methodCandidate's 16-byte steps, which with
// AVX2 only take what the 32-byte steps leave. (No test in this package
// runs in parallel with it.)
func TestMethodKeySSE2(t *testing.T) {
	if !useAVX2 {
		t.Skip("this machine has no AVX2: the other tests ran the SSE2 steps")
	}
	useAVX2 = false
	defer func() { useAVX2 = true }()
	// A key past the first 32-byte steps, which SSE2 alone now finds.
	b := []byte(strings.Repeat("x", 70) + `"method":1,` + strings.Repeat("y", 40))
	if i, _ := methodCandidate(b); i != 70 {
		t.Fatalf("methodCandidate with SSE2 alone = %d, want 70", i)
	}
	t.Run("first candidate", TestMethodCandidateFirst)
	t.Run("every alignment", TestBreakHasMethodKeyEveryAlignment)
	t.Run("guard page", TestBreakHasMethodKeyGuardPage)
	t.Run("agrees", TestHasMethodKeyAgrees)
}
