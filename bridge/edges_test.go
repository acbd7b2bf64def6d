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
	p.serverSends(initReply) // initialized: the server may ask (PROTOCOL.md §7)
	p.hostGets()
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

// TestMRTRMalformedRounds: an input_required round that can never be
// answered (inputRequests not an object, an entry that is not an object or
// names no or an unknown method, a host-only method the host did not
// declare) fails at once: the host gets -32602 for its own id saying
// which input and why, no window opens, and the server gets no retry.
func TestMRTRMalformedRounds(t *testing.T) {
	elicit := `{"method":"elicitation/create","params":{"message":"name?","requestedSchema":` + nameSchema + `}}`
	for _, tt := range []struct {
		name, inputRequests, want string
	}{
		{"array", `[` + elicit + `]`, `the server's inputRequests is an array, not an object of input requests by key`},
		{"string", `"repo"`, `the server's inputRequests is a string, not an object`},
		{"entry array", `{"repo":[` + elicit + `]}`, `elicitray cannot answer input request "repo": it is an array, not an object with a method and params`},
		{"entry number", `{"a":` + elicit + `,"b":7}`, `elicitray cannot answer input request "b": it is a number`},
		{"no method", `{"k":{"params":{}}}`, `elicitray cannot answer input request "k": it names no method`},
		{"unknown method", `{"k":{"method":"foo/bar","params":{}}}`, `elicitray cannot answer input request "k" of method "foo/bar": unknown method`},
		{"undeclared sampling", `{"k":{"method":"sampling/createMessage","params":{}}}`, `elicitray cannot answer input request "k" of method "sampling/createMessage": only the host can, and it did not declare the sampling capability`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startPeer(t, &Options{Approver: ApproverFunc(func(context.Context, *Request) (*Result, error) {
				t.Error("a window opened for a round that cannot be finished")
				return &Result{Action: ActionCancel}, nil
			})})
			p.hostSends(`{"jsonrpc":"2.0","id":"h-7","method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
			p.serverGets()
			p.serverSends(`{"jsonrpc":"2.0","id":"h-7","result":{"resultType":"input_required","inputRequests":` + tt.inputRequests + `,"requestState":"s1"}}`)
			var reply struct {
				ID    string   `json:"id"`
				Error rpcError `json:"error"`
			}
			if err := json.Unmarshal([]byte(p.hostGets()), &reply); err != nil {
				t.Fatal(err)
			}
			if reply.ID != "h-7" || reply.Error.Code != codeInvalidParams || !strings.Contains(reply.Error.Message, tt.want) {
				t.Errorf("host got %+v, want -32602 for id h-7 saying %q", reply, tt.want)
			}
			p.serverMarker() // no retry went out
			p.marker()       // and nothing else reached the host
		})
	}
}
