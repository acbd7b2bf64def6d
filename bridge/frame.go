package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
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
	// sink is the writer what is read is relayed to, when the relay runs
	// (Run sets it): cutOff gives it up.
	sink atomic.Pointer[lineWriter]
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

// cutOff gives up relaying what is still read (stdio.go, after grace):
// the writer it goes to is abandoned, so a pump waiting on a peer that
// stopped reading returns, and reading can end.
func (c *lineConn) cutOff() {
	if w := c.sink.Load(); w != nil {
		w.abandon()
	}
}

// A route is what the relay does with a message, decided from its first
// bytes by serverRoute or hostRoute (quick.go).
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
	// quiet is set after a read (or tee) that took less than teeMin: the
	// peer sends a message at a time, and the next fill reads it plainly,
	// a read and a write instead of tee, read and splice. A read that takes
	// teeMin or more starts teeing again: a burst after the wait is teed
	// whole, where a plain read would take up to the buffer's size of it.
	quiet bool
	// onBOM, when set, is called the first time a line starts with a BOM.
	onBOM func()
	// strict is set for the server's stream: its long lines are followed
	// as lineTail.strict says (oneline.go).
	strict bool
}

// frameBuf is the size of a framer's buffer, the longest line handled in
// place, and the size of the chunks a longer line is gathered in. It is
// also the pipe size the relay asks the kernel for (pipe_linux.go): a
// write of the host's that fits goes through in one piece.
const frameBuf = 1 << 20

// teeMin is how much a fill must find for tee to be worth its three
// system calls (tee, read, splice) against a read and a write (a copy of
// 8 kB costs about what a system call does): after less, a lone message,
// the round trip's case, the next fill reads plainly (framer.quiet).
const teeMin = 8 << 10

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
		// Reading has ended (the pipe may be closed: stdio.go lets it go
		// after grace). Teed bytes still in buf are relayed from there,
		// as if read: the pipe is not touched again.
		f.cons = f.end
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
	if f.pipe != nil && !f.quiet {
		n, err := f.pipe.tee(f.buf[f.end:])
		if err != nil {
			f.err = err
			return false
		}
		if n > 0 {
			f.end += n // cons stays: these bytes are still in the pipe
			f.quiet = n < teeMin
			return false
		}
		// The input ended, or cannot be teed: a read says which.
	}
	n, err := f.r.Read(f.buf[f.end:])
	f.end += n
	f.cons = f.end
	f.quiet = n < teeMin
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
			if derr := f.pipe.drop(to - read - moved); derr != nil && f.err == nil {
				// The input is gone too (closed after grace): those
				// bytes can come from nowhere else, and reading ends.
				f.err = derr
			}
			_, err = out.raw.Write(f.buf[read+moved : to])
		}
		f.cons = to
	}
	if to > from {
		out.cut = f.buf[to-1] != '\n'
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
// writing must not block on a full pipe because the other one left. cut is
// told of a long line cut off (stream).
func (f *framer) pump(out *lineWriter, decide func(b []byte, complete bool) (route, string), ended func(key string), handle func(line []byte, more bool), failed func(error), cut func()) error {
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
				v, key := vFull, ""
				if !bytes.HasPrefix(line, bom) {
					v, key = decide(line, true)
				}
				if v != vFull {
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
		tail := &lineTail{strict: f.strict}
		if f.stream(out, tail, note, cut) && v == vEndAfter {
			if key, ok := tail.idKey(); ok {
				ended(key)
			}
		}
	}
}

// stream relays a line longer than the buffer, whose head is in it, piece
// by piece until its newline, each piece followed by tail first; it
// reports whether the whole line went out. A "method" member tail finds
// after the line's deciding one ends the line there: the rest is dropped,
// the host or server gets a newline after the fragment (which no peer
// reads as a message), and cut is told. Meanwhile what other goroutines
// write to out (a prompt's answer) waits in out, and follows the line: it
// must not land inside it, nor wait on the peer that is still sending it.
func (f *framer) stream(out *lineWriter, tail *lineTail, note func(error), cut func()) bool {
	out.mu.Lock()
	out.streaming = true
	out.mu.Unlock()
	defer out.endStream()
	for {
		lim, done := f.end, false
		if i := bytes.IndexByte(f.buf[f.scan:f.end], '\n'); i >= 0 {
			lim, done = f.scan+i+1, true
		}
		c, hold := tail.feed(f.buf[f.start:lim])
		if c >= 0 {
			note(f.emit(out, f.start+c))
			f.dropLine()
			note(out.writeRaw([]byte("\n")))
			cut()
			return false
		}
		to := lim
		if hold >= 0 && !done {
			to = f.start + hold
			if to == f.start && f.end-f.start == len(f.buf) {
				// The held key fills the buffer: it can never wait
				// whole for the next piece. It is skipped, and the
				// piece goes out.
				tail.skipKey()
				tail.feed(f.buf[f.start+1 : lim])
				to = lim
			}
		}
		if err := f.emit(out, to); err != nil {
			// The output is gone: the rest of the line is read and
			// dropped, so that the writer does not block.
			note(err)
			f.dropLine()
			return false
		}
		if done {
			return true
		}
		if f.err != nil {
			return false // the stream ended inside the line: pump returns
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
	// cut is set when what went out last ends inside a line: a peer
	// left in the middle of one (its last bytes are relayed as they
	// are). The next line then starts on a line of its own, so that a
	// prompt's answer is not glued to the cut line, where no parser
	// finds it.
	cut bool
	// file is raw when it is a file (a pipe, a socket): the framer of the
	// other direction may splice into it.
	file *os.File
	// waiters are told, by endStream, whether the lines in later that
	// writeWait put there were written.
	waiters []chan error
	// gone is closed by abandon once the writes are cut; given is set
	// before they are, so that a write failing of the cut is known as
	// given up (abandoned).
	gone    chan struct{}
	goneOne sync.Once
	given   atomic.Bool
}

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: bufio.NewWriterSize(w, 64<<10), raw: w, gone: make(chan struct{})}
	lw.file, _ = w.(*os.File)
	return lw
}

// abandon gives the writer up: a peer that stopped reading must not hold
// the wrapper (issue 25). A file Go's poller watches (the host's pipes,
// pollable) gets a write deadline that has passed, so that the write
// waiting now and every later one fail at once, and their callers carry
// on; a socket's writing side is shut down (endSocketWrite: a splice into
// it takes no deadline); elsewhere a write may stay blocked, and Run stops
// waiting for it (gone). It does not take mu, which that write holds.
func (lw *lineWriter) abandon() {
	lw.goneOne.Do(func() {
		lw.given.Store(true)
		if lw.file != nil {
			_ = lw.file.SetWriteDeadline(time.Now())
			endSocketWrite(lw.file)
		}
		close(lw.gone)
	})
}

// abandoned reports whether abandon gave the writer up.
func (lw *lineWriter) abandoned() bool { return lw.given.Load() }

// write appends line (which ends in a newline, or is the stream's last
// bytes) and flushes when flush is set.
func (lw *lineWriter) write(line []byte, flush bool) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.streaming {
		lw.later = append(lw.later, line...)
		return nil
	}
	if err := lw.endCut(); err != nil {
		return err
	}
	if _, err := lw.w.Write(line); err != nil {
		return err
	}
	lw.cut = len(line) > 0 && line[len(line)-1] != '\n'
	if flush {
		return lw.w.Flush()
	}
	return nil
}

