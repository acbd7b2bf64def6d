//go:build !amd64

package bridge

// methodCandidate finds no candidate where there is no vector search:
// hasPlainMethodKey leaves the whole of b to bytes.Contains, and the
// search for a backslash to bytes.IndexByte.
func methodCandidate(b []byte) (int, bool) { return -1, false }

func candidateEnd(n int) int { return 0 }

// escapedLetter finds nothing where there is no vector search: the whole
// of b is searched as escapedLetter's tail (escapesLetter).
func escapedLetter(b []byte) int { return -1 }

func escapedLetterEnd(n int) int { return 0 }
