package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// modernMeta is the _meta of a 2026-07-28 request from a host that
// declared nothing itself.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// mergedMeta is modernMeta as the server must receive it (PROTOCOL.md §3).
const mergedMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}}`

const nameSchema = `{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"]}`

// scripted is an Approver that reports each request and answers with what
// the test sends.
type scripted struct {
	asked  chan *Request
	answer chan *Result
	ctxs   chan context.Context
}

func newScripted() *scripted {
	return &scripted{asked: make(chan *Request, 16), answer: make(chan *Result, 16), ctxs: make(chan context.Context, 16)}
}

func (s *scripted) Approve(ctx context.Context, req *Request) (*Result, error) {
	s.ctxs <- ctx
	s.asked <- req
	select {
	case res := <-s.answer:
		return res, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// retryOf checks that the server received the relay's retry of want (a
// request line without id), and returns the retry's id.
func retryOf(t *testing.T, got, wantWithoutID string) string {
	t.Helper()
	var msg map[string]any
	if err := json.Unmarshal([]byte(got), &msg); err != nil {
		t.Fatalf("retry is not JSON: %q", got)
	}
	id, ok := msg["id"].(string)
	if !ok || !strings.HasPrefix(id, "elicitray-") {
		t.Fatalf("retry id %v: want a string id of the relay's own (PROTOCOL.md §7)", msg["id"])
	}
	delete(msg, "id")
	var want map[string]any
	if err := json.Unmarshal([]byte(wantWithoutID), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, msg); diff != "" {
		t.Fatalf("retry mismatch (-want +got):\n%s", diff)
	}
	return id
}

// marker proves that nothing else reached the host before it.
func (p *peer) marker() {
	p.t.Helper()
	p.serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"marker"}}`)
	if got := p.hostGets(); !strings.Contains(got, `"marker"`) {
		p.t.Fatalf("host got %q, want nothing before the marker", got)
	}
}

// serverMarker proves that nothing else reached the server before it.
func (p *peer) serverMarker() {
	p.t.Helper()
	p.hostSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"marker"}}`)
	if got := p.serverGets(); !strings.Contains(got, `"marker"`) {
		p.t.Fatalf("server got %q, want nothing before the marker", got)
	}
}

// TestMRTRServerInfo: a 2026-07-28 server names itself in its results'
// _meta, as there is no initialize; the prompt shows that name.
func TestMRTRServerInfo(t *testing.T) {
	s := newScripted()
	p := startPeer(t, &Options{Server: "demo", Approver: s})
	p.hostSends(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"elicitray-demo","title":"elicitray demo","version":"1.0.0"}},"inputRequests":{"ok":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy?","requestedSchema":{"type":"object","properties":{}}}}}}}`)
	req := <-s.asked
	if diff := cmp.Diff(ServerInfo{Name: "elicitray-demo", Title: "elicitray demo", Version: "1.0.0"}, req.ServerInfo); diff != "" {
		t.Errorf("serverInfo mismatch (-want +got):\n%s", diff)
	}
	s.answer <- &Result{Action: ActionCancel}
}