// writeWait is write with flush, returning once line was written to the
// stream: while a framer streams a long line, line waits behind it and
// writeWait with it, until ctx is done (ErrNotWritten).
func (lw *lineWriter) writeWait(ctx context.Context, line []byte) error {
	lw.mu.Lock()
	if !lw.streaming {
		lw.mu.Unlock()
		return lw.write(line, true)
	}
	lw.later = append(lw.later, line...)
	done := make(chan error, 1)
	lw.waiters = append(lw.waiters, done)
	lw.mu.Unlock()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ErrNotWritten
	}
}

// writeRaw writes b to the stream at once, ahead of lines waiting.
func (lw *lineWriter) writeRaw(b []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if err := lw.w.Flush(); err != nil {
		return err
	}
	_, err := lw.raw.Write(b)
	if len(b) > 0 {
		// The newline after a cut line ends it: the next line needs no
		// other (endCut).
		lw.cut = b[len(b)-1] != '\n'
	}
	return err
}

// endStream ends a framer's stream: the lines that waited go out.
func (lw *lineWriter) endStream() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.streaming = false
	if len(lw.later) > 0 {
		err := lw.endCut()
		if err == nil {
			if _, err = lw.w.Write(lw.later); err == nil {
				err = lw.w.Flush()
			}
		}
		lw.cut = lw.later[len(lw.later)-1] != '\n'
		lw.later = nil
		for _, done := range lw.waiters {
			done <- err
		}
		lw.waiters = nil
	}
}

