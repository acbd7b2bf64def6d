//go:build unix

package bridge

import "testing"

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
	t.Run("first candidate", TestMethodCandidateFirst)
	t.Run("every alignment", TestBreakHasMethodKeyEveryAlignment)
	t.Run("guard page", TestBreakHasMethodKeyGuardPage)
	t.Run("agrees", TestHasMethodKeyAgrees)
}
