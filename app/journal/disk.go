package journal

import (
	"os"
	"path/filepath"

	"github.com/elicitray/elicitray/app/platform"
)

// FreeSpace is the space free to this user on the file system of path, or
// of its nearest existing parent when it is not made yet.
func FreeSpace(path string) (int64, bool) {
	dir := filepath.Dir(path)
	for filepath.Dir(dir) != dir {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		dir = filepath.Dir(dir)
	}
	return platform.FreeSpace(dir)
}

// MinFree is the free space below which the history cannot be kept: bbolt
// grows the file by at least a page, and by more as it gets bigger.
const MinFree = 1 << 20
