package hosts

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps the files at a and b in one step: renameat2 with
// RENAME_EXCHANGE (Linux 3.15 and later). A kernel without it (ENOSYS) or
// a file system that refuses it (EINVAL) is errNoExchange. Tests replace
// it to see the other systems' way.
var exchange = func(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		return errNoExchange
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}
