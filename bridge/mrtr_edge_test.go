package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Edge cases found by a tester trying to break the 2026-07-28 loop; each
// test's comment names the bug it once showed.

// samplingMeta is the _meta of a modern host that declared sampling (and
// nothing else) itself.
const samplingMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}`

// byMessage answers each prompt with what its message maps to.
func byMessage(answers map[string]*Result) ApproverFunc {
	return func(_ context.Context, req *Request) (*Result, error) {
		return answers[req.Message], nil
	}
}

// TestBreakForwardedRoundsMixedUp: two calls of the same method whose
// rounds both needed the host (sampling) and carry no requestState (it is
// optional, PROTOCOL.md §1). The user accepted "Delete repo A?" and
// declined "Delete repo B?". When the host retries call B first, call B's
// retry must carry B's decline. forwards.complete matched forwarded rounds
// by method and requestState only, so it took the oldest one: A's accept
// went to B's retry (and B's decline would have gone to A's).
func TestBreakForwardedRoundsMixedUp(t *testing.T) {
	p := startPeer(t, &Options{Approver: byMessage(map[string]*Result{
		"Delete repo A?": {Action: ActionAccept, Content: map[string]any{"ok": true}},
		"Delete repo B?": {Action: ActionDecline},
	})})
	round := func(id, msg string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"` + msg + `","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}},"summary":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}}}}`
	}
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_repo","arguments":{"repo":"A"},` + samplingMeta + `}}`)
	p.serverGets()
	p.serverSends(round("1", "Delete repo A?"))
	p.hostGets() // the sampling-only round for id 1
	p.hostSends(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_repo","arguments":{"repo":"B"},` + samplingMeta + `}}`)
	p.serverGets()
	p.serverSends(round("2", "Delete repo B?"))
	p.hostGets() // the sampling-only round for id 2

	// The host finishes call B first.
	p.hostSends(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_repo","arguments":{"repo":"B"},` + samplingMeta + `,"inputResponses":{"summary":{"role":"assistant","content":{"type":"text","text":"ok"}}}}}`)
	var got struct {
		Params struct {
			Arguments      map[string]string          `json:"arguments"`
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
		} `json:"params"`
	}
	line := p.serverGets()
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatal(err)
	}
	if c := string(got.Params.InputResponses["confirm"]); c != `{"action":"decline"}` {
		t.Errorf("the retry of the call on repo %s carries confirm=%s, want B's own answer {\"action\":\"decline\"}:\n%s",
			got.Params.Arguments["repo"], c, line)
	}
}

// TestBreakDuplicateInputRequired: a server that answers the host's id
// twice with input_required. The relay starts a second loop for the same
// host call (hostCall.running is set but never read): a second window opens
// for the same round, and the host may get two replies for one id
// (docs/how-it-works.md: "which the host receives under its own id, once").
func TestBreakDuplicateInputRequired(t *testing.T) {
	s := newScripted()
	p := startPeer(t, &Options{Approver: s})
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
	p.serverGets()
	ask := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":` + nameSchema + `}}},"requestState":"s1"}}`
	p.serverSends(ask)
	<-s.asked
	p.serverSends(ask) // the same reply again
	p.marker()         // the relay has read it
	s.answer <- &Result{Action: ActionDecline}
	retryOf(t, p.serverGets(), `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t",`+mergedMeta+`,"inputResponses":{"k":{"action":"decline"}},"requestState":"s1"}}`)
	p.serverMarker() // one retry only
	select {
	case req := <-s.asked:
		t.Errorf("a second window opened for a duplicate reply to the host's id: %q", req.Message)
	default:
	}
}

// TestBreakNoDesktopForwardsUndeclaredMode: with no desktop, a host that
// declared form mode only (`elicitation: {}` in its _meta) must never be
// handed a URL elicitation (PROTOCOL.md §3; docs/how-it-works.md "an
// elicitation goes to the host when the host declared it can show that mode
// itself", "otherwise it is answered cancel"). A round holding a URL entry and then a
// form entry is forwarded whole, URL entry included, while the NoDesktop
// hook was told the URL entry was answered cancel (so history says cancel
// for a link the host was in fact asked to show).
func TestBreakNoDesktopForwardsUndeclaredMode(t *testing.T) {
	hooked := make(chan unshownCall, 4)
	p := startPeer(t, &Options{Approver: noDesktop, NoDesktop: func(req *Request, forwarded bool, err error) {
		hooked <- unshownCall{req.Mode, forwarded}
	}})
	p.hostSends(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","inputRequests":{"login":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://auth.example.com/x"}},"name":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":` + nameSchema + `}}},"requestState":"s"}}`)
	first, second := <-hooked, <-hooked
	if second.forwarded {
		// The round went to the host: it must not hold the URL entry.
		if got := p.hostGets(); strings.Contains(got, `"mode":"url"`) {
			t.Errorf("a host that declared form mode only got a URL elicitation: %s\n(NoDesktop hook: %+v then %+v)", got, first, second)
		}
	}
}

