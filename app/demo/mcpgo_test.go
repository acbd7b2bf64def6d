package demo

import (
	"context"
	"io"
	"path/filepath"
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

// mcpgoScript is an mcp-go elicitation handler that gives its answers in
// order, one per round, and cancels past them.
type mcpgoScript struct {
	answers []mcpgo.ElicitationResponse

	mu       sync.Mutex
	messages []string
}

func (s *mcpgoScript) Elicit(_ context.Context, req mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	first, _, _ := strings.Cut(req.Params.Message, "\n")
	s.messages = append(s.messages, first)
	if len(s.messages) > len(s.answers) {
		return &mcpgo.ElicitationResult{ElicitationResponse: mcpgo.ElicitationResponse{Action: "cancel"}}, nil
	}
	return &mcpgo.ElicitationResult{ElicitationResponse: s.answers[len(s.messages)-1]}, nil
}

// TestMCPGoClientChangeApproval has mcp-go as the host run request_change
// in both eras: its MRTR loop at 2026-07-28 and legacy pushes at 2025-11-25
// carry round 1's approval into round 2 and round 2's change into round 3.
func TestMCPGoClientChangeApproval(t *testing.T) {
	approve := mcpgo.ElicitationResponse{Action: "accept"}
	prod := mcpgo.ElicitationResponse{Action: "accept", Content: map[string]any{"service": "checkout", "reason": "pool exhaustion at peak", "environment": "prod", "rollback_on_failure": false}}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		for _, tt := range []struct {
			name      string
			answers   []mcpgo.ElicitationResponse
			headlines []string
			want      auditEntry
			text      string
		}{
			{
				name:      "staging is executed without a third round",
				answers:   []mcpgo.ElicitationResponse{approve, {Action: "accept", Content: map[string]any{"service": "search", "reason": "new index", "environment": "staging"}}},
				headlines: []string{approvalHeadline, changeHeadline},
				want: auditEntry{Outcome: outcomeExecuted, Round: 2, Step: "change request", Answer: "accept",
					Change: &changeRequest{Service: "search", Reason: "new index", Environment: "staging", RollbackOnFailure: true}},
				text: "executed at round 2 (change request): search changed in staging, roll back on failure: yes (a demo: nothing really ran). Audit log: AUDIT (call CALL).",
			},
			{
				name:      "prod answered yes is executed",
				answers:   []mcpgo.ElicitationResponse{approve, prod, {Action: "accept", Content: map[string]any{"confirm": true}}},
				headlines: []string{approvalHeadline, changeHeadline, productionHeadline},
				want: auditEntry{Outcome: outcomeExecuted, Round: 3, Step: "production confirmation", Answer: "accept",
					Change: &changeRequest{Service: "checkout", Reason: "pool exhaustion at peak", Environment: "prod", RollbackOnFailure: false}},
				text: "executed at round 3 (production confirmation): checkout changed in prod, roll back on failure: no (a demo: nothing really ran). Audit log: AUDIT (call CALL).",
			},
			{
				name:      "prod answered no is blocked",
				answers:   []mcpgo.ElicitationResponse{approve, prod, {Action: "accept", Content: map[string]any{"confirm": false}}},
				headlines: []string{approvalHeadline, changeHeadline, productionHeadline},
				want: auditEntry{Outcome: outcomeBlocked, Round: 3, Step: "production confirmation", Answer: "accept",
					Change: &changeRequest{Service: "checkout", Reason: "pool exhaustion at peak", Environment: "prod", RollbackOnFailure: false}},
				text: "blocked at round 3 (production confirmation): production was not confirmed, so nothing was changed. Audit log: AUDIT (call CALL).",
			},
		} {
			t.Run(version+"/"+tt.name, func(t *testing.T) {
				audit := filepath.Join(t.TempDir(), "audit.jsonl")
				var wire syncBuffer
				toServer, fromServer := startServerWith(t, &wire, &Options{AuditLog: audit})
				s := &mcpgoScript{answers: tt.answers}
				c := mcpgoConnect(t, toServer, fromServer, version, s)
				call := mcpgo.CallToolRequest{}
				call.Params.Name = changeToolName
				res, err := c.CallTool(t.Context(), call)
				if err != nil {
					t.Fatalf("calling request_change: %v", err)
				}
				if diff := cmp.Diff(tt.headlines, s.messages); diff != "" {
					t.Errorf("rounds asked mismatch (-want +got):\n%s", diff)
				}
				checkOutcome(t, audit, version, tt.want, tt.text, mcpgoText(res))
				if got, want := eraOf(t, wire.Bytes()), version == "2026-07-28"; got != want {
					t.Errorf("server answered with input_required: %v, want %v", got, want)
				}
			})
		}
	}
}

// TestMCPGoClientChangeOutsideTheForm: mcp-go does not check answers
// against the schema, so a change request for an environment the form does
// not offer reaches the server, which aborts rather than run it.
func TestMCPGoClientChangeOutsideTheForm(t *testing.T) {
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	toServer, fromServer := startServerWith(t, nil, &Options{AuditLog: audit})
	s := &mcpgoScript{answers: []mcpgo.ElicitationResponse{
		{Action: "accept"},
		{Action: "accept", Content: map[string]any{"service": "checkout", "reason": "r", "environment": "moon"}},
	}}
	c := mcpgoConnect(t, toServer, fromServer, "", s)
	call := mcpgo.CallToolRequest{}
	call.Params.Name = changeToolName
	res, err := c.CallTool(t.Context(), call)
	if err != nil {
		t.Fatalf("calling request_change: %v", err)
	}
	if got := mcpgoText(res); !res.IsError || !strings.HasPrefix(got, "aborted at round 2 (change request): the accepted content does not match the form") {
		t.Errorf("result %q (isError %v), want aborted at round 2 as an error", got, res.IsError)
	}
	entries := readAudit(t, audit)
	if len(entries) != 1 || entries[0].Outcome != outcomeAborted || entries[0].Change != nil || !strings.HasPrefix(entries[0].Problem, "the accepted content does not match the form") {
		t.Errorf("audit log %+v, want one aborted line saying why, with no change", entries)
	}
}

// mcpgoConnect connects an mcp-go client answering with e at
// protocolVersion ("" for mcp-go's latest).
func mcpgoConnect(t *testing.T, toServer io.WriteCloser, fromServer io.ReadCloser, protocolVersion string, e mcpgoclient.ElicitationHandler) *mcpgoclient.Client {
	t.Helper()
	c := mcpgoclient.NewClient(transport.NewIO(fromServer, toServer, nil), mcpgoclient.WithElicitationHandler(e))
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = protocolVersion
	init.Params.ClientInfo = mcpgo.Implementation{Name: "mcp-go-host", Version: "1"}
	if _, err := c.Initialize(t.Context(), init); err != nil {
		t.Fatalf("initializing: %v", err)
	}
	return c
}

// mcpgoText is the text of an mcp-go tool result.
func mcpgoText(res *mcpgo.CallToolResult) string {
	var texts []string
	for _, content := range res.Content {
		texts = append(texts, mcpgo.GetTextFromContent(content))
	}
	return strings.Join(texts, "\n")
}
