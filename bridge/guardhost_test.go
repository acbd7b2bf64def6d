package bridge

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hostDecisions collects what Options.HostDecided is told.
type hostDecisions struct {
	mu    sync.Mutex
	list  []Result
	added chan struct{} // signalled when a record is told (startInHost's)
}

func (h *hostDecisions) add(req *Request, res Result) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if req.Mode != ModeToolCall || req.Tool != "echo" {
		res.Reason = "a record of something else: " + req.Mode + " " + req.Tool
	}
	h.list = append(h.list, res)
	if h.added != nil {
		select {
		case h.added <- struct{}{}:
		default: // signalled already
		}
	}
}

// await waits until n records were told: a cancelled call's record is
// told by its own goroutine, which may end after later calls were asked.
func (h *hostDecisions) await(t *testing.T, n int) {
	t.Helper()
	for {
		h.mu.Lock()
		told := len(h.list)
		h.mu.Unlock()
		if told >= n {
			return
		}
		select {
		case <-h.added:
		case <-time.After(10 * time.Second): // a safety net, not a timing
			t.Fatalf("history was told %v, want %d records", h.got(), n)
		}
	}
}

// got returns who decided each call told, and the action.
func (h *hostDecisions) got() [][2]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out [][2]string
	for _, r := range h.list {
		out = append(out, [2]string{r.Action, r.DecidedBy})
		if !strings.HasPrefix(r.Reason, "no desktop can show the prompt") || !strings.Contains(r.Reason, "asked in the host") {
			out = append(out, [2]string{"reason does not say why", r.Reason})
		}
	}
	return out
}

// startInHost starts a relay with no desktop and echo guarded, whose host
// declared the elicitation capability caps in its initialize.
func startInHost(t *testing.T, caps string, opts *Options) (*peer, *hostDecisions) {
	t.Helper()
	rec := &hostDecisions{added: make(chan struct{}, 1)}
	if opts == nil {
		opts = &Options{}
	}
	opts.Server, opts.Approver, opts.Guard, opts.HostDecided = "everything", noDesktop, []string{"echo"}, rec.add
	opts.NoDesktop = func(req *Request, forwarded bool, err error) {
		if req.Mode == ModeToolCall {
			t.Errorf("NoDesktop was told of a call asked in the host: history would keep it twice")
		}
	}
	p := startPeer(t, opts)
	p.hostSends(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"host","version":"1"}}}`)
	p.serverGets()
	p.serverSends(initReply)
	p.hostGets()
	p.listTools()
	return p, rec
}

// hostQuestion is the relay's elicitation/create as the host reads it.
type hostQuestion struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	} `json:"params"`
}

// hostAsked reads the relay's question from the host's side and checks
// that it says what the window would have said.
func (p *peer) hostAsked() hostQuestion {
	p.t.Helper()
	line := p.hostGets()
	var q hostQuestion
	if err := json.Unmarshal([]byte(line), &q); err != nil || q.Method != "elicitation/create" {
		p.t.Fatalf("host got %q (%v), want the relay's elicitation/create", line, err)
	}
	var id string
	if json.Unmarshal(q.ID, &id) != nil || !strings.HasPrefix(id, "elicitray-") {
		p.t.Errorf("the question's id is %s, want a string of the relay's own", q.ID)
	}
	if got := string(q.Params.RequestedSchema); got != `{"type":"object","properties":{}}` {
		p.t.Errorf("requestedSchema %s, want an object asking for nothing (the host's accept is the approval)", got)
	}
	msg := q.Params.Message
	configured, own := strings.Index(msg, `"everything"`), strings.Index(msg, `"mcp-servers/everything"`)
	if configured < 0 || own < configured {
		p.t.Errorf("the question does not name the configured server first, then what it calls itself:\n%s", msg)
	}
	for _, want := range []string{`tool "echo"`, "Echo Tool", "Echoes back the input", `message: "hello"`, "api_key: •••••• (hidden"} {
		if !strings.Contains(msg, want) {
			p.t.Errorf("the question lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "abc123") {
		p.t.Errorf("the question shows the secret argument:\n%s", msg)
	}
	return q
}

const inHostCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello","api_key":"abc123"}}}`

