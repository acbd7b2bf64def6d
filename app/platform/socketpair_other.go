//go:build unix && !linux

package platform

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// socketpair makes a connected pair of stream sockets, closed on exec.
// macOS has no SOCK_CLOEXEC: the flag is set after, under the fork lock,
// so that no process started meanwhile inherits them.
func socketpair() ([2]int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return fds, err
	}
	unix.CloseOnExec(fds[0])
	unix.CloseOnExec(fds[1])
	return fds, nil
}
