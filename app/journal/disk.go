package journal

import (
	"path/filepath"

	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/app/session"
)

// FreeSpace is the space free to this user on the file system of path, or
// of its nearest existing parent when it is not made yet.
func FreeSpace(path string) (int64, bool) {
	dir := filepath.Dir(path)
	for !session.Exists(dir) && filepath.Dir(dir) != dir {
		dir = filepath.Dir(dir)
	}
	return platform.FreeSpace(dir)
}

// MinFree is the free space below which the history cannot be kept: bbolt
// grows the file by at least a page, and by more as it gets bigger.
const MinFree = 1 << 20
