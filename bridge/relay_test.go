package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// peer is a relay between a test host and a real server process whose
// stdout the test writes and whose stdin the test reads (peerServer: on
// Unix `sh -c 'cat <&4 & exec cat >&3'`, fds 4 and 3 the test's pipes).
// Every read blocks until the relay delivers, so no test needs to sleep.
type peer struct {
	t      testing.TB
	toHost *bufio.Reader  // what the relay wrote to the host
	host   io.WriteCloser // the host's side: writes reach the relay
	gotSrv *bufio.Reader  // what the server received on stdin
	server io.WriteCloser // what the server writes on stdout
	stderr *syncBuffer
	done   chan runResult
}

type runResult struct {
	code int
	err  error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startPeer(t testing.TB, opts *Options) *peer {
	t.Helper()
	p, _, _ := newPeer(t, func(**Relay) *Options { return opts })
	return p
}

// newPeer is startPeer with the Relay and the server's command at hand
// (peerServer: the test writes the server's stdout and reads its stdin);
// opts is given where the Relay will be, for Options whose callbacks need
// it.
func newPeer(t testing.TB, opts func(r **Relay) *Options) (*peer, *Relay, *exec.Cmd) {
	t.Helper()
	cmd, recv, sendW, release, ended := peerServer(t)
	p := &peer{t: t, stderr: &syncBuffer{}, done: make(chan runResult, 1)}
	var r *Relay
	var o *Options
	if opts != nil {
		o = opts(&r)
	}
	if o == nil {
		o = &Options{}
	}
	if o.Log == nil {
		o.Log = p.stderr
	}
	// OS pipes, as a host gives them: the relay's fast path (tee and
	// splice on Linux) is the one these tests run.
	hostR, hostW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p.host, p.toHost = hostW, bufio.NewReaderSize(outR, 1<<20)
	p.gotSrv, p.server = bufio.NewReaderSize(recv, 1<<20), sendW
	r = NewRelay(Command(cmd, 200*time.Millisecond), o)
	go func() {
		code, err := r.Run(context.Background(), hostR, outW)
		outW.Close()
		ended()
		p.done <- runResult{code, err}
	}()
	t.Cleanup(func() {
		hostW.Close()
		sendW.Close()
		res := <-p.done
		if t.Failed() {
			t.Logf("the relay ended with %d, %v; its log:\n%s", res.code, res.err, p.stderr)
		}
		release()
		for _, f := range []*os.File{hostR, outR} {
			f.Close()
		}
	})
	return p, r, cmd
}

func (p *peer) hostSends(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.host, line+"\n"); err != nil {
		p.t.Fatalf("host write: %v", err)
	}
}

func (p *peer) serverSends(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.server, line+"\n"); err != nil {
		p.t.Fatalf("server write: %v", err)
	}
}

func readLine(t testing.TB, r *bufio.Reader, who string) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("%s: reading a line: %v (got %q)", who, err, line)
	}
	return strings.TrimSuffix(line, "\n")
}

func (p *peer) hostGets() string   { p.t.Helper(); return readLine(p.t, p.toHost, "host") }
func (p *peer) serverGets() string { p.t.Helper(); return readLine(p.t, p.gotSrv, "server") }

// jsonEq fails unless a and b are the same JSON value.
func jsonEq(t *testing.T, want, got string) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got is not JSON: %v: %q", err, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestBigLines: cases/big-line.md — a one-line tool result of 70 000 bytes,
// 10 MiB, 16 MiB and 64 MiB reaches the host byte for byte, both ways.
func TestBigLines(t *testing.T) {
	p := startPeer(t, nil)
	for _, size := range []int{70_000, 10 << 20, 16 << 20, 64 << 20} {
		line := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` +
			strings.Repeat("A", size) + `"}]}}`
		go p.serverSends(line)
		if got := p.hostGets(); got != line {
			t.Fatalf("%d-byte result: host got %d bytes, not the line sent", size, len(got))
		}
		go p.hostSends(line)
		if got := p.serverGets(); got != line {
			t.Fatalf("%d-byte message: server got %d bytes, not the line sent", size, len(got))
		}
	}
}

