package bridge

import (
	"errors"
	"syscall"

	"golang.org/x/sys/windows"
)

// Windows names a refused or reset connection with Winsock's own codes,
// which are not syscall's ECONNREFUSED and ECONNRESET.

func connRefused(err error) bool {
	return errors.Is(err, windows.WSAECONNREFUSED) || errors.Is(err, syscall.ECONNREFUSED)
}

func connReset(err error) bool {
	return errors.Is(err, windows.WSAECONNRESET) || errors.Is(err, windows.WSAECONNABORTED) ||
		errors.Is(err, syscall.ECONNRESET)
}
