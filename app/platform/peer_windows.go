package platform

import (
	"fmt"
	"net"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sioAFUnixGetPeerPID is SIO_AF_UNIX_GETPEERPID (afunix.h):
// _WSAIOR(IOC_VENDOR, 256), the pid of an AF_UNIX socket's peer as the
// system recorded it when the connection was made.
const sioAFUnixGetPeerPID = 0x40000000 | 0x18000000 | 256

// PeerCred returns the user and pid of the process at the other end of a
// local socket connection: its pid from SIO_AF_UNIX_GETPEERPID, its user
// from that process's token.
func PeerCred(conn *net.UnixConn) (User, int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return User{}, 0, err
	}
	var pid uint32
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		var n uint32
		cerr = windows.WSAIoctl(windows.Handle(fd), sioAFUnixGetPeerPID, nil, 0,
			(*byte)(unsafe.Pointer(&pid)), uint32(unsafe.Sizeof(pid)), &n, nil, 0)
	}); err != nil {
		return User{}, 0, err
	}
	if cerr != nil {
		return User{}, 0, fmt.Errorf("reading the peer's pid: %w", cerr)
	}
	u, err := processUser(pid)
	if err != nil {
		return User{}, int(pid), err
	}
	return u, int(pid), nil
}

// processUser is the user process pid runs as, from its token.
func processUser(pid uint32) (User, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return User{}, fmt.Errorf("opening process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return User{}, fmt.Errorf("reading the token of process %d: %w", pid, err)
	}
	defer tok.Close()
	tu, err := tok.GetTokenUser()
	if err != nil {
		return User{}, fmt.Errorf("reading the user of process %d: %w", pid, err)
	}
	return SID(tu.User.Sid.String()), nil
}
