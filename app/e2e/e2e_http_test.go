//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/bridge/httpfault"
)

// Remote servers through `elicitray wrap --url` (issue 11): the host talks
// stdio to the real wrapper binary, the wrapper talks HTTP to a real server,
// and the elicitations are answered in real windows.

// everythingHTTP starts the pinned server-everything in mode
// ("streamableHttp" or "sse") on a free port and returns its endpoint URL,
// once the server says it listens.
func everythingHTTP(t *testing.T, mode string) string {
	t.Helper()
	url, _, _ := everythingHTTPPort(t, mode)
	return url
}

// everythingHTTPPort is everythingHTTP, with the port it listens on and
// stop, which kills it (as a crash would) and waits for it to be gone.
func everythingHTTPPort(t *testing.T, mode string) (url string, stop func(), port int) {
	t.Helper()
	// A port free a moment ago may be another test's by the time the
	// server binds it: then it says nothing of listening, and exits, and
	// another port is tried.
	for range 5 {
		port = freePort(t)
		if url, stop, ok := startEverythingHTTP(t, mode, port); ok {
			return url, stop, port
		}
	}
	t.Fatalf("server-everything (%s) listened on none of five free ports", mode)
	return "", nil, 0
}

// freePort is a TCP port of 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// everythingHTTPOn is everythingHTTP on port; stop kills the server (as a
// crash would) and waits for it to be gone.
func everythingHTTPOn(t *testing.T, mode string, port int) (url string, stop func()) {
	t.Helper()
	url, stop, ok := startEverythingHTTP(t, mode, port)
	if !ok {
		t.Fatalf("server-everything (%s) did not listen on port %d", mode, port)
	}
	return url, stop
}

// startEverythingHTTP starts server-everything in mode on port, and
// reports whether it said it listens there (else it has ended: the port
// was taken).
func startEverythingHTTP(t *testing.T, mode string, port int) (url string, stop func(), listening bool) {
	t.Helper()
	server := everythingServer(t)
	cmd := exec.Command(nodeBin(t), server, mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	t.Cleanup(stop)
	// "Server is running on port N" (sse), "… listening on port N"
	// (streamableHttp); an error that names the port is not it.
	says := fmt.Sprintf("on port %d", port)
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			if !said && strings.HasSuffix(sc.Text(), says) {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
	}()
	listening = <-ready
	path := "/mcp"
	if mode == "sse" {
		path = "/sse"
	}
	return fmt.Sprintf("http://127.0.0.1:%d%s", port, path), stop, listening
}

// nodeBin is the node that runs server-everything: PATH's.
func nodeBin(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not installed: %v", err)
	}
	return p
}

// TestEndToEndHTTPEverything: server-everything in both HTTP modes, through
// the wrapper: a plain tool call, and an elicitation (a legacy push on the
// GET or POST stream) answered in a real window, the answer reaching the
// server and the history naming the configured server.
func TestEndToEndHTTPEverything(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"streamableHttp", "sse"} {
		t.Run(mode, func(t *testing.T) {
			url := everythingHTTP(t, mode)
			d := newParallelDesktop(t)
			cs := d.connectWrap(nil, "2025-11-25", []string{"--name", "remote", "--url", url})
			if got := cs.InitializeResult().ServerInfo.Name; !strings.Contains(got, "everything") {
				t.Errorf("serverInfo.name = %q, want server-everything's", got)
			}
			echo := d.result(d.callWith(cs, "echo", map[string]any{"message": "over " + mode}))
			if echo != "Echo: over "+mode {
				t.Errorf("echo said %q", echo)
			}

			call := d.call(cs, "trigger-elicitation-request")
			win, _ := d.window()
			if got, want := d.title(win), "elicitray — remote asks"; got != want {
				t.Errorf("window title %q, want %q", got, want)
			}
			d.typeInto(win, "Grace Hopper")
			d.answer(win, "Return")
			text := d.result(call)
			if diff := cmp.Diff(rawResult{Action: "accept", Content: everythingAccepted("Grace Hopper")}, parseRawResult(t, text)); diff != "" {
				t.Errorf("ElicitResult the server received mismatch (-want +got):\n%s", diff)
			}
			recs := d.history()
			if len(recs) != 1 || recs[0].Server != "remote" || recs[0].DecidedBy != "user" || recs[0].Action != "accept" {
				t.Errorf("history = %+v, want one accept by the user from remote", recs)
			}
			if mode == "sse" && !strings.Contains(d.wrapperLog(), "older HTTP+SSE transport") {
				t.Errorf("the wrapper did not say it fell back to HTTP+SSE:\n%s", d.wrapperLog())
			}
		})
	}
}

