package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The keep-alive (keepalive.go, PROTOCOL.md §10): while a prompt of a
// tools/call is open, the host gets notifications/progress for the call's
// progressToken, every Options.KeepAlive, its values always increasing
// together with the server's own; nothing for the token after the call's
// reply.

// progressOf decodes a notifications/progress line, failing on any other.
type progressNote struct {
	Method string `json:"method"`
	Params struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    *float64        `json:"total"`
		Message  string          `json:"message"`
	} `json:"params"`
}

func progressOf(t *testing.T, line string) progressNote {
	t.Helper()
	var n progressNote
	if err := json.Unmarshal([]byte(line), &n); err != nil || n.Method != "notifications/progress" {
		t.Fatalf("host got %q, want a notifications/progress", line)
	}
	return n
}

// answerablePrompts is an Approver whose prompts stay open until the test
// answers them (accept, no content), or the relay ends them.
type answerablePrompts struct {
	asked   chan struct{}
	answers chan *Result
	causes  chan error
}

func newAnswerablePrompts() *answerablePrompts {
	return &answerablePrompts{asked: make(chan struct{}, 4), answers: make(chan *Result, 4), causes: make(chan error, 4)}
}

func (a *answerablePrompts) Approve(ctx context.Context, req *Request) (*Result, error) {
	a.asked <- struct{}{}
	select {
	case r := <-a.answers:
		return r, nil
	case <-ctx.Done():
		a.causes <- context.Cause(ctx)
		return nil, context.Cause(ctx)
	}
}

const (
	keepAliveCall   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{},"_meta":{"progressToken":"tok-1"}}}`
	keepAliveElicit = `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Deploy?","requestedSchema":{"type":"object","properties":{}}}}`
)

func TestKeepAliveWhilePromptOpen(t *testing.T) {
	prompts := newAnswerablePrompts()
	p := startPeer(t, &Options{Approver: prompts, KeepAlive: time.Millisecond})
	p.initialize()
	p.hostSends(keepAliveCall)
	if got := p.serverGets(); !strings.Contains(got, `"progressToken":"tok-1"`) {
		t.Fatalf("server got %q, want the host's call as it was", got)
	}
	// The server's own progress before the prompt passes as it was.
	own := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-1","progress":3,"total":10}}`
	p.serverSends(own)
	if got := p.hostGets(); got != own {
		t.Fatalf("host got %q, want the server's progress unchanged %q", got, own)
	}
	p.serverSends(keepAliveElicit)
	<-prompts.asked

	last := 3.0
	for range 3 {
		n := progressOf(t, p.hostGets())
		if string(n.Params.Token) != `"tok-1"` || n.Params.Message != keepAliveMessage {
			t.Fatalf("keep-alive for token %s with message %q, want \"tok-1\" and %q", n.Params.Token, n.Params.Message, keepAliveMessage)
		}
		if n.Params.Progress <= last {
			t.Fatalf("keep-alive progress %v after %v: it must increase (PROTOCOL.md §10)", n.Params.Progress, last)
		}
		if n.Params.Total == nil || *n.Params.Total != 10 {
			t.Fatalf("keep-alive total %v, want the server's 10", n.Params.Total)
		}
		last = n.Params.Progress
	}
	// A server value the relay's own have passed is raised; one above
	// them passes as the server wrote it.
	p.serverSends(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-1","progress":3.0001}}`)
	for {
		n := progressOf(t, p.hostGets())
		if n.Params.Progress <= last {
			t.Fatalf("host got progress %v after %v: the server's 3.0001 was not raised", n.Params.Progress, last)
		}
		last = n.Params.Progress
		if n.Params.Message == "" { // the server's, raised
			break
		}
	}
	above := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-1","progress":7}}`
	p.serverSends(above)
	for {
		got := p.hostGets()
		if got == above {
			break
		}
		if n := progressOf(t, got); n.Params.Progress <= last || n.Params.Progress >= 7 {
			t.Fatalf("host got progress %v between %v and the server's 7", n.Params.Progress, last)
		}
	}

	// The answer closes the prompt; the call's reply ends the token:
	// nothing for it after the reply.
	prompts.answers <- &Result{Action: ActionAccept, Content: map[string]any{}}
	if got := p.serverGets(); !strings.Contains(got, `"id":"e1"`) || !strings.Contains(got, `"accept"`) {
		t.Fatalf("server got %q, want the accept for e1", got)
	}
	reply := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"deployed"}]}}`
	p.serverSends(reply)
	for {
		got := p.hostGets()
		if got == reply {
			break
		}
		if n := progressOf(t, got); n.Params.Progress <= 7 {
			t.Fatalf("host got progress %v after the server's 7", n.Params.Progress)
		}
	}
	// The server's own late progress is the server's to answer for: it
	// passes as it was, and the relay adds nothing after the reply.
	late := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-1","progress":1}}`
	p.serverSends(late)
	if got := p.hostGets(); got != late {
		t.Fatalf("host got %q after the reply, want the server's late progress as it was", got)
	}
	p.marker()
}

