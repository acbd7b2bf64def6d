package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/elicitray/elicitray/chars"
)

// Server lines that hosts read in different ways. PROTOCOL.md §7 (every
// revision's stdio transport): "one message per line, no embedded
// newlines, no batches (removed in 2025-06-18)". The relay reads a server
// line as one JSON-RPC message, an object whose members scanEnvelope
// finds. A host's parser may find more in it:
//
//   - the official go-sdk reads its stdin with a JSON stream decoder, not
//     line by line: it takes the values on either side of a carriage
//     return, a message that goes on over the next line, and a batch
//     while no version of 2025-06-18 or later is agreed;
//   - mcp-go's client reads each line with encoding/json, which matches a
//     key "Method", in any case, to its field method (no character outside
//     ASCII folds to those letters);
//   - and a parser may keep the first of repeated members, not the last.
//
// If one of those readings found an elicitation/create the relay did not,
// it would reach the host past the user (legacy.go). So a server line in
// which hasMethodKey finds a key "method", in any spelling, goes on only
// when the relay read it as exactly one object with one member "method",
// spelt so, or as the fast path decides it from its head: "method" its
// deciding member, and no other such key after it (quick.go; what follows
// may be no JSON, which hosts reject). Any other is dropped, said in the
// log, and each request the relay can find in it is answered -32600
// (Invalid Request), so that the server does not wait for a host that
// never heard of it: a request the relay cannot pass is the relay's to
// answer, as JSON-RPC answers one it cannot read. A line that names no
// method is no request to anyone, and passes as it came: a result, text a
// server prints to stdout, which hosts skip or answer -32700.
//
// Batches: 2025-03-26 added them to the schema and 2025-06-18 removed
// them (its changelog: "Remove support for JSON-RPC batching"), in the
// revision that brought elicitation; 2024-11-05 names none, but its
// messages are JSON-RPC 2.0's, which has them, and go-sdk reads them
// there too. A batch that names a method passes when one of those two
// older versions is agreed and each of its messages would pass on its own
// line; otherwise it is dropped like any line that is not one message.
//
// A line longer than the read buffer streams on before its end is read:
// its tail is cut at such a key instead (lineTail.strict, frame.go).
//
// The host's lines are the host's: the server's SDK reads them, and what
// the relay makes of them does not decide what a user is shown. But while
// a tool is guarded, what the server reads in them decides what runs
// unapproved: such a host line that may carry a tools/call stops at the
// relay (guard.go, dropsUnclear).

// unclearFromServer judges a server line that is not one message the
// relay read whole (object false: scanEnvelope refused it), or that has
// the member "method" more than once or in another case; it reports
// whether the line goes on to the host.
func (r *Relay) unclearFromServer(line []byte, object bool) bool {
	var why string
	switch {
	case object:
		why = `it has the member "method" more than once, or spelt in another case ("Method"), and hosts read such a line differently`
	case !hasMethodKey(line):
		// No request in any reading: the host answers or skips it. But a
		// host that reads the line's messages one by one, or a batch's,
		// may find the tools/list reply it waits for there: the guard
		// reads each of them too, so that a tool changed in it is caught
		// as in a reply on its own line.
		if r.guard.awaitsList() {
			eachMessage(line, func(m []byte) {
				if env, err := scanEnvelope(m); err == nil && env.isResponse() {
					r.guard.fromServer(env.ID, env.Result)
				}
			})
		}
		return true
	case r.passesFromHead(line):
		return true
	case r.batchPasses(line):
		return true
	default:
		why = "it is not one JSON-RPC message on a line of its own (MCP's stdio transport has one message per line, and no batches since 2025-06-18)"
	}
	ids := requestIDs(line)
	if len(ids) > 0 {
		replies := make([][]byte, len(ids))
		for i, id := range ids {
			replies[i] = withNewline(encodeError(id, codeInvalidRequest, "elicitray did not pass this request on to the host: "+why))
		}
		// Not from this goroutine, the server's reader: the server's
		// stdin may be full while the server waits for its stdout to be
		// read, and the host's pump may be splicing into it. One message
		// a write (over HTTP, one a POST).
		go func() {
			for _, reply := range replies {
				r.w.toServer(reply)
			}
		}()
	}
	answered := "it holds no request id to answer"
	if len(ids) > 0 {
		spelt := make([]string, len(ids))
		for i, id := range ids {
			spelt[i] = string(id)
		}
		answered = "the server was answered with an error for its request " + strings.Join(spelt, ", ")
	}
	r.w.log.printf("%s: dropped a line from the server because %s: a host could read a request in it that elicitray never saw, such as an elicitation/create; %s. The line: %s", r.opts.Server, why, answered, linePreview(line))
	return false
}

