package platform

import (
	"net"

	"golang.org/x/sys/unix"
)

// PeerCred returns the user and pid of the process at the other end of a
// local socket connection: LOCAL_PEERCRED (its effective uid) and
// LOCAL_PEERPID, taken by the kernel when the connection was made.
func PeerCred(conn *net.UnixConn) (User, int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return User{}, 0, err
	}
	var cred *unix.Xucred
	var pid int
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if cerr == nil {
			pid, cerr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
		}
	}); err != nil {
		return User{}, 0, err
	}
	if cerr != nil {
		return User{}, 0, cerr
	}
	return UID(int(cred.Uid)), pid, nil
}