// TestGuardInHost (issue 14: no-desktop follows the rule of elicitations):
// with no desktop, a guarded call is asked in a host that declared form-mode
// elicitation. Its accept sends the call to the server as the host wrote
// it; decline, cancel and an error deny it with a tool error result saying
// so; the host's answer never reaches the server, and history is told once,
// decided in the host.
func TestGuardInHost(t *testing.T) {
	for _, tt := range []struct {
		name, caps, answer string
		denial             string // "" : the call runs
		decided            [2]string
	}{
		{"accept", `{"elicitation":{}}`, `"result":{"action":"accept","content":{}}`, "", [2]string{ActionAccept, DecidedByHost}},
		{"decline", `{"elicitation":{"form":{}}}`, `"result":{"action":"decline"}`,
			`The user denied the call of the tool \"echo\" when the host asked; it did not run.`, [2]string{ActionDecline, DecidedByHost}},
		{"cancel", `{"elicitation":{"form":{},"url":{}}}`, `"result":{"action":"cancel"}`,
			`Nobody approved the call of the tool \"echo\": the host's prompt was dismissed without an answer; it did not run.`, [2]string{ActionCancel, DecidedByHost}},
		{"error", `{"elicitation":{}}`, `"error":{"code":-32602,"message":"unsupported schema"}`,
			`Nobody approved the call of the tool \"echo\": the host could not ask for the approval (it answered error -32602: unsupported schema); it did not run.`, [2]string{ActionCancel, DecidedByError}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, rec := startInHost(t, tt.caps, nil)
			p.hostSends(inHostCall)
			q := p.hostAsked()
			// Held while the host asks: other messages flow, and the call
			// has not reached the server.
			p.serverNextIsPing(8)
			p.hostSends(`{"jsonrpc":"2.0","id":` + string(q.ID) + `,` + tt.answer + `}`)
			if tt.denial == "" {
				if got := p.serverGets(); got != inHostCall {
					t.Fatalf("server got %q, want the call as the host sent it", got)
				}
				reply := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Echo: hello"}]}}`
				p.serverSends(reply)
				if got := p.hostGets(); got != reply {
					t.Fatalf("host got %q, want the server's reply", got)
				}
			} else {
				jsonEq(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"`+tt.denial+`"}],"isError":true}}`, p.hostGets())
			}
			// Neither the host's answer nor a denied call reached the server.
			p.serverNextIsPing(9)
			// The host's replies to the server's own requests still reach
			// it, byte for byte.
			roots := `{"jsonrpc":"2.0","id":"r1","method":"roots/list"}`
			p.serverSends(roots)
			if got := p.hostGets(); got != roots {
				t.Fatalf("host got %q, want the server's roots/list", got)
			}
			answer := `{"result":{"roots":[]},"jsonrpc":"2.0","id":"r1"}`
			p.hostSends(answer)
			if got := p.serverGets(); got != answer {
				t.Fatalf("server got %q, want the host's answer to its request", got)
			}
			if diff := cmp.Diff([][2]string{tt.decided}, rec.got()); diff != "" {
				t.Errorf("history was told (-want +got):\n%s", diff)
			}
			if n := strings.Count(p.stderr.String(), "Guarded tool calls are asked in the host"); n != 1 {
				t.Errorf("the host's log says it %d times, want once:\n%s", n, p.stderr.String())
			}
		})
	}
}

// TestGuardInHostCancelled: the host cancels its call while its prompt is
// open: the relay withdraws its question (the host's prompt closes), the
// call gets no reply (PROTOCOL.md §7, as when the window is open) and the
// server hears of neither, not even of an answer the host sends late.
// History keeps it as cancelled by the host. A second call is asked again,
// and the host's log still says why only once.
func TestGuardInHostCancelled(t *testing.T) {
	p, rec := startInHost(t, `{"elicitation":{}}`, nil)
	p.hostSends(inHostCall)
	q := p.hostAsked()
	p.hostSends(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user pressed stop"}}`)
	var withdrawn struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if line := p.hostGets(); json.Unmarshal([]byte(line), &withdrawn) != nil || withdrawn.Method != "notifications/cancelled" || string(withdrawn.Params.RequestID) != string(q.ID) {
		t.Fatalf("host got %q, want notifications/cancelled for the relay's question %s", line, q.ID)
	}
	p.hostSends(`{"jsonrpc":"2.0","id":` + string(q.ID) + `,"result":{"action":"accept"}}`)
	p.serverNextIsPing(8)
	// The host's next line is the pong: the cancelled call got no reply.
	p.serverSends(`{"jsonrpc":"2.0","id":8,"result":{}}`)
	if got := p.hostGets(); got != `{"jsonrpc":"2.0","id":8,"result":{}}` {
		t.Fatalf("host got %q, want only the pong", got)
	}

	again := strings.Replace(inHostCall, `"id":7`, `"id":10`, 1)
	p.hostSends(again)
	q2 := p.hostAsked()
	if string(q2.ID) == string(q.ID) {
		t.Errorf("the second question reuses the id %s", q.ID)
	}
	p.hostSends(`{"jsonrpc":"2.0","id":` + string(q2.ID) + `,"result":{"action":"accept"}}`)
	if got := p.serverGets(); got != again {
		t.Fatalf("server got %q, want the second call", got)
	}
	rec.await(t, 2)
	// In either order: the cancelled call's goroutine may tell it last.
	want := [][2]string{{ActionAccept, DecidedByHost}, {ActionCancel, DecidedByHostCancelled}}
	got := rec.got()
	slices.SortFunc(got, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history was told (-want +got):\n%s", diff)
	}
	if n := strings.Count(p.stderr.String(), "Guarded tool calls are asked in the host"); n != 1 {
		t.Errorf("the host's log says it %d times, want once:\n%s", n, p.stderr.String())
	}
}

