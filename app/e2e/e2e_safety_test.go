//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/journal"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askServerEnv makes the test binary the "ask" server (see TestMain): one
// tool, "ask", that elicits the message and schema it is given and
// answers with the ElicitResult as JSON, or with the JSON-RPC error the
// elicitation got, as {"error":{"code":…,"message":…}}.
const askServerEnv = "ELICITRAY_ASK_SERVER"

// askArgs are the ask tool's arguments.
type askArgs struct {
	Message string `json:"message"`
	Schema  string `json:"schema"` // the requestedSchema, as JSON text
	// URL makes the raw ask server (rawAskServe) send a URL-mode
	// elicitation of this link instead of a form.
	URL string `json:"url,omitempty"`
}

func askServe() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "ask-server", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, in askArgs) (*mcp.CallToolResult, any, error) {
		var schema map[string]any
		if err := json.Unmarshal([]byte(in.Schema), &schema); err != nil {
			return nil, nil, err
		}
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: in.Message, RequestedSchema: schema})
		if we, ok := errors.AsType[*jsonrpc.Error](err); ok {
			// The elicitation's JSON-RPC error as the answer, code and all.
			b, _ := json.Marshal(map[string]any{"error": we})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		b, _ := json.Marshal(res)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// connectAsk connects a host to the ask server (askServe, this test binary)
// behind the real wrapper, named name.
func (d *testDesktop) connectAsk(name string) *mcp.ClientSession {
	d.t.Helper()
	exe, err := os.Executable()
	if err != nil {
		d.t.Fatal(err)
	}
	d.env = append(d.environ(), askServerEnv+"=1") // the wrapper's, and so its server's
	return d.connect(name, exe)
}

// TestEndToEndSafety (issue 4) shows real windows under Xvfb: a form that
// asks for a secret (masked, with a warning; the server gets what was
// typed, history keeps "[redacted]"), and a message hiding a bidi
// override (removed and flagged). `make screenshots` keeps both pictures.
func TestEndToEndSafety(t *testing.T) {
	d := newParallelDesktop(t)
	cs := d.connectAsk("payments")

	// The second window must not be mistaken for a first one left open.
	if !t.Run("secret", func(t *testing.T) {
		d := d.with(t)
		call := d.callWith(cs, "ask", map[string]any{
			"message": "Sign in to the payments API to continue.",
			"schema":  `{"type":"object","properties":{"account":{"type":"string","title":"Account"},"api_key":{"type":"string","title":"API key"}},"required":["account","api_key"]}`,
		})
		win, _ := d.window()
		d.typeInto(win, "acme")
		d.xdo("key", "--window", win, "Tab")
		d.xdo("type", "--window", win, "sk-live-123")
		d.screenshot("secret-prompt.png")
		d.answer(win, "Return")
		if got := d.result(call); got != `{"action":"accept","content":{"account":"acme","api_key":"sk-live-123"}}` {
			t.Errorf("the server received %s", got)
		}
		rec := d.history()[0]
		if rec.Content["api_key"] != journal.Redacted || rec.Content["account"] != "acme" {
			t.Errorf("history content %v: the key must be redacted, the account kept", rec.Content)
		}
		if b, err := os.ReadFile(d.paths.History); err != nil || strings.Contains(string(b), "sk-live-123") {
			t.Errorf("the key is in the history file in clear (%v)", err)
		}
	}) {
		return
	}
	if !t.Run("lookalike", func(t *testing.T) {
		// Issue 27: the server's check box titled like the window's own
		// mute. The window flags it and draws its own controls on the
		// band at its foot; the picture shows both. Space in the first
		// field ticks the server's box, which mutes nothing: the next
		// question still gets a window.
		d := d.with(t)
		call := d.callWith(cs, "ask", map[string]any{
			"message": "Deploy to production?",
			"schema":  `{"type":"object","properties":{"m":{"type":"boolean","title":"Don't ask again for an hour"}}}`,
		})
		win, _ := d.window()
		d.xdo("key", "--window", win, "space")
		d.screenshot("lookalike-prompt.png")
		d.answer(win, "Return")
		if got := d.result(call); got != `{"action":"accept","content":{"m":true}}` {
			t.Errorf("the server received %s", got)
		}
		call = d.callWith(cs, "ask", map[string]any{"message": "Still there?", "schema": `{"type":"object","properties":{}}`})
		win, _ = d.window()
		d.answer(win, "Escape")
		if got := d.result(call); got != `{"action":"cancel"}` {
			t.Errorf("the second question: the server received %s", got)
		}
		if rec := d.history()[0]; rec.DecidedBy != "user" {
			t.Errorf("the second question was decided by %s, not by the user in a window: the server's box muted it", rec.DecidedBy)
		}
	}) {
		return
	}
	t.Run("bidi", func(t *testing.T) {
		d := d.with(t)
		call := d.callWith(cs, "ask", map[string]any{
			// U+202E RIGHT-TO-LEFT OVERRIDE makes "exe.pdf" read "fdp.exe".
			"message": "Open the invoice invoice-\u202Efdp.exe\u202C from billing?",
			"schema":  `{"type":"object","properties":{"open":{"type":"boolean","title":"Open it","default":false}}}`,
		})
		win, _ := d.window()
		d.screenshot("bidi-prompt.png")
		d.answer(win, "Escape")
		if got := d.result(call); got != `{"action":"cancel"}` {
			t.Errorf("the server received %s", got)
		}
		if rec := d.history()[0]; rec.Action != "cancel" || rec.DecidedBy != "user" {
			t.Errorf("history %+v", rec)
		}
	})
}