// TestOrderAndBytesKept: messages the relay does not intercept keep their
// order and their exact bytes (odd spacing, key order, escapes), and the
// server's stderr is passed through.
func TestOrderAndBytesKept(t *testing.T) {
	p := startPeer(t, nil)
	var lines []string
	for i := 0; i < 500; i++ {
		lines = append(lines, `{ "id" : `+itoa(i)+`, "jsonrpc":"2.0", "method":"tools/list" , "params":{"x":"\u00e9\n"} }`)
	}
	go func() {
		for _, l := range lines {
			p.serverSends(l)
		}
	}()
	go func() {
		for _, l := range lines {
			p.hostSends(l)
		}
	}()
	for i, want := range lines {
		if got := p.hostGets(); got != want {
			t.Fatalf("host message %d: got %q, want %q", i, got, want)
		}
		if got := p.serverGets(); got != want {
			t.Fatalf("server message %d: got %q, want %q", i, got, want)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestCapabilityMerge: cases/capability-merge.jsonl — a host that declares
// elicitation {url:{}} gets form added, and keeps url and roots.
func TestCapabilityMerge(t *testing.T) {
	for _, tt := range []struct {
		name, caps, want string
	}{
		{"url only", `{"roots":{"listChanged":true},"elicitation":{"url":{}}}`,
			`{"roots":{"listChanged":true},"elicitation":{"url":{},"form":{}}}`},
		{"none", `{}`, `{"elicitation":{"form":{},"url":{}}}`},
		{"2025-06-18 empty", `{"elicitation":{},"sampling":{}}`, `{"elicitation":{"form":{},"url":{}},"sampling":{}}`},
		{"host options kept", `{"elicitation":{"form":{"x":1}}}`, `{"elicitation":{"form":{"x":1},"url":{}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startPeer(t, nil)
			p.hostSends(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + tt.caps + `,"clientInfo":{"name":"some-host","version":"1.0"}}}`)
			jsonEq(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+tt.want+`,"clientInfo":{"name":"some-host","version":"1.0"}}}`, p.serverGets())
		})
	}
}

// TestBounce: cases/bounce.jsonl — the host's answer to the server's
// roots/list goes to the server only.
func TestBounce(t *testing.T) {
	p := startPeer(t, nil)
	p.serverSends(`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`)
	if got := p.hostGets(); got != `{"jsonrpc":"2.0","id":"s1","method":"roots/list"}` {
		t.Fatalf("host got %q", got)
	}
	p.hostSends(`{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}`)
	if got := p.serverGets(); got != `{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}` {
		t.Fatalf("server got %q", got)
	}
	// A ping after it is the next thing the host sees: no echo in between.
	p.serverSends(`{"jsonrpc":"2.0","id":"s2","method":"ping"}`)
	if got := p.hostGets(); got != `{"jsonrpc":"2.0","id":"s2","method":"ping"}` {
		t.Fatalf("host got %q, want the ping", got)
	}
}

const initReply = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"mcp-servers/everything","version":"2.0.0"}}}`

// initialize runs the handshake so that the relay knows serverInfo.
func (p *peer) initialize() {
	p.t.Helper()
	p.hostSends(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`)
	p.serverGets()
	p.serverSends(initReply)
	if got := p.hostGets(); got != initReply {
		p.t.Fatalf("initialize reply changed: %q", got)
	}
}

func readCase(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/cases/" + name)
	if err != nil {
		t.Fatal(err)
	}
	// Case files spread one message over several lines for reading; on the
	// wire it is one line (PROTOCOL.md §7).
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestLegacyElicitation: an elicitation/create is answered by the Approver
// and never reaches the host; the request names the server, what it calls
// itself and the tool in flight; the relay keeps flowing while the prompt
// is open; content is typed per the schema.
func TestLegacyElicitation(t *testing.T) {
	asked := make(chan *Request, 1)
	answer := make(chan *Result)
	p := startPeer(t, &Options{Server: "everything", Approver: ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		asked <- req
		return <-answer, nil
	})})
	p.initialize()
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"trigger-elicitation-request","arguments":{}}}`)
	p.serverGets()
	p.serverSends(readCase(t, "all-kinds.json"))
	req := <-asked
	if diff := cmp.Diff(&Request{
		Server: "everything", ServerInfo: ServerInfo{Name: "mcp-servers/everything", Version: "2.0.0"},
		Tool: "trigger-elicitation-request", Mode: "form", ProtocolVersion: "2025-11-25",
		Message: "Fill in your profile so the report can be personalised.",
	}, req, cmpIgnoreSchema); diff != "" {
		t.Errorf("request mismatch (-want +got):\n%s", diff)
	}
	// While the prompt is open, traffic flows both ways.
	p.serverSends(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	if got := p.hostGets(); !strings.Contains(got, "notifications/progress") {
		t.Fatalf("host got %q, want the progress notification", got)
	}
	p.hostSends(`{"jsonrpc":"2.0","id":"ping-1","method":"ping"}`)
	if got := p.serverGets(); !strings.Contains(got, "ping-1") {
		t.Fatalf("server got %q, want the ping", got)
	}
	// The hub decodes JSON: numbers arrive as float64, arrays as []any.
	answer <- &Result{Action: ActionAccept, DecidedBy: DecidedByUser, Content: map[string]any{
		"fullName": "Ada", "copies": float64(7), "budget": 12.5, "agree": false,
		"channels": []any{"Email", "Wiki"}, "tier": "tier-2",
	}}
	jsonEq(t, `{"jsonrpc":"2.0","id":3,"result":{"action":"accept","content":{"fullName":"Ada","copies":7,"budget":12.5,"agree":false,"channels":["Email","Wiki"],"tier":"tier-2"}}}`, p.serverGets())
}

// cmpIgnoreSchema compares Requests without their schema (checked on its
// own) and without the ID and Time each gets (checked by TestRequestIDs).
var cmpIgnoreSchema = cmp.FilterPath(func(p cmp.Path) bool {
	switch p.Last().String() {
	case ".RequestedSchema", ".ID", ".Time":
		return true
	}
	return false
}, cmp.Ignore())

// TestAnswers: decline and cancel carry no content; an Approver error and
// an answer that does not fit the schema become cancel, never a
// fabricated decline or accept.
func TestAnswers(t *testing.T) {
	for _, tt := range []struct {
		name string
		res  *Result
		err  error
		want string
	}{
		{"decline", &Result{Action: ActionDecline, Content: map[string]any{"scoops": 2}}, nil, `{"action":"decline"}`},
		{"cancel", &Result{Action: ActionCancel}, nil, `{"action":"cancel"}`},
		{"accept", &Result{Action: ActionAccept, Content: map[string]any{"scoops": float64(2)}}, nil, `{"action":"accept","content":{"scoops":2}}`},
		{"out of range", &Result{Action: ActionAccept, Content: map[string]any{"scoops": float64(4)}}, nil, `{"action":"cancel"}`},
		{"string for integer", &Result{Action: ActionAccept, Content: map[string]any{"scoops": "2"}}, nil, `{"action":"cancel"}`},
		{"missing required", &Result{Action: ActionAccept, Content: map[string]any{}}, nil, `{"action":"cancel"}`},
		{"approver error", nil, io.ErrUnexpectedEOF, `{"action":"cancel"}`},
		{"unknown action", &Result{Action: "maybe"}, nil, `{"action":"cancel"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startPeer(t, &Options{Approver: ApproverFunc(func(context.Context, *Request) (*Result, error) {
				return tt.res, tt.err
			})})
			p.serverSends(readCase(t, "integer-required.json"))
			jsonEq(t, `{"jsonrpc":"2.0","id":5,"result":`+tt.want+`}`, p.serverGets())
		})
	}
}

// TestServerCancels: cases/server-cancels.jsonl — the host gives up on the
// call: the prompt's context ends, the server hears of the host's
// cancellation and then gets cancel for its elicitation (PROTOCOL.md §5,
// §7); its own cancel notice that follows is answered by nothing more and
// does not reach the host (which never saw that id).
func TestServerCancels(t *testing.T) {
	asked := make(chan struct{})
	ended := make(chan error, 1)
	p := startPeer(t, &Options{Approver: ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		close(asked)
		<-ctx.Done()
		ended <- context.Cause(ctx)
		return &Result{Action: ActionAccept, Content: map[string]any{"target": "prod"}}, nil
	})})
	p.hostSends(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"configure","arguments":{}}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":{"message":"Choose the target","requestedSchema":{"type":"object","properties":{"target":{"type":"string","enum":["dev","prod"]}},"required":["target"]}}}`)
	<-asked
	p.hostSends(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"Request timed out"}}`)
	if got := p.serverGets(); !strings.Contains(got, `"requestId":5`) {
		t.Fatalf("server got %q, want the host's cancellation", got)
	}
	// The host gave up on the call: its window closes at once, and the
	// server's request is answered cancel, not the Approver's late accept.
	if err := <-ended; !errors.Is(err, ErrHostCancelled) {
		t.Fatalf("prompt ended with %v, want ErrHostCancelled", err)
	}
	jsonEq(t, `{"jsonrpc":"2.0","id":"e-1","result":{"action":"cancel"}}`, p.serverGets())
	p.serverSends(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"e-1","reason":"parent request cancelled"}}`)
	// Next on both streams is the marker, not an answer or the cancel notice.
	p.serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"marker"}}`)
	if got := p.hostGets(); !strings.Contains(got, "marker") {
		t.Fatalf("host got %q before the marker", got)
	}
	p.hostSends(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	if got := p.serverGets(); !strings.Contains(got, `"id":6`) {
		t.Fatalf("server got %q, want the ping (no second answer for e-1)", got)
	}
}

// TestServerWithdrawsFirst: when the server cancels its elicitation before
// the host cancels the call, nothing is written for it, then or later.
func TestServerWithdrawsFirst(t *testing.T) {
	ended := make(chan error, 1)
	p := startPeer(t, &Options{Approver: ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		<-ctx.Done()
		ended <- context.Cause(ctx)
		return nil, ctx.Err()
	})})
	p.hostSends(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"configure","arguments":{}}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`)
	p.serverSends(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"e-1"}}`)
	if err := <-ended; !errors.Is(err, ErrServerCancelled) {
		t.Fatalf("prompt ended with %v, want ErrServerCancelled", err)
	}
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`
	p.hostSends(cancel)
	if got := p.serverGets(); got != cancel {
		t.Fatalf("server got %q, want the host's notice", got)
	}
	p.serverMarker() // and no answer for e-1
	p.marker()
}

