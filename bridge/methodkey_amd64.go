package bridge

// methodCandidate returns the first i < candidateEnd(len(b)) at which b
// holds `"m` or `"\`, the ways methodKey can begin (plainly, or with its
// first letter escaped), or -1 when there is none;
// i+len(methodKey) <= len(b) for every i it returns. (methodkey_amd64.s)
//
//go:noescape
func methodCandidate(b []byte) int

// candidateEnd is where methodCandidate stops looking in n bytes: it reads
// 16 positions a step, and steps only while a key starting at any of them
// would fit.
func candidateEnd(n int) int {
	if n < 23 {
		return 0
	}
	return (n - 7) / 16 * 16
}
