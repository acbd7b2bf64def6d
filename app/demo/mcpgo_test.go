package demo

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	mcpgoclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// mcpgoElicitor is a scripted mcp-go elicitation handler.
type mcpgoElicitor struct {
	answer mcpgo.ElicitationResponse

	mu       sync.Mutex
	messages []string
}

func (e *mcpgoElicitor) Elicit(_ context.Context, req mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.messages = append(e.messages, req.Params.Message)
	return &mcpgo.ElicitationResult{ElicitationResponse: e.answer}, nil
}

// TestMCPGoClient has mcp-go, an independent SDK, call confirm_deploy in both
// eras: mcp-go speaks 2026-07-28 by default and legacy when pinned.
func TestMCPGoClient(t *testing.T) {
	for _, tt := range []struct {
		name            string
		protocolVersion string
		answer          mcpgo.ElicitationResponse
		want            string
	}{
		{
			name:   "2026-07-28 accept",
			answer: mcpgo.ElicitationResponse{Action: "accept", Content: map[string]any{"confirm": true, "environment": "production"}},
			want:   `accept: {"confirm":true,"environment":"production"}`,
		},
		{
			name:            "2025-11-25 accept",
			protocolVersion: "2025-11-25",
			answer:          mcpgo.ElicitationResponse{Action: "accept", Content: map[string]any{"confirm": true, "environment": "production"}},
			want:            `accept: {"confirm":true,"environment":"production"}`,
		},
		{
			name:   "2026-07-28 decline",
			answer: mcpgo.ElicitationResponse{Action: "decline"},
			want:   "decline",
		},
		{
			// mcp-go does not check answers against the schema; the demo
			// does, so a wrong value is reported, never shown as accepted.
			name:   "2026-07-28 accept outside the choices",
			answer: mcpgo.ElicitationResponse{Action: "accept", Content: map[string]any{"confirm": true, "environment": "moon"}},
			want:   "error: confirm_deploy: the accepted content does not match the form",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var wire syncBuffer
			toServer, fromServer := startServer(t, &wire)
			e := &mcpgoElicitor{answer: tt.answer}
			c := mcpgoclient.NewClient(transport.NewIO(fromServer, toServer, nil), mcpgoclient.WithElicitationHandler(e))
			if err := c.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			init := mcpgo.InitializeRequest{}
			init.Params.ProtocolVersion = tt.protocolVersion
			init.Params.ClientInfo = mcpgo.Implementation{Name: "mcp-go-host", Version: "1"}
			if _, err := c.Initialize(t.Context(), init); err != nil {
				t.Fatalf("initializing: %v", err)
			}
			call := mcpgo.CallToolRequest{}
			call.Params.Name = "confirm_deploy"
			res, err := c.CallTool(t.Context(), call)
			if err != nil {
				t.Fatalf("calling confirm_deploy: %v", err)
			}
			var texts []string
			for _, content := range res.Content {
				texts = append(texts, mcpgo.GetTextFromContent(content))
			}
			got := strings.Join(texts, "\n")
			if res.IsError {
				got = "error: " + got
				// Keep the user-facing start; the validator's detail may change.
				got, _, _ = strings.Cut(got, ": validating")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tool result mismatch (-want +got):\n%s", diff)
			}
			// The era really was the one named: a legacy push, or an
			// input_required result (PROTOCOL.md §1).
			if got, want := eraOf(t, wire.Bytes()), tt.protocolVersion == ""; got != want {
				t.Errorf("server answered with input_required: %v, want %v", got, want)
			}
			if diff := cmp.Diff([]string{"Deploy build 1.4.2?"}, e.messages); diff != "" {
				t.Errorf("elicitation messages mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
