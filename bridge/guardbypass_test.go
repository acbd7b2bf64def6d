package bridge

import (
	"strings"
	"testing"
)

// TestGuardUnclearHostLine: while a tool is guarded, a host line that is
// not one clear JSON-RPC message — a batch (2025-03-26 had them), two
// messages on a line (go-sdk's stream decoder reads both), a member
// "Method" (mcp-go's encoding/json matches it to method) — does not
// reach the server, which could run the guarded call in it unapproved:
// each request in it is answered with a denial saying why, and the log
// says so.
func TestGuardUnclearHostLine(t *testing.T) {
	p, _ := startInHost(t, `{"elicitation":{}}`, nil)
	for _, tt := range []struct {
		name, line string
		ids        []string
	}{
		{"batch", `[` + inHostCall + `]`, []string{"7"}},
		{"Method", strings.Replace(inHostCall, `"method"`, `"Method"`, 1), []string{"7"}},
		{"method twice", strings.Replace(inHostCall, `"method":"tools/call"`, `"method":"ping","method":"tools/call"`, 1), []string{"7"}},
		{"two on a line", `{"jsonrpc":"2.0","id":6,"method":"ping"}` + inHostCall, []string{"6", "7"}},
		// Longer than the read buffer: judged whole all the same.
		{"long batch", `[` + strings.Replace(inHostCall, `"hello"`, `"`+strings.Repeat("h", 1<<20)+`"`, 1) + `]`, []string{"7"}},
	} {
		p.hostSends(tt.line)
		for _, id := range tt.ids {
			got := p.hostGets()
			if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"elicitray did not pass this request on: it is not one JSON-RPC message`) || !strings.Contains(got, `"isError":true`) {
				t.Errorf("%s: host got %q, want a denial of its request %s", tt.name, got, id)
			}
		}
		p.serverNextIsPing(8)
	}
	if n := strings.Count(p.stderr.String(), "is not one clear JSON-RPC message while tool calls are guarded"); n != 5 {
		t.Errorf("the log says it %d times, want 5:\n%s", n, p.stderr.String())
	}
	// Nothing guarded: such lines are the host's business, as before.
	q := startPeer(t, &Options{Server: "everything", Approver: noDesktop})
	q.initialize()
	batch := `[{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}]`
	q.hostSends(batch)
	if got := q.serverGets(); got != batch {
		t.Errorf("with nothing guarded the server got %q, want the batch as the host sent it", got)
	}
}
