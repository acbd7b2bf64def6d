package demo

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCancelNotShownSaysWhy: when Options.NotShown gives a reason (the
// elicitray demo server asks its hub whether prompts are paused), a cancel
// is told as a prompt not shown for that reason; without one, as
// dismissed. Decline is never touched.
func TestCancelNotShownSaysWhy(t *testing.T) {
	const why = "elicitray is paused"
	for _, era := range eras {
		for _, tt := range []struct {
			name     string
			notShown func() string
			action   string
			tool     string
			want     string
		}{
			{"paused form", func() string { return why }, "cancel", "confirm_deploy", "cancel: the form was not shown, because elicitray is paused"},
			{"shown form", func() string { return "" }, "cancel", "confirm_deploy", "cancel"},
			{"paused, declined", func() string { return why }, "decline", "confirm_deploy", "decline"},
			{"paused approval", func() string { return why }, "cancel", changeToolName, "aborted at round 1 (approval): the approval was not shown, because elicitray is paused, so nothing was changed. Audit log: "},
			{"no NotShown", nil, "cancel", changeToolName, "aborted at round 1 (approval): the approval was dismissed without an answer, so nothing was changed. Audit log: "},
		} {
			t.Run(era.name+"/"+tt.name, func(t *testing.T) {
				toServer, fromServer := startServerWith(t, nil, &Options{AuditLog: filepath.Join(t.TempDir(), "audit.jsonl"), NotShown: tt.notShown})
				answer := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: tt.action}, nil
				}
				client := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: answer})
				cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: fromServer, Writer: toServer}, &mcp.ClientSessionOptions{ProtocolVersion: era.protocolVersion})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: map[string]any{}})
				if err != nil {
					t.Fatal(err)
				}
				got := resultText(res)
				if tt.tool == changeToolName && !strings.HasPrefix(got, tt.want) || tt.tool != changeToolName && got != tt.want {
					t.Errorf("%s answered %s says %q, want %q", tt.tool, tt.action, got, tt.want)
				}
			})
		}
	}
}
