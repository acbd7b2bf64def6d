package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Command returns the Server that runs cmd as a child process speaking MCP
// on its stdin and stdout, one message per line (PROTOCOL.md §7). cmd must
// not have been started: Start sets its Stdin and Stdout and puts it in a
// process group of its own. cmd.Stderr is left as the caller set it, and
// when nil the server's stderr goes to os.Stderr, untouched (PROTOCOL.md §7:
// stderr is free-form logging).
//
// grace is how long shutdown waits after closing the server's stdin before
// SIGTERM, and again before SIGKILL, both sent to the whole process group
// (so that `npx` and the node process it starts both stop); it is also how
// long the relay keeps reading after the server exited, when a grandchild
// still holds its stdout open. Zero or less means 2 seconds.
//
// Wait returns the child's exit status, or 128+N when signal N killed it,
// as a shell reports it.
func Command(cmd *exec.Cmd, grace time.Duration) Server {
	if grace <= 0 {
		grace = 2 * time.Second
	}
	return &stdioServer{cmd: cmd, grace: grace}
}

// stdioServer is the child process a Relay wraps (Command).
type stdioServer struct {
	cmd   *exec.Cmd
	grace time.Duration

	// Set by Start, then only read.
	log    func(format string, args ...any)
	ctx    context.Context // the relay's: done when the wrapper is told to stop
	stdin  io.Closer
	out    *os.File      // the read end of the child's stdout
	conn   *lineConn     // over stdin and out
	exited chan struct{} // closed once cmd.Wait returned
	// closed is closed by CloseWrite: the host is gone.
	closed    chan struct{}
	closeOnce sync.Once
	// stopped is closed once the shutdown goroutine has ended; drained
	// once reading has ended (or was cut off after grace).
	stopped, drained chan struct{}
	// failCode is the exit code of a Start that failed (Wait returns it).
	failCode int
	// group holds the server and what it starts (group_*.go).
	group group
}

// startError is Start's error, with the code the wrapper exits with.
type startError struct {
	err  error
	code int
}

func (e *startError) Error() string { return e.err.Error() }
func (e *startError) Unwrap() error { return e.err }

// ExitCode is the code the wrapper exits with: 127, as a shell says a
// command could not be run, or 1 when the pipes could not be made.
func (e *startError) ExitCode() int { return e.code }

func (s *stdioServer) fail(code int, err error) (Conn, error) {
	s.failCode = code
	return nil, &startError{err: err, code: code}
}

// Start starts the child process with its stdin and stdout as the Conn.
func (s *stdioServer) Start(ctx context.Context, log func(format string, args ...any)) (Conn, error) {
	s.log, s.ctx = log, ctx
	// os.Pipes instead of StdinPipe and StdoutPipe let Wait run while reads
	// go on, let the relay stop reading when a grandchild keeps the pipe
	// open, and give the relay the files it splices between (frame.go).
	inR, inW, err := os.Pipe()
	if err != nil {
		return s.fail(1, fmt.Errorf("%w: %v", ErrStart, err))
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return s.fail(1, fmt.Errorf("%w: %v", ErrStart, err))
	}
	stdin := inW
	s.cmd.Stdin = inR
	s.cmd.Stdout = outW
	if s.cmd.Stderr == nil {
		s.cmd.Stderr = os.Stderr
	}
	ownGroup(s.cmd)
	if err := s.cmd.Start(); err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
		return s.fail(127, fmt.Errorf("%w: %q: %w", ErrStart, s.cmd.Path, err))
	}
	inR.Close()
	outW.Close()
	if s.group, err = newGroup(s.cmd.Process); err != nil {
		log("the server's processes may outlive elicitray: %v", err)
	}

	s.stdin, s.out = stdin, outR
	s.exited, s.closed = make(chan struct{}), make(chan struct{})
	s.stopped, s.drained = make(chan struct{}), make(chan struct{})
	s.conn = newLineConn(outR, stdin)
	s.conn.r.onBOM = func() {
		log("a message from the server began with a UTF-8 byte order mark, which JSON-RPC text must not carry; elicitray removes such marks before passing messages on")
	}
	s.conn.closeW = s.closeWrite
	readEnded := make(chan struct{})
	s.conn.onEnd = func() { close(readEnded) }

	go func() {
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	go func() {
		defer close(s.stopped)
		s.shutdownWhenClosed()
	}()
	go func() {
		defer close(s.drained)
		<-s.exited
		// The server is gone; what it wrote is still in the pipe. A
		// grandchild that inherited the pipe may hold it open, and a host
		// that stopped reading may hold the relay in a write of it
		// (issue 25), so stop after grace: the host's writes are given up,
		// which lets the write waiting return, and the pipe is let go.
		select {
		case <-readEnded:
		case <-time.After(s.grace):
			s.conn.cutOff()
			outR.Close()
		}
	}()
	return s.conn, nil
}

