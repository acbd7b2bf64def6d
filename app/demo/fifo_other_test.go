//go:build !unix

package demo

import "testing"

// mkfifo skips: named pipes in the file system are a Unix plant.
func mkfifo(t *testing.T, path string) {
	t.Skip("no named pipes in the file system here")
}
