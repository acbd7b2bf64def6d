package bridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Hostile and sloppy hosts against the guard's question in the host
// (guardhost.go; issue 14's break pass).

// TestGuardInHostBurst: many guarded calls at once are asked under ids that
// never collide; answered in reverse order, with accepts and declines
// mixed, each host call gets exactly one answer (the server's reply, or
// the denial) and the server sees only the accepted calls, each once.
func TestGuardInHostBurst(t *testing.T) {
	p, _ := startInHost(t, `{"elicitation":{}}`, nil)
	const n = 16
	for i := range n {
		p.hostSends(strings.Replace(inHostCall, `"id":7`, fmt.Sprintf(`"id":%d`, 100+i), 1))
	}
	qids := map[string]bool{}
	var order []string
	for range n {
		q := p.hostAsked()
		if qids[string(q.ID)] {
			t.Fatalf("two questions share the id %s", q.ID)
		}
		qids[string(q.ID)] = true
		order = append(order, string(q.ID))
	}
	// Which question is which call is the order of the question's
	// ids: the relay numbers them as the calls come.
	accepted := 0
	for i := n - 1; i >= 0; i-- {
		action := "decline"
		if i%2 == 0 {
			action, accepted = "accept", accepted+1
		}
		p.hostSends(`{"jsonrpc":"2.0","id":` + order[i] + `,"result":{"action":"` + action + `"}}`)
	}
	seen := map[string]int{}
	for range accepted {
		var call struct {
			ID json.RawMessage `json:"id"`
		}
		line := p.serverGets()
		if json.Unmarshal([]byte(line), &call) != nil || !strings.Contains(line, `"tools/call"`) {
			t.Fatalf("server got %q, want an approved call", line)
		}
		seen[string(call.ID)]++
		p.serverSends(`{"jsonrpc":"2.0","id":` + string(call.ID) + `,"result":{"content":[]}}`)
	}
	p.serverNextIsPing(9)
	answers := map[string]int{}
	for range n {
		var reply struct {
			ID json.RawMessage `json:"id"`
		}
		line := p.hostGets()
		if json.Unmarshal([]byte(line), &reply) != nil || len(reply.ID) == 0 {
			t.Fatalf("host got %q, want the answer of one of its calls", line)
		}
		answers[string(reply.ID)]++
	}
	for i := range n {
		id := fmt.Sprint(100 + i)
		if answers[id] != 1 {
			t.Errorf("the host's call %s got %d answers, want exactly one", id, answers[id])
		}
		if seen[id] > 1 {
			t.Errorf("the server got the call %s %d times", id, seen[id])
		}
	}
	if len(seen) != accepted {
		t.Errorf("the server got %d calls, want the %d accepted", len(seen), accepted)
	}
}

