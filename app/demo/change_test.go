package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// script is an elicitation handler that gives its answers in order, one
// per round, and keeps what it was asked. Past its answers it cancels and
// notes the surplus question.
type script struct {
	answers []*mcp.ElicitResult

	mu    sync.Mutex
	asked []*mcp.ElicitParams
}

func (s *script) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, req.Params)
	if len(s.asked) > len(s.answers) {
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	return s.answers[len(s.asked)-1], nil
}

// headlines are the first lines of the messages the user was shown, one
// per round.
func (s *script) headlines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range s.asked {
		first, _, _ := strings.Cut(p.Message, "\n")
		out = append(out, first)
	}
	return out
}

// The first line of each round's message.
const (
	approvalHeadline   = "Approve this change?"
	changeHeadline     = "Describe the change to make:"
	productionHeadline = "This changes PRODUCTION. Confirm once more:"
)

// readAudit returns the lines of the audit log at path, each decoded.
func readAudit(t *testing.T, path string) []auditEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("opening the audit log: %v", err)
	}
	defer f.Close()
	var entries []auditEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e auditEntry
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("audit log line %q: %v", sc.Text(), err)
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return entries
}

// accept is an accept ElicitResult with content.
func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

var (
	approve  = &mcp.ElicitResult{Action: "accept"}
	decline  = &mcp.ElicitResult{Action: "decline"}
	dismiss  = &mcp.ElicitResult{Action: "cancel"}
	prodPool = map[string]any{"service": "checkout", "reason": "pool exhaustion at peak", "environment": "prod", "rollback_on_failure": true}
)

