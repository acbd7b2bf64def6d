package platform

import (
	"os"

	"golang.org/x/sys/unix"
)

// Reserve sets n bytes aside on disk for the open file f, keeping its size
// (fallocate with FALLOC_FL_KEEP_SIZE), so that appends still land on a
// disk that filled up since. Best effort: a file system without fallocate,
// or a full one, reserves nothing.
func Reserve(f *os.File, n int64) {
	_ = unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, 0, n)
}
