//go:build linux

package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEndToEndUnattended (issue 11): with `rule = "accept-defaults-or-cancel"`
// for a server in config.toml, as a CI agent or the conformance suite has
// it, the real wrapper and hub answer every prompt of that server without a
// window, with the official Go SDK as the host and real stdio servers: a
// form whose fields all have defaults reaches the server accepted with
// them (every kind, typed as the schema says); server-everything's form,
// whose required name has no default, a confirmation without defaults and
// server-everything's link are cancel. The history says each was the rule's
// doing, and why.
func TestEndToEndUnattended(t *testing.T) {
	server := everythingServer(t)
	d := newParallelDesktop(t)
	d.config("[servers.ci]\nrule = \"accept-defaults-or-cancel\"\n")
	ask := d.connectAsk("ci")
	everything := d.connect("ci", server)
	const reason = "the rule for ci is accept-defaults-or-cancel, and "

	for _, tt := range []struct {
		name string
		cs   *mcp.ClientSession
		tool string
		args map[string]any
		// says is (part of) the tool's text: what the server received.
		says    string
		action  string
		content map[string]any
		reason  string
	}{
		{
			name: "a form whose fields all have defaults is accepted with them",
			cs:   ask, tool: "ask",
			args: map[string]any{
				"message": "Test client default value handling - please accept with defaults",
				"schema": `{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},` +
					`"score":{"type":"number","default":95.5},"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},` +
					`"verified":{"type":"boolean","default":true}},"required":[]}`,
			},
			says:    `{"action":"accept","content":{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}}`,
			action:  "accept",
			content: map[string]any{"age": 30.0, "name": "John Doe", "score": 95.5, "status": "active", "verified": true},
			reason:  reason + "the form's required fields all have defaults: they were sent",
		},
		{
			name: "a required field without a default is cancel",
			cs:   everything, tool: "trigger-elicitation-request",
			says:   "User cancelled the elicitation dialog.",
			action: "cancel",
			reason: reason + `the required field "name" has no default`,
		},
		{
			name: "a confirmation is cancel",
			cs:   ask, tool: "ask",
			args: map[string]any{
				"message": "Delete the production database?",
				"schema":  `{"type":"object","properties":{"confirm":{"type":"boolean","title":"Really delete it?"}}}`,
			},
			says:   `{"action":"cancel"}`,
			action: "cancel",
			reason: reason + "no field of the form has a default: a confirmation is for a person",
		},
		{
			name: "a link is cancel",
			cs:   everything, tool: "trigger-url-elicitation",
			args:   map[string]any{"url": "https://auth.example.com/connect", "message": "Connect your account.", "elicitationId": "e2e-unattended"},
			says:   "User cancelled the URL elicitation (Elicitation ID: e2e-unattended)",
			action: "cancel",
			reason: reason + "a link is never opened by a rule",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := d.with(t)
			args := tt.args
			if args == nil {
				args = map[string]any{}
			}
			text := d.result(d.callWith(tt.cs, tt.tool, args)) // bounded: a window would stall it
			if !strings.Contains(text, tt.says) {
				t.Errorf("tool result does not say %q:\n%s", tt.says, text)
			}
			// The answer came without a window: none is open now either.
			if wins := d.visibleWindows(strconv.Itoa(d.hubPID())); len(wins) > 0 {
				t.Errorf("the hub shows %d window(s) for a server whose rule never asks", len(wins))
			}
			want := decision{
				Server:     "ci",
				ServerInfo: tt.cs.InitializeResult().ServerInfo.Name,
				Tool:       tt.tool,
				Action:     tt.action,
				DecidedBy:  "rule",
				Reason:     tt.reason,
				Content:    tt.content,
			}
			if diff := cmp.Diff(want, decisionOf(d.history()[0])); diff != "" {
				t.Errorf("newest history record mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
