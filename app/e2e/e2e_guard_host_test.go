//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/bridge"
)

// TestEndToEndGuardAskedInHost (issue 14: "no-desktop follows the same
// rules as elicitations"): a wrapper that finds no desktop session (a PID
// namespace of its own, no DISPLAY) asks about a guarded call of
// server-everything's echo in the host, which declared elicitation (the
// official Go SDK with an elicitation handler). The host's prompt names the
// configured server, the tool, its description and the arguments, secrets
// hidden, and asks for nothing but accept or decline. Accept: the server
// runs the call and the host gets its echo. Decline: a tool error saying
// the user denied it. No answer within the server's timeout (1 s): the
// host's prompt is withdrawn (its handler's context ends) and the call is
// denied as nobody approved it in time. `elicitray history` holds the
// three, decided in the host, and the host's log says once why.
func TestEndToEndGuardAskedInHost(t *testing.T) {
	server := everythingServer(t)
	launcher := testkit.NoSession(t)
	d := newParallelDesktop(t)
	d.config("[servers.headless]\nguard = [\"echo\"]\n\n[servers.hurried]\nguard = [\"echo\"]\ntimeout = \"1s\"\n")
	d.env = append(slices.Clone(d.env), "DISPLAY=", "WAYLAND_DISPLAY=")

	// The person at the host: each prompt is handed to the test, which
	// answers it with an action, or with "" leaves it open until the host
	// is told it is withdrawn.
	type prompt struct {
		req    *mcp.ElicitRequest
		answer chan string
	}
	prompts := make(chan prompt, 1)
	withdrawn := make(chan error, 1)
	d.hostOptions = &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		p := prompt{req, make(chan string, 1)}
		prompts <- p
		if action := <-p.answer; action != "" {
			return &mcp.ElicitResult{Action: action}, nil
		}
		<-ctx.Done()
		withdrawn <- ctx.Err()
		return nil, ctx.Err()
	}}
	headless := d.connectVia(launcher, "headless", server)
	hurried := d.connectVia(launcher, "hurried", server)
	for _, cs := range []*mcp.ClientSession{headless, hurried} {
		if _, err := cs.ListTools(t.Context(), nil); err != nil {
			t.Fatalf("tools/list: %v%s", err, d.diagnostics())
		}
	}

	for _, tt := range []struct {
		name    string
		cs      *mcp.ClientSession
		server  string
		action  string // "" : nobody answers
		text    string
		isError bool
	}{
		{"accept", headless, "headless", "accept", "Echo: accept me", false},
		{"decline", headless, "headless", "decline", `The user denied the call of the tool "echo" when the host asked; it did not run.`, true},
		{"no answer", hurried, "hurried", "", `Nobody approved the call of the tool "echo" in time when the host asked; it did not run.`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls := make(chan toolCall, 1)
			go func() {
				res, err := tt.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo",
					Arguments: map[string]any{"message": tt.action + " me", "api_key": "sk-live-0123456789abcdef"}})
				calls <- toolCall{res, err}
			}()
			p := <-prompts
			msg := p.req.Params.Message
			for _, want := range []string{`the server "` + tt.server + `"`, `tool "echo"`, "Echoes back the input string", `message: "` + tt.action + ` me"`, "api_key: •••••• (hidden"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the host's prompt lacks %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "0123456789abcdef") {
				t.Errorf("the host's prompt shows the secret argument:\n%s", msg)
			}
			var schema any
			if b, _ := json.Marshal(p.req.Params.RequestedSchema); json.Unmarshal(b, &schema) != nil ||
				!cmp.Equal(schema, map[string]any{"type": "object", "properties": map[string]any{}}) {
				t.Errorf("requestedSchema %v, want a form asking for nothing", schema)
			}
			p.answer <- tt.action
			if tt.action == "" {
				if err := <-withdrawn; err == nil {
					t.Errorf("the host's prompt was not withdrawn")
				}
			}
			c := <-calls
			if c.err != nil {
				t.Fatalf("tools/call failed: %v%s", c.err, d.diagnostics())
			}
			var text string
			for _, content := range c.res.Content {
				if tc, ok := content.(*mcp.TextContent); ok {
					text += tc.Text
				}
			}
			if text != tt.text || c.res.IsError != tt.isError {
				t.Errorf("host got %q (isError %v), want %q (isError %v)%s", text, c.res.IsError, tt.text, tt.isError, d.diagnostics())
			}
		})
	}

	type decision struct{ Server, Tool, Action, DecidedBy string }
	var got []decision
	for _, r := range d.history("--kind", "tool call") {
		got = append(got, decision{r.Server, r.Tool, r.Action, r.DecidedBy})
		if !strings.Contains(r.Reason, "asked in the host") || !strings.Contains(r.Message, "Echoes back the input string") {
			t.Errorf("record %d does not say what the call was and where it was asked:\n%s\n%s", r.ID, r.Reason, r.Message)
		}
	}
	want := []decision{ // newest first
		{"hurried", "echo", bridge.ActionCancel, bridge.DecidedByTimeout},
		{"headless", "echo", bridge.ActionDecline, bridge.DecidedByHost},
		{"headless", "echo", bridge.ActionAccept, bridge.DecidedByHost},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history of tool calls mismatch (-want +got):\n%s", diff)
	}
	if n := strings.Count(d.wrapperLog(), "Guarded tool calls are asked in the host"); n != 2 {
		t.Errorf("the wrappers' logs say %d times that calls are asked in the host, want once each:\n%s", n, d.wrapperLog())
	}
}