// TestMRTR: cases/mrtr.jsonl — the elicitation reaches the Approver with its
// input request key; the host gets exactly one reply for id 7, the
// final result, byte for byte but for the id; the server's retry carries
// inputResponses and the exact requestState under an id of the relay's.
func TestMRTR(t *testing.T) {
	s := newScripted()
	p := startPeer(t, &Options{Server: "github", Approver: s})
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_repo","arguments":{"org":"acme"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"host","version":"1.0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	p.hostSends(call)
	// PROTOCOL.md §3: the capability is merged in; every other byte stays.
	want := strings.Replace(call, `"io.modelcontextprotocol/clientCapabilities":{}`, `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}`, 1)
	if got := p.serverGets(); got != want {
		t.Fatalf("server got\n%s\nwant\n%s", got, want)
	}
	p.serverSends(`{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","inputRequests":{"repo":{"method":"elicitation/create","params":{"mode":"form","message":"Name for the new repository?","requestedSchema":` + nameSchema + `}}},"requestState":"c3RlcD0x.sig"}}`)
	req := <-s.asked
	if diff := cmp.Diff(&Request{Server: "github", Tool: "create_repo", InputKey: "repo", Step: 1, Steps: 1, Mode: "form", Message: "Name for the new repository?", ProtocolVersion: "2026-07-28"}, req, cmpIgnoreSchema); diff != "" {
		t.Errorf("request mismatch (-want +got):\n%s", diff)
	}
	s.answer <- &Result{Action: ActionAccept, Content: map[string]any{"name": "widgets"}}
	retryID := retryOf(t, p.serverGets(), `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"create_repo","arguments":{"org":"acme"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"host","version":"1.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}},"inputResponses":{"repo":{"action":"accept","content":{"name":"widgets"}}},"requestState":"c3RlcD0x.sig"}}`)
	final := `{"jsonrpc":"2.0","id":` + strings.TrimSpace(mustJSON(retryID)) + `,"result":{"resultType":"complete","content":[{"type":"text","text":"Created acme/widgets"}]}}`
	p.serverSends(final)
	if got, want := p.hostGets(), `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"Created acme/widgets"}]}}`; got != want {
		t.Fatalf("host got\n%s\nwant\n%s", got, want)
	}
	p.marker()
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestMRTRRounds: prompts/get and resources/read loop too; several rounds
// each with several entries, asked in the order sent, each answered under
// its own key; requestState is echoed exactly as written each round.
func TestMRTRRounds(t *testing.T) {
	for _, tt := range []struct{ method, params, call string }{
		{"tools/call", `{"name":"deploy","arguments":{"env":"x"},` + modernMeta + `}`, "deploy"},
		{"prompts/get", `{"name":"code_review",` + modernMeta + `}`, "prompt code_review"},
		{"resources/read", `{"uri":"file:///a.txt",` + modernMeta + `}`, "resource file:///a.txt"},
	} {
		t.Run(tt.method, func(t *testing.T) {
			s := newScripted()
			p := startPeer(t, &Options{Server: "srv", Approver: s})
			p.hostSends(`{"jsonrpc":"2.0","id":"h1","method":"` + tt.method + `","params":` + tt.params + `}`)
			merged := p.serverGets()
			var sent struct {
				Params map[string]any `json:"params"`
			}
			if err := json.Unmarshal([]byte(merged), &sent); err != nil {
				t.Fatal(err)
			}
			id := `"h1"`
			for round, state := range []string{`{"step": 1, "sig":"a\u00e9"}`, `"r2"`} {
				entry := func(msg string) string {
					return `{"method":"elicitation/create","params":{"message":"` + msg + `","requestedSchema":` + nameSchema + `}}`
				}
				p.serverSends(`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{"zeta":` + entry("first") + `,"alpha":` + entry("second") + `},"requestState":` + state + `}}`)
				var answered time.Time
				for i, msg := range []string{"first", "second"} {
					req := <-s.asked
					if req.Message != msg || req.Tool != tt.call {
						t.Fatalf("round %d prompt %d: %q for %q, want %q for %q", round+1, i, req.Message, req.Tool, msg, tt.call)
					}
					// The second is asked when the first is answered, not
					// when the round came: the hub queues a question by
					// this time, and one that another server's prompt came
					// before must not jump ahead of it.
					if req.Time.Before(answered) {
						t.Errorf("round %d prompt %d is dated %v, before the prompt ahead of it was answered (%v)", round+1, i, req.Time, answered)
					}
					answered = time.Now()
					// The window says "Question 1 of 2": a round is one
					// question in parts.
					if req.Step != i+1 || req.Steps != 2 {
						t.Errorf("round %d prompt %d is step %d of %d, want %d of 2", round+1, i, req.Step, req.Steps, i+1)
					}
					s.answer <- &Result{Action: ActionAccept, Content: map[string]any{"name": msg}}
				}
				got := p.serverGets()
				if !strings.Contains(got, `"requestState":`+state+`}`) {
					t.Errorf("round %d: requestState not echoed byte for byte: %s", round+1, got)
				}
				want := map[string]any{"jsonrpc": "2.0", "method": tt.method, "params": map[string]any{}}
				for k, v := range sent.Params {
					want["params"].(map[string]any)[k] = v
				}
				var st any
				_ = json.Unmarshal([]byte(state), &st)
				want["params"].(map[string]any)["requestState"] = st
				want["params"].(map[string]any)["inputResponses"] = map[string]any{
					"zeta":  map[string]any{"action": "accept", "content": map[string]any{"name": "first"}},
					"alpha": map[string]any{"action": "accept", "content": map[string]any{"name": "second"}},
				}
				id = mustJSON(retryOf(t, got, mustJSON(want)))
			}
			p.serverSends(`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","messages":[]}}`)
			jsonEq(t, `{"jsonrpc":"2.0","id":"h1","result":{"resultType":"complete","messages":[]}}`, p.hostGets())
			p.marker()
		})
	}
}

// TestMRTRMaxRounds: a server that never stops asking is cut off after 10
// rounds (PROTOCOL.md §9) with an error to the host that says so.
func TestMRTRMaxRounds(t *testing.T) {
	p := startPeer(t, &Options{Approver: ApproverFunc(func(context.Context, *Request) (*Result, error) {
		return &Result{Action: ActionDecline}, nil
	})})
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"loop",` + modernMeta + `}}`)
	p.serverGets()
	id := "1"
	for round := 0; round <= maxRounds; round++ {
		p.serverSends(`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"again","requestedSchema":` + nameSchema + `}}}}}`)
		if round == maxRounds {
			break
		}
		var retry struct {
			ID     string `json:"id"`
			Params struct {
				InputResponses map[string]elicitResult `json:"inputResponses"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(p.serverGets()), &retry); err != nil || retry.Params.InputResponses["k"].Action != ActionDecline {
			t.Fatalf("round %d: retry %+v, %v", round+1, retry, err)
		}
		id = mustJSON(retry.ID)
	}
	var reply struct {
		ID    int      `json:"id"`
		Error rpcError `json:"error"`
	}
	if err := json.Unmarshal([]byte(p.hostGets()), &reply); err != nil {
		t.Fatal(err)
	}
	if reply.ID != 1 || reply.Error.Code != codeInternalError || !strings.Contains(reply.Error.Message, "10 rounds") {
		t.Fatalf("host got %+v, want an error for id 1 saying it stopped at 10 rounds", reply)
	}
	p.serverMarker() // no 11th retry
	p.marker()
}

