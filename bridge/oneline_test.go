package bridge

// Server lines that hosts read in different ways (oneline.go), each read
// by the real parser of a host that would take an elicitation/create from
// it: the official go-sdk's stdio transport (a JSON stream decoder, not a
// line reader: it takes the values on either side of a carriage return, a
// value that goes on over a newline, and a batch) and mcp-go's stdio
// client transport (encoding/json, whose keys match case-insensitively).
// They were found while breaking hasMethodKey (methodkey_break_test.go),
// and are older than the fast path.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type discardCloser struct{}

func (discardCloser) Write(b []byte) (int, error) { return len(b), nil }
func (discardCloser) Close() error                { return nil }

// goSDKReads returns the methods of the requests go-sdk's stdio transport
// reads from stream, as a go-sdk host would get them.
func goSDKReads(t *testing.T, stream []byte) []string {
	t.Helper()
	tr := &mcp.IOTransport{Reader: io.NopCloser(bytes.NewReader(stream)), Writer: discardCloser{}}
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var methods []string
	for {
		msg, err := conn.Read(context.Background())
		if err != nil {
			return methods
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			methods = append(methods, req.Method)
		}
	}
}

// mcpGoReads returns the method of the first request mcp-go's stdio client
// transport hands its request handler (the client's elicitation handler
// is behind it) from stream, which must hold one.
func mcpGoReads(t *testing.T, stream []byte) []string {
	t.Helper()
	got := make(chan string, 1)
	tr := transport.NewIO(bytes.NewReader(stream), discardCloser{}, nil)
	tr.SetRequestHandler(func(_ context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		select {
		case got <- req.Method:
		default:
		}
		return nil, nil
	})
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return []string{<-got} // go test's -timeout says if it never comes
}

