package platform

import "errors"

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
