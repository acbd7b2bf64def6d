package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/bridge/httpfault"
)

// pushServer is go-sdk's server with one tool, "push", that asks a legacy
// elicitation/create and says what it got back.
func pushServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "http-push", Version: "1.0.0"}, nil)
	type args struct{}
	mcp.AddTool(s, &mcp.Tool{Name: "push"}, func(ctx context.Context, req *mcp.CallToolRequest, _ args) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Limit?", RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"n":{"type":"integer","maximum":123456789012345678901234567890}}}`)})
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil, nil
		}
		b, _ := json.Marshal(res.Content)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + string(b)}}}, nil, nil
	})
	return s
}

// startHTTP starts srv and returns the Conn and a function reading the next
// message, failing the test at the end of the stream.
func startHTTP(t *testing.T, url string) (Conn, Server, func() string) {
	t.Helper()
	srv := HTTP(HTTPOptions{URL: url})
	conn, err := srv.Start(context.Background(), func(format string, args ...any) { t.Logf(format, args...) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseWrite(); srv.Wait() })
	next := func() string {
		t.Helper()
		line, err := conn.Read()
		if err != nil {
			t.Fatalf("reading the server: %v", err)
		}
		return string(line)
	}
	return conn, srv, next
}

func write(t *testing.T, c Conn, msg string) {
	t.Helper()
	if err := c.Write([]byte(msg+"\n"), true); err != nil {
		t.Fatalf("writing %s: %v", msg, err)
	}
}

const initLegacy = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"t","version":"1"}}}`

// TestHTTPLegacyPushRoundTrip: over Streamable HTTP, the server's
// elicitation/create reaches the relay as the server wrote it (a bound past
// float64 intact), the answer written back reaches the server, and the tool
// call's result comes back under the host's own id.
func TestHTTPLegacyPushRoundTrip(t *testing.T) {
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return pushServer() }, nil))
	t.Cleanup(ts.Close) // after the connection's own cleanup
	conn, _, next := startHTTP(t, ts.URL)

	write(t, conn, initLegacy)
	if got := next(); !strings.Contains(got, `"id":1`) || !strings.Contains(got, `"http-push"`) {
		t.Fatalf("initialize reply = %s", got)
	}
	write(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(t, conn, `{"jsonrpc":"2.0","id":"call-7","method":"tools/call","params":{"name":"push","arguments":{}}}`)
	ask := next()
	env, err := scanEnvelope([]byte(ask))
	if err != nil || env.Method != "elicitation/create" {
		t.Fatalf("want the server's elicitation/create, got %s", ask)
	}
	if !strings.Contains(ask, "123456789012345678901234567890") {
		t.Errorf("the schema's bound did not arrive as the server wrote it: %s", ask)
	}
	write(t, conn, `{"jsonrpc":"2.0","id":`+string(env.ID)+`,"result":{"action":"accept","content":{"n":42}}}`)
	res := next()
	if !strings.Contains(res, `"id":"call-7"`) || !strings.Contains(res, `accept {\"n\":42}`) {
		t.Fatalf("tool result = %s", res)
	}
}