// TestMRTRStateOnly: a result with a requestState and no inputRequests
// means "not yet": it is retried with that state and no inputResponses.
func TestMRTRStateOnly(t *testing.T) {
	p := startPeer(t, &Options{Approver: ApproverFunc(func(context.Context, *Request) (*Result, error) {
		t.Error("nobody must be asked")
		return nil, errors.New("unexpected")
	})})
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow",` + modernMeta + `}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"wait-1"}}`)
	id := retryOf(t, p.serverGets(), `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"slow",`+mergedMeta+`,"requestState":"wait-1"}}`)
	p.serverSends(`{"jsonrpc":"2.0","id":` + mustJSON(id) + `,"result":{"content":[]}}`)
	jsonEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, p.hostGets())
}

// TestMRTRHostCancels: the host's notifications/cancelled closes the call's
// window at once; and when it comes while the relay's retry is in flight,
// the server is told to cancel that retry too, and its late reply is
// dropped (PROTOCOL.md §7): the host never saw that id. A late reply to
// the host's own id passes, and opens no window.
func TestMRTRHostCancels(t *testing.T) {
	ask := `{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":` + nameSchema + `}}}}`
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"timeout"}}`

	t.Run("window open", func(t *testing.T) {
		s := newScripted()
		p := startPeer(t, &Options{Approver: s})
		p.hostSends(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
		p.serverGets()
		p.serverSends(`{"jsonrpc":"2.0","id":3,"result":` + ask + `}`)
		ctx := <-s.ctxs
		<-s.asked
		p.hostSends(cancel)
		if got := p.serverGets(); got != cancel {
			t.Fatalf("server got %q, want the host's notice", got)
		}
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), ErrHostCancelled) {
			t.Errorf("window closed with %v, want ErrHostCancelled", context.Cause(ctx))
		}
		p.serverMarker() // no retry
		p.marker()       // no reply
	})
	t.Run("retry in flight", func(t *testing.T) {
		s := newScripted()
		p := startPeer(t, &Options{Approver: s})
		p.hostSends(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
		p.serverGets()
		p.serverSends(`{"jsonrpc":"2.0","id":3,"result":` + ask + `}`)
		<-s.asked
		s.answer <- &Result{Action: ActionAccept, Content: map[string]any{"name": "x"}}
		var retry struct{ ID string }
		_ = json.Unmarshal([]byte(p.serverGets()), &retry)
		p.hostSends(cancel)
		// Two writers: either notice may come first.
		got := []string{p.serverGets(), p.serverGets()}
		want := []string{cancel, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + mustJSON(retry.ID) + `,"reason":"the host cancelled the request"}}`}
		slices.Sort(got)
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("server mismatch (-want +got):\n%s", diff)
		}
		p.serverSends(`{"jsonrpc":"2.0","id":` + mustJSON(retry.ID) + `,"result":{"content":[]}}`)
		p.marker() // the late reply was dropped
	})
	t.Run("before the first reply", func(t *testing.T) {
		s := newScripted()
		p := startPeer(t, &Options{Approver: s})
		p.hostSends(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
		p.serverGets()
		p.hostSends(cancel)
		p.serverGets()
		// The relay forgot the call with the host's cancel (issue 25: a
		// server may never answer it): a late reply passes as any reply
		// does, for the host to ignore (PROTOCOL.md §7), and opens nothing.
		late := `{"jsonrpc":"2.0","id":3,"result":` + ask + `}`
		p.serverSends(late)
		if got := p.hostGets(); got != late {
			t.Fatalf("host got %q, want the late reply as the server wrote it", got)
		}
		p.marker()
		select {
		case req := <-s.asked:
			t.Fatalf("a window opened for a cancelled call: %+v", req)
		default:
		}
	})
}

// TestMRTRHostOnlyRequests: a round that also asks for sampling (PROTOCOL.md
// §9) is forwarded to a host that declared sampling, with only that entry;
// the relay answers the elicitation itself and adds its answer to the
// host's retry. A host that did not declare it gets a clear error.
func TestMRTRHostOnlyRequests(t *testing.T) {
	round := `{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Go ahead?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}},"summary":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}},"requestState":"st-1"}`
	t.Run("declared", func(t *testing.T) {
		s := newScripted()
		p := startPeer(t, &Options{Approver: s})
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}`
		p.hostSends(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t",` + meta + `}}`)
		p.serverGets()
		p.serverSends(`{"jsonrpc":"2.0","id":7,"result":` + round + `}`)
		if req := <-s.asked; req.Message != "Go ahead?" {
			t.Fatalf("asked %q", req.Message)
		}
		s.answer <- &Result{Action: ActionAccept, Content: map[string]any{"ok": true}}
		jsonEq(t, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","inputRequests":{"summary":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}},"requestState":"st-1"}}`, p.hostGets())
		// The host answers sampling and retries on its own.
		p.hostSends(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"t",` + meta + `,"inputResponses":{"summary":{"role":"assistant","content":{"type":"text","text":"hi"}}},"requestState":"st-1"}}`)
		jsonEq(t, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{"form":{},"url":{}}}},"inputResponses":{"summary":{"role":"assistant","content":{"type":"text","text":"hi"}},"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"st-1"}}`, p.serverGets())
		p.serverSends(`{"jsonrpc":"2.0","id":8,"result":{"content":[]}}`)
		jsonEq(t, `{"jsonrpc":"2.0","id":8,"result":{"content":[]}}`, p.hostGets())
	})
	t.Run("not declared", func(t *testing.T) {
		p := startPeer(t, &Options{Approver: ApproverFunc(func(context.Context, *Request) (*Result, error) {
			t.Error("no window for a round that cannot be finished")
			return nil, errors.New("unexpected")
		})})
		p.hostSends(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
		p.serverGets()
		p.serverSends(`{"jsonrpc":"2.0","id":7,"result":` + round + `}`)
		var reply struct {
			ID    int      `json:"id"`
			Error rpcError `json:"error"`
		}
		_ = json.Unmarshal([]byte(p.hostGets()), &reply)
		if reply.ID != 7 || reply.Error.Code != codeInvalidParams || !strings.Contains(reply.Error.Message, "sampling/createMessage") {
			t.Fatalf("host got %+v, want -32602 naming sampling/createMessage", reply)
		}
	})
}

