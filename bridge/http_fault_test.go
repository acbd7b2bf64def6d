package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Faults of remote servers: what a server answers that it should not, and
// what the host then gets. Each hostile server here is a plain net/http
// handler, for what real servers won't do.

// hostMessage is a message the server received: its id and method.
type hostMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// hostile is a Streamable HTTP server that answers initialize and takes
// notifications as a server should, and every other request with call.
func hostile(t *testing.T, call func(w http.ResponseWriter, r *http.Request, m hostMessage)) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed) // no GET stream, no DELETE
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m hostMessage
		_ = json.Unmarshal(body, &m)
		switch {
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "hostile-1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"hostile","version":"1"}}}`, m.ID)
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		default:
			call(w, r, m)
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// afterInitialize connects to url, initializes, sends request, and returns
// every message the host got after the initialize reply, once the host has
// gone and the connection ended: requests in flight finish first (Grace),
// so each has had its answer by then.
func afterInitialize(t *testing.T, url string, requests ...string) []string {
	t.Helper()
	conn, _, next := startHTTP(t, url)
	write(t, conn, initLegacy)
	if got := next(); !strings.Contains(got, `"id":1`) {
		t.Fatalf("initialize reply = %s", got)
	}
	write(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, r := range requests {
		write(t, conn, r)
	}
	return drain(t, conn)
}

// drain ends the host's side of conn and reads what is left.
func drain(t *testing.T, conn Conn) []string {
	t.Helper()
	if err := conn.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		line, err := conn.Read()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("the connection ended with %v", err)
			}
			return got
		}
		got = append(got, string(line))
	}
}

// answersFor is the messages among got that answer id (a JSON id).
func answersFor(t *testing.T, got []string, id string) []string {
	t.Helper()
	var out []string
	for _, line := range got {
		env, err := scanEnvelope([]byte(line))
		if err == nil && env.isResponse() && string(env.ID) == id {
			out = append(out, line)
		}
	}
	return out
}

const listTools = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

