package bridge

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
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
func (s *stdioServer) Start(_ context.Context, log func(format string, args ...any)) (Conn, error) {
	s.log = log
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		return s.fail(1, fmt.Errorf("%w: %v", ErrStart, err))
	}
	// An os.Pipe instead of StdoutPipe lets Wait run while reads go on, and
	// lets the relay stop reading when a grandchild keeps the pipe open.
	outR, outW, err := os.Pipe()
	if err != nil {
		return s.fail(1, fmt.Errorf("%w: %v", ErrStart, err))
	}
	s.cmd.Stdout = outW
	if s.cmd.Stderr == nil {
		s.cmd.Stderr = os.Stderr
	}
	if s.cmd.SysProcAttr == nil {
		s.cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	s.cmd.SysProcAttr.Setpgid = true
	if err := s.cmd.Start(); err != nil {
		outR.Close()
		outW.Close()
		return s.fail(127, fmt.Errorf("%w: %q: %w", ErrStart, s.cmd.Path, err))
	}
	outW.Close()

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
		// grandchild that inherited the pipe may hold it open, so stop
		// after grace.
		select {
		case <-readEnded:
		case <-time.After(s.grace):
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
		s.conn.flush()
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
// after grace it gets SIGTERM, after another grace SIGKILL (PROTOCOL.md §7).
// It returns once the server has exited.
func (s *stdioServer) shutdownWhenClosed() {
	select {
	case <-s.exited:
		return
	case <-s.closed:
	}
	pgid := -s.cmd.Process.Pid
	for _, sig := range []struct {
		s    syscall.Signal
		name string
	}{{syscall.SIGTERM, "SIGTERM"}, {syscall.SIGKILL, "SIGKILL"}} {
		select {
		case <-s.exited:
			return
		case <-time.After(s.grace):
		}
		s.log("the server did not exit %v after its input closed; sending %s", s.grace, sig.name)
		if err := syscall.Kill(pgid, sig.s); err != nil {
			_ = s.cmd.Process.Signal(sig.s)
		}
	}
	<-s.exited
}

// Wait waits for the child to exit and its stdout to be read to the end
// (or cut off after grace), and returns its exit code.
func (s *stdioServer) Wait() int {
	if s.exited == nil {
		return s.failCode
	}
	<-s.exited
	<-s.stopped
	<-s.drained
	s.out.Close() // read to its end: the pipe is let go (again, after grace)
	code := s.cmd.ProcessState.ExitCode()
	if code < 0 {
		// Killed by a signal: report it as a shell would.
		if ws, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return 1
	}
	return code
}

// lineConn is a stream of newline-terminated messages over a reader and a
// writer: the child's stdio, and the host's (PROTOCOL.md §7).
type lineConn struct {
	r *lineReader
	w *lineWriter
	// closeW, when set, is what CloseWrite does.
	closeW func() error
	// onEnd, when set, is called once when Read reaches the end.
	onEnd func()
	// end is the error that ended the stream after a last line without
	// a newline, returned by the next Read.
	end error
}

func newLineConn(r io.Reader, w io.Writer) *lineConn {
	return &lineConn{r: newLineReader(r), w: newLineWriter(w)}
}

// Read returns the next line; see Conn. Only one goroutine reads.
func (c *lineConn) Read() ([]byte, error) {
	if c.end != nil {
		return nil, c.ended(c.end)
	}
	line, err := c.r.next()
	if err != nil {
		if len(line) > 0 {
			c.end = err // the stream's last bytes: a message of their own
			return line, nil
		}
		return nil, c.ended(err)
	}
	return line, nil
}

func (c *lineConn) ended(err error) error {
	if c.onEnd != nil {
		c.onEnd()
		c.onEnd = nil
	}
	return err
}

// Buffered reports whether another message is already waiting.
func (c *lineConn) Buffered() bool { return c.r.br.Buffered() > 0 }

// Write writes msg, flushing when flush is set; see Conn.
func (c *lineConn) Write(msg []byte, flush bool) error { return c.w.write(msg, flush) }

// CloseWrite ends the writing side; see Conn.
func (c *lineConn) CloseWrite() error {
	if c.closeW == nil {
		c.flush()
		return nil
	}
	return c.closeW()
}

func (c *lineConn) flush() { c.w.flush() }

// lineReader reads newline-terminated messages of any length (PROTOCOL.md
// §7: never a fixed line cap). A line that fits the read buffer is returned
// in place; a longer one is gathered in a buffer kept for the next long line.
// The slice next returns is valid until the next call.
//
// A UTF-8 byte order mark (EF BB BF) at the start of a line is dropped:
// the relay would not recognise the message behind it, and the peer it is
// relayed to would most likely choke on it. JSON-RPC text is UTF-8 JSON
// (PROTOCOL.md §7), and RFC 8259 §8.1 says a BOM must not be sent and may
// be ignored by a parser, so the line goes on as the message it carries.
type lineReader struct {
	br   *bufio.Reader
	long []byte
	// onBOM, when set, is called the first time a line starts with a BOM.
	onBOM func()
}

// keepLong is the largest gathering buffer kept between lines; a larger one
// goes back to the garbage collector after its line.
const keepLong = 32 << 20

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 256<<10)}
}

func (lr *lineReader) next() ([]byte, error) {
	line, err := lr.read()
	if len(line) >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
		line = line[3:]
		if lr.onBOM != nil {
			lr.onBOM()
			lr.onBOM = nil
		}
	}
	return line, err
}

func (lr *lineReader) read() ([]byte, error) {
	line, err := lr.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	if cap(lr.long) > keepLong {
		lr.long = nil
	}
	lr.long = append(lr.long[:0], line...)
	for {
		line, err = lr.br.ReadSlice('\n')
		lr.long = append(lr.long, line...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return lr.long, err
		}
	}
}

// lineWriter serialises whole lines from several goroutines onto one
// stream, so that a prompt's answer never splits a relayed message.
type lineWriter struct {
	mu sync.Mutex // guards w
	w  *bufio.Writer
}

func newLineWriter(w io.Writer) *lineWriter {
	return &lineWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// write appends line (which ends in a newline, or is the stream's last
// bytes) and flushes when flush is set.
func (lw *lineWriter) write(line []byte, flush bool) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if _, err := lw.w.Write(line); err != nil {
		return err
	}
	if flush {
		return lw.w.Flush()
	}
	return nil
}

func (lw *lineWriter) flush() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	_ = lw.w.Flush()
}