// TestKeepAliveEndsWithTheCall: when the call ends while its prompt is
// open (the host cancels it, or the server answers it), the ticks stop at
// once: the next line the host gets after the end is the marker.
// TestKeepAliveSeveralCallsInFlight: a push while two calls are in
// flight, each with its token, is tied to neither (stdio says nothing of
// which call asked): both hear the keep-alive while its prompt is open
// (issue 27: neither heard any in 11 s), and nothing after the answer.
func TestKeepAliveSeveralCallsInFlight(t *testing.T) {
	prompts := newAnswerablePrompts()
	p, r, _ := newPeer(t, func(**Relay) *Options { return &Options{Approver: prompts, KeepAlive: time.Millisecond} })
	p.initialize()
	p.hostSends(keepAliveCall)
	p.serverGets()
	p.hostSends(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"migrate","arguments":{},"_meta":{"progressToken":"tok-2"}}}`)
	p.serverGets()
	p.serverSends(keepAliveElicit)
	<-prompts.asked
	heard := map[string]bool{}
	for len(heard) < 2 {
		n := progressOf(t, p.hostGets())
		heard[string(n.Params.Token)] = true
	}
	if !heard[`"tok-1"`] || !heard[`"tok-2"`] {
		t.Fatalf("keep-alive for %v, want both calls' tokens", heard)
	}
	prompts.answers <- &Result{Action: ActionCancel}
	answer := p.serverGets()
	if !strings.Contains(answer, `"e1"`) {
		t.Fatalf("server got %q, want the answer to e1", answer)
	}
	// Ticks written before the answer may still be on their way; none
	// comes after the marker.
	p.serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"marker"}}`)
	for got := p.hostGets(); !strings.Contains(got, `"marker"`); got = p.hostGets() {
		progressOf(t, got)
	}
	r.keep.mu.Lock()
	defer r.keep.mu.Unlock()
	for _, tc := range r.keep.calls {
		if tc.prompts != 0 || tc.timer != nil {
			t.Errorf("call %s still has %d prompts open or its ticks running after the answer", tc.key, tc.prompts)
		}
	}
}

func TestKeepAliveEndsWithTheCall(t *testing.T) {
	for _, end := range []string{"host cancels", "server replies"} {
		t.Run(end, func(t *testing.T) {
			prompts := newAnswerablePrompts()
			p, r, _ := newPeer(t, func(**Relay) *Options { return &Options{Approver: prompts, KeepAlive: time.Millisecond} })
			p.initialize()
			p.hostSends(keepAliveCall)
			p.serverGets()
			p.serverSends(keepAliveElicit)
			<-prompts.asked
			progressOf(t, p.hostGets()) // ticking
			switch end {
			case "host cancels":
				p.hostSends(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"timeout"}}`)
				if got := p.serverGets(); !strings.Contains(got, "notifications/cancelled") {
					t.Fatalf("server got %q, want the host's cancel", got)
				}
				if cause := <-prompts.causes; cause != ErrHostCancelled {
					t.Fatalf("the prompt ended with %v, want ErrHostCancelled", cause)
				}
			case "server replies":
				reply := `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`
				p.serverSends(reply)
				for got := p.hostGets(); got != reply; got = p.hostGets() {
					progressOf(t, got)
				}
				if cause := <-prompts.causes; cause != ErrCallEnded {
					t.Fatalf("the prompt ended with %v, want ErrCallEnded", cause)
				}
			}
			if r.keep.any() {
				t.Fatal("the relay still follows the token after the call ended")
			}
			// end has returned (the prompt's cause is set after it), and
			// waited for a tick writing meanwhile: what the host gets
			// before the marker was written before the end. After a
			// reply, that is nothing.
			p.serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"marker"}}`)
			for got := p.hostGets(); !strings.Contains(got, `"marker"`); got = p.hostGets() {
				if end == "server replies" {
					t.Fatalf("host got %q after the call's reply", got)
				}
				progressOf(t, got)
			}
		})
	}
}

