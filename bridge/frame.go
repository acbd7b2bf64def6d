package bridge

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
)

// lineConn is a stream of newline-terminated messages over a reader and a
// writer: the child's stdio, and the host's (PROTOCOL.md §7).
type lineConn struct {
	r *framer
	w *lineWriter
	// closeW, when set, is what CloseWrite does.
	closeW func() error
	// onEnd, when set, is called once when reading reaches the end.
	onEnd func()
}

func newLineConn(r io.Reader, w io.Writer) *lineConn {
	return &lineConn{r: newFramer(r), w: newLineWriter(w)}
}

// Read returns the next line; see Conn. Only one goroutine reads.
func (c *lineConn) Read() ([]byte, error) {
	line, err := c.r.next()
	if err != nil {
		c.ended()
	}
	return line, err
}

func (c *lineConn) ended() {
	if c.onEnd != nil {
		c.onEnd()
		c.onEnd = nil
	}
}

// Buffered reports whether more of the stream is already read.
func (c *lineConn) Buffered() bool { return c.r.buffered() }

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

// A route is what the relay does with a message, decided from its first
// bytes by a direction's route function (quick.go).
type route uint8

const (
	// vFull: the relay must see the whole message; it is gathered (when
	// longer than the read buffer) and routed by the full path.
	vFull route = iota
	// vPass: the message goes on untouched, whatever its remaining bytes.
	vPass
	// vEnd: like vPass, after the call whose reply it is ends (route
	// returns the call's id key).
	vEnd
	// vEndAfter: a long reply that passes whatever its id, written with
	// "result" before "id" (the TypeScript SDK's order): it streams on,
	// and the id found after the result ends the call once it is out.
	vEndAfter
)

// framer cuts one direction of a stdio stream into messages (PROTOCOL.md
// §7: one per line, never a fixed line cap) and, in pump, relays those the
// relay does not act on as they came, with as little work per byte as the
// stream allows:
//
//   - Each byte is searched once, for the newline that ends its line; a
//     message is routed from its first members (quick.go), so the rest of
//     a passing message is not scanned again.
//   - Runs of passing lines go out in one write, straight from the read
//     buffer: no copy into a second buffer.
//   - A line longer than the buffer is decided from its head. When it
//     passes, it is streamed on in buffer-sized pieces and never held
//     whole; when the relay needs it, it is gathered in chunks and joined
//     once.
//   - On Linux, when the input is a pipe with a lot waiting, bytes are
//     duplicated into a private pipe (tee) to be read and searched, and the
//     passing ones are moved to the output by the kernel (splice): one copy
//     per byte instead of two (pipe_linux.go).
//
// A UTF-8 byte order mark (EF BB BF) at the start of a line is dropped:
// the relay would not recognise the message behind it, and the peer it is
// relayed to would most likely choke on it. JSON-RPC text is UTF-8 JSON
// (PROTOCOL.md §7), and RFC 8259 §8.1 says a BOM must not be sent and may
// be ignored by a parser, so the line goes on as the message it carries.
//
// Only one goroutine reads. The slices next returns, and those pump hands
// its callbacks, are valid until the next call.
type framer struct {
	r   io.Reader
	buf []byte
	// buf[start:end] is read and not yet handled. Of it, buf[start:cons]
	// (or nothing, when cons < start) was taken out of r, and buf[cons:end]
	// was only teed: those bytes are also still at the head of the pipe.
	// Without a pipe, cons is always end.
	start, cons, end int
	// scan is where the search for the next newline resumes: the bytes
	// from start to scan hold none.
	scan int
	// err ended reading (io.EOF at the end); the bytes still in buf are
	// handled first.
	err error
	// pipe, when set, tees from r and splices to the output (Linux).
	pipe *pipeIn
	// onBOM, when set, is called the first time a line starts with a BOM.
	onBOM func()
}

// frameBuf is the size of a framer's buffer, the longest line handled in
// place, and the size of the chunks a longer line is gathered in. It is
// also the pipe size the relay asks the kernel for (pipe_linux.go): a
// write of the host's that fits goes through in one piece.
const frameBuf = 1 << 20

