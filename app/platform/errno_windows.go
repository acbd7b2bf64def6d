package platform

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// IsNoSpace reports whether err says the disk or the user's quota is full.
func IsNoSpace(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL) ||
		errors.Is(err, windows.ERROR_DISK_QUOTA_EXCEEDED)
}

// IsReadOnly reports whether err says the medium is write-protected.
func IsReadOnly(err error) bool { return errors.Is(err, windows.ERROR_WRITE_PROTECT) }

// IsIOError reports whether err is the device's I/O error.
func IsIOError(err error) bool {
	return errors.Is(err, windows.ERROR_IO_DEVICE) || errors.Is(err, windows.ERROR_CRC)
}

// IsAddrInUse reports whether err says the address is taken by another
// listener.
func IsAddrInUse(err error) bool {
	return errors.Is(err, windows.WSAEADDRINUSE) || errors.Is(err, syscall.EADDRINUSE)
}

// IsNoListener reports whether err says nothing listens at a socket's
// path: no file there, or a file nobody accepts on.
func IsNoListener(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, windows.WSAECONNREFUSED) ||
		errors.Is(err, syscall.ECONNREFUSED)
}
