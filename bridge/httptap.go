package bridge

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
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
// sees them.
//
// mcp-go never reads the server's bytes themselves: its readers hold a
// line whatever its length and join an event's data lines by string
// concatenation (an endless line grew the wrapper without bound; an 8 MiB
// event of 1 kB lines took 25 s), and it decodes every message again. The
// tap hands it, in each body's stead, only what it acts on: an answer's
// id (in a stand-in answer with an empty result), the events' ids and
// retry times (to resume a stream), and the HTTP+SSE transport's endpoint.
// On a request's stream only that request's own answer gets a stand-in:
// mcp-go took any answer there for it and closed the stream, so an answer
// with a stray id lost the real one that followed (fromServer drops the
// stray). The tap itself holds one message at a time, at most limit bytes
// (HTTPOptions.MaxMessage, msgbuf.go); a stream that sends a longer one is
// ended, and the request it answers gets an error saying so.

// tapTransport is an http.RoundTripper that taps the message bodies of the
// MCP endpoint's responses: JSON bodies whole, SSE streams event by event.
type tapTransport struct {
	base http.RoundTripper
	// limit is the most bytes one message may have (HTTPOptions.MaxMessage).
	limit int
	// budget bounds what the messages being read, on all of the server's
	// streams, hold together: twice limit (msgBudget).
	budget *msgBudget
	// deliver receives each message the server sent, in the order read,
	// and the SSE stream it came on (nil for a JSON body), whose last event
	// id is the cursor to resume it from (PROTOCOL.md §11). An event with
	// an id and no message is delivered as a nil msg: only the cursor moved.
	// msg is deliver's to keep, and free, when not nil, gives its memory
	// back once it is read no more (msgBuf.take). It returns the stand-in
	// mcp-go gets for the message (an answer to the stream's request: its
	// id), or nil.
	deliver func(msg []byte, free func(), stream *sseStream) []byte
	// tooLarge receives the error that ended a body whose message passed
	// limit, and the id key of the host request it answered ("" for the
	// GET stream).
	tooLarge func(key string, err error)
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
	// listened, when set, hears the status of each GET that opens the
	// server's own stream (not a resumption of a request's), once its
	// headers came, or 0 when it failed.
	listened func(status int)
}

// maxErrorBody bounds how much of a refusal's body is read: enough for a
// JSON-RPC error or a sentence, not a whole error page.
const maxErrorBody = 64 << 10

// errTooLarge ends a body whose message passed the limit, in bytes.
type errTooLarge int

func (e errTooLarge) Error() string {
	return fmt.Sprintf("the server sent a message larger than %s, the most elicitray holds (max_message_mib under [remote] in config.toml); elicitray stopped reading the stream it came on", mib(int(e)))
}

// mib is n bytes in MiB, for people.
func mib(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

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
	if t.listened != nil && req.Method == http.MethodGet && key == "" && t.endpoint(req) {
		status := 0
		if err == nil {
			status = resp.StatusCode
		}
		t.listened(status)
	}
	if err != nil || !t.endpoint(req) {
		return resp, err
	}
	if resp.StatusCode != http.StatusOK {
		if key != "" && resp.StatusCode != http.StatusAccepted && t.reply != nil {
			t.refused(key, resp)
		} else {
			// mcp-go reads a 202's body whole: a server's endless one
			// would have no end.
			resp.Body = &capBody{rc: resp.Body, left: t.limit, key: key, t: t}
		}
		return resp, nil
	}
	if key != "" && t.reply != nil {
		t.reply(key, resp, nil)
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch media {
	case "application/json":
		// One message (PROTOCOL.md §11), read whole (and no further than
		// the limit), so that the relay has it before mcp-go's decoder
		// returns.
		m := msgBuf{budget: t.budget}
		buf := make([]byte, tapChunk)
		for {
			n, rerr := resp.Body.Read(buf)
			if err := m.add(buf[:n], t.limit); err != nil {
				rerr = err
				if _, free := m.take(); free != nil {
					free() // before the host hears of it (tapBody.Read)
				}
				t.tooLarge(key, err)
			}
			if rerr == io.EOF {
				break
			}
			if rerr != nil {
				resp.Body.Close()
				if _, free := m.take(); free != nil {
					free()
				}
				return nil, rerr
			}
		}
		resp.Body.Close()
		body, free := m.take()
		stand := []byte(nil)
		if msg := bytes.TrimSpace(body); len(msg) > 0 {
			stand = t.deliver(msg, free, nil)
		} else if free != nil {
			free()
		}
		resp.Body = io.NopCloser(bytes.NewReader(stand))
	case "text/event-stream":
		b := &tapBody{rc: resp.Body, key: key, t: t}
		b.p = sseParser{limit: t.limit, onEvent: b.event, onRetry: b.retry}
		b.p.data.budget = t.budget
		b.s = &sseStream{method: req.Method, key: key}
		resp.Body = b
	default:
		resp.Body = &capBody{rc: resp.Body, left: t.limit, key: key, t: t}
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
				t.deliver(bytes.Clone(msg), nil, nil)
			}
		}
	}
	t.reply(key, resp, body)
}