// TestUnrenderableSchema: cases/nested.json — -32602 naming the property,
// the Rejected hook hears of it (history), and the relay goes on.
func TestUnrenderableSchema(t *testing.T) {
	rejected := make(chan error, 1)
	p := startPeer(t, &Options{
		Approver: ApproverFunc(func(context.Context, *Request) (*Result, error) {
			t.Error("the Approver was asked about an unrenderable schema")
			return nil, io.EOF
		}),
		Rejected: func(req *Request, err error) { rejected <- err },
	})
	p.serverSends(readCase(t, "nested.json"))
	var resp struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(p.serverGets()), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.ID != 8 || resp.Error.Code != -32602 || !strings.Contains(resp.Error.Message, `"address"`) {
		t.Errorf("got %+v, want -32602 for id 8 naming \"address\"", resp)
	}
	if err := <-rejected; !strings.Contains(err.Error(), "address") {
		t.Errorf("Rejected got %v", err)
	}
	p.serverSends(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if got := p.hostGets(); !strings.Contains(got, `"id":9`) {
		t.Fatalf("relay stopped: host got %q", got)
	}
}

// TestNoApprover: without an Approver nobody can answer: cancel.
func TestNoApprover(t *testing.T) {
	p := startPeer(t, nil)
	p.serverSends(readCase(t, "bool-false-default.json"))
	jsonEq(t, `{"jsonrpc":"2.0","id":4,"result":{"action":"cancel"}}`, p.serverGets())
}

// TestFlushBeforeInterceptedLine: a message the server writes in the same
// burst as an elicitation reaches the host at once, not when the server
// next writes (DESIGN.md: every message reaches the other side).
func TestFlushBeforeInterceptedLine(t *testing.T) {
	asked := make(chan struct{})
	p := startPeer(t, &Options{Approver: ApproverFunc(func(ctx context.Context, _ *Request) (*Result, error) {
		close(asked)
		<-ctx.Done()
		return nil, ctx.Err()
	})})
	progress := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`
	p.serverSends(progress + "\n" + readCase(t, "integer-required.json"))
	<-asked
	if got := p.hostGets(); got != progress {
		t.Fatalf("host got %q, want the progress notification", got)
	}
}

// TestBadElicitationIDs: a duplicate id while the first is pending, and ids
// that are neither strings nor integers, get -32600; the first prompt is
// unharmed.
func TestBadElicitationIDs(t *testing.T) {
	answer := make(chan *Result, 1)
	p := startPeer(t, &Options{Approver: ApproverFunc(func(ctx context.Context, _ *Request) (*Result, error) {
		return <-answer, nil
	})})
	req := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`
	}
	p.serverSends(req(`"d"`))
	for _, tt := range []struct{ id, wantID string }{{`"d"`, `"d"`}, {`{"o":1}`, `null`}, {`1.5`, `null`}, {`true`, `null`}} {
		p.serverSends(req(tt.id))
		var resp struct {
			ID    json.RawMessage
			Error struct{ Code int }
		}
		if err := json.Unmarshal([]byte(p.serverGets()), &resp); err != nil {
			t.Fatal(err)
		}
		if string(resp.ID) != tt.wantID || resp.Error.Code != -32600 {
			t.Errorf("id %s: got id %s code %d, want id %s and -32600", tt.id, resp.ID, resp.Error.Code, tt.wantID)
		}
	}
	answer <- &Result{Action: ActionDecline}
	jsonEq(t, `{"jsonrpc":"2.0","id":"d","result":{"action":"decline"}}`, p.serverGets())
}

