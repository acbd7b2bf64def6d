package bridge

// The SSE parser the tap reads remote streams with (httptap.go).

import (
	"bytes"
	"fmt"
)

// sseParser parses a text/event-stream incrementally, as the HTML standard's
// "event stream interpretation" says: lines end in CRLF, LF or CR; "data"
// lines of one event are joined with LF; a blank line dispatches the event;
// a line starting with a colon is a comment; a field name without a colon
// has an empty value, and one space after the colon is dropped.
//
// It holds no more than one event's fields: no more than limit bytes of
// data, and no more than sseFieldMax bytes of each other field's value,
// which do not count against limit (a long id would otherwise be held,
// and counted, with every later event). A line it ignores (a comment, a field it does not know) is
// skipped as it streams by, whatever its length, and data is appended
// where it will stay, so that an event costs its length once.
type sseParser struct {
	limit int
	// onEvent is given each event; data is its to keep, and free (when not
	// nil) gives data's memory back (msgBuf.take).
	onEvent func(event string, data []byte, free func(), hasData bool, id string, hasID bool)
	onRetry func(value []byte)

	state  int    // where in a line the next byte is: parseName, parseValue or parseSkip
	name   []byte // the field name read so far (up to sseNameMax bytes)
	field  string // the field whose value is being read
	fresh  bool   // no byte of the value read yet: a leading space is dropped
	value  []byte // the value of a field other than data
	skipLF bool   // the last line ended in CR: an LF next ends nothing

	event, id string
	hasID     bool
	data      msgBuf
	hasData   bool
}

const (
	parseName = iota
	parseValue
	parseSkip
)

// sseNameMax is the longest field name the parser knows ("retry").
const sseNameMax = 5

// sseFieldMax bounds, in bytes, the value of an event, id or retry field:
// an event type, a cursor and a number are short.
const sseFieldMax = 1 << 10

// errFieldTooLong ends a stream one of whose fields (event, id or retry)
// passed sseFieldMax.
type errFieldTooLong string

func (e errFieldTooLong) Error() string {
	return fmt.Sprintf("the server sent an SSE %q field longer than %d KiB, the most elicitray holds of one; elicitray stopped reading the stream it came on", string(e), sseFieldMax>>10)
}

// feed parses b. It returns an error once the event's data passes limit
// bytes, or another field's value sseFieldMax; the parser is then of no
// more use.
func (p *sseParser) feed(b []byte) error {
	for len(b) > 0 {
		if p.skipLF {
			p.skipLF = false
			if b[0] == '\n' {
				b = b[1:]
				continue
			}
		}
		// One pass over each byte: CR is looked for only before the LF.
		end := bytes.IndexByte(b, '\n')
		if end < 0 {
			end = len(b)
		}
		if cr := bytes.IndexByte(b[:end], '\r'); cr >= 0 {
			end = cr
		} else if end == len(b) {
			end = -1
		}
		chunk := b
		if end >= 0 {
			chunk = b[:end]
		}
		if p.state == parseName {
			colon := bytes.IndexByte(chunk, ':')
			name := chunk
			if colon >= 0 {
				name = chunk[:colon]
			}
			switch {
			case len(p.name)+len(name) > sseNameMax:
				p.state = parseSkip // a field the parser does not know
			case colon >= 0:
				p.name = append(p.name, name...)
				if len(p.name) == 0 {
					p.state = parseSkip // a comment
				} else if err := p.startValue(); err != nil {
					return err
				} else {
					chunk = chunk[colon+1:]
				}
			default:
				p.name = append(p.name, name...)
				chunk = nil
				if end >= 0 && len(p.name) > 0 {
					// A field name alone: an empty value.
					if err := p.startValue(); err != nil {
						return err
					}
				}
			}
		}
		if p.state == parseValue && len(chunk) > 0 {
			if p.fresh && chunk[0] == ' ' {
				chunk = chunk[1:]
			}
			p.fresh = false
			if p.field == "data" {
				if err := p.data.add(chunk, p.limit); err != nil {
					return err
				}
			} else if p.field != "" {
				if len(p.value)+len(chunk) > sseFieldMax {
					return errFieldTooLong(p.field)
				}
				p.value = append(p.value, chunk...)
			}
		}
		if end < 0 {
			return nil
		}
		p.skipLF = b[end] == '\r'
		b = b[end+1:]
		p.endLine()
	}
	return nil
}

// release gives back the event being read: the stream ended inside it.
func (p *sseParser) release() {
	if _, free := p.data.take(); free != nil {
		free()
	}
}

// startValue begins the value of the field named p.name.
func (p *sseParser) startValue() error {
	p.state, p.fresh, p.value = parseValue, true, p.value[:0]
	switch p.field = string(p.name); p.field {
	case "data":
		if p.hasData {
			if err := p.data.add([]byte{'\n'}, p.limit); err != nil {
				return err
			}
		}
		p.hasData = true
	case "event", "id", "retry":
	default:
		p.field = "" // a field the parser does not know
	}
	return nil
}

// endLine ends a line: a blank one dispatches the event.
func (p *sseParser) endLine() {
	state := p.state
	blank := state == parseName && len(p.name) == 0
	p.state, p.name = parseName, p.name[:0]
	if state == parseValue {
		switch p.field {
		case "event":
			p.event = string(p.value)
		case "id":
			if bytes.IndexByte(p.value, 0) < 0 {
				p.id, p.hasID = string(p.value), true
			}
		case "retry":
			// Only ASCII digits make a retry time.
			if len(p.value) > 0 && len(p.value) <= 10 && len(bytes.Trim(p.value, "0123456789")) == 0 && p.onRetry != nil {
				p.onRetry(p.value)
			}
		}
	}
	if !blank {
		return
	}
	if p.hasData || p.hasID {
		// An event with an id and no data still moves the cursor: it
		// is how a server primes a client to resume (SEP-1699). The
		// data is the receiver's to keep.
		data, free := p.data.take()
		p.onEvent(p.event, data, free, p.hasData, p.id, p.hasID)
	} else {
		p.release()
	}
	p.event, p.hasData, p.hasID = "", false, false
}
