package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestNullElicitationID: an elicitation/create whose id is null is answered
// -32600 under id null and said on the log; one with no id is a
// notification, answered by nobody and kept from the host; neither asks
// the Approver (PROTOCOL.md §7: ids are never null).
func TestNullElicitationID(t *testing.T) {
	p := startPeer(t, &Options{Server: "tickets", Approver: ApproverFunc(func(context.Context, *Request) (*Result, error) {
		t.Error("the Approver was asked about a request nobody can answer")
		return &Result{Action: ActionCancel}, nil
	})})
	params := `"params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}`
	p.serverSends(`{"jsonrpc":"2.0","id":null,"method":"elicitation/create",` + params + `}`)
	var resp struct {
		ID    json.RawMessage
		Error rpcError
	}
	if err := json.Unmarshal([]byte(p.serverGets()), &resp); err != nil {
		t.Fatal(err)
	}
	if string(resp.ID) != "null" || resp.Error.Code != codeInvalidRequest || !strings.Contains(resp.Error.Message, "not null") {
		t.Errorf("got id %s, error %+v; want -32600 under id null saying the id must not be null", resp.ID, resp.Error)
	}
	if log := p.stderr.String(); !strings.Contains(log, "tickets: refused an elicitation (-32600)") {
		t.Errorf("the log does not say why: %q", log)
	}
	p.serverSends(`{"jsonrpc":"2.0","method":"elicitation/create",` + params + `}`)
	p.marker() // nothing reached the host before the marker
	p.serverMarker()
	if log := p.stderr.String(); !strings.Contains(log, "tickets: ignored an elicitation/create without an id") {
		t.Errorf("the log does not say the notification was ignored: %q", log)
	}
}

// TestByteOrderMark: a line starting with a UTF-8 BOM is recognised as the
// message behind it and passed on without the mark, both ways; the log
// says so once per side.
func TestByteOrderMark(t *testing.T) {
	asked := make(chan *Request, 1)
	p := startPeer(t, &Options{Server: "dotnet", Approver: ApproverFunc(func(_ context.Context, req *Request) (*Result, error) {
		asked <- req
		return &Result{Action: ActionDecline}, nil
	})})
	const bom = "\xEF\xBB\xBF"
	p.hostSends(bom + `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}}`)
	if got, want := p.serverGets(), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"elicitation":{"form":{},"url":{}}}}}`; got != want {
		t.Errorf("server got %q, want %q", got, want)
	}
	p.serverSends(bom + `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Feed?","requestedSchema":{"type":"object","properties":{}}}}`)
	if req := <-asked; req.Message != "Feed?" {
		t.Errorf("asked %q", req.Message)
	}
	jsonEq(t, `{"jsonrpc":"2.0","id":"e1","result":{"action":"decline"}}`, p.serverGets())
	for i := 0; i < 2; i++ {
		line := `{ "jsonrpc":"2.0", "method":"notifications/message","params":{"data":"caf\u00e9"} }`
		p.serverSends(bom + line)
		if got := p.hostGets(); got != line {
			t.Errorf("host got %q, want %q", got, line)
		}
		p.hostSends(bom + line)
		if got := p.serverGets(); got != line {
			t.Errorf("server got %q, want %q", got, line)
		}
	}
	log := p.stderr.String()
	if n := strings.Count(log, "byte order mark"); n != 2 {
		t.Errorf("the log speaks of the mark %d times, want once per side:\n%s", n, log)
	}
}
