package bridge

import (
	"context"
	"time"
)

// A Conn is the relay's connection to the server it wraps: a stream of
// JSON-RPC messages, one per line, whatever carries them underneath (a
// child's stdio, PROTOCOL.md §7, or Streamable HTTP, §11). The protocol work
// (interception, the input_required loop, cancellation) is written once,
// over a Conn; only the Conn knows the wire.
type Conn interface {
	// Read returns the next message from the server as one line: its
	// bytes, ending in a newline unless it was the last bytes of a stream
	// that had none (stdio passes on what the server wrote). The slice is
	// valid until the next Read. At the end of the server's messages Read
	// returns io.EOF, or the error that ended them.
	Read() ([]byte, error)
	// Buffered reports whether another message is already waiting to be
	// read: while one is, the relay does not flush what it wrote to the
	// host, so a burst goes out in few writes and a lone message at once.
	Buffered() bool
	// Write sends one message to the server. msg ends in a newline (or is
	// the host's last bytes, which had none). flush false says another
	// message follows at once. Write is safe for concurrent use and never
	// splits a message.
	Write(msg []byte, flush bool) error
	// CloseWrite says no more messages will be written: the host is gone.
	// The server is then shut down its own way (stdio: stdin closed, then
	// SIGTERM and SIGKILL after a grace period; HTTP: the session ended
	// with DELETE), and Read reaches its end.
	CloseWrite() error
}

// A Server is the server a Relay wraps, before it runs.
type Server interface {
	// Start starts the server (stdio: the child process) and returns the
	// connection to it. Errors wrap ErrStart. log writes a sentence for
	// people to the host's log.
	Start(ctx context.Context, log func(format string, args ...any)) (Conn, error)
	// Wait blocks until the server is gone, after CloseWrite or on its
	// own, and returns the code the wrapper exits with: the child's exit
	// status (128+N for a signal), or for a remote server 0 after a clean
	// end and 1 when it was lost.
	Wait() int
}

// graceOf is how long the relay still writes to a host that reads nothing
// once srv is gone: its own grace period (Command, HTTPOptions.Grace).
func graceOf(srv Server) time.Duration {
	if g, ok := srv.(interface{ graceTime() time.Duration }); ok {
		return g.graceTime()
	}
	return 2 * time.Second
}