// closeWrite is the Conn's CloseWrite: it flushes and closes the server's
// stdin; the shutdown goroutine then signals the process group if the
// server does not exit (PROTOCOL.md §7). Only the first call acts.
func (s *stdioServer) closeWrite() error {
	var err error
	s.closeOnce.Do(func() {
		// What waits for the server goes first, however long the server
		// takes to read it (a host's last request to a server still
		// starting). But once the wrapper is told to stop, a server that
		// does not read its stdin must not keep it open: a write to it
		// would wait forever, and the server would never be signalled.
		// After grace its stdin is closed anyway, which ends the write.
		flushed := make(chan struct{})
		go func() {
			defer close(flushed)
			s.conn.flush()
		}()
		select {
		case <-flushed:
		case <-s.exited:
		case <-s.ctx.Done():
			select {
			case <-flushed:
			case <-s.exited:
			case <-time.After(s.grace):
			}
		}
		// The child's exit closes its stdin too (exec.Cmd.Wait): then
		// there is nothing left to close.
		if err = s.stdin.Close(); errors.Is(err, os.ErrClosed) {
			err = nil
		}
		close(s.closed)
	})
	return err
}

// shutdownWhenClosed waits for CloseWrite, then for the server to exit:
// after grace it is asked to stop (SIGTERM), after another grace killed
// (SIGKILL; on Windows both end its job) (PROTOCOL.md §7).
// It returns once the server has exited.
func (s *stdioServer) shutdownWhenClosed() {
	select {
	case <-s.exited:
		return
	case <-s.closed:
	}
	for _, kill := range []bool{false, true} {
		select {
		case <-s.exited:
			return
		case <-time.After(s.grace):
		}
		// The first step is how many servers end (a Node server with a
		// timer left does not end with its input): said as the normal
		// step it is, not as a fault.
		after := "its input closed, as some servers are until they are told to stop"
		if kill {
			after = "it was told to stop"
		}
		s.log("the server was still running %v after %s: %s", s.grace, after, s.group.stop(s.cmd.Process, kill))
	}
	select {
	case <-s.exited:
		return
	case <-time.After(s.grace):
	}
	// Killed, and not gone: it may be held in a write to its stdout
	// while the relay splices that pipe into a host that stopped
	// reading (the kernel holds the pipe's lock meanwhile, and SIGKILL
	// waits for it). The host's writes are given up, which ends it.
	s.conn.cutOff()
	<-s.exited
}

func (s *stdioServer) graceTime() time.Duration { return s.grace }

// Wait waits for the child to exit and its stdout to be read to the end
// (or cut off after grace), and returns its exit code.
func (s *stdioServer) Wait() int {
	if s.exited == nil {
		return s.failCode
	}
	<-s.exited
	_ = s.closeWrite() // nobody reads the server's stdin any more
	<-s.stopped
	<-s.drained
	s.out.Close() // read to its end: the pipe is let go (again, after grace)
	s.group.close()
	return exitCode(s.cmd.ProcessState)
}
