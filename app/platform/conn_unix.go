//go:build unix

package platform

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
)

// Listen listens on the AF_UNIX socket at path, mode 0600 (its directory
// is private too: the mode is a second lock). A file left at path is a
// dead hub's: the caller holds the hub lock.
func Listen(path string) (net.Listener, error) {
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// Dial connects to the hub's socket at path.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}

// Peer returns the user and pid of the process at the other end of a
// local socket connection (PeerCred: SO_PEERCRED on Linux), whichever
// side it is on.
func Peer(conn net.Conn, peerIsServer bool) (User, int, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return User{}, 0, fmt.Errorf("%w: %T", ErrNotLocal, conn)
	}
	return PeerCred(uc)
}

// Conn is a connection to a child process or its parent: a stream with a
// half close.
type Conn interface {
	Read(p []byte) (int, error)
	Write(p []byte) (int, error)
	Close() error
	// CloseWrite ends what this side sends; the other side reads EOF.
	CloseWrite() error
}

// childFD is the file descriptor a child finds its connection to the
// parent on: the first of exec.Cmd.ExtraFiles.
const childFD = 3

// ChildConn gives cmd, before it starts, a connection to this process and
// returns this end; started must be called once cmd.Start returned (it lets
// go of the child's end here). Unix: a socketpair, the child's end as fd 3.
func ChildConn(cmd *exec.Cmd) (conn Conn, started func(), err error) {
	fds, err := socketpair()
	if err != nil {
		return nil, nil, err
	}
	ours := os.NewFile(uintptr(fds[0]), "child")
	theirs := os.NewFile(uintptr(fds[1]), "parent")
	fc, err := net.FileConn(ours)
	ours.Close() // FileConn holds a copy
	if err != nil {
		theirs.Close()
		return nil, nil, err
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, theirs)
	return fc.(*net.UnixConn), func() { theirs.Close() }, nil
}

// ParentConn is the child's end of ChildConn, in the child; it fails when
// this process was not started with one.
func ParentConn() (Conn, error) {
	f := os.NewFile(childFD, "parent")
	if f == nil {
		return nil, fmt.Errorf("no file descriptor %d", childFD)
	}
	fc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("no socket on file descriptor %d: %w", childFD, err)
	}
	uc, ok := fc.(*net.UnixConn)
	if !ok {
		fc.Close()
		return nil, fmt.Errorf("file descriptor %d is no local socket", childFD)
	}
	return uc, nil
}

// Endpoint is where a hub whose socket is path listens, for a sentence:
// the socket's path.
func Endpoint(path string) string { return path }
