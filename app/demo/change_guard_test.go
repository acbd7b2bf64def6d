package demo

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/platform"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawHost speaks 2026-07-28 to a Server line by line, so that a test can
// send what no SDK would: an altered requestState, a replayed one.
type rawHost struct {
	t    *testing.T
	to   io.Writer
	from *bufio.Reader
	id   int
}

func newRawHost(t *testing.T, audit string) *rawHost {
	toServer, fromServer := startServerWith(t, nil, &Options{AuditLog: audit})
	return &rawHost{t: t, to: toServer, from: bufio.NewReader(fromServer)}
}

// toolResult is the part of a tools/call result these tests read.
type toolResult struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
	IsError       bool                       `json:"isError"`
	Content       []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// call sends request_change's tools/call with the given inputResponses and
// requestState (both may be empty) and returns the result.
func (h *rawHost) call(responses map[string]any, state string) toolResult {
	h.t.Helper()
	h.id++
	params := map[string]any{
		"name": changeToolName,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
		},
	}
	if responses != nil {
		params["inputResponses"] = responses
	}
	if state != "" {
		params["requestState"] = state
	}
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": h.id, "method": "tools/call", "params": params})
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.to.Write(append(line, '\n')); err != nil {
		h.t.Fatal(err)
	}
	reply, err := h.from.ReadBytes('\n')
	if err != nil {
		h.t.Fatalf("reading the reply: %v", err)
	}
	var msg struct {
		Result *toolResult      `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(reply, &msg); err != nil || msg.Result == nil {
		h.t.Fatalf("the server answered %s, want a result", reply)
	}
	return *msg.Result
}

func (r toolResult) text() string {
	var texts []string
	for _, c := range r.Content {
		texts = append(texts, c.Text)
	}
	if r.IsError {
		return "error: " + strings.Join(texts, "\n")
	}
	return strings.Join(texts, "\n")
}

// TestChangeRefusesAStateItDidNotIssue: the requestState comes back through
// the host, which could alter it to skip the approval. An altered state,
// one from another run, an answer under the wrong key and a replay of an
// ended call each end aborted, with the reason in the audit log, and
// nothing executed.
func TestChangeRefusesAStateItDidNotIssue(t *testing.T) {
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	h := newRawHost(t, audit)
	first := h.call(nil, "")
	if first.ResultType != "input_required" || first.InputRequests["approval"] == nil || first.RequestState == "" {
		t.Fatalf("request_change began with %+v, want round 1 (approval) as input_required with a requestState", first)
	}

	// Skip to round 2 by rewriting the state's round, keeping its MAC.
	payload, mac, _ := strings.Cut(first.RequestState, ".")
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatalf("requestState %q: %v", first.RequestState, err)
	}
	skipped := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(b), `"round":1`, `"round":2`, 1))) + "." + mac
	staging := map[string]any{"change": map[string]any{"action": "accept", "content": map[string]any{"service": "api", "reason": "r", "environment": "staging"}}}

	// A state issued by another server process: another key.
	other := newChangeTool(audit)
	foreign, err := other.seal(changeState{Call: "0123456789abcdef", Round: roundChange, Summary: defaultSummary})
	if err != nil {
		t.Fatal(err)
	}

	forged := "error: aborted: " + errForgedState.Error() + "; nothing was changed. Audit log: " + audit + "."
	for _, tt := range []struct {
		name      string
		responses map[string]any
		state     string
		want      string
	}{
		{"round rewritten", staging, skipped, forged},
		{"from another run", staging, foreign, forged},
		{"not a state at all", staging, "round=3", forged},
	} {
		if got := h.call(tt.responses, tt.state).text(); got != tt.want {
			t.Errorf("%s: result %q, want %q", tt.name, got, tt.want)
		}
	}

	// The real state, but the answer under another round's key.
	wrongKey := h.call(staging, first.RequestState).text()
	entries := readAudit(t, audit)
	id := entries[len(entries)-1].Call
	if want := fmt.Sprintf("error: aborted at round 1 (approval): the retry carries no answer to round 1 (input \"approval\"); nothing was changed. Audit log: %s (call %s).", audit, id); wrongKey != want {
		t.Errorf("answer under the wrong key: result %q, want %q", wrongKey, want)
	}
	// That ended the call: its state cannot be resumed any more.
	approval := map[string]any{"approval": map[string]any{"action": "accept"}}
	if got, want := h.call(approval, first.RequestState).text(), fmt.Sprintf("error: aborted at round 1 (approval): %s; nothing was changed. Audit log: %s (call %s).", errEndedState, audit, id); got != want {
		t.Errorf("replayed state: result %q, want %q", got, want)
	}

	var got []string
	for _, e := range readAudit(t, audit) {
		got = append(got, fmt.Sprintf("%s at %d: %s", e.Outcome, e.Round, e.Problem))
	}
	want := []string{
		"aborted at 0: " + errForgedState.Error(),
		"aborted at 0: " + errForgedState.Error(),
		"aborted at 0: " + errForgedState.Error(),
		`aborted at 1: the retry carries no answer to round 1 (input "approval")`,
		"aborted at 1: " + errEndedState.Error(),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit log mismatch (-want +got):\n%s", diff)
	}
}

// TestChangeReplayCannotExecuteTwice: once a call is executed, sending its
// last retry again executes nothing more.
func TestChangeReplayCannotExecuteTwice(t *testing.T) {
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	h := newRawHost(t, audit)
	r1 := h.call(nil, "")
	r2 := h.call(map[string]any{"approval": map[string]any{"action": "accept"}}, r1.RequestState)
	if r2.InputRequests["change"] == nil {
		t.Fatalf("after approval the server answered %+v, want round 2 (change)", r2)
	}
	staging := map[string]any{"change": map[string]any{"action": "accept", "content": map[string]any{"service": "api", "reason": "r", "environment": "staging"}}}
	if got := h.call(staging, r2.RequestState).text(); !strings.HasPrefix(got, "executed at round 2") {
		t.Fatalf("round 2 answered staging: result %q, want executed", got)
	}
	if got := h.call(staging, r2.RequestState).text(); !strings.HasPrefix(got, "error: aborted at round 2 (change request): "+errEndedState.Error()) {
		t.Errorf("the same retry again: result %q, want it refused", got)
	}
	var got []outcome
	for _, e := range readAudit(t, audit) {
		got = append(got, e.Outcome)
	}
	if diff := cmp.Diff([]outcome{outcomeExecuted, outcomeAborted}, got); diff != "" {
		t.Errorf("audit outcomes mismatch (-want +got):\n%s", diff)
	}
}

// TestChangeAuditLogIsNotWrittenThroughAPlant: a link planted where the
// audit log goes is refused with a sentence that says what to do; the
// link's target is untouched, and nothing is executed without its line.
// (A FIFO: TestChangeAuditLogIsNotWrittenThroughAFIFO, where there are
// named pipes.)
func TestChangeAuditLogIsNotWrittenThroughAPlant(t *testing.T) {
	if platform.UnderWine() {
		t.Skip("Wine 8 makes os.Symlink a Unix symbolic link, which Go's Windows build opens as the file")
	}
	auditPlantRefused(t, func(t *testing.T, audit string) {
		if err := os.Symlink(filepath.Join(filepath.Dir(audit), "target"), audit); err != nil {
			t.Fatal(err)
		}
	}, "it is a symbolic link, which elicitray does not write through; remove it or choose another file with --audit")
}

// auditPlantRefused runs request_change with plant put where its audit
// log goes (beside a file "target"): the change is not made, the result
// says why (want), and target keeps what it held.
func auditPlantRefused(t *testing.T, plant func(t *testing.T, audit string), want string) {
	t.Helper()
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit.jsonl")
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("someone else's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plant(t, audit)
	s := &script{answers: []*mcp.ElicitResult{approve, accept(map[string]any{"service": "api", "reason": "r"})}}
	toServer, fromServer := startServerWith(t, nil, &Options{AuditLog: audit})
	client := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: s.handle})
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: fromServer, Writer: toServer}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: changeToolName})
	if err != nil {
		t.Fatal(err)
	}
	got := resultText(res)
	if !strings.HasPrefix(got, "error: request_change: the change was not made, because its outcome could not be recorded: ") || !strings.Contains(got, want) {
		t.Errorf("result %q, want the change not made because %q", got, want)
	}
	if b, _ := os.ReadFile(target); string(b) != "someone else's\n" {
		t.Errorf("the link's target now holds %q", b)
	}
}

func TestChangeMakesTheAuditLogPrivate(t *testing.T) {
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(audit, []byte(`{"earlier":"line"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &script{answers: []*mcp.ElicitResult{dismiss}}
	toServer, fromServer := startServerWith(t, nil, &Options{AuditLog: audit})
	client := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: s.handle})
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: fromServer, Writer: toServer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: changeToolName}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2 || lines[0] != `{"earlier":"line"}` || !strings.Contains(lines[1], `"outcome":"aborted"`) {
		t.Errorf("audit log holds %q, want the earlier line and the new one appended", b)
	}
	if fi, err := os.Stat(audit); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}

func TestChangeWithoutAnAuditLogChangesNothing(t *testing.T) {
	s := &script{answers: []*mcp.ElicitResult{approve}}
	toServer, fromServer := startServerWith(t, nil, nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: s.handle})
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: fromServer, Writer: toServer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: changeToolName})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resultText(res), "error: "+errNoAuditLog.Error(); got != want {
		t.Errorf("result %q, want %q", got, want)
	}
	if len(s.headlines()) != 0 {
		t.Errorf("the user was asked %q by a guard that cannot record the answer", s.headlines())
	}
}