// TestServerLinesHostsReadDifferently: a server writes one of these, then a
// notification. The test line itself is read as an elicitation/create by
// the host's parser named (its MCP SDK's own code); through the relay, the
// host gets nothing of it before the notification but what names no
// method (so no parser finds a request in it), the server gets -32600 for
// each request id in it (it must not wait for a host that never heard of
// it), and the log says what was dropped and why.
func TestServerLinesHostsReadDifferently(t *testing.T) {
	const elicit = `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Your password?","requestedSchema":{"type":"object","properties":{"p":{"type":"string"}}}}}`
	head, params, _ := strings.Cut(elicit, `"params"`)
	params = `"params"` + params
	for _, tt := range []struct {
		name, lines string
		// reads is the host's parser that takes an elicitation from lines.
		reads func(*testing.T, []byte) []string
		// host is what the host gets before the notification.
		host string
		ids  []string
		why  string
	}{
		// go-sdk's reader allows "\r" after a value, and then decodes
		// the next one: the relay's scanner sees no single object.
		{"carriage return between two messages", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\r" + elicit, goSDKReads, "", []string{`"e1"`}, "not one JSON-RPC message"},
		// A line with garbage after its message (TestMalformedPeers):
		// go-sdk rejects it after a space, but after "\r" it takes the
		// elicitation.
		{"garbage after a carriage return", elicit + "\rGARBAGE", goSDKReads, "", []string{`"e1"`}, "not one JSON-RPC message"},
		// A batch (JSON-RPC 2.0): go-sdk takes one while no protocol
		// version of 2025-06-18 or later is agreed.
		{"batch", "[" + elicit + `,{"jsonrpc":"2.0","id":7,"method":"ping"}]`, goSDKReads, "", []string{`"e1"`, `7`}, "not one JSON-RPC message"},
		// One message over two lines: a stream decoder joins them. The
		// first names the method and goes; the second names none.
		{"message over two lines", head + "\n" + params, goSDKReads, params + "\n", []string{`"e1"`}, "not one JSON-RPC message"},
		// encoding/json matches "Method" to `json:"method"`.
		{"case-folded key", strings.Replace(elicit, `"method"`, `"Method"`, 1), mcpGoReads, "", []string{`"e1"`}, `spelt in another case`},
		{"case-folded key after a result", `{"jsonrpc":"2.0","id":"e2","result":{},"METHOD":"elicitation/create","params":{}}`, mcpGoReads, "", []string{`"e2"`}, `spelt in another case`},
		{"case-folded escaped key", strings.Replace(elicit, `"method"`, `"\u004dethod"`, 1), mcpGoReads, "", []string{`"e1"`}, `spelt in another case`},
		// The relay keeps the last of repeated members, as go-sdk and
		// mcp-go do; a parser that keeps the first would read the
		// elicitation.
		{"method repeated, the elicitation first", `{"jsonrpc":"2.0","id":"e3","method":"elicitation/create","params":{},"method":"ping"}`, nil, "", []string{`"e3"`}, "more than once"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reads != nil {
				if got := tt.reads(t, []byte(tt.lines+"\n")); !slices.Contains(got, "elicitation/create") {
					t.Fatalf("test lines: the host's parser reads requests %q", got)
				}
			}
			p := startPeer(t, nil)
			p.serverSends(tt.lines)
			for _, id := range tt.ids {
				var reply struct {
					ID    json.RawMessage
					Error struct {
						Code    int
						Message string
					}
				}
				got := p.serverGets()
				if err := json.Unmarshal([]byte(got), &reply); err != nil || string(reply.ID) != id || reply.Error.Code != codeInvalidRequest || !strings.Contains(reply.Error.Message, tt.why) {
					t.Fatalf("the server got %s, want -32600 for its request %s saying %q", got, id, tt.why)
				}
			}
			p.serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`)
			var relayed bytes.Buffer
			for {
				line := p.hostGets()
				if strings.Contains(line, `"after"`) {
					break
				}
				relayed.WriteString(line + "\n")
			}
			if relayed.String() != tt.host {
				t.Fatalf("the host got %q before the next message, want %q", relayed.Bytes(), tt.host)
			}
			if m := goSDKReads(t, relayed.Bytes()); len(m) != 0 {
				t.Fatalf("go-sdk reads requests %q in what the relay passed", m)
			}
			if log := p.stderr.String(); !strings.Contains(log, "dropped a line from the server because") || !strings.Contains(log, tt.why) {
				t.Errorf("the log does not say why the line was dropped: %s", log)
			}
		})
	}
}

// TestServerBatches: batches are older than elicitation (PROTOCOL.md §7:
// removed in 2025-06-18, which brought it). Agreed at 2025-03-26 (or
// 2024-11-05, JSON-RPC 2.0's batches), a
// server's batch of messages the relay passes goes to the host as it
// came, and one with an elicitation/create is dropped and its requests
// answered -32600; at 2025-11-25 a batch that names a method is dropped;
// a batch of replies, which names none, passes at any version.
func TestServerBatches(t *testing.T) {
	const (
		plain     = `[{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"a"}},{"jsonrpc":"2.0","id":"s1","method":"ping"}]`
		eliciting = `[{"jsonrpc":"2.0","id":"s2","method":"ping"},{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}]`
		replies   = `[{"jsonrpc":"2.0","id":4,"result":{}}]`
		after     = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`
	)
	for _, tt := range []struct {
		version, batch string
		passes         bool
		ids            []string
	}{
		{"2025-03-26", plain, true, nil},
		{"2025-03-26", eliciting, false, []string{`"s2"`, `"e1"`}},
		{"2025-03-26", replies, true, nil},
		{"2024-11-05", plain, true, nil},
		{"2025-11-25", plain, false, []string{`"s1"`}},
		{"2025-11-25", replies, true, nil},
	} {
		t.Run(tt.version+"/"+tt.batch[:min(len(tt.batch), 40)], func(t *testing.T) {
			p := startPeer(t, nil)
			p.hostSends(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + tt.version + `","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`)
			p.serverGets()
			reply := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"` + tt.version + `","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`
			p.serverSends(reply)
			if got := p.hostGets(); got != reply {
				t.Fatalf("initialize reply changed: %q", got)
			}
			p.serverSends(tt.batch)
			for _, id := range tt.ids {
				var r struct {
					ID    json.RawMessage
					Error struct{ Code int }
				}
				if got := p.serverGets(); json.Unmarshal([]byte(got), &r) != nil || string(r.ID) != id || r.Error.Code != codeInvalidRequest {
					t.Fatalf("the server got %s, want -32600 for %s", got, id)
				}
			}
			p.serverSends(after)
			got := p.hostGets()
			switch {
			case tt.passes && got != tt.batch:
				t.Fatalf("the host got %q, want the batch as it came", got)
			case !tt.passes && got != after:
				t.Fatalf("the host got %q, want the batch dropped", got)
			}
		})
	}
}
