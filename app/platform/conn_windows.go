package platform

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
)

// Listen listens on the AF_UNIX socket at path (Windows 10 1803 and
// later). The socket file takes its access list from its directory, which
// is private (MakePrivate); Windows has no file modes to set. A file left
// at path is a dead hub's: the caller holds the hub lock.
func Listen(path string) (net.Listener, error) {
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	return ln, nil
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