// TestMRTRUnrenderable: cases/nested.json as an input request — the host
// gets -32602 naming the property, history hears of it, the relay goes on.
func TestMRTRUnrenderable(t *testing.T) {
	rejected := make(chan error, 1)
	p := startPeer(t, &Options{Rejected: func(_ *Request, err error) { rejected <- err }})
	var nested struct {
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(readCase(t, "nested.json")), &nested); err != nil {
		t.Fatal(err)
	}
	p.hostSends(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"addr":{"method":"elicitation/create","params":` + string(nested.Params) + `}}}}`)
	var reply struct {
		ID    int      `json:"id"`
		Error rpcError `json:"error"`
	}
	_ = json.Unmarshal([]byte(p.hostGets()), &reply)
	if reply.ID != 2 || reply.Error.Code != codeInvalidParams || !strings.Contains(reply.Error.Message, `"address"`) {
		t.Fatalf("host got %+v, want -32602 naming \"address\"", reply)
	}
	if err := <-rejected; !strings.Contains(err.Error(), "address") {
		t.Errorf("recorded %v", err)
	}
	p.marker()
}

// TestURLRequired: a tools/call answered with -32042 (PROTOCOL.md §6) shows
// each URL elicitation of data.elicitations; when the user opens them all
// the call is retried once and the host gets that reply; otherwise it gets
// the server's error as sent.
func TestURLRequired(t *testing.T) {
	urlErr := `{"code":-32042,"message":"This request requires browser-based authorization.","data":{"elicitations":[{"mode":"url","url":"https://modelcontextprotocol.io","message":"Open this link","elicitationId":"e-9"}]}}`
	for _, tt := range []struct {
		action string
		retry  bool
	}{{ActionAccept, true}, {ActionDecline, false}, {ActionCancel, false}} {
		t.Run(tt.action, func(t *testing.T) {
			s := newScripted()
			p := startPeer(t, &Options{Server: "everything", Approver: s})
			p.initialize()
			call := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"trigger-url-elicitation","arguments":{"url":"https://example.com","errorPath":true}}}`
			p.hostSends(call)
			p.serverGets()
			p.serverSends(`{"jsonrpc":"2.0","id":4,"error":` + urlErr + `}`)
			req := <-s.asked
			if req.Mode != "url" || req.URL != "https://modelcontextprotocol.io" || req.Tool != "trigger-url-elicitation" {
				t.Fatalf("asked %+v", req)
			}
			s.answer <- &Result{Action: tt.action}
			if !tt.retry {
				if got, want := p.hostGets(), `{"jsonrpc":"2.0","id":4,"error":`+urlErr+`}`; got != want {
					t.Fatalf("host got %s, want the server's error", got)
				}
				p.serverMarker()
				return
			}
			id := retryOf(t, p.serverGets(), `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"trigger-url-elicitation","arguments":{"url":"https://example.com","errorPath":true}}}`)
			p.serverSends(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e-9"}}`)
			p.serverSends(`{"jsonrpc":"2.0","id":` + mustJSON(id) + `,"result":{"content":[{"type":"text","text":"done"}]}}`)
			if got, want := p.hostGets(), `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"done"}]}}`; got != want {
				t.Fatalf("host got %s, want the retry's result under id 4 (and not the completion notice)", got)
			}
		})
	}
}

