package platform

import (
	"fmt"
	"net"

	"golang.org/x/sys/windows"
)

// Peer returns the user and pid of the process at the other end of a
// connection to the hub's pipe: the server's when peerIsServer (a client
// checks who listens), else the client's (the hub checks who connected),
// as the system recorded them for the pipe, and the user from that
// process's token.
func Peer(conn net.Conn, peerIsServer bool) (User, int, error) {
	f, ok := conn.(interface{ Fd() uintptr })
	if !ok {
		return User{}, 0, fmt.Errorf("%w: %T", ErrNotLocal, conn)
	}
	var pid uint32
	var err error
	if peerIsServer {
		err = windows.GetNamedPipeServerProcessId(windows.Handle(f.Fd()), &pid)
	} else {
		err = windows.GetNamedPipeClientProcessId(windows.Handle(f.Fd()), &pid)
	}
	if err != nil {
		return User{}, 0, fmt.Errorf("reading the peer's pid: %w", err)
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
