package hubapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// MaxLine bounds one line of the protocol, in bytes: a peer that never
// ends its line must not fill this process's memory. The longest lines
// are history replies, a few KiB a record; exports come in chunks.
const MaxLine = 256 << 20

// ErrLineTooLong is returned by Conn.Read for a line past MaxLine; the
// connection cannot be read further.
var ErrLineTooLong = errors.New("a line longer than the protocol allows")

// BadLineError is a line that is not one JSON value of the expected
// shape: the connection can still be read, what follows is a new line.
type BadLineError struct{ Err error }

func (e BadLineError) Error() string { return e.Err.Error() }
func (e BadLineError) Unwrap() error { return e.Err }

// Conn is one framed connection of the hub protocol, or of any protocol
// that sends one JSON object a line (winproto): Read decodes a line with
// numbers as json.Number (Decode says why), Write encodes one. One reader
// at a time; Write may be called from any goroutine.
type Conn struct {
	rw  io.ReadWriter
	br  *bufio.Reader
	wmu sync.Mutex
	enc *json.Encoder
}

// NewConn frames rw, reading through a buffer of size bytes (0: 64 KiB).
func NewConn(rw io.ReadWriter, size int) *Conn {
	if size <= 0 {
		size = 64 << 10
	}
	return &Conn{rw: rw, br: bufio.NewReaderSize(rw, size), enc: json.NewEncoder(rw)}
}

// Read decodes the next line into v. It returns a BadLineError for a line
// that does not decode (the next Read reads the line after it), and the
// reader's error (io.EOF at the end) once no line is left.
func (c *Conn) Read(v any) error {
	line, err := c.line()
	if len(line) > 0 {
		if derr := DecodeLine(line, v); derr != nil {
			return BadLineError{derr}
		}
		return nil
	}
	return err
}

// line reads up to and with the next newline; a last line without one is
// returned with a nil error, and the reader's error on the next call.
func (c *Conn) line() ([]byte, error) {
	var line []byte
	for {
		chunk, err := c.br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine {
			return nil, fmt.Errorf("%w (%d bytes)", ErrLineTooLong, MaxLine)
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			return line, nil
		}
		return nil, err
	}
}

// Write sends v as one line.
func (c *Conn) Write(v any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.enc.Encode(v)
}