// TestBreakURLRequiredCompletion: a -32042 link whose consent window is
// still open when the server reports the flow complete
// (notifications/elicitation/complete). The legacy path closes such a
// window and keeps the notice from the host; the -32042 path registers the
// elicitationId only after the user accepted, so the notice goes to a host
// that never saw the id (docs/url-mode-and-sign-in.md: "completions for
// links elicitray handled never reach the host") and the window stays open until its timeout.
func TestBreakURLRequiredCompletion(t *testing.T) {
	s := newScripted()
	p := startPeer(t, &Options{Approver: s})
	p.initialize()
	p.hostSends(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":4,"error":{"code":-32042,"message":"auth needed","data":{"elicitations":[{"mode":"url","url":"https://a.example.com/auth","message":"Sign in","elicitationId":"e-9"}]}}}`)
	ctx := <-s.ctxs
	<-s.asked
	p.serverSends(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e-9"}}`)
	// The window closes: the flow it asked for is done, so the call is
	// retried, and the host never sees the completion of a link it never saw.
	<-ctx.Done()
	id := retryOf(t, p.serverGets(), `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}`)
	p.serverSends(`{"jsonrpc":"2.0","id":` + mustJSON(id) + `,"result":{"content":[]}}`)
	if got, want := p.hostGets(), `{"jsonrpc":"2.0","id":4,"result":{"content":[]}}`; got != want {
		t.Errorf("host got %s, want %s", got, want)
	}
}

// TestBreakManyInputRequests: a round with thousands of entries (each
// answered at once, as the rate limit does) should cost time linear in its
// size. Building the retry's inputResponses with setMember re-scanned the
// growing object for every entry: quadratic (16 000 entries took 55 s of
// CPU). The objects are now built in one pass; this checks every entry is
// answered, and BenchmarkLargeRound measures the time.
func TestBreakManyInputRequests(t *testing.T) {
	const n = 6000
	p := startPeer(t, &Options{Approver: ApproverFunc(func(context.Context, *Request) (*Result, error) {
		return &Result{Action: ActionCancel}, nil
	})})
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
	p.serverGets()
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d":{"method":"elicitation/create","params":{"message":"m","requestedSchema":%s}}`, i, nameSchema)
	}
	p.serverSends(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{` + b.String() + `}}}`)
	var retry struct {
		Params struct {
			InputResponses map[string]elicitResult `json:"inputResponses"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(p.serverGets()), &retry); err != nil || len(retry.Params.InputResponses) != n {
		t.Errorf("the retry answers %d of %d entries (%v)", len(retry.Params.InputResponses), n, err)
	}
}

// TestBreakLegacyPromptNamesWrongTool: two legacy tools/call in flight;
// the server elicits (2025-11-25 pushes say nothing of which call they
// belong to). The prompt names the most recent call as "the tool call in
// flight", so a confirmation asked by delete_everything is shown as asked
// by get_weather. When the call is not known the prompt should not name
// one (docs/prompt-window.md: "then the tool call in flight when known").
func TestBreakLegacyPromptNamesWrongTool(t *testing.T) {
	s := newScripted()
	p := startPeer(t, &Options{Approver: s})
	p.initialize()
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything","arguments":{}}}`)
	p.serverGets()
	p.hostSends(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{}}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Proceed?","requestedSchema":{"type":"object","properties":{}}}}`)
	if req := <-s.asked; req.Tool != "" {
		t.Errorf("with two calls in flight the prompt says it comes from %q", req.Tool)
	}
	s.answer <- &Result{Action: ActionDecline}
	p.serverGets()
}

// TestBreakForwardedRoundStale: the same mix-up without two calls in
// flight. The host gave up on call 1 after its sampling-only round (its
// user refused the sampling, or it cancelled): the relay keeps call 1's
// stored answers forever, and hands them to the next retry of the same
// method that has no requestState, here call 2's.
func TestBreakForwardedRoundStale(t *testing.T) {
	p := startPeer(t, &Options{Approver: byMessage(map[string]*Result{
		"Deploy to production?": {Action: ActionAccept, Content: map[string]any{"ok": true}},
		"Deploy to staging?":    {Action: ActionDecline},
	})})
	round := func(id, msg string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"` + msg + `","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}},"summary":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}}}}`
	}
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"env":"production"},` + samplingMeta + `}}`)
	p.serverGets()
	p.serverSends(round("1", "Deploy to production?"))
	p.hostGets()
	p.hostSends(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"the user refused sampling"}}`)
	p.serverGets()

	p.hostSends(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"env":"staging"},` + samplingMeta + `}}`)
	p.serverGets()
	p.serverSends(round("2", "Deploy to staging?"))
	p.hostGets()
	p.hostSends(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","arguments":{"env":"staging"},` + samplingMeta + `,"inputResponses":{"summary":{"role":"assistant","content":{"type":"text","text":"ok"}}}}}`)
	var got struct {
		Params struct {
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
		} `json:"params"`
	}
	line := p.serverGets()
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatal(err)
	}
	if c := string(got.Params.InputResponses["confirm"]); c != `{"action":"decline"}` {
		t.Errorf("the staging retry carries confirm=%s (the answer to \"Deploy to production?\"), want {\"action\":\"decline\"}", c)
	}
}

