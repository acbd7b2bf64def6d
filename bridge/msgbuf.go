package bridge

import (
	"fmt"
	"sync"
)

// msgBuf holds one message from a remote server while the tap reads it
// (httptap.go), up to a limit, for as long as the relay needs it: the
// message is held once, in the memory it was read into, and goes to the
// host from there.
//
// A small message lives on the heap. One that passes bigMessage moves,
// once, into a mapping of its own the size of the limit (Linux:
// msgbuf_linux.go), of which only the pages written take memory: the
// message grows in place, with none of the copies and zeroed arrays a
// growing slice leaves behind (a 64 MiB message took 3.5 times its size
// that way, bench/README.md). The mapping is given back once the relay is
// done with the line (httpServer.Read: a line is valid until the next
// Read); elsewhere such a message stays on the heap.
type msgBuf struct {
	b      []byte
	mapped bool
	// budget, when set, is shared by the buffers of all of a server's
	// streams: what they hold together.
	budget *msgBudget
}

// msgBudget bounds, in bytes, what the messages a server's streams are in
// the middle of take together: each stream's limit alone let many calls
// each hold one message of the limit at once.
type msgBudget struct {
	mu        sync.Mutex
	held, max int
}

// errInFlight ends a stream whose message would have taken what a
// server's messages being read hold together past max bytes.
type errInFlight int

func (e errInFlight) Error() string {
	return fmt.Sprintf("the server's messages in flight together passed %s, the most elicitray holds of them at once (twice max_message_mib under [remote] in config.toml); elicitray stopped reading the stream it came on", mib(int(e)))
}

// bigMessage is the size past which a message moves into a mapping.
const bigMessage = 256 << 10

// add appends p; it fails once the message would pass limit bytes. The
// buffer keeps room for a newline after limit bytes.
func (m *msgBuf) add(p []byte, limit int) error {
	if len(m.b)+len(p) > limit {
		return errTooLarge(limit)
	}
	if b := m.budget; b != nil && len(p) > 0 {
		b.mu.Lock()
		over := b.held+len(p) > b.max
		if !over {
			b.held += len(p)
		}
		b.mu.Unlock()
		if over {
			return errInFlight(b.max)
		}
	}
	if !m.mapped && len(m.b)+len(p) > bigMessage {
		if big, ok := mapMessage(limit + 1); ok {
			m.b, m.mapped = append(big, m.b...), true
		}
	}
	m.b = append(m.b, p...)
	return nil
}

func (m *msgBuf) len() int { return len(m.b) }

// take hands the message over, with the function that gives its memory
// back once nothing reads it any more (nil for the heap's), and leaves
// the buffer empty.
func (m *msgBuf) take() ([]byte, func()) {
	b, mapped := m.b, m.mapped
	m.b, m.mapped = nil, false
	if m.budget != nil && len(b) > 0 {
		m.budget.mu.Lock()
		m.budget.held -= len(b)
		m.budget.mu.Unlock()
	}
	if !mapped {
		return b, nil
	}
	return b, func() { unmapMessage(b) }
}