// TestHTTPEveryRequestAnswered: whatever the server does with a request's
// POST, the host gets exactly one answer for its id, saying in a sentence
// what went wrong; a JSON-RPC error the server sent for the request is
// that answer, as the server wrote it. (mcp-go takes a reply with another
// id, or any JSON object under an error status, for an answer, and the
// host used to wait for ever.)
func TestHTTPEveryRequestAnswered(t *testing.T) {
	for _, c := range []struct {
		name  string
		serve func(w http.ResponseWriter, m hostMessage)
		want  string
	}{
		{"another id in JSON", func(w http.ResponseWriter, m hostMessage) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":99,"result":{}}`)
		}, "not a JSON-RPC answer to this request"},
		{"another id on a stream", func(w http.ResponseWriter, m hostMessage) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}\n\n")
		}, "event stream ended before it answered"},
		{"a stream without the answer", func(w http.ResponseWriter, m hostMessage) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, ": nothing to say\n\nevent: message\n\n")
		}, "event stream ended before it answered"},
		{"500 with a JSON body", func(w http.ResponseWriter, m hostMessage) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"detail":"database down"}`)
		}, `the server answered 500 Internal Server Error: {\"detail\":\"database down\"}`},
		{"500 with text", func(w http.ResponseWriter, m hostMessage) {
			http.Error(w, "internal trouble", http.StatusInternalServerError)
		}, "the server answered 500 Internal Server Error: internal trouble\"}"},
		{"429 with Retry-After", func(w http.ResponseWriter, m hostMessage) {
			w.Header().Set("Retry-After", "30")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, "429 Too Many Requests and asks to wait 30 seconds before trying again: slow down"},
		{"200 with HTML", func(w http.ResponseWriter, m hostMessage) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body>Welcome!</body></html>")
		}, "answered with text/html, not JSON or an event stream (is http://127.0.0.1"},
		{"400 with the request's JSON-RPC error", func(w http.ResponseWriter, m hostMessage) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"no such cursor"}}`, m.ID)
		}, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no such cursor"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := hostile(t, func(w http.ResponseWriter, _ *http.Request, m hostMessage) { c.serve(w, m) })
			got := afterInitialize(t, url, listTools)
			answers := answersFor(t, got, "2")
			if len(answers) != 1 || !strings.Contains(answers[0], c.want) {
				t.Fatalf("answers for id 2: %q, want one containing %q (all: %q)", answers, c.want, got)
			}
		})
	}
}

// TestHTTPMessagesOnOneLine: a message that spans lines on the wire (an SSE
// event's data lines, with CRLF or CR line ends, or a pretty-printed JSON
// body) reaches the host as one line, as the host's framing needs
// (PROTOCOL.md §7); and what is not JSON at all never reaches it.
func TestHTTPMessagesOnOneLine(t *testing.T) {
	url := hostile(t, func(w http.ResponseWriter, _ *http.Request, m hostMessage) {
		switch string(m.ID) {
		case "2":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\r\ndata: \"params\":{\"level\":\"info\",\"data\":\"a\"}}\r\n\r\n"+
				"data: {\"jsonrpc\":\"2.0\",\rdata: \"id\":%s,\"result\":{\"tools\":[]}}\r\r", m.ID)
		case "3":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": %s,\n  \"result\": {}\n}\n", m.ID)
		case "4":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "Service temporarily unavailable\nplease retry")
		}
	})
	got := afterInitialize(t, url, listTools,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	out := strings.Join(got, "")
	for _, line := range strings.SplitAfter(strings.TrimSuffix(out, "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("the host got a line that is not a JSON message: %q", line)
		}
	}
	for _, id := range []string{"2", "3", "4"} {
		if n := len(answersFor(t, got, id)); n != 1 {
			t.Errorf("id %s answered %d times: %q", id, n, got)
		}
	}
	if a := answersFor(t, got, "4"); len(a) == 1 && !strings.Contains(a[0], "not a JSON-RPC answer") {
		t.Errorf("the host was not told the server's reply was no answer: %s", a[0])
	}
}

// TestHTTPRedirectToAnotherSite: a server that redirects to another origin
// does not get the user's headers sent there (net/http keeps them for
// another port of the same host, and keeps any header but Authorization
// for another host); the host is told why, in a sentence.
func TestHTTPRedirectToAnotherSite(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		http.Error(w, "gotcha", http.StatusTeapot)
	}))
	t.Cleanup(other.Close)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp?stolen=1", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(ts.Close)
	srv := HTTP(HTTPOptions{URL: ts.URL, Header: http.Header{"Authorization": {"Bearer s3cret"}, "X-Api-Key": {"k3y"}}})
	conn, err := srv.Start(t.Context(), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	write(t, conn, initLegacy)
	got := drain(t, conn)
	srv.Wait()
	if len(leaked) > 0 {
		t.Errorf("the other site was sent %q", leaked)
	}
	a := answersFor(t, got, "1")
	if len(a) != 1 || !strings.Contains(a[0], "redirected elicitray to "+other.URL+"/mcp, another site") {
		t.Errorf("answers for the initialize: %q", a)
	}
}

// TestHTTPRedirectWithinSite: a redirect within the server's own origin
// (/mcp to /mcp/, as many web frameworks do) is followed, and the messages
// on the redirected responses reach the relay: a tool call with an
// elicitation round-trips.
func TestHTTPRedirectWithinSite(t *testing.T) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return pushServer() }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp/", h)
	mux.Handle("/mcp", http.RedirectHandler("/mcp/", http.StatusPermanentRedirect))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	conn, _, next := startHTTP(t, ts.URL+"/mcp")
	write(t, conn, initLegacy)
	if got := next(); !strings.Contains(got, `"http-push"`) {
		t.Fatalf("initialize reply = %s", got)
	}
	write(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(t, conn, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"push","arguments":{}}}`)
	ask := next()
	env, err := scanEnvelope([]byte(ask))
	if err != nil || env.Method != "elicitation/create" {
		t.Fatalf("want the server's elicitation/create, got %s", ask)
	}
	write(t, conn, `{"jsonrpc":"2.0","id":`+string(env.ID)+`,"result":{"action":"decline"}}`)
	if res := next(); !strings.Contains(res, `"id":5`) || !strings.Contains(res, "decline") {
		t.Fatalf("tool result = %s", res)
	}
}