func newFramer(r io.Reader) *framer {
	return &framer{r: r, buf: make([]byte, frameBuf)}
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// noBOM returns line without a leading byte order mark.
func (f *framer) noBOM(line []byte) []byte {
	if !bytes.HasPrefix(line, bom) {
		return line
	}
	if f.onBOM != nil {
		f.onBOM()
		f.onBOM = nil
	}
	return line[len(bom):]
}

func (f *framer) buffered() bool { return f.start < f.end }

// file returns what the framer reads when it is a file.
func (f *framer) file() *os.File {
	file, _ := f.r.(*os.File)
	return file
}

// next returns the next whole line, gathering one longer than the buffer,
// or the error that ended the stream. The stream's last bytes, when they
// have no newline, are a line of their own.
func (f *framer) next() ([]byte, error) {
	for {
		if i := bytes.IndexByte(f.buf[f.scan:f.end], '\n'); i >= 0 {
			le := f.scan + i + 1
			line := f.buf[f.start:le]
			f.take(le)
			return f.noBOM(line), nil
		}
		f.scan = f.end
		if f.err != nil {
			if f.start < f.end {
				line := f.buf[f.start:f.end]
				f.take(f.end)
				return f.noBOM(line), nil
			}
			return nil, f.err
		}
		if f.fill() {
			return f.noBOM(f.gather()), nil
		}
	}
}

// fill reads more of the stream after the unhandled bytes, which hold no
// newline. It reports true when it could not because they fill the whole
// buffer: a line longer than the buffer starts there. A read error is kept
// in f.err.
func (f *framer) fill() (full bool) {
	if f.err != nil {
		return false
	}
	if f.cons < f.end {
		// The teed part of an unfinished line leaves the pipe: what comes
		// next can then be teed (or read) after it.
		if err := f.pipe.drop(f.end - f.cons); err != nil {
			f.err = err
			return false
		}
		f.cons = f.end
	}
	if f.start == f.end {
		f.start, f.cons, f.end, f.scan = 0, 0, 0, 0
	} else if f.end == len(f.buf) && f.start > 0 {
		n := copy(f.buf, f.buf[f.start:f.end])
		f.start, f.cons, f.end, f.scan = 0, n, n, n
	}
	if f.end == len(f.buf) {
		return true
	}
	if f.pipe != nil {
		n, err := f.pipe.tee(f.buf[f.end:])
		if err != nil {
			f.err = err
			return false
		}
		if n > 0 {
			f.end += n // cons stays: these bytes are still in the pipe
			return false
		}
		// Little is waiting: a plain read takes it (and waits for it).
	}
	n, err := f.r.Read(f.buf[f.end:])
	f.end += n
	f.cons = f.end
	if err != nil {
		f.err = err
	}
	return false
}

// take marks buf[start:to] handled by the relay itself: teed bytes among
// them leave the pipe unrelayed.
func (f *framer) take(to int) {
	if f.cons < to {
		if err := f.pipe.drop(to - f.cons); err != nil && f.err == nil {
			f.err = err
		}
		f.cons = to
	}
	f.start, f.scan = to, max(f.scan, to)
}

// emit relays buf[start:to] untouched to out: the bytes taken from the
// reader with one write, the teed ones by splicing them from the pipe.
// Nothing another goroutine writes to out can come between them.
func (f *framer) emit(out *lineWriter, to int) error {
	from := f.start
	f.start, f.scan = to, max(f.scan, to)
	read := min(to, max(f.cons, from))
	out.mu.Lock()
	defer out.mu.Unlock()
	if err := out.w.Flush(); err != nil {
		return err
	}
	var err error
	if read > from {
		_, err = out.raw.Write(f.buf[from:read])
	}
	if to > read {
		var moved int
		moved, err = f.pipe.splice(to - read)
		if err != nil && moved < to-read {
			// The output takes no splice (or failed in the middle): the
			// bytes are here too. They leave the pipe and are written.
			f.pipe.noSplice()
			if derr := f.pipe.drop(to - read - moved); derr == nil {
				_, err = out.raw.Write(f.buf[read+moved : to])
			}
		}
		f.cons = to
	}
	return err
}

// dropLine reads the rest of a line that fills the buffer and drops it.
func (f *framer) dropLine() {
	for {
		if i := bytes.IndexByte(f.buf[f.scan:f.end], '\n'); i >= 0 {
			f.take(f.scan + i + 1)
			return
		}
		f.take(f.end)
		if f.err != nil {
			return
		}
		f.fill()
	}
}

// gather reads the rest of a line that fills the whole buffer and returns
// it whole. It reads in buffer-sized chunks and joins them once, so the
// line is copied once more than it is read, and memory peaks at about
// twice its length.
func (f *framer) gather() []byte {
	f.take(f.end) // the head: read or teed, it is in buf
	chunks := [][]byte{append([]byte(nil), f.buf[:f.end]...)}
	total := f.end
	f.start, f.cons, f.end, f.scan = 0, 0, 0, 0
	for f.err == nil {
		c := make([]byte, frameBuf)
		n := 0
		nl := -1
		for n < len(c) && nl < 0 && f.err == nil {
			k, err := f.r.Read(c[n:])
			if i := bytes.IndexByte(c[n:n+k], '\n'); i >= 0 {
				nl = n + i
			}
			n += k
			if err != nil {
				f.err = err
			}
		}
		if nl >= 0 {
			// What follows the newline is the next lines': back to buf.
			f.end = copy(f.buf, c[nl+1:n])
			f.cons = f.end
			n = nl + 1
		}
		chunks = append(chunks, c[:n])
		total += n
		if nl >= 0 {
			break
		}
	}
	line := make([]byte, 0, total)
	for i, c := range chunks {
		line = append(line, c...)
		chunks[i] = nil
	}
	return line
}

// pump relays the stream to out until it ends, and returns the error that
// ended it (io.EOF at the end). route decides each message from its first
// bytes (complete false: a head, the line goes on past the buffer);
// ended is called for a vEnd before its line goes on; handle takes every
// message route gave vFull, whole, with more telling whether more of the
// stream is already read (its writes then need no flush). A failed write
// to out is told to failed, once, and reading goes on: the peer still
// writing must not block on a full pipe because the other one left.
func (f *framer) pump(out *lineWriter, decide func(b []byte, complete bool) (route, string), ended func(key string), handle func(line []byte, more bool), failed func(error)) error {
	var werr error
	note := func(err error) {
		if err != nil && werr == nil {
			werr = err
			failed(err)
		}
	}
	for {
		ls := f.start // the line being looked at; buf[start:ls] passes
		for {
			i := bytes.IndexByte(f.buf[f.scan:f.end], '\n')
			if i < 0 {
				f.scan = f.end
				break
			}
			le := f.scan + i + 1
			f.scan = le
			line := f.buf[ls:le]
			v, key := vFull, ""
			if !bytes.HasPrefix(line, bom) {
				v, key = decide(line, true)
			}
			switch v {
			case vPass:
			case vEnd:
				note(f.emit(out, ls))
				ended(key)
			default:
				note(f.emit(out, ls))
				f.take(le)
				handle(f.noBOM(line), f.end > le)
			}
			ls = le
		}
		if ls > f.start {
			note(f.emit(out, ls))
		}
		if f.err != nil && f.cons >= f.end {
			// The stream's last bytes, without a newline: a line of its
			// own, relayed as it is.
			if f.start < f.end {
				line := f.buf[f.start:f.end]
				if v, key := decide(line, true); v != vFull && !bytes.HasPrefix(line, bom) {
					if v == vEnd {
						ended(key)
					}
					note(f.emit(out, f.end))
				} else {
					f.take(f.end)
					handle(f.noBOM(line), false)
				}
			}
			return f.err
		}
		// Nothing read is left to pass: what is waiting to be written
		// goes out before the next read, which may wait.
		out.flush()
		if !f.fill() {
			continue
		}
		// A line longer than the buffer.
		head := f.buf[:f.end]
		v, key := vFull, ""
		if !bytes.HasPrefix(head, bom) {
			v, key = decide(head, false)
		}
		if v == vFull {
			handle(f.noBOM(f.gather()), f.buffered())
			continue
		}
		if v == vEnd {
			ended(key)
		}
		var tail *replyTail
		if v == vEndAfter {
			tail = newReplyTail(head)
		}
		note(f.stream(out, tail))
		if tail != nil {
			if key, ok := tail.key(); ok {
				ended(key)
			}
		}
	}
}

// stream relays a line longer than the buffer, whose head is in it, piece
// by piece until its newline. Meanwhile what other goroutines write to out
// (a prompt's answer) waits in out, and follows the line: it must not land
// inside it, nor wait on the peer that is still sending the line.
func (f *framer) stream(out *lineWriter, tail *replyTail) error {
	out.mu.Lock()
	out.streaming = true
	out.mu.Unlock()
	defer out.endStream()
	for first := true; ; first = false {
		if tail != nil && !first {
			tail.feed(f.buf[f.start:f.end])
		}
		if i := bytes.IndexByte(f.buf[f.scan:f.end], '\n'); i >= 0 {
			return f.emit(out, f.scan+i+1)
		}
		if err := f.emit(out, f.end); err != nil {
			// The output is gone: the rest of the line is read and
			// dropped, so that the writer does not block.
			f.dropLine()
			return err
		}
		if f.err != nil {
			return nil // the stream ended inside the line: pump returns
		}
		f.fill()
	}
}

// lineWriter serialises whole lines from several goroutines onto one
// stream, so that a prompt's answer never splits a relayed message.
type lineWriter struct {
	mu  sync.Mutex // guards the fields below, and raw while a run is written
	w   *bufio.Writer
	raw io.Writer
	// streaming is set while a framer streams a long line to raw; lines
	// written meanwhile wait in later, to follow it.
	streaming bool
	later     []byte
	// file is raw when it is a file (a pipe, a socket): the framer of the
	// other direction may splice into it.
	file *os.File
}

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: bufio.NewWriterSize(w, 64<<10), raw: w}
	lw.file, _ = w.(*os.File)
	return lw
}

