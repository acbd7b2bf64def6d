package platform

import "golang.org/x/sys/unix"

// socketpair makes a connected pair of stream sockets, closed on exec.
func socketpair() ([2]int, error) {
	return unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
}