// TestHTTPSessionLost: a server that restarts forgets the session; the
// host's next request is answered with an error saying so, and the
// connection ends with ErrSessionLost (the wrapper exits 1).
func TestHTTPSessionLost(t *testing.T) {
	var handler atomic.Pointer[mcp.StreamableHTTPHandler]
	fresh := func() {
		handler.Store(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return pushServer() }, nil))
	}
	fresh()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.Load().ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	conn, srv, next := startHTTP(t, ts.URL)
	write(t, conn, initLegacy)
	next()
	write(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fresh() // the server restarts
	write(t, conn, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	got := next()
	if !strings.Contains(got, `"id":2`) || !strings.Contains(got, "no longer knows this session") {
		t.Fatalf("want an error for id 2 naming the lost session, got %s", got)
	}
	for {
		_, err := conn.Read()
		if err != nil {
			if !errors.Is(err, ErrSessionLost) {
				t.Fatalf("the stream ended with %v, want ErrSessionLost", err)
			}
			break
		}
	}
	if code := srv.Wait(); code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
}

// TestHTTPUnreachable: a server that cannot be reached gets the host an
// error under its request's id, in a sentence naming the URL.
func TestHTTPUnreachable(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close()
	conn, _, next := startHTTP(t, url)
	write(t, conn, initLegacy)
	got := next()
	if !strings.Contains(got, `"id":1`) || !strings.Contains(got, url) || !strings.Contains(got, `"code":-32603`) {
		t.Fatalf("got %s", got)
	}
}

// TestSSEParser: the event stream rules the tap relies on, and its bound:
// lines it ignores pass whatever their length, an event past the limit
// ends the stream.
func TestSSEParser(t *testing.T) {
	var got []string
	var retries []string
	p := sseParser{limit: 1 << 10, onEvent: func(event string, data []byte, _ func(), _ bool, id string, hasID bool) {
		got = append(got, event+"|"+string(data)+"|"+id)
	}, onRetry: func(v []byte) { retries = append(retries, string(v)) }}
	long := strings.Repeat("x", 3<<10)
	stream := ": comment\r\nevent: endpoint\r\ndata: /messages?s=1\r\n\r\nid: 7\ndata: {\"a\":\ndata: 1}\n\nid:8\n\ndata:x\rdata: y\r\r" +
		":" + long + "\n" + long + ": unknown\nretry: 250\nretry: 1s\ndata\n\n"
	// Fed a byte at a time, as a slow network might.
	for i := range len(stream) {
		if err := p.feed([]byte{stream[i]}); err != nil {
			t.Fatalf("byte %d: %v", i, err)
		}
	}
	want := []string{"endpoint|/messages?s=1|", "|{\"a\":\n1}|7", "||8", "|x\ny|8", "||8"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Join(retries, ",") != "250" {
		t.Errorf("retry fields passed on: %q, want 250 only", retries)
	}
	for _, tooLong := range []string{"data: " + long, "data: " + long[:600] + "\ndata: " + long[:600]} {
		p := sseParser{limit: 1 << 10, onEvent: func(string, []byte, func(), bool, string, bool) {}}
		if err := p.feed([]byte(tooLong)); err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("%.20q…: err = %v, want the message too large", tooLong, err)
		}
	}
}

// TestSSEParserLongFields: an event, id or retry field longer than 1 KiB
// ends the stream with a sentence naming the field, however large the
// message limit; and a 1 KiB id, held for the events after it, does not
// count against their data's limit.
func TestSSEParserLongFields(t *testing.T) {
	long := strings.Repeat("x", 2<<10)
	for _, field := range []string{"event", "id", "retry"} {
		t.Run(field, func(t *testing.T) {
			p := sseParser{limit: 64 << 20, onEvent: func(string, []byte, func(), bool, string, bool) {}}
			err := p.feed([]byte(field + ": " + long))
			if err == nil || !strings.Contains(err.Error(), `"`+field+`" field longer than 1 KiB`) {
				t.Errorf("err = %v, want the %s field too long", err, field)
			}
			if len(p.value) > 1<<10 {
				t.Errorf("%d bytes of the field held, want at most 1024", len(p.value))
			}
		})
	}
	var got []string
	p := sseParser{limit: 2 << 10, onEvent: func(_ string, data []byte, _ func(), _ bool, id string, _ bool) {
		got = append(got, fmt.Sprintf("%d|%d", len(data), len(id)))
	}}
	stream := "id: " + long[:1<<10] + "\ndata: " + long + "\n\ndata: " + long + "\n\n"
	if err := p.feed([]byte(stream)); err != nil {
		t.Fatalf("an id of 1 KiB and data of the limit: %v", err)
	}
	if diff := cmp.Diff([]string{"2048|1024", "2048|1024"}, got); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
}

// TestHTTPStreamResumed: the stream answering a tool call breaks off after
// the server's elicitation/create; the relay answers the elicitation, and
// resumes the stream with Last-Event-ID, on which the server's event store
// replays the tool's result (PROTOCOL.md §11).
func TestHTTPStreamResumed(t *testing.T) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return pushServer() },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})
	ts := httptest.NewServer(httpfault.CutFirstCall(h))
	t.Cleanup(ts.Close)
	conn, _, next := startHTTP(t, ts.URL)
	write(t, conn, initLegacy)
	next()
	write(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(t, conn, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"push","arguments":{}}}`)
	ask := next()
	env, err := scanEnvelope([]byte(ask))
	if err != nil || env.Method != "elicitation/create" {
		t.Fatalf("want the server's elicitation/create, got %s", ask)
	}
	write(t, conn, `{"jsonrpc":"2.0","id":`+string(env.ID)+`,"result":{"action":"accept","content":{"n":5}}}`)
	res := next()
	if !strings.Contains(res, `"id":9`) || !strings.Contains(res, `accept {\"n\":5}`) {
		t.Fatalf("tool result after the resume = %s", res)
	}
}