// write appends line (which ends in a newline, or is the stream's last
// bytes) and flushes when flush is set.
func (lw *lineWriter) write(line []byte, flush bool) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.streaming {
		lw.later = append(lw.later, line...)
		return nil
	}
	if _, err := lw.w.Write(line); err != nil {
		return err
	}
	if flush {
		return lw.w.Flush()
	}
	return nil
}

// endStream ends a framer's stream: the lines that waited go out.
func (lw *lineWriter) endStream() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.streaming = false
	if len(lw.later) > 0 {
		_, _ = lw.w.Write(lw.later)
		_ = lw.w.Flush()
		lw.later = nil
	}
}

func (lw *lineWriter) flush() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.w.Buffered() > 0 {
		_ = lw.w.Flush()
	}
}

// errNoSplice is what pipeIn's methods return where there is no pipe.
var errNoSplice = errors.New("no pipe to splice from")

// replyTail follows a long reply as it streams, to find its "id" after a
// "result" (or "error") too long to hold: it skips the value in pieces,
// counting brackets outside strings, then keeps the few members after it
// until the line ends.
type replyTail struct {
	depth   int  // brackets open in the value
	inStr   bool // inside a string of the value
	slashes int  // backslashes ending the last piece, inside a string
	ended   bool // the value is over; after holds what follows it
	after   []byte
	// failed: the tail ran past its bound, or the head made no sense.
	failed bool
}

