package platform

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Listen serves the hub's API on a named pipe of the user's (PipeName of
// path): the way Windows programs serve a local API (Docker, containerd and
// tailscale do), and what Wine emulates, where it has no AF_UNIX
// (pipe_windows.go). Its security descriptor (pipeSDDL) admits the user
// and SYSTEM only, and it is created
// as the name's first instance: a pipe of that name made by anyone else
// first (a squatter) makes Listen fail rather than share the name. The
// caller holds the hub lock.
func Listen(path string) (net.Listener, error) {
	name := PipeName(path)
	ln, err := listenPipe(name, pipeSDDL(Me().ID()))
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", name, err)
	}
	return ln, nil
}

// Dial connects to the hub's pipe for path. A pipe that does not exist
// (no hub) is fs.ErrNotExist, as a missing socket file is on Unix.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	return dialPipe(ctx, PipeName(path))
}

// PipeName is the named pipe that stands for the socket path: one name per
// run directory, so per user and per ELICITRAY_HOME, without the
// directory's characters (a pipe name is at most 256 characters and may
// not hold a backslash after the prefix).
func PipeName(path string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(filepath.Clean(path))))
	return `\\.\pipe\elicitray-` + hex.EncodeToString(sum[:12])
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

// pipeConn is a Conn over two anonymous pipes: Windows passes no extra
// handles to a child the way Unix passes file descriptors (exec.Cmd's
// ExtraFiles), so the child's stdin and stdout carry the connection.
type pipeConn struct {
	r, w *os.File
}

func (c *pipeConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *pipeConn) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c *pipeConn) CloseWrite() error           { return c.w.Close() }

func (c *pipeConn) Close() error {
	werr := c.w.Close()
	if errors.Is(werr, os.ErrClosed) {
		werr = nil
	}
	return errors.Join(c.r.Close(), werr)
}

// ChildConn gives cmd, before it starts, a connection to this process and
// returns this end; started must be called once cmd.Start returned (it
// lets go of the child's ends here). Windows: two pipes, the child's stdin
// and stdout.
func ChildConn(cmd *exec.Cmd) (conn Conn, started func(), err error) {
	childIn, toChild, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	fromChild, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		toChild.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	return &pipeConn{r: fromChild, w: toChild}, func() { childIn.Close(); childOut.Close() }, nil
}

// ParentConn is the child's end of ChildConn, in the child: its stdin and
// stdout, which must be pipes.
func ParentConn() (Conn, error) {
	for _, f := range []*os.File{os.Stdin, os.Stdout} {
		fi, err := f.Stat()
		if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			return nil, fmt.Errorf("%s is not a pipe", f.Name())
		}
	}
	return &pipeConn{r: os.Stdin, w: os.Stdout}, nil
}

// Endpoint is where a hub whose socket is path listens, for a sentence:
// its named pipe.
func Endpoint(path string) string { return PipeName(path) }
