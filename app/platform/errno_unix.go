//go:build unix

package platform

import (
	"errors"
	"syscall"
)

// IsNoSpace reports whether err says the disk or the user's quota is full.
func IsNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// IsReadOnly reports whether err says the file system is read-only.
func IsReadOnly(err error) bool { return errors.Is(err, syscall.EROFS) }

// IsIOError reports whether err is the disk's I/O error.
func IsIOError(err error) bool { return errors.Is(err, syscall.EIO) }

// IsAddrInUse reports whether err says the address is taken by another
// listener.
func IsAddrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }

// IsNoListener reports whether err says nothing listens at a socket's
// path: no file there, or a file nobody accepts on.
func IsNoListener(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}