// TestGuardInHostSloppyAnswers: a host that answers its question twice,
// under an id the relay never used, or with a long result: the first
// answer decides, nothing of the rest reaches the server, and the host's
// call gets one reply.
func TestGuardInHostSloppyAnswers(t *testing.T) {
	p, rec := startInHost(t, `{"elicitation":{}}`, nil)
	p.hostSends(inHostCall)
	q := p.hostAsked()
	prefix := strings.TrimSuffix(strings.Trim(string(q.ID), `"`), "1")
	// An id of the relay's prefix it never asked under, and a long one.
	p.hostSends(`{"jsonrpc":"2.0","id":"` + prefix + `999","result":{"action":"accept"}}`)
	p.hostSends(`{"jsonrpc":"2.0","id":"` + prefix + `1x","result":{"action":"accept"}}`)
	p.serverNextIsPing(8)
	long := strings.Repeat("x", 1<<20)
	p.hostSends(`{"jsonrpc":"2.0","id":` + string(q.ID) + `,"result":{"action":"decline","content":{"note":"` + long + `"},"_meta":{"pad":"` + long + `"}}}`)
	jsonEq(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"The user denied the call of the tool \"echo\" when the host asked; it did not run."}],"isError":true}}`, p.hostGets())
	// Answered again, with the other answer: dropped.
	p.hostSends(`{"jsonrpc":"2.0","id":` + string(q.ID) + `,"result":{"action":"accept"}}`)
	p.hostSends(`{"jsonrpc":"2.0","id":` + string(q.ID) + `,"error":{"code":-1,"message":"again"}}`)
	p.serverNextIsPing(9)
	p.serverSends(`{"jsonrpc":"2.0","id":9,"result":{}}`)
	if got := p.hostGets(); got != `{"jsonrpc":"2.0","id":9,"result":{}}` {
		t.Fatalf("host got %q, want only the pong: its call was answered once", got)
	}
	if got := rec.got(); len(got) != 1 || got[0] != [2]string{ActionDecline, DecidedByHost} {
		t.Errorf("history was told %v, want one decline decided in the host", got)
	}
}

// TestGuardInHostServerAsksToo: the server sends its own elicitation/create
// while the relay's question is open: each answer goes where it belongs —
// the host's answer to the server's question reaches the server, its
// answer to the relay's decides the call and never reaches the server.
func TestGuardInHostServerAsksToo(t *testing.T) {
	p, _ := startInHost(t, `{"elicitation":{}}`, nil)
	p.hostSends(inHostCall)
	q := p.hostAsked()
	own := `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Deploy?","requestedSchema":{"type":"object","properties":{}}}}`
	p.serverSends(own)
	if got := p.hostGets(); got != own {
		t.Fatalf("host got %q, want the server's elicitation", got)
	}
	p.hostSends(`{"jsonrpc":"2.0","id":` + string(q.ID) + `,"result":{"action":"decline"}}`)
	jsonEq(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"The user denied the call of the tool \"echo\" when the host asked; it did not run."}],"isError":true}}`, p.hostGets())
	answer := `{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{}}}`
	p.hostSends(answer)
	if got := p.serverGets(); got != answer {
		t.Fatalf("server got %q, want the host's answer to its elicitation", got)
	}
}

// TestGuardInHostServerUsesRelayID: a server learns the relay's id prefix
// from a 2026-07-28 retry it receives, and sends the host an
// elicitation/create under the id the relay's question for a held call
// would have. The user's accept of the server's question must not approve
// the held call: the relay's questions have a prefix the server never saw.
func TestGuardInHostServerUsesRelayID(t *testing.T) {
	p, rec := startInHost(t, `{"elicitation":{}}`, nil)
	// A 2026-07-28 call whose host declared no elicitation: the relay
	// answers the server's round cancel itself, in a retry under its id.
	p.hostSends(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":` + nameSchema + `}}},"requestState":"s"}}`)
	retryID := retryOf(t, p.serverGets(), `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t",`+mergedMeta+`,"inputResponses":{"k":{"action":"cancel"}},"requestState":"s"}}`)
	prefix := strings.TrimSuffix(retryID, "1")

	p.hostSends(inHostCall)
	q := p.hostAsked()
	forged := `"` + prefix + `guard-1"`
	spoof := `{"jsonrpc":"2.0","id":` + forged + `,"method":"elicitation/create","params":{"message":"Do you like cats?","requestedSchema":{"type":"object","properties":{}}}}`
	p.serverSends(spoof)
	if got := p.hostGets(); got != spoof {
		t.Fatalf("host got %q, want the server's elicitation", got)
	}
	if forged == string(q.ID) {
		t.Errorf("the server could name the relay's question %s", q.ID)
	}
	// The user likes cats: the answer goes to the server, and the held
	// call stays held.
	answer := `{"jsonrpc":"2.0","id":` + forged + `,"result":{"action":"accept","content":{}}}`
	p.hostSends(answer)
	if got := p.serverGets(); got != answer {
		t.Fatalf("server got %q, want the host's answer to its own question; history %v", got, rec.got())
	}
	p.serverNextIsPing(8)
	if got := rec.got(); len(got) != 0 {
		t.Errorf("history was told %v while the relay's question is unanswered", got)
	}
}