// endCut ends a cut line (see cut) before the next one; lw.mu is held.
func (lw *lineWriter) endCut() error {
	if !lw.cut {
		return nil
	}
	lw.cut = false
	return lw.w.WriteByte('\n')
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

// lineTail follows the top-level members of a line too long to hold, as
// it streams (quick.go decided it from its head), for two things: a
// "method" member after a "result", "error" or another "method" (peers
// keep the last of repeated members and read a method as a request, so
// such a line is cut off rather than relayed: a server must not slip an
// elicitation/create past the relay), and the "id" of a reply that has it
// after its result (vEndAfter). Strings are skipped with IndexByte, so the
// big values in such lines cost little.
type lineTail struct {
	state tailState
	// A value being skipped: brackets open, inside a string, backslashes
	// ending the last piece inside a string, a number or literal.
	depth   int
	inStr   bool
	slashes int
	scalar  bool
	// key is the key being read, and whether it has escapes.
	key    []byte
	keyEsc bool
	// What the members so far say.
	methods int
	replied bool
	// capture is set while the value of "id" is read into id.
	capture bool
	id      []byte
	// broken: not JSON this can follow; it stops (no cut, no id).
	broken bool
	// strict (a server's line, oneline.go): a member "method" in another
	// case is cut too, and where the members can no longer be followed
	// (bytes that are no object, or past the object's end) the rest is
	// searched for a key a host could read as "method" (search), and cut
	// there: a host's stream decoder may read a request in it.
	strict, search bool
}

type tailState uint8

const (
	tsStart      tailState = iota // before '{'
	tsKeyOrEnd                    // after '{': a key or '}'
	tsKey                         // after ',': a key
	tsInKey                       // inside a key
	tsColon                       // after a key
	tsValueNext                   // after ':', before the value
	tsValue                       // inside a value
	tsCommaOrEnd                  // after a value
	tsDone                        // after the closing '}'
	tsSkipKey                     // inside a key longer than a piece: skipped as a string
)

// keyMax bounds a key kept to be compared; longer keys are none of the
// ones looked for.
const keyMax = 64

// feed follows the next piece of the line (up to its newline, if it is
// there). cut is the offset in b of a "method" key that must not be
// relayed, or -1; hold is the offset of a key that b ends inside, which
// must wait for the next piece (and is fed again at its start), or -1.
func (t *lineTail) feed(b []byte) (cut, hold int) {
	if t.search {
		return searchMethodKey(b)
	}
	keyStart := -1
	i := 0
	for i < len(b) && !t.broken && t.state != tsDone {
		c := b[i]
		switch t.state {
		case tsStart:
			if c == '{' {
				t.state = tsKeyOrEnd
			} else if !isSpace(c) {
				t.broken = true
			}
			i++
		case tsKeyOrEnd, tsKey:
			switch {
			case isSpace(c):
			case c == '}' && t.state == tsKeyOrEnd:
				t.state = tsDone
			case c == '"':
				t.state, t.key, t.keyEsc, keyStart = tsInKey, t.key[:0], false, i
			default:
				t.broken = true
			}
			i++
		case tsSkipKey:
			i += t.skip(b[i:])
			if t.state == tsCommaOrEnd {
				t.state = tsColon // the key is over: none of the ones followed
			}
		case tsInKey:
			q := bytes.IndexByte(b[i:], '"')
			if q < 0 {
				// The piece ends inside the key: it waits, whole.
				t.state = tsKey
				if keyStart < 0 {
					t.broken = true // longer than a piece: not a key to follow
					return t.searchRest(b, i)
				}
				return -1, keyStart
			}
			part := b[i : i+q]
			if n := trailingSlashes(part); n%2 == 1 {
				t.keyEsc = true
				t.key = appendKey(t.key, b[i:i+q+1])
				i += q + 1
				continue
			}
			if bytes.IndexByte(part, '\\') >= 0 {
				t.keyEsc = true
			}
			t.key = appendKey(t.key, part)
			i += q + 1
			t.state = tsColon
			if t.isKey("method") {
				if t.methods > 0 || t.replied {
					return keyStart, -1
				}
				t.methods++
			} else if t.strict && t.isFoldedMethod() {
				return keyStart, -1
			}
			if t.isKey("result") || t.isKey("error") {
				t.replied = true
			}
			t.capture = t.isKey("id")
			if t.capture {
				t.id = t.id[:0]
			}
		case tsColon:
			if c == ':' {
				t.state = tsValueNext
			} else if !isSpace(c) {
				t.broken = true
			}
			i++
		case tsValueNext:
			if isSpace(c) {
				i++
				continue
			}
			t.state, t.depth, t.inStr, t.slashes, t.scalar = tsValue, 0, false, 0, false
			switch c {
			case '"':
				t.inStr = true
			case '{', '[':
				t.depth = 1
			default:
				t.scalar = true
			}
			t.take(b[i : i+1])
			i++
			if t.scalar {
				continue
			}
		case tsValue:
			n := t.skip(b[i:])
			t.take(b[i : i+n])
			i += n
		case tsCommaOrEnd:
			switch {
			case isSpace(c):
			case c == ',':
				t.state = tsKey
			case c == '}':
				t.state = tsDone
			default:
				t.broken = true
			}
			i++
		}
	}
	if t.state == tsInKey && !t.broken {
		// The piece ended just after a key's opening quote: that key
		// waits for the next piece, whole, as one the piece ends inside.
		t.state = tsKey
		if keyStart < 0 {
			t.broken = true
			return t.searchRest(b, i)
		}
		return -1, keyStart
	}
	if t.broken || t.state == tsDone {
		// From the byte that broke the object (the quote of a key the
		// members cannot hold, say), or from past its end.
		return t.searchRest(b, max(i-1, 0))
	}
	return -1, -1
}

// searchRest turns a strict tail to searching, from b[i:] on, once its
// members can no longer be followed; a lax one stops there.
func (t *lineTail) searchRest(b []byte, i int) (cut, hold int) {
	if !t.strict {
		return -1, -1
	}
	t.search = true
	cut, hold = searchMethodKey(b[i:])
	if cut >= 0 {
		cut += i
	}
	if hold >= 0 {
		hold += i
	}
	return cut, hold
}

// searchMethodKey returns the offset in b of the first JSON string that
// reads "method" in any case (methodKeyPrefix), or -1 as cut; hold is the
// offset of one that may be such a key and that b ends inside, before the
// line's newline, or -1. Only a strict tail searches, on the bytes its
// members do not account for: a long line that is no object (text on the
// server's stdout, which nobody writes a megabyte of) or the bytes after
// the object (which no encoder writes), so the cost of a quote-by-quote
// search here does not matter.
func searchMethodKey(b []byte) (cut, hold int) {
	final := len(b) > 0 && b[len(b)-1] == '\n'
	for j := 0; ; j++ {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return -1, -1
		}
		j += q
		match, short := methodKeyPrefix(b[j:])
		switch {
		case match:
			return j, -1
		case short && !final:
			return -1, j
		}
	}
}

