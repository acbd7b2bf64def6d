package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpRelay runs the relay between a host (pipes) and the remote server at
// url, with approver deciding.
func httpRelay(t *testing.T, url string, approver Approver) (send func(string), get func() string) {
	t.Helper()
	return httpRelayWith(t, url, &Options{Server: "remote", Approver: approver, Log: &syncBuffer{}})
}

// httpRelayWith is httpRelay with the relay's options.
func httpRelayWith(t *testing.T, url string, opts *Options) (send func(string), get func() string) {
	t.Helper()
	hostR, hostW := io.Pipe()
	outR, outW := io.Pipe()
	r := NewRelay(HTTP(HTTPOptions{URL: url}), opts)
	done := make(chan struct{})
	go func() {
		r.Run(context.Background(), hostR, outW)
		outW.Close()
		close(done)
	}()
	t.Cleanup(func() {
		hostW.Close()
		go io.Copy(io.Discard, outR) // what the host is sent while the relay ends
		<-done
	})
	out := bufio.NewReader(outR)
	send = func(line string) {
		t.Helper()
		if _, err := io.WriteString(hostW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	get = func() string { t.Helper(); return readLine(t, out, "host") }
	return send, get
}

// TestHTTPServerGivesUpOnItsElicitation: a go-sdk tool that gives up on its
// elicitation and returns: go-sdk's notifications/cancelled goes out after
// the tool's stream has closed, and is lost. The elicitation belonged to
// the call (it came on the call's stream), so once the call is answered
// its prompt closes all the same, and nothing is answered for it.
func TestHTTPServerGivesUpOnItsElicitation(t *testing.T) {
	asked := make(chan context.CancelFunc, 1)
	s := mcp.NewServer(&mcp.Implementation{Name: "gives-up", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		ectx, cancel := context.WithCancel(ctx)
		asked <- cancel
		_, err := req.Session.Elicit(ectx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "gave up: " + err.Error()}}}, nil, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	closed := make(chan struct{})
	approver := ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		(<-asked)() // the server gives up while the prompt is open
		<-ctx.Done()
		close(closed)
		return &Result{Action: "accept", Content: map[string]any{"name": "too late"}}, nil
	})
	send, get := httpRelay(t, ts.URL, approver)
	send(initLegacy)
	get()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	if res := get(); !strings.Contains(res, `"id":3`) || !strings.Contains(res, "gave up: context canceled") {
		t.Fatalf("tool result = %s", res)
	}
	<-closed
	// The host hears of nothing more: its next request's answer is next.
	send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	if got := get(); !strings.Contains(got, `"id":4`) {
		t.Errorf("the host got %s, want the ping's answer", got)
	}
}

// TestHTTPDeliveryTold (issue 25): the answer to a remote server's
// elicitation is delivered once the server accepted its POST; a POST the
// server refuses is told as not delivered, with its status.
func TestHTTPDeliveryTold(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int    // what the server answers the answer's POST; 0 takes it
		want   string // in the error Delivered gets; "" nil
	}{
		{"accepted", 0, ""},
		{"refused", http.StatusServiceUnavailable, "503"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "asks", Version: "1"}, nil)
			stop := make(chan struct{})
			mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				ectx, cancel := context.WithCancel(ctx)
				defer cancel()
				go func() {
					select {
					case <-stop:
						cancel()
					case <-ectx.Done():
					}
				}()
				res, err := req.Session.Elicit(ectx, &mcp.ElicitParams{Message: "Go?", RequestedSchema: json.RawMessage(
					`{"type":"object","properties":{"go":{"type":"boolean"}}}`)})
				text := "no answer"
				if err == nil {
					text = res.Action
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
			})
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if env, err := scanEnvelope(bytes.TrimSpace(body)); err == nil && env.isResponse() && tt.status != 0 {
					http.Error(w, "busy", tt.status)
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			t.Cleanup(func() { close(stop) }) // before the server closes
			told := make(chan error, 1)
			send, get := httpRelayWith(t, ts.URL, &Options{Server: "remote", Log: &syncBuffer{},
				Approver: ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
					return &Result{Action: ActionAccept, Content: map[string]any{"go": true}}, nil
				}),
				Delivered: func(req *Request, err error) { told <- err },
			})
			send(initLegacy)
			get()
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
			err := <-told
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("an answer the server took was told not delivered: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("an answer the server refused with %d was told %v", tt.status, err)
			}
			if tt.want == "" {
				if res := get(); !strings.Contains(res, `"id":3`) || !strings.Contains(res, "accept") {
					t.Errorf("tool result = %s", res)
				}
			}
		})
	}
}

// TestHTTPServerGoneMidQuestion: a remote server that goes away while its
// elicitation is open ends the call with the relay's own error, and the
// window closes; history must not say the server cancelled (new-user
// session, issue 25): it says the server could not be reached, decided by
// no one (error).
func TestHTTPServerGoneMidQuestion(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "asks", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		_, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Go?", RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"go":{"type":"boolean"}}}`)})
		return nil, nil, err
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	asked := make(chan struct{})
	overruled := make(chan Result, 1)
	send, get := httpRelayWith(t, ts.URL, &Options{Server: "remote", Log: &syncBuffer{},
		Approver: ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
			close(asked)
			<-ctx.Done()
			return nil, context.Cause(ctx)
		}),
		Overruled: func(req *Request, sent Result) { overruled <- sent },
	})
	send(initLegacy)
	get()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	<-asked
	// The server goes away: nothing listens, and its streams are cut.
	ts.Listener.Close()
	ts.CloseClientConnections()
	if got := get(); !strings.Contains(got, `"id":2`) || !strings.Contains(got, "could not get an answer") {
		t.Fatalf("the host got %s, want the call's error", got)
	}
	sent := <-overruled
	if sent.DecidedBy != DecidedByError || sent.Reason != ErrServerUnreachable.Error() {
		t.Errorf("history keeps %s by %s (%q), want cancel by %s (%q)", sent.Action, sent.DecidedBy, sent.Reason, DecidedByError, ErrServerUnreachable)
	}
}