// TestHTTPUntrustedCertificateSaid: a server with a self-signed certificate
// gets the host a sentence saying so and what to do, not Go's error chain.
func TestHTTPUntrustedCertificateSaid(t *testing.T) {
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.Config.ErrorLog = quietLog()
	ts.StartTLS()
	t.Cleanup(ts.Close)
	conn, _, next := startHTTP(t, ts.URL)
	write(t, conn, initLegacy)
	got := next()
	if !strings.Contains(got, `"id":1`) || !strings.Contains(got, "self-signed certificate?") || strings.Contains(got, "x509") {
		t.Fatalf("got %s", got)
	}
}

func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }

// TestHTTPSessionEndedWithToken: the DELETE that ends the session when the
// host goes carries the user's headers like every other request, so that a
// server that wants a token ends the session instead of refusing with 401
// (mcp-go sends it with the session id alone).
func TestHTTPSessionEndedWithToken(t *testing.T) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return pushServer() }, nil)
	deleted := make(chan string, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if r.Method == http.MethodDelete {
			deleted <- auth
		}
		if auth != "Bearer s3cret" {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	srv := HTTP(HTTPOptions{URL: ts.URL, Header: http.Header{"Authorization": {"Bearer s3cret"}}})
	conn, err := srv.Start(t.Context(), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	write(t, conn, initLegacy)
	if got, _ := conn.Read(); !strings.Contains(string(got), `"http-push"`) {
		t.Fatalf("initialize reply = %s", got)
	}
	drain(t, conn)
	srv.Wait()
	select {
	case auth := <-deleted:
		if auth != "Bearer s3cret" {
			t.Errorf("the DELETE carried Authorization %q", auth)
		}
	default:
		t.Error("the session was not ended with a DELETE")
	}
}

// TestHTTPSessionEndUnanswered: a server that never answers the DELETE
// does not keep the wrapper from ending: the wait is bounded by Grace, as a
// child's exit is.
func TestHTTPSessionEndUnanswered(t *testing.T) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return pushServer() }, nil)
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(release) })
	var logged strings.Builder
	var mu sync.Mutex
	srv := HTTP(HTTPOptions{URL: ts.URL, Grace: 10 * time.Millisecond})
	conn, err := srv.Start(t.Context(), func(format string, args ...any) {
		mu.Lock()
		fmt.Fprintf(&logged, format+"\n", args...)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	write(t, conn, initLegacy)
	conn.Read()
	drain(t, conn)
	srv.Wait()
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logged.String(), "did not end the session") {
		t.Errorf("the log does not say the session may live on:\n%s", logged.String())
	}
}

