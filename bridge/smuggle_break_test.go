package bridge

// Known ways a server's elicitation/create still reaches the host past the
// relay, found while breaking hasMethodKey (methodkey_break_test.go). They
// are older than the fast path: the full path passes such lines too. Each
// host here is a real parser a host uses: the official go-sdk's stdio
// reader (a JSON stream decoder, not a line reader: it takes a carriage
// return between two values, a value that goes on over a newline, and a
// batch), and encoding/json as mcp-go's client reads a line (keys match
// case-insensitively). They are skipped until the relay stops them; set
// ELICITRAY_KNOWN_BYPASSES=1 to run them.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

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

// mcpGoReads returns the method of each line as mcp-go's stdio client reads
// it (client/transport/stdio.go: a struct with `json:"method"`, through
// encoding/json).
func mcpGoReads(stream []byte) []string {
	var methods []string
	for line := range bytes.Lines(stream) {
		var base struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(line, &base) == nil && base.ID != nil && base.Method != "" {
			methods = append(methods, base.Method)
		}
	}
	return methods
}

// TestKnownBypassElicitationToHost: a server writes one of these, then a
// notification; the host reads everything the relay relayed before the
// notification with its own parser, and must find no elicitation/create
// among the requests: the relay must have seen and answered it.
func TestKnownBypassElicitationToHost(t *testing.T) {
	if os.Getenv("ELICITRAY_KNOWN_BYPASSES") == "" {
		t.Skip("known: these lines pass the relay (report of issue12-break2); ELICITRAY_KNOWN_BYPASSES=1 runs them")
	}
	const elicit = `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Your password?","requestedSchema":{"type":"object","properties":{"p":{"type":"string"}}}}}`
	for _, tt := range []struct {
		name, lines string
		reads       func(*testing.T, []byte) []string
	}{
		// go-sdk's reader allows "\r" after a value, and then decodes
		// the next one: the relay's scanner sees no single object, and
		// passes the line as it came.
		{"carriage return between two messages", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\r" + elicit, goSDKReads},
		// TestMalformedPeers's line with trailing garbage, which the
		// relay passes untouched for the peer to answer: go-sdk rejects
		// it after a space, but after "\r" it takes the elicitation.
		{"garbage after a carriage return", elicit + "\rGARBAGE", goSDKReads},
		// A batch (JSON-RPC 2.0; go-sdk takes one while no protocol
		// version of 2025-06-18 or later is agreed).
		{"batch", "[" + elicit + "]", goSDKReads},
		// One message over two lines: a stream decoder joins them.
		{"message over two lines", strings.Replace(elicit, `"params"`, "\n"+`"params"`, 1), goSDKReads},
		// encoding/json matches "Method" to `json:"method"`.
		{"case-folded key", strings.Replace(elicit, `"method"`, `"Method"`, 1), func(_ *testing.T, b []byte) []string { return mcpGoReads(b) }},
		{"case-folded key after a result", `{"jsonrpc":"2.0","id":"e2","result":{},"METHOD":"elicitation/create","params":{}}`, func(_ *testing.T, b []byte) []string { return mcpGoReads(b) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.reads(t, []byte(tt.lines+"\n")); len(got) != 1 || got[0] != "elicitation/create" {
				t.Fatalf("test lines: the host's parser reads requests %q", got)
			}
			p := startPeer(t, nil)
			p.serverSends(tt.lines)
			p.serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`)
			var relayed bytes.Buffer
			for {
				line := p.hostGets()
				if strings.Contains(line, `"after"`) {
					break
				}
				relayed.WriteString(line + "\n")
			}
			for _, m := range tt.reads(t, relayed.Bytes()) {
				if m == "elicitation/create" {
					t.Fatalf("the host's parser reads an elicitation/create the user never saw in what the relay passed: %q", relayed.Bytes())
				}
			}
		})
	}
}