// changeCases are request_change's outcome paths: each round's
// accept, decline and cancel, as the tool description maps them.
var changeCases = []struct {
	name      string
	answers   []*mcp.ElicitResult
	headlines []string   // what the user was asked, one line per round
	want      auditEntry // Time, Call and Protocol aside
	text      string     // AUDIT and CALL stand for the log and the call id
}{
	{
		name:      "cancel at round 1 is aborted",
		answers:   []*mcp.ElicitResult{dismiss},
		headlines: []string{approvalHeadline},
		want:      auditEntry{Outcome: outcomeAborted, Round: 1, Step: "approval", Answer: "cancel"},
		text:      "aborted at round 1 (approval): the approval was dismissed without an answer, so nothing was changed. Audit log: AUDIT (call CALL).",
	},
	{
		name:      "decline at round 1 is declined",
		answers:   []*mcp.ElicitResult{decline},
		headlines: []string{approvalHeadline},
		want:      auditEntry{Outcome: outcomeDeclined, Round: 1, Step: "approval", Answer: "decline"},
		text:      "declined at round 1 (approval): the user declined the change, so nothing was changed. Audit log: AUDIT (call CALL).",
	},
	{
		name:      "decline at round 2 is declined",
		answers:   []*mcp.ElicitResult{approve, decline},
		headlines: []string{approvalHeadline, changeHeadline},
		want:      auditEntry{Outcome: outcomeDeclined, Round: 2, Step: "change request", Answer: "decline"},
		text:      "declined at round 2 (change request): the user declined to give the change request, so nothing was changed. Audit log: AUDIT (call CALL).",
	},
	{
		name:      "cancel at round 2 is aborted",
		answers:   []*mcp.ElicitResult{approve, dismiss},
		headlines: []string{approvalHeadline, changeHeadline},
		want:      auditEntry{Outcome: outcomeAborted, Round: 2, Step: "change request", Answer: "cancel"},
		text:      "aborted at round 2 (change request): the change request was dismissed without an answer, so nothing was changed. Audit log: AUDIT (call CALL).",
	},
	{
		name: "staging is executed without a third round",
		answers: []*mcp.ElicitResult{approve, accept(map[string]any{
			"service": "checkout", "reason": "pool exhaustion at peak", "environment": "staging", "rollback_on_failure": false,
		})},
		headlines: []string{approvalHeadline, changeHeadline},
		want: auditEntry{Outcome: outcomeExecuted, Round: 2, Step: "change request", Answer: "accept",
			Change: &changeRequest{Service: "checkout", Reason: "pool exhaustion at peak", Environment: "staging", RollbackOnFailure: false}},
		text: "executed at round 2 (change request): checkout changed in staging, roll back on failure: no (a demo: nothing really ran). Audit log: AUDIT (call CALL).",
	},
	{
		name:      "dev and rolling back are the defaults",
		answers:   []*mcp.ElicitResult{approve, accept(map[string]any{"service": "search", "reason": "new index"})},
		headlines: []string{approvalHeadline, changeHeadline},
		want: auditEntry{Outcome: outcomeExecuted, Round: 2, Step: "change request", Answer: "accept",
			Change: &changeRequest{Service: "search", Reason: "new index", Environment: "dev", RollbackOnFailure: true}},
		text: "executed at round 2 (change request): search changed in dev, roll back on failure: yes (a demo: nothing really ran). Audit log: AUDIT (call CALL).",
	},
	{
		name:      "prod answered no is blocked",
		answers:   []*mcp.ElicitResult{approve, accept(prodPool), accept(map[string]any{"confirm": false})},
		headlines: []string{approvalHeadline, changeHeadline, productionHeadline},
		want: auditEntry{Outcome: outcomeBlocked, Round: 3, Step: "production confirmation", Answer: "accept",
			Change: &changeRequest{Service: "checkout", Reason: "pool exhaustion at peak", Environment: "prod", RollbackOnFailure: true}},
		text: "blocked at round 3 (production confirmation): production was not confirmed, so nothing was changed. Audit log: AUDIT (call CALL).",
	},
	{
		name:      "prod declined is blocked",
		answers:   []*mcp.ElicitResult{approve, accept(prodPool), decline},
		headlines: []string{approvalHeadline, changeHeadline, productionHeadline},
		want: auditEntry{Outcome: outcomeBlocked, Round: 3, Step: "production confirmation", Answer: "decline",
			Change: &changeRequest{Service: "checkout", Reason: "pool exhaustion at peak", Environment: "prod", RollbackOnFailure: true}},
		text: "blocked at round 3 (production confirmation): production was not confirmed, so nothing was changed. Audit log: AUDIT (call CALL).",
	},
	{
		name:      "prod dismissed is aborted",
		answers:   []*mcp.ElicitResult{approve, accept(prodPool), dismiss},
		headlines: []string{approvalHeadline, changeHeadline, productionHeadline},
		want: auditEntry{Outcome: outcomeAborted, Round: 3, Step: "production confirmation", Answer: "cancel",
			Change: &changeRequest{Service: "checkout", Reason: "pool exhaustion at peak", Environment: "prod", RollbackOnFailure: true}},
		text: "aborted at round 3 (production confirmation): the production confirmation was dismissed without an answer, so nothing was changed. Audit log: AUDIT (call CALL).",
	},
	{
		name:      "prod answered yes is executed",
		answers:   []*mcp.ElicitResult{approve, accept(prodPool), accept(map[string]any{"confirm": true})},
		headlines: []string{approvalHeadline, changeHeadline, productionHeadline},
		want: auditEntry{Outcome: outcomeExecuted, Round: 3, Step: "production confirmation", Answer: "accept",
			Change: &changeRequest{Service: "checkout", Reason: "pool exhaustion at peak", Environment: "prod", RollbackOnFailure: true}},
		text: "executed at round 3 (production confirmation): checkout changed in prod, roll back on failure: yes (a demo: nothing really ran). Audit log: AUDIT (call CALL).",
	},
}

// checkOutcome checks that the audit log at path holds exactly want (Time,
// Call and Protocol aside; want's Summary empty means the default) and that
// text is the tool result that names it.
func checkOutcome(t *testing.T, path, protocol string, want auditEntry, wantText, text string) {
	t.Helper()
	entries := readAudit(t, path)
	if len(entries) != 1 {
		t.Fatalf("the audit log holds %d lines, want 1: %+v", len(entries), entries)
	}
	got := entries[0]
	if got.Time.IsZero() || got.Time.Location() != time.UTC {
		t.Errorf("audit time %v, want the time of the outcome in UTC", got.Time)
	}
	if len(got.Call) != 16 {
		t.Errorf("audit call %q, want 16 hex digits naming the call", got.Call)
	}
	want.Tool, want.Protocol = changeToolName, protocol
	if want.Summary == "" {
		want.Summary = defaultSummary
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(auditEntry{}, "Time", "Call")); diff != "" {
		t.Errorf("audit line mismatch (-want +got):\n%s", diff)
	}
	wantText = strings.NewReplacer("AUDIT", path, "CALL", got.Call).Replace(wantText)
	if diff := cmp.Diff(wantText, text); diff != "" {
		t.Errorf("tool result mismatch (-want +got):\n%s", diff)
	}
}

