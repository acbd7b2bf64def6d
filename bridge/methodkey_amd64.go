package bridge

import "golang.org/x/sys/cpu"

// useAVX2 tells methodCandidate to take 32 bytes a step where it can: it
// then costs about half as much (BenchmarkHasMethodKey: 32 ns instead of
// 55 for a 1 kB line).
var useAVX2 = cpu.X86.HasAVX2

// methodCandidate returns the first i < candidateEnd(len(b)) at which b
// holds `"m` or `"M`, methodKey's first two bytes in either case, or -1
// when there is none; i+len(methodKey) <= len(b) for every i it returns.
// esc reports whether the bytes it looked at (up to the 32 from the
// candidate's pair of steps, or up to candidateEnd) hold a backslash.
// (methodkey_amd64.s)
//
//go:noescape
func methodCandidate(b []byte) (i int, esc bool)

// candidateEnd is where methodCandidate stops looking in n bytes: it reads
// 16 positions a step, and steps only while a key starting at any of them
// would fit.
func candidateEnd(n int) int {
	if n < 23 {
		return 0
	}
	return (n - 7) / 16 * 16
}

// escapedLetter returns the first i < escapedLetterEnd(len(b)) at which b
// holds `\u004` to `\u007`, or -1 when there is none. (methodkey_amd64.s)
//
//go:noescape
func escapedLetter(b []byte) int

// escapedLetterEnd is where escapedLetter stops looking in n bytes: steps
// run while the five bytes it compares would fit.
func escapedLetterEnd(n int) int {
	if n < 20 {
		return 0
	}
	return (n - 4) / 16 * 16
}
