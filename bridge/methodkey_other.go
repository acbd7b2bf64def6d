//go:build !amd64

package bridge

// methodCandidate finds no candidate where there is no vector search:
// hasMethodKey looks at each quote of b in turn.
func methodCandidate(b []byte) int { return -1 }

func candidateEnd(n int) int { return 0 }