// TestHTTPSessionHeadersAndDelete: after initialize every request carries
// the session the server gave and the agreed protocol version; the GET
// stream for the server's own messages is opened; and when the host goes
// the session ends with a DELETE (PROTOCOL.md §11).
func TestHTTPSessionHeadersAndDelete(t *testing.T) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return pushServer() }, nil)
	type seen struct{ method, session, version string }
	got := make(chan seen, 64)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.Method, r.Header.Get("Mcp-Session-Id"), r.Header.Get("Mcp-Protocol-Version")}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	conn, srv, next := startHTTP(t, ts.URL)
	write(t, conn, initLegacy)
	next()
	write(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(t, conn, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	next()
	var all []seen
	for len(all) == 0 || all[len(all)-1].method != http.MethodGet {
		all = append(all, <-got) // until mcp-go has opened the GET stream
	}
	conn.CloseWrite()
	srv.Wait()
	close(got)
	for s := range got {
		all = append(all, s)
	}
	var methods []string
	session := ""
	for _, s := range all {
		methods = append(methods, s.method)
		if len(methods) == 1 {
			continue // initialize: no session yet
		}
		if session == "" {
			session = s.session
		}
		if s.session == "" || s.session != session || s.version != "2025-11-25" {
			t.Errorf("%s sent session %q version %q, want the session (%q) and 2025-11-25", s.method, s.session, s.version, session)
		}
	}
	joined := strings.Join(methods, " ")
	if !strings.Contains(joined, "GET") || !strings.HasSuffix(joined, "DELETE") {
		t.Errorf("requests %s: want the GET stream opened and a DELETE last", joined)
	}
}

// standaloneServer is a Streamable HTTP server that, like servers on the
// TypeScript SDK whose tools call server.elicitInput, sends its
// elicitation/create on the GET stream, not on the tool call's POST, and
// drops it when no GET stream is open yet. It answers that GET only after
// hold (a slow server, or one under load), or as soon as a tools/call
// arrives. The tool's result says what became of the elicitation.
type standaloneServer struct {
	hold    time.Duration
	mu      sync.Mutex
	stream  chan string   // the open GET stream's events, nil before
	called  chan struct{} // closed when the tools/call arrives
	answers chan string   // the client's answer to the elicitation
}

func (s *standaloneServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		select {
		case <-time.After(s.hold):
		case <-s.called:
		case <-r.Context().Done():
			return
		}
		events := make(chan string, 1)
		s.mu.Lock()
		s.stream = events
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case e := <-events:
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", e)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	reply := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
	switch {
	case msg.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "s1")
		reply(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"standalone","version":"1"}}`)
	case msg.Method == "tools/call":
		s.mu.Lock()
		stream := s.stream
		s.mu.Unlock()
		close(s.called)
		if stream == nil {
			reply(`{"content":[{"type":"text","text":"the elicitation was lost: no GET stream was open"}]}`)
			return
		}
		stream <- `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Deploy?","requestedSchema":{"type":"object","properties":{}}}}`
		select {
		case a := <-s.answers:
			reply(`{"content":[{"type":"text","text":` + strconv.Quote(a) + `}]}`)
		case <-r.Context().Done():
		}
	case msg.Method == "" && len(msg.Result) > 0:
		s.answers <- string(msg.Result)
		w.WriteHeader(http.StatusAccepted)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

// TestHTTPCallWaitsForGETStream: a tool call sent right after initialize,
// to a server that sends its elicitation on the GET stream and opens that
// stream late, still brings the elicitation to the host: the relay holds
// the call until the stream is open. Before, the call went first, the
// server had no stream to ask on, and the question was lost.
func TestHTTPCallWaitsForGETStream(t *testing.T) {
	t.Parallel()
	srv := &standaloneServer{hold: 300 * time.Millisecond, called: make(chan struct{}), answers: make(chan string, 1)}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	conn, _, next := startHTTP(t, ts.URL)
	write(t, conn, initLegacy)
	next()
	write(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(t, conn, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{}}}`)
	ask := next()
	env, err := scanEnvelope([]byte(ask))
	if err != nil || env.Method != "elicitation/create" {
		t.Fatalf("want the server's elicitation/create, got %s", ask)
	}
	write(t, conn, `{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{}}}`)
	if res := next(); !strings.Contains(res, `"id":2`) || !strings.Contains(res, `accept`) {
		t.Fatalf("tool result = %s", res)
	}
}

// silentGETServer answers every POST at once; its GET stream sends no
// headers until it has an event, and it never has one (a proxy that
// buffers, a server that writes its headers with its first event).
type silentGETServer struct{}

func (silentGETServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		<-r.Context().Done()
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&msg) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if msg.Method == "initialize" {
		w.Header().Set("Mcp-Session-Id", "s1")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"silent","version":"1"}}}`, msg.ID)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, msg.ID)
}