// TestKeepAliveOnlyWithAToken: a call without a progressToken, or a relay
// with KeepAlive zero, follows nothing: the server's progress keeps the
// fast path, and no prompt ticks.
func TestKeepAliveOnlyWithAToken(t *testing.T) {
	for _, c := range []struct {
		name  string
		every time.Duration
		call  string
	}{
		{"no token", time.Millisecond, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{}}}`},
		{"keep-alive off", 0, keepAliveCall},
		{"token not a string or number", time.Millisecond, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{},"_meta":{"progressToken":true}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, r, _ := newPeer(t, func(**Relay) *Options { return &Options{KeepAlive: c.every} })
			p.initialize()
			p.hostSends(c.call)
			p.serverGets()
			if r.keep.any() {
				t.Fatal("the relay follows a call it must not send progress for")
			}
			p.marker()
		})
	}
}

// TestKeepAliveModernRound: a 2026-07-28 call whose reply asked for input
// (PROTOCOL.md §1) keeps its host waiting too while the round's prompt is
// open; the final reply, which the relay writes under the host's id after
// its retry, is the last the host hears for the token.
func TestKeepAliveModernRound(t *testing.T) {
	s := newScripted()
	p := startPeer(t, &Options{Server: "github", Approver: s, KeepAlive: time.Millisecond})
	p.hostSends(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_repo","arguments":{},"_meta":{"progressToken":42,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","inputRequests":{"repo":{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":` + nameSchema + `}}}}}`)
	<-s.asked
	last := -1.0
	for range 3 {
		n := progressOf(t, p.hostGets())
		if string(n.Params.Token) != "42" || n.Params.Progress <= last {
			t.Fatalf("keep-alive for token %s, progress %v after %v: want token 42, increasing", n.Params.Token, n.Params.Progress, last)
		}
		last = n.Params.Progress
	}
	s.answer <- &Result{Action: ActionAccept, Content: map[string]any{"name": "widgets"}}
	var retryID string
	if err := json.Unmarshal([]byte(p.serverGets()), &struct {
		ID *string `json:"id"`
	}{&retryID}); err != nil || retryID == "" {
		t.Fatalf("no retry with an id of the relay's: %v", err)
	}
	p.serverSends(`{"jsonrpc":"2.0","id":"` + retryID + `","result":{"resultType":"complete","content":[]}}`)
	want := `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[]}}`
	for got := p.hostGets(); got != want; got = p.hostGets() {
		progressOf(t, got) // ticks from before the answer
	}
	p.marker()
}

// TestKeepAliveSetWhileRunning: a relay started with no keep-alive sends
// progress for a call's prompt once SetKeepAlive turned it on; turned off
// again, a prompt that opens then gets none: the call's reply is the
// host's next line.
func TestKeepAliveSetWhileRunning(t *testing.T) {
	prompts := newAnswerablePrompts()
	p, r, _ := newPeer(t, func(**Relay) *Options { return &Options{Approver: prompts} })
	p.initialize()
	r.SetKeepAlive(time.Millisecond)
	p.hostSends(keepAliveCall)
	p.serverGets()
	p.serverSends(keepAliveElicit)
	<-prompts.asked
	if n := progressOf(t, p.hostGets()); string(n.Params.Token) != `"tok-1"` || n.Params.Message != keepAliveMessage {
		t.Errorf("progress %+v, want the call's token and %q", n.Params, keepAliveMessage)
	}
	prompts.answers <- &Result{Action: ActionAccept}
	p.serverGets() // the ElicitResult
	reply := `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`
	p.serverSends(reply)
	for got := p.hostGets(); got != reply; got = p.hostGets() {
		progressOf(t, got) // ticks sent before the answer
	}

	p.hostSends(strings.ReplaceAll(strings.ReplaceAll(keepAliveCall, `"id":1`, `"id":2`), "tok-1", "tok-2"))
	p.serverGets()
	r.SetKeepAlive(0)
	p.serverSends(strings.ReplaceAll(keepAliveElicit, `"e1"`, `"e2"`))
	<-prompts.asked
	prompts.answers <- &Result{Action: ActionAccept}
	p.serverGets()
	reply = `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`
	p.serverSends(reply)
	if got := p.hostGets(); got != reply {
		t.Errorf("host got %q with the keep-alive turned off, want the call's reply", got)
	}
}

// TestKeepAliveAnyNumberToken: a progressToken may be any number (MCP's
// ProgressToken), not only an integer as ids are: calls with 1.5 and 1e2
// hear the keep-alive under their tokens as written, and a server's own
// progress for 100 counts as 1e2's (break-it: neither heard any, and the
// host timed out while the window was open).
func TestKeepAliveAnyNumberToken(t *testing.T) {
	prompts := newAnswerablePrompts()
	p, _, _ := newPeer(t, func(**Relay) *Options { return &Options{Approver: prompts, KeepAlive: time.Millisecond} })
	p.initialize()
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{},"_meta":{"progressToken":1.5}}}`)
	p.serverGets()
	p.hostSends(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"migrate","arguments":{},"_meta":{"progressToken":1e2}}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":100,"progress":7}}`)
	if n := progressOf(t, p.hostGets()); string(n.Params.Token) != "100" || n.Params.Progress != 7 {
		t.Fatalf("the server's progress reached the host as %+v", n)
	}
	p.serverSends(keepAliveElicit)
	<-prompts.asked
	heard := map[string]float64{}
	for len(heard) < 2 {
		n := progressOf(t, p.hostGets())
		heard[string(n.Params.Token)] = n.Params.Progress
	}
	if _, ok := heard["1.5"]; !ok || heard["1e2"] <= 7 {
		t.Fatalf("keep-alive for %v, want 1.5's and 1e2's, the latter above the server's 7", heard)
	}
	prompts.answers <- &Result{Action: ActionCancel}
	if answer := p.serverGets(); !strings.Contains(answer, `"e1"`) {
		t.Fatalf("server got %q, want the answer to e1", answer)
	}
}