// sdkHTTPServers are the SDK interop servers (interop_test.go) served over
// Streamable HTTP in this process.
func sdkHTTPServers(t *testing.T) map[string]string {
	gosdk := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return interopGoSDKServer() }, nil))
	t.Cleanup(gosdk.Close)
	// go-sdk serves 2026-07-28 over HTTP only without sessions.
	stateless := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return interopGoSDKServer() },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(stateless.Close)
	mcpgo := httptest.NewServer(mcpgoserver.NewStreamableHTTPServer(interopMCPGoServer()))
	t.Cleanup(mcpgo.Close)
	return map[string]string{"gosdk": gosdk.URL, "gosdk/" + modernVersion: stateless.URL, "mcpgo": mcpgo.URL + "/mcp"}
}

// TestEndToEndHTTPSDKs: go-sdk's and mcp-go's Streamable HTTP servers at
// both protocol eras through the wrapper: a form (a legacy push at
// 2025-11-25, input_required at 2026-07-28, where the wrapper finishes the
// round trip itself) answered in a real window, and a URL-mode request
// whose consent window is cancelled.
func TestEndToEndHTTPSDKs(t *testing.T) {
	t.Parallel()
	servers := sdkHTTPServers(t)
	for _, sdk := range []string{"gosdk", "mcpgo"} {
		for _, version := range []string{"2025-11-25", modernVersion} {
			t.Run(sdk+"/"+version, func(t *testing.T) {
				d := newParallelDesktop(t)
				name := "remote-" + sdk
				url := servers[sdk]
				if u, ok := servers[sdk+"/"+version]; ok {
					url = u
				}
				cs := d.connectWrap(nil, version, []string{"--name", name, "--url", url})

				call := d.callWith(cs, "form", map[string]any{"cell": sdk + version})
				win, _ := d.window()
				if got, want := d.title(win), "elicitray — "+name+" asks"; got != want {
					t.Errorf("window title %q, want %q", got, want)
				}
				if sdk == "mcpgo" {
					// mcp-go sends the schema's properties in its map's
					// order: Count comes first, Name second.
					d.xdo("key", "--window", win, "Tab")
				}
				d.typeInto(win, "Ada")
				d.screenshot("http-" + sdk + "-" + version + ".png")
				d.answer(win, "Return")
				var got interopEcho
				if err := json.Unmarshal([]byte(d.result(call)), &got); err != nil {
					t.Fatal(err)
				}
				// The SDKs run the form's rounds as a push for a legacy host
				// and keep its requestState; a modern host's retry (the
				// wrapper's) echoes it byte for byte. The unticked box is false.
				want := interopEcho{Server: sdk, Tool: "form", ProtocolVersion: version, Action: "accept",
					Content: map[string]any{"name": "Ada", "ok": false}, RequestState: interopState}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("what the server received mismatch (-want +got):\n%s", diff)
				}

				call = d.callWith(cs, "url", map[string]any{"cell": sdk + version})
				win, _ = d.window()
				if got, want := d.title(win), "elicitray — "+name+" asks to open a link"; got != want {
					t.Errorf("window title %q, want %q", got, want)
				}
				d.answer(win, "Escape")
				got = interopEcho{}
				if err := json.Unmarshal([]byte(d.result(call)), &got); err != nil {
					t.Fatal(err)
				}
				if got.Action != "cancel" || got.Content != nil {
					t.Errorf("URL elicitation answered %+v, want cancel without content", got)
				}
				recs := d.history()
				if len(recs) != 2 || recs[0].Mode != "url" || recs[0].Action != "cancel" || recs[1].Action != "accept" {
					t.Errorf("history = %+v, want the form's accept and the link's cancel", recs)
				}
			})
		}
	}
}

// TestEndToEndHTTPServerRestarts: a server that restarts has forgotten the
// session; the host's next call gets an error saying so, and the wrapper
// exits (status 1) so that the host can start it again.
func TestEndToEndHTTPServerRestarts(t *testing.T) {
	var h atomic.Pointer[mcp.StreamableHTTPHandler]
	restart := func() {
		h.Store(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return interopGoSDKServer() }, nil))
	}
	restart()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.Load().ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	d := newParallelDesktop(t)
	cs := d.connectWrap(nil, "2025-11-25", []string{"--name", "restarts", "--url", ts.URL})
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	restart()
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "push", Arguments: map[string]any{"cell": "x"}})
	if err == nil || !strings.Contains(err.Error(), "no longer knows this session") {
		t.Fatalf("call after the restart: %v, want an error naming the lost session; the wrapper's log:\n%s", err, d.wrapperLog())
	}
	if err := cs.Wait(); err == nil {
		t.Log("session ended")
	}
	if log := d.wrapperLog(); !strings.Contains(log, "restart the server in your host") {
		t.Errorf("the wrapper's log does not tell the user what to do:\n%s", log)
	}
}

