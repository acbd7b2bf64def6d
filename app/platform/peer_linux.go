package platform

import (
	"net"

	"golang.org/x/sys/unix"
)

// PeerCred returns the user and pid of the process at the other end of a
// local socket connection: SO_PEERCRED, taken by the kernel when the
// connection was made.
func PeerCred(conn *net.UnixConn) (User, int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return User{}, 0, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return User{}, 0, err
	}
	if cerr != nil {
		return User{}, 0, cerr
	}
	return UID(int(cred.Uid)), int(cred.Pid), nil
}