// TestGuardInHostTimeout: a host that never answers: after the configured
// prompt timeout the relay withdraws its question and denies the call, as
// nobody approved it in time; history says timeout.
func TestGuardInHostTimeout(t *testing.T) {
	p, rec := startInHost(t, `{"elicitation":{}}`, &Options{PromptTimeout: 1})
	p.hostSends(inHostCall)
	q := p.hostAsked()
	jsonEq(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+string(q.ID)+`,"reason":"nobody answered in time"}}`, p.hostGets())
	jsonEq(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Nobody approved the call of the tool \"echo\" in time when the host asked; it did not run."}],"isError":true}}`, p.hostGets())
	p.serverNextIsPing(8)
	if diff := cmp.Diff([][2]string{{ActionCancel, DecidedByTimeout}}, rec.got()); diff != "" {
		t.Errorf("history was told (-want +got):\n%s", diff)
	}
}

// TestGuardInHostNotDeclared: a host that declared no form-mode
// elicitation, or a 2026-07-28 call (no requests from the server's side
// carry a question there), is not asked: the call is denied as before,
// saying no desktop could show the window.
func TestGuardInHostNotDeclared(t *testing.T) {
	modern := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}`
	for _, tt := range []struct{ name, caps, call string }{
		{"no elicitation", `{}`, inHostCall},
		{"url mode only", `{"elicitation":{"url":{}}}`, inHostCall},
		{"2026-07-28 call", `{}`, modern},
	} {
		t.Run(tt.name, func(t *testing.T) {
			told := make(chan bool, 1)
			p := startPeer(t, &Options{Server: "everything", Approver: noDesktop, Guard: []string{"echo"},
				HostDecided: func(*Request, Result) { t.Errorf("HostDecided was told of a call the host was not asked about") },
				NoDesktop:   func(req *Request, forwarded bool, err error) { told <- forwarded }})
			p.hostSends(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + tt.caps + `,"clientInfo":{"name":"host","version":"1"}}}`)
			p.serverGets()
			p.serverSends(initReply)
			p.hostGets()
			p.hostSends(tt.call)
			jsonEq(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"elicitray did not run the tool \"echo\": it needs the user's approval, and no desktop could show the approval window."}],"isError":true}}`, p.hostGets())
			if forwarded := <-told; forwarded {
				t.Errorf("NoDesktop was told the call went to the host")
			}
			p.serverNextIsPing(8)
		})
	}
}
