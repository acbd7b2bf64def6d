package bridge

import "bytes"

// Routing from a message's first members (framer.pump). Nearly every line
// is one the relay passes untouched, and what decides it comes first in the
// messages SDKs write: "method" of a request or notification, "id" and
// "result" of a reply. These functions read members only until the message
// is decided, without decoding or allocating, so that the rest of a 1 kB
// notification or a 64 MiB result is not scanned twice; whatever they
// cannot decide goes to the full path (fromHost, fromServer), which reads
// the whole message.
//
// A message the first members would pass goes to the full path when
// "method" is spelt anywhere after them: peers keep the last of repeated
// members, and read a line with a method as a request, so a line that
// mixes "result" with "method", or repeats "method", must be judged as the
// full path judges it (scanEnvelope: the last member wins), or a server
// could slip an elicitation/create past the relay to the host, or a host a
// cancel past it to the server. A quoted "method" inside a string is
// escaped (\"method\") and does not count. The key is looked for in any
// case, and in a server line that is no object too: the full path drops
// such lines (oneline.go).

// topMembers walks the top-level members of the JSON object at the start of b.
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

// object returns the members of the object b starts with; ok is false when
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

// serverRoute decides a server line from its first members (the full path
// is fromServer). Requests and notifications pass unless their method is
// one the relay answers or follows; a reply passes unless a feature waits
// for it, and ends its tool call (vEnd) when one was in flight.
func (r *Relay) serverRoute(b []byte, complete bool) (route, string) {
	v, id, result, rest := r.serverMembers(b, complete)
	if v == vFull || hasMethodKey(b[rest:]) {
		return vFull, ""
	}
	if id != nil {
		// Only now, the line known to be a reply and nothing else: a
		// reply that ends its call ends it here (replyRoute).
		return r.replyRoute(id, result, b)
	}
	return v, ""
}

// serverMembers is serverRoute before the check for a later "method"; rest
// is where the bytes it did not read begin. A reply someone may wait for is
// returned by its id, and whether it is a result, for replyRoute.
func (r *Relay) serverMembers(b []byte, complete bool) (v route, replyID []byte, result bool, rest int) {
	m, ok, pass := object(b, complete)
	if !ok {
		if pass && (hasMethodKey(b) || startsArray(b)) {
			// No object, yet maybe a request to a host's stream decoder,
			// or a batch: the full path judges it (oneline.go).
			return vFull, nil, false, 0
		}
		return routeOf(pass), nil, false, len(b)
	}
	defer func() { rest = m.i }()
	var id []byte
	reply := false
	for {
		k, ok := m.key()
		if !ok {
			return vFull, nil, false, 0
		}
		switch string(k) {
		case "method":
			v, ok := m.value()
			if !ok {
				return vFull, nil, false, 0
			}
			name, ok := plainString(v)
			if !ok {
				return vFull, nil, false, 0
			}
			switch string(name) {
			case "elicitation/create", "notifications/elicitation/complete", "notifications/cancelled":
				return vFull, nil, false, 0
			case "notifications/progress":
				if r.keep.any() {
					return vFull, nil, false, 0 // keepalive.go
				}
			}
			return vPass, nil, false, 0
		case "result", "error":
			result = string(k) == "result"
			if id != nil {
				return vEnd, id, result, 0
			}
			if !r.loop.any() && !r.calls.any() && !r.session.awaitsInit() && !r.loop.anyOwned() && !r.guard.awaitsList() {
				// Nobody waits for any reply (the hot path): its id
				// does not matter.
				return vPass, nil, false, 0
			}
			reply = true
			if _, ok := m.value(); !ok {
				if !complete && result && !asksInput(b) && !r.session.awaitsInit() && !r.loop.anyOwned() && !r.keep.any() && r.loop.onlyLegacy() && !r.guard.awaitsList() {
					// A long result, "id" after it, while only legacy
					// calls wait: whoever's it is, it is final, and
					// passes.
					return vEndAfter, nil, false, 0
				}
				return vFull, nil, false, 0
			}
		case "id":
			raw, ok := m.value()
			if !ok {
				return vFull, nil, false, 0
			}
			id = raw
			if reply {
				return vEnd, id, result, 0
			}
		default:
			if len(k) == len("method") && bytes.EqualFold(k, []byte("method")) {
				return vFull, nil, false, 0 // "Method": read so by some hosts (oneline.go)
			}
			if _, ok := m.value(); !ok {
				return vFull, nil, false, 0
			}
		}
	}
}

// replyRoute decides a server reply with the given id, b being its line
// (or head); result says it is a result, not an error. A reply that ends
// its call (vEnd) ends it in the loop here, under the lock that looked it
// up (endFinal); callReplied ends the rest. Only a reply while the loop
// follows some call is searched for a resultType (asksInput): the hot
// path, a reply nobody waits for, is not scanned again.
func (r *Relay) replyRoute(id []byte, result bool, b []byte) (route, string) {
	if r.loop.mayOwn(id) || r.session.awaitsInit() || r.guard.awaitsList() {
		return vFull, ""
	}
	if !r.calls.any() && !r.loop.any() {
		return vPass, ""
	}
	key, ok := idKey(id)
	if !ok {
		return vFull, ""
	}
	if follows, ended := r.loop.endFinal(key, result && (!r.loop.any() || !asksInput(b))); follows && !ended {
		return vFull, ""
	}
	return vEnd, key
}

// callReplied ends the call with id key (a vEnd, a vEndAfter): the loop
// forgets it (for a vEnd, replyRoute has), and the legacy prompts of a
// tools/call close (legacy.callEnded), as fromServer does for a reply it
// reads whole.
func (r *Relay) callReplied(key string) {
	r.keep.end(key)
	if r.calls.end(key) {
		r.legacy.callEnded(key, ErrCallEnded)
	}
	r.loop.finish(key)
}