// TestHTTPLegacyStreamDropped: under HTTP+SSE the stream is the session;
// when it breaks off, the request in flight, whose answer would have come
// on it, gets an error saying the session is lost, and the connection ends
// (the wrapper exits, so that the host starts it again) instead of waiting
// for ever on a session the server has forgotten.
func TestHTTPLegacyStreamDropped(t *testing.T) {
	s := mcpgoserver.NewMCPServer("sse-one", "1")
	started, release := make(chan struct{}), make(chan struct{})
	s.AddTool(mcpgomcp.NewTool("wait"), func(ctx context.Context, _ mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
		close(started)
		select { // mcp-go's SSE server does not end it when the client goes
		case <-ctx.Done():
		case <-release:
		}
		return nil, ctx.Err()
	})
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = mcpgoserver.NewSSEServer(s, mcpgoserver.WithBaseURL("http://"+ts.Listener.Addr().String()))
	ts.Start()
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(release) }) // before ts.Close
	conn, _, next := startHTTP(t, ts.URL+"/sse")
	write(t, conn, initLegacy)
	if got := next(); !strings.Contains(got, `"sse-one"`) {
		t.Fatalf("initialize reply = %s", got)
	}
	write(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(t, conn, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	<-started
	ts.CloseClientConnections()
	if got := next(); !strings.Contains(got, `"id":2`) || !strings.Contains(got, "no longer knows this session") {
		t.Fatalf("the call in flight was answered %s, want an error naming the lost session", got)
	}
	if _, err := conn.Read(); !errors.Is(err, ErrSessionLost) {
		t.Errorf("the connection ended with %v, want ErrSessionLost", err)
	}
}

// TestHTTPRefusedHostLines: a line of the host's the server will not take
// — not JSON, or a batch (2025-03-26 allowed them; go-sdk and mcp-go
// refuse them with 400) — gets the host what it would over stdio: the
// server's JSON-RPC error when its refusal carries one (mcp-go's), and for
// each request of a batch an answer saying it was refused (go-sdk's plain
// text), instead of silence while the host waits.
func TestHTTPRefusedHostLines(t *testing.T) {
	gosdk := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return pushServer() }, nil))
	t.Cleanup(gosdk.Close)
	mcpgo := httptest.NewServer(mcpgoserver.NewStreamableHTTPServer(mcpgoserver.NewMCPServer("mcpgo", "1")))
	t.Cleanup(mcpgo.Close)
	for _, c := range []struct{ name, url string }{{"gosdk", gosdk.URL}, {"mcpgo", mcpgo.URL + "/mcp"}} {
		t.Run(c.name, func(t *testing.T) {
			conn, _, next := startHTTP(t, c.url)
			write(t, conn, initLegacy)
			next()
			write(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			var errs []string
			for _, line := range []string{`{"jsonrpc":"2.0",`, `[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]`} {
				if err := conn.Write([]byte(line+"\n"), true); err != nil {
					errs = append(errs, err.Error())
				}
			}
			got := drain(t, conn)
			for _, e := range errs {
				if strings.Contains(e, `Post "`) || !strings.Contains(e, "the server answered 400 Bad Request") {
					t.Errorf("the log would say %q", e)
				}
			}
			if c.name == "mcpgo" {
				// mcp-go takes the batch for a line that is not JSON.
				if n := len(answersFor(t, got, "null")); n != 2 || len(errs) != 0 {
					t.Errorf("mcp-go's two parse errors did not reach the host: %q", got)
				}
				return
			}
			for _, id := range []string{"5", "6"} {
				if a := answersFor(t, got, id); len(a) != 1 || !strings.Contains(a[0], "batching is not supported") {
					t.Errorf("batch request %s answered %q (all: %q)", id, a, got)
				}
			}
		})
	}
}

// TestHTTPAnswerUndelivered: when the relay's answer to the server (an
// elicitation's result) cannot be sent, the log says so in a sentence,
// not in net/http's chain ("Post \"…\": dial tcp …: connect: …").
func TestHTTPAnswerUndelivered(t *testing.T) {
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return pushServer() }, nil))
	t.Cleanup(ts.Close)
	conn, _, next := startHTTP(t, ts.URL)
	write(t, conn, initLegacy)
	next()
	// The server goes away: nothing listens, and the GET stream is cut.
	ts.Listener.Close()
	ts.CloseClientConnections()
	err := conn.Write([]byte(`{"jsonrpc":"2.0","id":"e1","result":{"action":"decline"}}`+"\n"), true)
	// A connection kept alive from before may be the one that was cut.
	said := map[string]bool{
		"sending the server a response: nothing is listening there (connection refused)":    true,
		"sending the server a response: the server closed the connection without answering": true,
		"sending the server a response: the connection was reset":                           true,
	}
	if err == nil || !said[err.Error()] {
		t.Errorf("Write = %v", err)
	}
	// History's Delivered says it in one sentence, without a second
	// "writing to the server:" in front.
	if err != nil {
		if got := serverWriteFailed(err); got != err.Error() {
			t.Errorf("serverWriteFailed = %q, want %q", got, err.Error())
		}
	}
}