// skipKey follows a key that fills a whole piece, from after its opening
// quote: it cannot wait for the next piece, and no key that long is one
// of those followed, so the rest of it is skipped as a string.
func (t *lineTail) skipKey() {
	t.state, t.inStr, t.slashes, t.depth, t.scalar = tsSkipKey, true, 0, 0, false
}

// skip advances through the value being read, and returns how much of b
// it took; at the value's end the state moves on.
func (t *lineTail) skip(b []byte) int {
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
				return len(b)
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
				if t.depth == 0 {
					t.state = tsCommaOrEnd
					return i
				}
			}
			continue
		}
		c := b[i]
		if t.scalar {
			if c == ',' || c == '}' || c == ']' || isSpace(c) {
				t.state = tsCommaOrEnd
				return i
			}
			i++
			continue
		}
		switch c {
		case '"':
			t.inStr, t.slashes = true, 0
		case '{', '[':
			t.depth++
		case '}', ']':
			t.depth--
			if t.depth == 0 {
				t.state = tsCommaOrEnd
				return i + 1
			}
		case '\n':
			t.broken = true // the line ended inside the value
			return i
		}
		i++
	}
	return i
}

// take keeps b when it is part of the "id" value.
func (t *lineTail) take(b []byte) {
	if t.capture {
		if len(t.id)+len(b) > keyMax {
			t.capture, t.id = false, nil
			return
		}
		t.id = append(t.id, b...)
	}
}

func appendKey(key, b []byte) []byte {
	if len(key)+len(b) > keyMax {
		return key[:0:0] // too long to be a key looked for
	}
	return append(key, b...)
}

// isFoldedMethod reports whether the key just read reads "method" when
// case is ignored, as encoding/json matches keys (scanEnvelope).
func (t *lineTail) isFoldedMethod() bool {
	if !t.keyEsc {
		return len(t.key) == len("method") && bytes.EqualFold(t.key, []byte("method"))
	}
	var k string
	return json.Unmarshal(append(append([]byte{'"'}, t.key...), '"'), &k) == nil && bytes.EqualFold([]byte(k), []byte("method"))
}

// isKey reports whether the key just read is name, escapes decoded.
func (t *lineTail) isKey(name string) bool {
	if !t.keyEsc {
		return string(t.key) == name
	}
	var k string
	return json.Unmarshal(append(append([]byte{'"'}, t.key...), '"'), &k) == nil && k == name
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func trailingSlashes(b []byte) int {
	n := 0
	for k := len(b) - 1; k >= 0 && b[k] == '\\'; k-- {
		n++
	}
	return n
}

// key returns the id key of the line, once it is out.
func (t *lineTail) idKey() (string, bool) {
	if t.broken || len(t.id) == 0 {
		return "", false
	}
	return idKey(bytes.TrimSpace(t.id))
}
