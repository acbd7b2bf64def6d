package platform

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// The locks cover the first byte of the file, as every locker of the file
// does; LockFileEx locks are per handle and go with it, so a process that
// dies lets go of them.

// TryLock takes an exclusive lock on the open file f without waiting: it
// returns ErrLocked when another handle holds one. The lock lasts until
// Unlock or until f is closed.
func TryLock(f *os.File) error {
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &windows.Overlapped{})
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrLocked
	}
	return err
}

// Lock takes an exclusive lock on the open file f, waiting for it.
func Lock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &windows.Overlapped{})
}

// Unlock lets go of f's lock.
func Unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &windows.Overlapped{})
}