// TestHTTPNotificationNeverAccepted: a server that never answers the POST
// of a notification does not hold up the host's next messages for ever:
// the POST gives up, saying why, and the next request goes out.
func TestHTTPNotificationNeverAccepted(t *testing.T) {
	release := make(chan struct{})
	url := hostile(t, func(w http.ResponseWriter, r *http.Request, m hostMessage) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"notifications/initialized"`)) {
			select { // never accepted
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		proxyTo(t, url, w, r, body)
	}))
	t.Cleanup(front.Close)
	t.Cleanup(func() { close(release) })
	srv := HTTP(HTTPOptions{URL: front.URL})
	srv.(*httpServer).postLimit = time.Millisecond
	conn, err := srv.Start(t.Context(), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseWrite(); srv.Wait() })
	write(t, conn, initLegacy)
	conn.Read()
	err = conn.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"), true)
	if err == nil || !strings.Contains(err.Error(), "sending the server a notifications/initialized: it did not take it within") {
		t.Errorf("Write = %v", err)
	}
	write(t, conn, listTools)
	if got, _ := conn.Read(); !strings.Contains(string(got), `"id":2`) {
		t.Errorf("the next request was answered %s", got)
	}
}

// proxyTo passes r (its body read) on to url and its answer back.
func proxyTo(t *testing.T, url string, w http.ResponseWriter, r *http.Request, body []byte) {
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, url, bytes.NewReader(body))
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// TestHTTPHostGoneCancelsCalls: when the host goes with a tool call still
// running, the server is told to cancel it before the session ends (a
// child process would be stopped; a remote server would go on working),
// and then the session ends: go-sdk answers the DELETE once its handlers
// have returned.
func TestHTTPHostGoneCancelsCalls(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	started, cancelled, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		close(started)
		select {
		case <-ctx.Done():
			close(cancelled)
		case <-release:
		}
		return nil, nil, ctx.Err()
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(release) }) // before ts.Close
	var mu sync.Mutex
	var logged strings.Builder
	srv := HTTP(HTTPOptions{URL: ts.URL})
	conn, err := srv.Start(t.Context(), func(format string, args ...any) {
		mu.Lock()
		fmt.Fprintf(&logged, format+"\n", args...)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	write(t, conn, initLegacy)
	conn.Read()
	write(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(t, conn, `{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	<-started
	drain(t, conn)
	srv.Wait()
	select {
	case <-cancelled:
	default:
		t.Error("the server's tool call was not cancelled when the host went")
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(logged.String(), "did not end the session") {
		t.Errorf("the session did not end:\n%s", logged.String())
	}
}

// TestHTTPOnlyEndpointTapped: the tap reads messages only off the MCP
// endpoint (and, under HTTP+SSE, the message endpoint the server named),
// and off redirects of requests to them; authorization metadata or a token
// on the same origin, redirected or not, is not a message for the host.
func TestHTTPOnlyEndpointTapped(t *testing.T) {
	s := mcpgoserver.NewMCPServer("sse-one", "1")
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = mcpgoserver.NewSSEServer(s, mcpgoserver.WithBaseURL("http://"+ts.Listener.Addr().String()))
	ts.Start()
	t.Cleanup(ts.Close)
	conn, srv, next := startHTTP(t, ts.URL+"/sse")
	write(t, conn, initLegacy)
	next() // fell back to HTTP+SSE: the message endpoint is known
	h := srv.(*httpServer)
	get := func(path, from string) *http.Request {
		req := httptest.NewRequest(http.MethodGet, ts.URL+path, nil)
		if from != "" { // redirected from there
			req.Response = &http.Response{Request: httptest.NewRequest(http.MethodGet, ts.URL+from, nil)}
		}
		return req
	}
	msgPath := h.t.(interface{ GetEndpoint() *url.URL }).GetEndpoint().Path
	for _, c := range []struct {
		req  *http.Request
		want bool
	}{
		{get("/sse", ""), true},
		{get(msgPath, ""), true},
		{get("/sse/", "/sse"), true},
		{get("/.well-known/oauth-protected-resource", ""), false},
		{get("/token", ""), false},
		{get("/.well-known/oauth-authorization-server/", "/.well-known/oauth-authorization-server"), false},
	} {
		if got := h.isEndpoint(c.req); got != c.want {
			from := ""
			if c.req.Response != nil {
				from = " (redirected from " + c.req.Response.Request.URL.Path + ")"
			}
			t.Errorf("isEndpoint(%s%s) = %v, want %v", c.req.URL.Path, from, got, c.want)
		}
	}
}
