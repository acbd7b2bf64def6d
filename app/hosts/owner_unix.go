//go:build unix

package hosts

import (
	"os"
	"syscall"
)

// owner returns the uid owning the file fi describes.
func owner(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// keepOwner gives f the owner and group of the file fi describes, which
// only root can (so a config edited with sudo stays its user's). Errors are
// ignored: for anyone else the file is theirs already.
func keepOwner(f *os.File, fi os.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Getuid() == 0 {
		f.Chown(int(st.Uid), int(st.Gid))
	}
}