// connectChange connects a go-sdk client answering with s to a fresh Server
// whose audit log is returned.
func connectChange(t *testing.T, protocolVersion string, s *script, wire *syncBuffer) (*mcp.ClientSession, string) {
	t.Helper()
	audit := filepath.Join(t.TempDir(), "state", "demo-audit.jsonl")
	var tee io.Writer
	if wire != nil {
		tee = wire
	}
	toServer, fromServer := startServerWith(t, tee, &Options{AuditLog: audit})
	client := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: s.handle})
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: fromServer, Writer: toServer}, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		t.Fatalf("connecting to the demo server: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, audit
}

// TestChangeApprovalOutcomes has go-sdk, as the host, walk every outcome
// path of request_change in both eras: the rounds asked, the one audit line
// each call leaves, and the result that names the log.
func TestChangeApprovalOutcomes(t *testing.T) {
	for _, era := range eras {
		for _, tt := range changeCases {
			t.Run(era.name+"/"+tt.name, func(t *testing.T) {
				s := &script{answers: tt.answers}
				var wire syncBuffer
				cs, audit := connectChange(t, era.protocolVersion, s, &wire)
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: changeToolName})
				if err != nil {
					t.Fatalf("calling request_change: %v", err)
				}
				if diff := cmp.Diff(tt.headlines, s.headlines()); diff != "" {
					t.Errorf("rounds asked mismatch (-want +got):\n%s", diff)
				}
				checkOutcome(t, audit, era.protocolVersion, tt.want, tt.text, resultText(res))
				if got, want := eraOf(t, wire.Bytes()), era.protocolVersion >= "2026-07-28"; got != want {
					t.Errorf("server answered with input_required: %v, want %v", got, want)
				}
				fi, err := os.Stat(audit)
				if err != nil {
					t.Fatal(err)
				}
				if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 { // Windows: the directory's access list
					t.Errorf("audit log mode %v, want 0600: it holds the reasons users give", fi.Mode().Perm())
				}
			})
		}
	}
}

// TestChangeRoundsShowTheirForms checks what each round puts in front of the
// user: the summary to approve with no fields, the change request with its
// defaults, and the production question unticked.
func TestChangeRoundsShowTheirForms(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			s := &script{answers: []*mcp.ElicitResult{approve, accept(prodPool), dismiss}}
			cs, _ := connectChange(t, era.protocolVersion, s, nil)
			summary := "Raise the checkout pool from 20 to 50 connections."
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: changeToolName, Arguments: map[string]any{"summary": summary}}); err != nil {
				t.Fatalf("calling request_change: %v", err)
			}
			var got []elicitation
			for _, p := range s.asked {
				got = append(got, summarize(t, p))
			}
			want := []elicitation{
				{
					Message: approvalHeadline + "\n\n" + summary + "\n\nSubmit approves it, and then asks for the details; Decline refuses it.",
					Fields:  map[string]string{},
				},
				{
					Message: changeHeadline + "\n\n" + summary,
					Fields: map[string]string{
						"service":             "string | Service",
						"reason":              "string | Reason",
						"environment":         `oneOf dev=Development (dev),staging=Staging,prod=Production (prod) | Target environment | default "dev"`,
						"rollback_on_failure": "boolean | Roll back on failure | default true",
					},
					Required: []any{"service", "reason"},
				},
				{
					Message: productionHeadline + "\n\nService: checkout\nReason: pool exhaustion at peak\nRoll back on failure: yes\n\n" +
						"Tick the box and Submit to go ahead; leave it unticked, or Decline, to block the change.",
					Fields:   map[string]string{"confirm": "boolean | Yes, change production | default false"},
					Required: []any{"confirm"},
				},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rounds mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChangeKeepsEveryOutcomeInOneLog(t *testing.T) {
	// One server, three calls: the log grows by one line per call, oldest
	// first, and each call has its own id.
	s := &script{answers: []*mcp.ElicitResult{dismiss, decline, approve, accept(map[string]any{"service": "api", "reason": "r"})}}
	cs, audit := connectChange(t, "2025-11-25", s, nil)
	for range 3 {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: changeToolName}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	calls := map[string]bool{}
	for _, e := range readAudit(t, audit) {
		got = append(got, fmt.Sprintf("%s at %d", e.Outcome, e.Round))
		calls[e.Call] = true
	}
	if diff := cmp.Diff([]string{"aborted at 1", "declined at 1", "executed at 2"}, got); diff != "" {
		t.Errorf("audit log mismatch (-want +got):\n%s", diff)
	}
	if len(calls) != 3 {
		t.Errorf("three calls logged under %d call ids, want 3", len(calls))
	}
}