// passesFromHead reports whether the fast path passes line as it is
// (quick.go): a message whose first members decide it, its "method" the
// only key of that name, though its rest is not JSON. Such a line has no
// request the relay did not see; it comes here when a byte order mark
// sent it to the full path, and must be judged as it would be without.
func (r *Relay) passesFromHead(line []byte) bool {
	// serverMembers, not serverRoute: a reply's route may end its call.
	v, id, _, rest := r.serverMembers(line, true)
	return v == vPass && id == nil && !hasMethodKey(line[rest:])
}

// batchPasses reports whether line is a batch that goes on to the host: the
// agreed version is one before 2025-06-18, which removed batches, and each
// of its messages is an object that passes on its own line (no
// elicitation/create, one plain member "method" at most).
func (r *Relay) batchPasses(line []byte) bool {
	if _, version := r.session.server(); version != "2025-03-26" && version != "2024-11-05" {
		return false
	}
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '[' || !json.Valid(line) {
		return false
	}
	var msgs []json.RawMessage
	if json.Unmarshal(line, &msgs) != nil || len(msgs) == 0 {
		return false
	}
	for _, m := range msgs {
		env, err := scanEnvelope(m)
		if err != nil || env.Methods > 1 || env.FoldedMethod || env.Method == "elicitation/create" {
			return false
		}
	}
	return true
}

// requestIDs returns the ids of the requests a host's parser could read in
// a dropped line, each once: in each JSON value of it, as a stream decoder
// reads them one after the other (an object, or the objects of a batch),
// and in the members of a message whose line ends before it does. A
// request is what names a method, in any case, with an id that is a
// string or an integer (PROTOCOL.md §7).
func requestIDs(line []byte) []json.RawMessage {
	var ids []json.RawMessage
	seen := map[string]bool{}
	add := func(id []byte, method bool) {
		if key, ok := idKey(id); ok && method && !seen[key] {
			seen[key] = true
			ids = append(ids, append(json.RawMessage(nil), bytes.TrimSpace(id)...))
		}
	}
	request := func(v []byte) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"` // any case, as encoding/json matches
		}
		if json.Unmarshal(v, &m) == nil {
			add(m.ID, m.Method != nil)
		}
	}
	rest := eachMessage(line, request)
	headIDs(line[rest:], add)
	return ids
}

// eachMessage gives fn each message a stream decoder reads in line, one
// JSON value after the other: each object, and each object of a batch. It
// returns the offset where it stopped, at the end of line or at what is no
// whole JSON value.
func eachMessage(line []byte, fn func(msg []byte)) int {
	dec := json.NewDecoder(bytes.NewReader(line))
	for {
		off := int(dec.InputOffset())
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return off
		}
		switch v[0] {
		case '{':
			fn(v)
		case '[':
			var msgs []json.RawMessage
			if json.Unmarshal(v, &msgs) == nil {
				for _, m := range msgs {
					if len(m) > 0 && m[0] == '{' {
						fn(m)
					}
				}
			}
		}
	}
}

// headIDs finds, in b, the head of an object that does not end where it
// should (a message going on over the next line), the id and method
// members it has, and gives them to add.
func headIDs(b []byte, add func(id []byte, method bool)) {
	m, ok, _ := object(b, true)
	if !ok {
		return
	}
	var id []byte
	method := false
	for {
		k, ok := m.key()
		if !ok {
			break
		}
		v, ok := m.value()
		if !ok {
			break
		}
		switch {
		case string(k) == "id":
			id = v
		case len(k) == len("method") && bytes.EqualFold(k, []byte("method")):
			method = true
		}
	}
	add(id, method)
}

// linePreview quotes the start of a line for the log.
func linePreview(line []byte) string {
	const most = 200
	line = bytes.TrimSpace(line)
	if len(line) > most {
		return fmt.Sprintf("%q… (%d bytes in all)", chars.Bytes(line, most), len(line))
	}
	return fmt.Sprintf("%q", line)
}
