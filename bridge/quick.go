package bridge

import "bytes"

// Routing from a message's first topMembers (framer.pump). Nearly every line
// is one the relay passes untouched, and what decides it comes first in the
// messages SDKs write: "method" of a request or notification, "id" and
// "result" of a reply. These functions read topMembers only until the message
// is decided, without decoding or allocating, so that the rest of a 1 kB
// notification or a 64 MiB result is not scanned twice; whatever they
// cannot decide goes to the full path (fromHost, fromServer), which reads
// the whole message.
//
// The first member that decides a message decides it: a line whose topMembers
// mix "method" with "result" or "error", or repeat one of them, is not a
// JSON-RPC message (PROTOCOL.md §7), and is relayed as its first deciding
// member makes it.

// topMembers walks the top-level topMembers of the JSON object at the start of b.
type topMembers struct {
	b     []byte
	i     int
	first bool
	// complete is false when b is only a message's head: a value that
	// reaches its end may go on.
	complete bool
	// end is set when key met the object's closing brace.
	end bool
}

// object returns the topMembers of the object b starts with; ok is false when
// b (after white space) does not start with '{'. pass is true for a line
// that is no object at all: the relay passes it, and the peer answers it.
func object(b []byte, complete bool) (m topMembers, ok, pass bool) {
	i := skipSpace(b, 0)
	if i >= len(b) {
		return m, false, complete
	}
	if b[i] != '{' {
		return m, false, true
	}
	return topMembers{b: b, i: i + 1, first: true, complete: complete}, true, false
}

// key returns the next member's key, undecoded; ok is false at the end of
// the object, at the end of b, at a key with escapes, or at bytes that are
// not JSON.
func (m *topMembers) key() (key []byte, ok bool) {
	i := skipSpace(m.b, m.i)
	if i >= len(m.b) {
		return nil, false
	}
	if m.b[i] == '}' {
		m.end = true
		return nil, false
	}
	if !m.first {
		if m.b[i] != ',' {
			return nil, false
		}
		i = skipSpace(m.b, i+1)
	}
	m.first = false
	if i >= len(m.b) || m.b[i] != '"' {
		return nil, false
	}
	end, err := skipString(m.b, i)
	if err != nil {
		return nil, false
	}
	key = m.b[i+1 : end-1]
	if bytes.IndexByte(key, '\\') >= 0 {
		return nil, false
	}
	i = skipSpace(m.b, end)
	if i >= len(m.b) || m.b[i] != ':' {
		return nil, false
	}
	m.i = skipSpace(m.b, i+1)
	return key, true
}

// value returns the member's value; ok is false when it does not end
// within b.
func (m *topMembers) value() ([]byte, bool) {
	end, err := skipValue(m.b, m.i)
	if err != nil || (!m.complete && end >= len(m.b)) {
		return nil, false
	}
	v := m.b[m.i:end]
	m.i = end
	return v, true
}

// plainString returns the contents of the JSON string v when it has no
// escapes.
func plainString(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return nil, false
	}
	return v[1 : len(v)-1], true
}

// serverRoute decides a server line from its first topMembers (the full path
// is fromServer). Requests and notifications pass unless their method is
// one the relay answers or follows; a reply passes unless a feature waits
// for it, and ends its tool call (vEnd) when one was in flight.
func (r *Relay) serverRoute(b []byte, complete bool) (route, string) {
	m, ok, pass := object(b, complete)
	if !ok {
		return routeOf(pass), ""
	}
	var id []byte
	reply, result := false, false
	for {
		k, ok := m.key()
		if !ok {
			return vFull, ""
		}
		switch string(k) {
		case "method":
			v, ok := m.value()
			if !ok {
				return vFull, ""
			}
			name, ok := plainString(v)
			if !ok {
				return vFull, ""
			}
			switch string(name) {
			case "elicitation/create", "notifications/elicitation/complete", "notifications/cancelled":
				return vFull, ""
			}
			return vPass, ""
		case "result", "error":
			result = string(k) == "result"
			if id != nil {
				return r.replyRoute(id, result)
			}
			if !r.loop.any() && !r.calls.any() && !r.session.awaitsInit() && !r.loop.anyOwned() {
				// Nobody waits for any reply (the hot path): its id
				// does not matter.
				return vPass, ""
			}
			reply = true
			if _, ok := m.value(); !ok {
				if !complete && result && !r.session.awaitsInit() && !r.loop.anyOwned() && r.loop.onlyLegacy() {
					// A long result, "id" after it, while only legacy
					// calls wait: whoever's it is, it is final, and
					// passes.
					return vEndAfter, ""
				}
				return vFull, ""
			}
		case "id":
			v, ok := m.value()
			if !ok {
				return vFull, ""
			}
			id = v
			if reply {
				return r.replyRoute(id, result)
			}
		default:
			if _, ok := m.value(); !ok {
				return vFull, ""
			}
		}
	}
}

// replyRoute decides a server reply with the given id; result says it is
// a result, not an error.
func (r *Relay) replyRoute(id []byte, result bool) (route, string) {
	if r.loop.mayOwn(id) || r.session.awaitsInit() {
		return vFull, ""
	}
	if !r.calls.any() && !r.loop.any() {
		return vPass, ""
	}
	key, ok := idKey(id)
	if !ok || (r.loop.follows(key) && !(result && r.loop.finalResult(key))) {
		return vFull, ""
	}
	return vEnd, key
}

// callReplied ends the call with id key (a vEnd, a vEndAfter): the loop
// forgets it, and the legacy prompts of a tools/call close
// (legacy.callEnded), as fromServer does for a reply it reads whole.
func (r *Relay) callReplied(key string) {
	if r.calls.end(key) {
		r.legacy.callEnded(key)
	}
	r.loop.finish(key)
}

// hostRoute decides a host line from its first topMembers (the full path is
// fromHost): replies and notifications pass, except notifications/cancelled;
// requests, which the relay may edit or follow, take the full path.
func (r *Relay) hostRoute(b []byte, complete bool) (route, string) {
	m, ok, pass := object(b, complete)
	if !ok {
		return routeOf(pass), ""
	}
	for {
		k, ok := m.key()
		if !ok {
			return vFull, ""
		}
		switch string(k) {
		case "method":
			v, ok := m.value()
			if !ok {
				return vFull, ""
			}
			name, ok := plainString(v)
			if !ok || string(name) == "notifications/cancelled" || !bytes.HasPrefix(name, []byte("notifications/")) {
				// A request, or the cancel the relay spreads: the full
				// path. (MCP names notifications "notifications/…";
				// one sent with an id would be a request nobody answers.)
				return vFull, ""
			}
			return vPass, ""
		case "result", "error":
			return vPass, ""
		default:
			if _, ok := m.value(); !ok {
				return vFull, ""
			}
		}
	}
}

func routeOf(pass bool) route {
	if pass {
		return vPass
	}
	return vFull
}