// TestHTTPGETStreamWaitedForOnce: a GET stream that never opens holds the
// session's requests once, for the bound, and then never again (the
// break-it session's three tools/list took 5, 10 and 15 s); a second
// initialize on the connection, which opens no stream of its own, does
// not start a new wait.
func TestHTTPGETStreamWaitedForOnce(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(silentGETServer{})
	t.Cleanup(ts.Close)
	srv := HTTP(HTTPOptions{URL: ts.URL})
	hs := srv.(*httpServer)
	hs.listenLimit = 50 * time.Millisecond
	var logged []string
	var logMu sync.Mutex
	conn, err := srv.Start(context.Background(), func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseWrite(); srv.Wait() })
	next := func(id int) {
		t.Helper()
		line, err := conn.Read()
		if err != nil || !strings.Contains(string(line), fmt.Sprintf(`"id":%d`, id)) {
			t.Fatalf("reading the answer to %d: %s, %v", id, line, err)
		}
	}
	write(t, conn, initLegacy)
	next(1)
	write(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(t, conn, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	next(2)
	gaveUp := func() bool {
		hs.mu.Lock()
		defer hs.mu.Unlock()
		select {
		case <-hs.listening:
			return true
		default:
			return false
		}
	}
	if !gaveUp() {
		t.Fatal("after a request waited its bound, the session still waits for the GET stream")
	}
	write(t, conn, `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	next(3)
	if !gaveUp() {
		t.Error("a second initialize made the session wait for a GET stream again")
	}
	logMu.Lock()
	defer logMu.Unlock()
	if n := strings.Count(strings.Join(logged, "\n"), "GET stream did not open within"); n != 1 {
		t.Errorf("the wrapper's log says %d times that the GET stream did not open, want once:\n%s", n, strings.Join(logged, "\n"))
	}
}
