package platform

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
)

// ErrSymlink marks an open refused because the path's last element is a
// symbolic link (OpenFile).
var ErrSymlink = errors.New("the path is a symbolic link, which elicitray does not follow")

// symlinkError is the system's error for a link OpenFile refused, which
// also matches ErrSymlink; its text is the system's.
type symlinkError struct{ err error }

func (e symlinkError) Error() string        { return e.err.Error() }
func (e symlinkError) Unwrap() error        { return e.err }
func (e symlinkError) Is(target error) bool { return target == ErrSymlink }

// ErrLocked is TryLock's error when another process holds the lock.
var ErrLocked = errors.New("the file is locked by another process")

// ReplaceFile writes data to path in one step: a new file of this user's
// (0600, created under a fresh name beside path, with O_EXCL, so that no
// link planted there is followed), synced, then renamed over path. A
// reader sees the old file or the whole new one, never half of it; a link
// at path is replaced, not written through.
func ReplaceFile(path string, data []byte) error {
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	tmp := path + ".new-" + hex.EncodeToString(suffix[:])
	f, err := OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