// TestEndToEndHTTPStreamResumed: the stream answering a tool call breaks
// off right after the server's elicitation/create, as a dropped connection
// would. The window still comes, the answer still reaches the server, and
// the wrapper resumes the stream with Last-Event-ID, on which the server's
// event store replays the tool's result.
func TestEndToEndHTTPStreamResumed(t *testing.T) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return interopGoSDKServer() },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})
	ts := httptest.NewServer(httpfault.CutFirstCall(h))
	t.Cleanup(ts.Close)
	d := newParallelDesktop(t)
	cs := d.connectWrap(nil, "2025-11-25", []string{"--name", "flaky", "--url", ts.URL})
	call := d.callWith(cs, "push", map[string]any{"cell": "resumed"})
	win, _ := d.window()
	d.typeInto(win, "Ada")
	d.answer(win, "Return")
	var got interopEcho
	if err := json.Unmarshal([]byte(d.result(call)), &got); err != nil {
		t.Fatal(err)
	}
	if got.Action != "accept" || got.Content["name"] != "Ada" {
		t.Errorf("the server received %+v, want the accept with name Ada", got)
	}
	if log := d.wrapperLog(); !strings.Contains(log, "broke off; resuming it from event") {
		t.Errorf("the wrapper's log does not say the stream was resumed:\n%s", log)
	}
}

// TestEndToEndHTTPHostCancels: the host gives up on a tool call while its
// window is open, over HTTP at both eras. The window closes, the history
// says the host cancelled, and the wrapper goes on serving the host.
func TestEndToEndHTTPHostCancels(t *testing.T) {
	t.Parallel()
	servers := sdkHTTPServers(t)
	for _, version := range []string{"2025-11-25", modernVersion} {
		t.Run(version, func(t *testing.T) {
			url := servers["gosdk"]
			if u, ok := servers["gosdk/"+version]; ok {
				url = u
			}
			d := newParallelDesktop(t)
			cs := d.connectWrap(nil, version, []string{"--name", "cancelled", "--url", url})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "form", Arguments: map[string]any{"cell": "c" + version}})
				done <- err
			}()
			win, _ := d.window()
			cancel()
			if err := <-done; err == nil {
				t.Error("the cancelled call returned a result")
			}
			d.closed(win)
			recs := d.history()
			if len(recs) != 1 || recs[0].Action != "cancel" || recs[0].DecidedBy != "host-cancelled" {
				t.Errorf("history = %+v, want one cancel decided by host-cancelled", recs)
			}
			if _, err := cs.ListTools(t.Context(), nil); err != nil {
				t.Errorf("after the cancel the wrapper no longer serves the host: %v", err)
			}
		})
	}
}

// TestEndToEndHTTPEverythingRestarts: server-everything (the TypeScript
// SDK, which answers a session it does not know with 400, not 404) is
// restarted under a wrapper; the next call gets the sentence about the
// lost session, and the wrapper exits so that the host can start it again.
func TestEndToEndHTTPEverythingRestarts(t *testing.T) {
	url, stop, port := everythingHTTPPort(t, "streamableHttp")
	d := newParallelDesktop(t)
	cs := d.connectWrap(nil, "2025-11-25", []string{"--name", "restarts", "--url", url})
	if got := d.result(d.callWith(cs, "echo", map[string]any{"message": "before"})); got != "Echo: before" {
		t.Fatalf("echo said %q", got)
	}
	stop()
	everythingHTTPOn(t, "streamableHttp", port)
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "after"}})
	if err == nil || !strings.Contains(err.Error(), "no longer knows this session") {
		t.Fatalf("call after the restart: %v, want an error naming the lost session%s", err, d.diagnostics())
	}
	cs.Wait() // the wrapper exits: the session ends
	if log := d.wrapperLog(); !strings.Contains(log, "restart the server in your host") {
		t.Errorf("the wrapper's log does not tell the user what to do:\n%s", log)
	}
}