// afterMax bounds what replyTail keeps after the value: the members a
// reply has besides its result are a few bytes.
const afterMax = 64 << 10

// newReplyTail starts following the reply whose head is head, from the
// value of its "result" or "error" member.
func newReplyTail(head []byte) *replyTail {
	t := &replyTail{}
	m, ok, _ := object(head, false)
	if !ok {
		t.failed = true
		return t
	}
	for {
		k, ok := m.key()
		if !ok {
			t.failed = true
			return t
		}
		if string(k) == "result" || string(k) == "error" {
			t.feed(head[m.i:])
			return t
		}
		if _, ok := m.value(); !ok {
			t.failed = true
			return t
		}
	}
}

// feed follows the next piece of the line.
func (t *replyTail) feed(b []byte) {
	if t.failed {
		return
	}
	if t.ended {
		if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
			b = b[:nl]
		}
		if len(t.after)+len(b) > afterMax {
			t.failed = true
			return
		}
		t.after = append(t.after, b...)
		return
	}
	i := 0
	for i < len(b) {
		if t.inStr {
			q := bytes.IndexByte(b[i:], '"')
			if q < 0 {
				n := trailingSlashes(b[i:])
				if n == len(b)-i {
					t.slashes += n
				} else {
					t.slashes = n
				}
				return
			}
			q += i
			n := trailingSlashes(b[i:q])
			if n == q-i {
				n += t.slashes // the run began in the last piece
			}
			t.slashes = 0
			i = q + 1
			if n%2 == 0 {
				t.inStr = false
			}
			continue
		}
		switch b[i] {
		case '"':
			t.inStr, t.slashes = true, 0
		case '{', '[':
			t.depth++
		case '}', ']':
			t.depth--
			if t.depth == 0 {
				t.ended = true
				t.feed(b[i+1:])
				return
			}
		case '\n':
			t.failed = true // the line ended inside the value
			return
		}
		i++
	}
}

func trailingSlashes(b []byte) int {
	n := 0
	for k := len(b) - 1; k >= 0 && b[k] == '\\'; k-- {
		n++
	}
	return n
}

// key returns the id key of the reply, once the line is out.
func (t *replyTail) key() (string, bool) {
	if t.failed || !t.ended {
		return "", false
	}
	rest := bytes.TrimLeft(t.after, " \t\r")
	if len(rest) == 0 || rest[0] != ',' {
		return "", false
	}
	obj := append([]byte("{"), rest[1:]...)
	id, ok := getMember(obj, "id")
	if !ok {
		return "", false
	}
	return idKey(id)
}