// capBody is a body mcp-go reads whole, ended once it passes left bytes.
type capBody struct {
	rc   io.ReadCloser
	left int
	key  string
	t    *tapTransport
}

func (b *capBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errTooLarge(b.t.limit)
	}
	n, err := b.rc.Read(p)
	if b.left -= n; b.left < 0 {
		b.t.tooLarge(b.key, errTooLarge(b.t.limit))
		return 0, errTooLarge(b.t.limit)
	}
	return n, err
}

func (b *capBody) Close() error { return b.rc.Close() }

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

// tapBody reads an SSE body for the relay and gives mcp-go, as the body it
// reads, a stream of what it acts on only (the tap's comment).
type tapBody struct {
	rc  io.ReadCloser
	key string
	t   *tapTransport
	s   *sseStream
	buf []byte
	// out is what mcp-go has still to read.
	out bytes.Buffer
	err error
	// mu orders the parser's work against Close, which mcp-go calls from
	// another goroutine, and which gives back the event it was reading.
	mu     sync.Mutex
	closed bool
	p      sseParser
}

// tapChunk is how much of the server's stream is read at a time.
const tapChunk = 32 << 10

func (b *tapBody) Read(p []byte) (int, error) {
	for b.out.Len() == 0 && b.err == nil {
		if b.buf == nil {
			b.buf = make([]byte, tapChunk)
		}
		n, err := b.rc.Read(b.buf)
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			return 0, io.ErrClosedPipe
		}
		perr := b.p.feed(b.buf[:n])
		if perr != nil {
			err = perr
		}
		if err != nil {
			// An event the stream ended inside is discarded, before the
			// host hears of it: a stream past the budget gives its share
			// back before the other streams read on.
			b.p.release()
		}
		if perr != nil {
			b.t.tooLarge(b.key, perr)
		}
		b.mu.Unlock()
		b.err = err
	}
	if b.out.Len() > 0 {
		return b.out.Read(p)
	}
	return 0, b.err
}

func (b *tapBody) Close() error {
	err := b.rc.Close()
	b.mu.Lock()
	b.closed = true
	b.p.release()
	b.mu.Unlock()
	return err
}

// event takes one event the parser dispatched.
func (b *tapBody) event(event string, data []byte, free func(), hasData bool, id string, hasID bool) {
	start := b.out.Len()
	if hasID {
		b.s.setLast(id)
		b.out.WriteString("id: " + id + "\n")
	}
	// Events named otherwise (the HTTP+SSE transport's "endpoint") are
	// the transport's, not messages.
	message := (event == "" || event == "message") && len(bytes.TrimSpace(data)) > 0
	switch {
	case event == "endpoint" && hasData:
		b.out.WriteString("event: endpoint\ndata: ")
		b.out.Write(data)
		b.out.WriteByte('\n')
	case message:
		if stand := b.t.deliver(data, free, b.s); stand != nil {
			b.out.WriteString("data: ")
			b.out.Write(stand)
			b.out.WriteByte('\n')
		}
	case hasID:
		b.t.deliver(nil, nil, b.s) // a cursor only, to resume from
	}
	if !message && free != nil {
		free()
	}
	if b.out.Len() > start {
		b.out.WriteByte('\n')
	}
}

// retry passes a retry field on to mcp-go, which waits that long before it
// resumes a stream the server ended.
func (b *tapBody) retry(value []byte) {
	b.out.WriteString("retry: ")
	b.out.Write(value)
	b.out.WriteString("\n")
}
