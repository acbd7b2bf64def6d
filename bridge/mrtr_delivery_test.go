package bridge

import (
	"strings"
	"testing"
)

// TestMRTRDeliveryTold (issue 25): an answer given in an input_required
// round reaches the server with the relay's retry, and history must not
// call it delivered before that: Delivered is told once the retry was
// written, and told why not when the host cancelled the call first.
func TestMRTRDeliveryTold(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"deploy","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	const round = `{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","inputRequests":{"ok":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy?","requestedSchema":{"type":"object","properties":{"go":{"type":"boolean"}}}}}}}}`
	type word struct {
		input string
		err   error
	}
	for _, tt := range []struct {
		name   string
		cancel bool   // the host cancels the call while the window is open
		why    string // in the error Delivered gets; "" nil
	}{
		{name: "written with the retry"},
		{name: "host cancelled first", cancel: true, why: "the host cancelled the call before the round's answers were sent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newScripted()
			told := make(chan word, 4)
			p := startPeer(t, &Options{Server: "demo", Approver: s,
				Delivered: func(req *Request, err error) { told <- word{req.InputKey, err} }})
			p.hostSends(call)
			p.serverGets()
			p.serverSends(round)
			req := <-s.asked
			if !req.ReportsDelivery {
				t.Fatal("the round's request does not say its delivery will be told: the hub would call it delivered at once")
			}
			if tt.cancel {
				p.hostSends(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user stopped it"}}`)
				if got := p.serverGets(); !strings.Contains(got, "notifications/cancelled") {
					t.Fatalf("the server got %s, want the host's cancel", got)
				}
			} else {
				s.answer <- &Result{Action: ActionAccept, Content: map[string]any{"go": true}}
				if got := p.serverGets(); !strings.Contains(got, `"inputResponses":{"ok":{"action":"accept","content":{"go":true}}}`) {
					t.Fatalf("the server got %s, want the retry with the answer", got)
				}
			}
			w := <-told
			if w.input != "ok" {
				t.Errorf("Delivered was told of input %q, want ok", w.input)
			}
			switch {
			case tt.why == "" && w.err != nil:
				t.Errorf("the retry was written, and Delivered got %v", w.err)
			case tt.why != "" && (w.err == nil || !strings.Contains(w.err.Error(), tt.why)):
				t.Errorf("Delivered got %v, want %q", w.err, tt.why)
			}
			p.marker()
			select {
			case w := <-told:
				t.Errorf("Delivered was told twice: again %v", w)
			default:
			}
		})
	}
}