// hostRoute decides a host line from its first members (the full path is
// fromHost): replies and notifications pass, except notifications/cancelled;
// requests, which the relay may edit or follow, take the full path, but for
// the legacy ones it only follows or passes (quickRequest). Once the relay
// asked the host something itself (guardhost.go), every line does: a
// reply's id may come after its long result.
func (r *Relay) hostRoute(b []byte, complete bool) (route, string) {
	if r.guard.host.asked.Load() {
		return vFull, ""
	}
	if r.guard.on() {
		// A batch, or anything but an object: a server's parser may find
		// a guarded call in it (guard.go, dropsUnclear).
		if i := skipSpace(b, 0); i < len(b) && b[i] != '{' {
			return vFull, ""
		}
	}
	v, rest := hostMembers(b, complete)
	if v == vFull {
		if complete && r.quickRequest(b) {
			return vPass, ""
		}
		return vFull, ""
	}
	if hasMethodKey(b[rest:]) {
		return vFull, ""
	}
	return v, ""
}

// quickRequest passes a legacy host request (PROTOCOL.md §2: its params
// carry no _meta) on the fast path when the full path would send it as the
// host wrote it, and follows it as the full path would: a tools/call,
// prompts/get or resources/read is followed (followCall); any other method
// but initialize, which the relay edits, just passes. It reports whether
// it took the request. Not taken: a modern request (edited), one with a
// progressToken (kept alive; it lives in _meta), a guarded server's
// tools/call, any server's tools/list (guard.go reads the list: a guard
// may be set while the relay runs, SetGuard, and a host lists its tools
// once, so the list must be learned before anything is guarded), any
// request while a round forwarded to the host waits (forward.go completes
// retries), a loop method's request whose id idKey cannot read. The
// members must be jsonrpc, id, method and params, each at most once, in
// any order; anything else takes the full path. Every request and its
// reply make a round trip the host waits on.
func (r *Relay) quickRequest(b []byte) bool {
	if r.forward.open.Load() > 0 {
		return false
	}
	m, ok, _ := object(b, true)
	if !ok {
		return false
	}
	var env envelope
	var method []byte
	var seen [4]bool
	for {
		k, ok := m.key()
		if !ok {
			if !m.end || skipSpace(b, m.i+1) != len(b) {
				return false
			}
			break
		}
		v, ok := m.value()
		if !ok {
			return false
		}
		var n int
		switch string(k) {
		case "jsonrpc":
			n = 0
		case "id":
			n, env.ID = 1, v
		case "method":
			if method, ok = plainString(v); !ok {
				return false
			}
			n = 2
		case "params":
			if !legacyParams(v) {
				return false
			}
			n, env.Params = 3, v
		default:
			return false
		}
		if seen[n] {
			return false
		}
		seen[n] = true
	}
	if !seen[1] || !seen[2] {
		return false
	}
	if bytes.HasPrefix(method, []byte("notifications/")) {
		return false // hostMembers passed it, or it is the cancel the relay spreads
	}
	switch string(method) {
	case "initialize", "tools/list":
		return false
	case "tools/call":
		if r.guard.on() {
			return false
		}
		env.Method = "tools/call"
	case "prompts/get", "resources/read":
		env.Method = string(method)
	default:
		return true
	}
	key, ok := idKey(env.ID)
	if !ok {
		return false
	}
	r.followCall(key, &env, b, "", nil)
	return true
}

// hostMembers is hostRoute before the check for a later "method".
func hostMembers(b []byte, complete bool) (v route, rest int) {
	m, ok, pass := object(b, complete)
	if !ok {
		return routeOf(pass), len(b)
	}
	defer func() { rest = m.i }()
	for {
		k, ok := m.key()
		if !ok {
			return vFull, 0
		}
		switch string(k) {
		case "method":
			v, ok := m.value()
			if !ok {
				return vFull, 0
			}
			name, ok := plainString(v)
			if !ok || string(name) == "notifications/cancelled" || !bytes.HasPrefix(name, []byte("notifications/")) {
				// A request, or the cancel the relay spreads: the full
				// path. (MCP names notifications "notifications/…";
				// one sent with an id would be a request nobody answers.)
				return vFull, 0
			}
			return vPass, 0
		case "result", "error":
			return vPass, 0
		default:
			if _, ok := m.value(); !ok {
				return vFull, 0
			}
		}
	}
}

// legacyParams reports whether params is an object whose members, each
// key spelt without escapes, include no _meta: a legacy request's, as
// modernVersion and keepAlive.noteCall read it (getMember decodes keys).
func legacyParams(params []byte) bool {
	m, ok, _ := object(params, true)
	if !ok {
		return false
	}
	for {
		k, ok := m.key()
		if !ok {
			return m.end
		}
		if string(k) == "_meta" {
			return false
		}
		if _, ok := m.value(); !ok {
			return false
		}
	}
}

// asksInput reports whether a reply (or its head) may be an
// input_required result: it names a resultType. A legacy call is answered
// so by a modern server too (PROTOCOL.md §2: a result carrying resultType
// is a modern server's), and the loop must read that reply, not the host;
// a final result that merely mentions the word takes the full path too.
func asksInput(b []byte) bool { return bytes.Contains(b, []byte(`"resultType"`)) }

// startsArray reports whether b, after white space, starts a JSON array:
// a batch, which go-sdk hosts read for protocol versions before 2025-06-18,
// and which may hold a request past the line's first bytes.
func startsArray(b []byte) bool {
	i := skipSpace(b, 0)
	return i < len(b) && b[i] == '['
}

func routeOf(pass bool) route {
	if pass {
		return vPass
	}
	return vFull
}