// TestModernCapabilities: every modern request, server/discover included,
// declares elicitation form and url, keeping what the host declared, with
// every other byte as the host wrote it; legacy requests are untouched.
func TestModernCapabilities(t *testing.T) {
	p := startPeer(t, nil)
	for _, tt := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{},"elicitation":{"url":{}}}}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{},"elicitation":{"url":{},"form":{}}}}}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}}}}`},
		{`{"jsonrpc":"2.0","id":3, "method":"tools/call","params":{ "name":"t","arguments":{"html":"<b>&amp;</b>","n":1.50},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}}}}`,
			`{"jsonrpc":"2.0","id":3, "method":"tools/call","params":{ "name":"t","arguments":{"html":"<b>&amp;</b>","n":1.50},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}}}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"progressToken":1}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"progressToken":1}}}`},
	} {
		p.hostSends(tt.in)
		if got := p.serverGets(); got != tt.want {
			t.Errorf("sent %s\nserver got %s\nwant       %s", tt.in, got, tt.want)
		}
	}
}

// TestMRTRURLEntry: a 2026-07-28 URL elicitation (no elicitationId,
// PROTOCOL.md §6) gets the consent window; accept is answered as just that,
// and a link that is not https or http is refused with -32602.
func TestMRTRURLEntry(t *testing.T) {
	entry := func(id, url string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{"login":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"` + url + `"}}}}}`
	}
	s := newScripted()
	p := startPeer(t, &Options{Approver: s})
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
	p.serverGets()
	p.serverSends(entry("1", "https://auth.example.com/x"))
	if req := <-s.asked; req.Mode != "url" || req.URL != "https://auth.example.com/x" || req.ElicitationID != "" {
		t.Fatalf("asked %+v", req)
	}
	s.answer <- &Result{Action: ActionAccept}
	retryOf(t, p.serverGets(), `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t",`+mergedMeta+`,"inputResponses":{"login":{"action":"accept"}}}}`)

	p.hostSends(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
	p.serverGets()
	p.serverSends(entry("2", "javascript:alert(1)"))
	var reply struct {
		ID    int      `json:"id"`
		Error rpcError `json:"error"`
	}
	_ = json.Unmarshal([]byte(p.hostGets()), &reply)
	if reply.ID != 2 || reply.Error.Code != codeInvalidParams || !strings.Contains(reply.Error.Message, "javascript") {
		t.Fatalf("host got %+v, want -32602 about the javascript: link", reply)
	}
}