// TestBreakURLRequiredRetryDropsAnswers: -32042 asks the client to retry
// the request that failed once the links are open (PROTOCOL.md §6). When
// that request was the relay's retry of a round (with inputResponses and
// requestState), the relay re-sends the host's original request instead:
// the answers the user gave are dropped, the server starts over and the
// user is asked the same form again. (The same happens to a host's own
// inputResponses on a host retry.)
func TestBreakURLRequiredRetryDropsAnswers(t *testing.T) {
	s := newScripted()
	p := startPeer(t, &Options{Approver: s})
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":` + nameSchema + `}}},"requestState":"s1"}}`)
	<-s.asked
	s.answer <- &Result{Action: ActionAccept, Content: map[string]any{"name": "x"}}
	var first struct{ ID string }
	_ = json.Unmarshal([]byte(p.serverGets()), &first)
	p.serverSends(`{"jsonrpc":"2.0","id":` + mustJSON(first.ID) + `,"error":{"code":-32042,"message":"auth","data":{"elicitations":[{"mode":"url","url":"https://a.example.com/auth","message":"Sign in","elicitationId":"e-9"}]}}}`)
	<-s.asked
	s.answer <- &Result{Action: ActionAccept}
	retryOf(t, p.serverGets(), `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t",`+mergedMeta+`,"inputResponses":{"k":{"action":"accept","content":{"name":"x"}}},"requestState":"s1"}}`)
}

// TestBreakRoundRefusedBeforeAnyWindow: a round whose second elicitation
// cannot be shown fails with -32602 before the first one is asked: its
// answer could never be sent, so no window opens and no decision is
// recorded that the server never received.
func TestBreakRoundRefusedBeforeAnyWindow(t *testing.T) {
	s := newScripted()
	rejected := make(chan error, 2)
	p := startPeer(t, &Options{Approver: s, Rejected: func(_ *Request, err error) { rejected <- err }})
	p.hostSends(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","inputRequests":{` +
		`"a":{"method":"elicitation/create","params":{"message":"fine","requestedSchema":` + nameSchema + `}},` +
		`"b":{"method":"elicitation/create","params":{"message":"nested","requestedSchema":{"type":"object","properties":{"o":{"type":"object"}}}}}}}}`)
	var reply struct {
		ID    int      `json:"id"`
		Error rpcError `json:"error"`
	}
	_ = json.Unmarshal([]byte(p.hostGets()), &reply)
	if reply.ID != 5 || reply.Error.Code != codeInvalidParams {
		t.Fatalf("host got %+v, want -32602", reply)
	}
	select {
	case req := <-s.asked:
		t.Fatalf("a window opened for %q of a round that was refused", req.Message)
	default:
	}
	if err := <-rejected; !strings.Contains(err.Error(), `"o"`) {
		t.Errorf("recorded %v", err)
	}
}

// TestBreakHostCancelMidRoundOverrules: when the host cancels while the
// second window of a round is open, the first answer never reaches the
// server; history must be told (Overruled), as in the legacy era.
func TestBreakHostCancelMidRoundOverrules(t *testing.T) {
	s := newScripted()
	overruled := make(chan *Request, 2)
	p := startPeer(t, &Options{Approver: s, Overruled: func(req *Request, sent Result) {
		if sent.Action == ActionCancel && sent.DecidedBy == DecidedByHostCancelled {
			overruled <- req
		}
	}})
	p.hostSends(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{` +
		`"a":{"method":"elicitation/create","params":{"message":"first","requestedSchema":` + nameSchema + `}},` +
		`"b":{"method":"elicitation/create","params":{"message":"second","requestedSchema":` + nameSchema + `}}}}}`)
	<-s.asked
	s.answer <- &Result{Action: ActionAccept, Content: map[string]any{"name": "x"}}
	<-s.asked
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"timeout"}}`
	p.hostSends(cancel)
	p.serverGets()
	select {
	case req := <-overruled:
		if req.Message != "first" {
			t.Errorf("overruled %q, want the first, answered one", req.Message)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first answer, never sent, was not overruled")
	}
	p.serverMarker() // no retry
}
