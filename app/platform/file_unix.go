//go:build unix

package platform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Me is the user this process runs as.
func Me() User { return UID(os.Getuid()) }

// FileOwner returns the owner of the file at path that fi describes (from
// os.Lstat or os.Stat of path), and false when the system does not say.
func FileOwner(path string, fi fs.FileInfo) (User, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return User{}, false
	}
	return UID(int(st.Uid)), true
}

// OwnerOf returns the owner of the open file f, and false when the system
// does not say.
func OwnerOf(f *os.File) (User, bool) {
	fi, err := f.Stat()
	if err != nil {
		return User{}, false
	}
	return FileOwner(f.Name(), fi)
}

// DirOpenToOthers says how the directory at path, described by fi, lets
// other users in ("mode 0755, want 0700"), or "" when it does not: on
// Unix, any group or other bit.
func DirOpenToOthers(path string, fi fs.FileInfo) string {
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Sprintf("mode %04o, want 0700", perm)
	}
	return ""
}

// FileOpenToOthers says how other users may read or change the file at
// path, described by fi ("mode 0644, want 0600"), or "" when they may not.
func FileOpenToOthers(path string, fi fs.FileInfo) string {
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Sprintf("mode %04o, want 0600", perm)
	}
	return ""
}

// WritableByOthers says how other users may change the file at path,
// described by fi ("mode 0666"), or "" when they may not: on Unix, the
// group or other write bit.
func WritableByOthers(path string, fi fs.FileInfo) string {
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Sprintf("mode %04o", perm)
	}
	return ""
}

// IsPrivateDir reports whether the directory at path, described by fi, has
// exactly the mode a private directory gets (0700): one the user cannot
// write to is made so too.
func IsPrivateDir(path string, fi fs.FileInfo) bool { return fi.Mode().Perm() == 0o700 }

// MakePrivate closes the directory dir, the user's own, to everyone else:
// mode 0700.
func MakePrivate(dir string) error { return os.Chmod(dir, 0o700) }

// ONonblock is the open flag that keeps opening a named pipe planted in
// place of a file from waiting for a writer (0 where opens never wait).
const ONonblock = syscall.O_NONBLOCK

// OpenFile is os.OpenFile that never follows a symbolic link at name's last
// element (O_NOFOLLOW): a link there is an error that wraps ErrSymlink, and
// nothing is written or read through it.
func OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, symlinkError{err}
	}
	return f, err
}

// Links returns the size of the open file f and how many names it has: 0
// once it was removed.
func Links(f *os.File) (size int64, links int, err error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return 0, 0, err
	}
	return st.Size, int(st.Nlink), nil
}

// Writable returns nil when this process may write to the file at path,
// else why not (access(2) W_OK).
func Writable(path string) error { return unix.Access(path, unix.W_OK) }

// FreeSpace is the space free to this user on the file system holding dir.
func FreeSpace(dir string) (int64, bool) {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