// TestRejectionsInOrder: refused elicitations reach history in the order
// the server sent them.
func TestRejectionsInOrder(t *testing.T) {
	got := make(chan string, 20)
	p := startPeer(t, &Options{Rejected: func(req *Request, err error) { got <- req.Message }})
	for i := 0; i < 20; i++ {
		p.serverSends(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"elicitation/create","params":{"message":"` + itoa(i) + `","requestedSchema":{"type":"object","properties":{"a":{"type":"object"}}}}}`)
	}
	for i := 0; i < 20; i++ {
		p.serverGets()
		if m := <-got; m != itoa(i) {
			t.Fatalf("rejection %d recorded as %s", i, m)
		}
	}
}

// TestMalformedPeers: a line with something after its message is no
// message: one that names a method is dropped, its request answered
// -32600 (oneline.go: some hosts read a request in such a line, and the
// server must not wait for one that never heard of it); an elicitation
// without usable params gets
// -32602 and is recorded; an initialize whose params are no object is left
// as the host wrote it, and a rewritten one keeps "<>&" as written.
func TestMalformedPeers(t *testing.T) {
	rejected := make(chan string, 4)
	p := startPeer(t, &Options{Rejected: func(req *Request, err error) { rejected <- err.Error() }})

	garbage := `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m"}} GARBAGE`
	p.serverSends(garbage)
	var refused struct {
		ID    json.RawMessage
		Error struct{ Code int }
	}
	if got := p.serverGets(); json.Unmarshal([]byte(got), &refused) != nil || string(refused.ID) != "1" || refused.Error.Code != -32600 {
		t.Errorf("server got %q, want -32600 for id 1", got)
	}
	for _, params := range []string{``, `,"params":null`, `,"params":[1]`, `,"params":"x"`} {
		p.serverSends(`{"jsonrpc":"2.0","id":2,"method":"elicitation/create"` + params + `}`)
		var resp struct{ Error struct{ Code int } }
		if err := json.Unmarshal([]byte(p.serverGets()), &resp); err != nil || resp.Error.Code != -32602 {
			t.Errorf("params %q: got code %d (%v), want -32602", params, resp.Error.Code, err)
		}
		if msg := <-rejected; !strings.Contains(msg, "needs params") {
			t.Errorf("params %q: recorded %q", params, msg)
		}
	}
	arrayInit := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":[1,2]}`
	p.hostSends(arrayInit)
	if got := p.serverGets(); got != arrayInit {
		t.Errorf("server got %q, want the odd initialize untouched", got)
	}
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"<a & b>"}}}`)
	if got := p.serverGets(); !strings.Contains(got, `"name":"<a & b>"`) {
		t.Errorf("server got %q: the host's text was re-escaped", got)
	}
}

// TestURLMode: cases/url-mode.jsonl — a URL elicitation reaches the
// Approver (never fetched here) and accept is sent without content; its
// completion notice is not forwarded to a host that never saw the id; a
// completion while the window waits closes it with cancel; a link that is
// not https or http is refused with -32602.
func TestURLMode(t *testing.T) {
	asked := make(chan *Request, 2)
	answers := make(chan *Result, 2)
	p := startPeer(t, &Options{Approver: ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		asked <- req
		select {
		case res := <-answers:
			return res, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})})
	lines := strings.Split(strings.TrimSpace(string(mustRead(t, "../testdata/cases/url-mode.jsonl"))), "\n")
	var msgs []string
	for _, l := range lines {
		var c struct{ Msg json.RawMessage }
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, string(c.Msg))
	}
	p.serverSends(msgs[0])
	req := <-asked
	if req.Mode != "url" || req.URL != "https://auth.example.com/connect?session=7f1c2a90" || req.ElicitationID == "" {
		t.Fatalf("request %+v", req)
	}
	answers <- &Result{Action: ActionAccept, Content: map[string]any{"ignored": true}}
	jsonEq(t, `{"jsonrpc":"2.0","id":9,"result":{"action":"accept"}}`, p.serverGets())
	p.serverSends(msgs[1]) // the completion: the host never saw that id
	p.serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"marker"}}`)
	if got := p.hostGets(); !strings.Contains(got, "marker") {
		t.Fatalf("host got %q, want the marker (completion not forwarded)", got)
	}

	// The completion comes while the window still waits: it closes, cancel.
	p.serverSends(strings.Replace(msgs[0], `"id":9`, `"id":10`, 1))
	<-asked
	p.serverSends(msgs[1])
	jsonEq(t, `{"jsonrpc":"2.0","id":10,"result":{"action":"cancel"}}`, p.serverGets())

	for _, u := range []string{"javascript:alert(1)", "file:///etc/passwd"} {
		p.serverSends(`{"jsonrpc":"2.0","id":11,"method":"elicitation/create","params":{"mode":"url","elicitationId":"x","url":"` + u + `","message":"m"}}`)
		var resp struct{ Error struct{ Code int } }
		if err := json.Unmarshal([]byte(p.serverGets()), &resp); err != nil || resp.Error.Code != -32602 {
			t.Errorf("%s: got code %d, want -32602", u, resp.Error.Code)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInitializeBytesKept: the capability is spliced into the host's
// initialize; spacing, member order, escapes and "<&>" stay as written,
// and params that are not an object are left alone.
func TestInitializeBytesKept(t *testing.T) {
	p := startPeer(t, nil)
	in := `{ "id":0, "jsonrpc":"2.0","method":"initialize","params":{"clientInfo":{"name":"a<&>b \u00e9","version":"1"}, "capabilities" : {"roots":{}} ,"protocolVersion":"2025-11-25"}}`
	want := `{ "id":0, "jsonrpc":"2.0","method":"initialize","params":{"clientInfo":{"name":"a<&>b \u00e9","version":"1"}, "capabilities" : {"roots":{},"elicitation":{"form":{},"url":{}}} ,"protocolVersion":"2025-11-25"}}`
	p.hostSends(in)
	if got := p.serverGets(); got != want {
		t.Errorf("server got\n%s\nwant\n%s", got, want)
	}
	odd := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":[1,2]}`
	p.hostSends(odd)
	if got := p.serverGets(); got != odd {
		t.Errorf("params that are not an object changed: %s", got)
	}
}

// TestRejectionFloodAllRecorded: a server that sends thousands of
// elicitations elicitray cannot show gets every one answered -32602, and
// every one is handed to Rejected before its answer is written (one record
// per elicitation, durable before its answer leaves); a queue of 64 used
// to drop most of them.
func TestRejectionFloodAllRecorded(t *testing.T) {
	const n = 3000
	var mu sync.Mutex
	got := map[string]bool{}
	p := startPeer(t, &Options{Rejected: func(req *Request, err error) {
		mu.Lock()
		got[req.Message] = true
		mu.Unlock()
	}})
	go func() {
		for i := range n {
			p.serverSends(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"elicitation/create","params":{"message":"` + itoa(i) + `","requestedSchema":{"type":"object","properties":{"a":{"type":"object"}}}}}`)
		}
	}()
	for i := range n {
		reply := p.serverGets()
		mu.Lock()
		recorded := got[itoa(i)]
		mu.Unlock()
		if !recorded || !strings.Contains(reply, `"code":-32602`) {
			t.Fatalf("reply %d %s, recorded before it: %v", i, reply, recorded)
		}
	}
}
