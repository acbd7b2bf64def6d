package bridge

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
)

// The tap: how the relay reads the server's messages byte for byte although
// mcp-go's HTTP transports carry them.
//
// mcp-go's transports decode every message the server sends into their own
// types (a number in a requestedSchema becomes a float64, members lose their
// order) and hand on only what they expect: its Streamable HTTP client gives
// a server's request to a handler with a 30-second deadline, and its HTTP+SSE
// client drops server requests altogether. A relay needs the messages as the
// server wrote them (DESIGN.md: every message reaches the other side byte
// for byte), and elicitation/create is exactly the server request those
// clients lose. So mcp-go keeps doing the HTTP work — sessions, the GET
// stream, resumption, authorization — over an http.Client whose round
// tripper passes every message body by the tap, which reads the messages
// off the wire as they go by and hands them to the relay, before mcp-go
// sees them. What mcp-go then makes of them is ignored.

// tapTransport is an http.RoundTripper that taps the message bodies of the
// MCP endpoint's responses: JSON bodies whole, SSE streams event by event.
type tapTransport struct {
	base http.RoundTripper
	// deliver receives each message the server sent, in the order read,
	// and the SSE stream it came on (nil for a JSON body), whose last event
	// id is the cursor to resume it from (PROTOCOL.md §11). An event with
	// an id and no message is delivered as a nil msg: only the cursor moved.
	deliver func(msg []byte, stream *sseStream)
	// endpoint reports whether a request goes to the MCP endpoint (the
	// server URL, or the HTTP+SSE transport's stream and message URLs),
	// whose bodies carry messages; other requests (authorization metadata,
	// tokens) pass untapped.
	endpoint func(req *http.Request) bool
	// reply receives, for each response to a POST carrying a host request
	// (key), its status and headers and, when it was not 200, the start of
	// its body: what the relay tells the host when no answer came of it.
	reply func(key string, resp *http.Response, body []byte)
	// ending sends the DELETE that ends the session in the tap's stead,
	// when set: mcp-go sends it without the user's headers.
	ending func(req *http.Request, base http.RoundTripper) (*http.Response, error)
	// prepare, when set, may complete a request to the MCP endpoint before
	// it goes out (headers mcp-go could not know yet).
	prepare func(req *http.Request) *http.Request
}

// maxErrorBody bounds how much of a refusal's body is read: enough for a
// JSON-RPC error or a sentence, not a whole error page.
const maxErrorBody = 64 << 10

func (t *tapTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := req.Header.Get(headerRequestKey)
	if key != "" {
		req = req.Clone(req.Context())
		req.Header.Del(headerRequestKey)
	}
	if req.Method == http.MethodDelete && t.ending != nil && t.endpoint(req) {
		return t.ending(req, t.base)
	}
	if t.prepare != nil && t.endpoint(req) {
		req = t.prepare(req)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || !t.endpoint(req) {
		return resp, err
	}
	if resp.StatusCode != http.StatusOK {
		if key != "" && resp.StatusCode != http.StatusAccepted && t.reply != nil {
			t.refused(key, resp)
		}
		return resp, nil
	}
	if key != "" && t.reply != nil {
		t.reply(key, resp, nil)
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch media {
	case "application/json":
		// One message (PROTOCOL.md §11). It is read whole here, so that
		// the relay has it before mcp-go's decoder returns.
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if rerr != nil {
			return nil, rerr
		}
		if msg := bytes.TrimSpace(body); len(msg) > 0 {
			t.deliver(msg, nil)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
	case "text/event-stream":
		s := &sseStream{method: req.Method, key: key}
		resp.Body = &tapBody{rc: resp.Body, p: sseParser{onEvent: func(event, data, id string, hasID bool) {
			if hasID {
				s.setLast(id)
			}
			// Events named otherwise (the HTTP+SSE transport's
			// "endpoint") are the transport's, not messages.
			switch {
			case (event == "" || event == "message") && strings.TrimSpace(data) != "":
				t.deliver([]byte(data), s)
			case hasID:
				t.deliver(nil, s) // a cursor only, to resume from
			}
		}}}
	}
	return resp, nil
}

// refused handles a host request's POST that the server answered with an
// error status. Its body may be the JSON-RPC error for the request (a 400
// with -32602, say): then that is the answer, and reaches the host as the
// server wrote it. mcp-go would take any JSON object there for an answer
// and return none, so the relay must know what the refusal said.
func (t *tapTransport) refused(key string, resp *http.Response) {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if msg := bytes.TrimSpace(body); len(msg) > 0 {
		if env, err := scanEnvelope(msg); err == nil && env.isResponse() {
			if k, ok := idKey(env.ID); ok && k == key {
				t.deliver(msg, nil)
			}
		}
	}
	t.reply(key, resp, body)
}

// sseStream is one SSE response the tap reads: the method of the request
// that opened it, the id key of the host request a POST carried, and the id
// of its last event, from which it can be resumed.
type sseStream struct {
	method, key string
	mu          sync.Mutex
	last        string
}

func (s *sseStream) setLast(id string) {
	s.mu.Lock()
	s.last = id
	s.mu.Unlock()
}

// lastEventID is the id of the stream's last event with one, or "".
func (s *sseStream) lastEventID() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// tapBody passes an SSE body through, feeding what is read to its parser.
type tapBody struct {
	rc io.ReadCloser
	p  sseParser
}

func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.p.feed(p[:n])
	if err == io.EOF {
		b.p.end()
	}
	return n, err
}

func (b *tapBody) Close() error { return b.rc.Close() }

// sseParser parses a text/event-stream incrementally, as the HTML standard's
// "event stream interpretation" says: lines end in CRLF, LF or CR; "data"
// lines of one event are joined with LF; a blank line dispatches the event;
// a line starting with a colon is a comment; a field name without a colon
// has an empty value, and one space after the colon is dropped.
type sseParser struct {
	onEvent func(event, data, id string, hasID bool)

	line      []byte // a line not yet ended
	skipLF    bool   // the last line ended in CR: an LF next ends nothing
	event, id string
	hasID     bool
	data      []byte
	hasData   bool
}

func (p *sseParser) feed(b []byte) {
	for len(b) > 0 {
		if p.skipLF {
			p.skipLF = false
			if b[0] == '\n' {
				b = b[1:]
				continue
			}
		}
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			p.line = append(p.line, b...)
			return
		}
		p.line = append(p.line, b[:i]...)
		p.skipLF = b[i] == '\r'
		b = b[i+1:]
		p.field(p.line)
		p.line = p.line[:0]
	}
}

// end dispatches nothing: an event the stream ended before its blank line
// is incomplete, and the standard discards it.
func (p *sseParser) end() {}

func (p *sseParser) field(line []byte) {
	if len(line) == 0 {
		if p.hasData {
			p.onEvent(p.event, string(p.data), p.id, p.hasID)
		} else if p.hasID {
			// An event with an id and no data still moves the cursor: it
			// is how a server primes a client to resume (SEP-1699).
			p.onEvent(p.event, "", p.id, true)
		}
		p.event, p.data, p.hasData, p.hasID = "", p.data[:0], false, false
		return
	}
	if line[0] == ':' {
		return
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "event":
		p.event = string(value)
	case "data":
		if p.hasData {
			p.data = append(p.data, '\n')
		}
		p.data = append(p.data, value...)
		p.hasData = true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.id, p.hasID = string(value), true
		}
	}
}
