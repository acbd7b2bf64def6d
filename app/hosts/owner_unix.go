//go:build unix

package hosts

import (
	"fmt"
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

// keepOwner gives f the owner and group of the file fi describes, when
// they differ from f's: root can (so a config edited with sudo, or one of
// another user's reached through the user's own symbolic link, keeps its
// owner); anyone else only for a group of theirs. A different owner that
// cannot be given is ErrOwner (writable refuses that case before, for a
// user who is not root); a group that cannot be given is left as it is.
func keepOwner(f *os.File, fi os.FileInfo) error {
	want, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	tfi, err := f.Stat()
	if err != nil {
		return err
	}
	got, ok := tfi.Sys().(*syscall.Stat_t)
	if !ok || want.Uid == got.Uid && want.Gid == got.Gid {
		return nil
	}
	err = chown(f, int(want.Uid), int(want.Gid))
	if err == nil || want.Uid == got.Uid {
		return nil
	}
	return fmt.Errorf("it is owned by user %d, and the rewritten file could not be given that owner (%v): %w", want.Uid, err, ErrOwner)
}

// chown is f.Chown, replaced by tests to fail as it does for a user who is
// not root.
var chown = func(f *os.File, uid, gid int) error { return f.Chown(uid, gid) }
