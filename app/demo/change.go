package demo

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/elicitray/elicitray/chars"
)

// changeToolName is the demo's change-approval guard.
const changeToolName = "request_change"

// changeDescription is request_change's tool description: what it does and
// how each answer ends the call.
const changeDescription = "The classic change-approval guard: one call, up to three rounds. " +
	"Round 1 asks you to approve the change summary (Submit approves). " +
	"Round 2 asks for the change request: service, reason, target environment (dev, staging or prod; dev unless chosen) and whether to roll back on failure (yes unless unticked). " +
	"Round 3, only for prod, asks you to confirm once more. " +
	"Cancel at any round ends it aborted; Decline at round 1 or 2 ends it declined; prod not confirmed at round 3 (left unticked, or Decline) ends it blocked; " +
	"otherwise it ends executed (a demo: nothing really runs). " +
	"Every outcome is appended to an audit log, which the result names."

// defaultSummary is the change summary when the caller gives none.
const defaultSummary = "Restart the checkout service with the new connection-pool settings."

// maxSummary is the longest change summary accepted, in characters.
const maxSummary = 1000

// The rounds of one request_change call. Each asks one elicitation, under
// its own input key: a retry carries the answer to the round its
// requestState names, under that round's key (PROTOCOL.md §1).
const (
	roundApproval   = 1
	roundChange     = 2
	roundProduction = 3
)

// rounds names each round: its input key and, for the audit log, its step.
var rounds = map[int]struct{ key, step string }{
	roundApproval:   {"approval", "approval"},
	roundChange:     {"change", "change request"},
	roundProduction: {"production", "production confirmation"},
}

// changeRequest is round 2's answer, with the form's defaults applied.
type changeRequest struct {
	Service           string `json:"service"`
	Reason            string `json:"reason"`
	Environment       string `json:"environment"`
	RollbackOnFailure bool   `json:"rollback_on_failure"`
}

// approvalSchema is round 1's requestedSchema: no fields, so the window
// shows the summary with Submit (approve), Decline and Cancel, and accept is
// the only answer that goes on.
var approvalSchema = newSchema(object(nil))

// changeSchema is round 2's requestedSchema: the change request.
var changeSchema = newSchema(object([]string{"service", "reason"},
	prop("service", &jsonschema.Schema{
		Type: "string", Title: "Service", Description: "The service to change, e.g. checkout",
		MinLength: ptr(1), MaxLength: ptr(64),
	}),
	prop("reason", &jsonschema.Schema{
		Type: "string", Title: "Reason", Description: "Why the change is needed; kept in the audit log",
		MinLength: ptr(1), MaxLength: ptr(500),
	}),
	// Titled single select of the three environments.
	prop("environment", &jsonschema.Schema{
		Type: "string", Title: "Target environment", Description: "Production asks you to confirm once more",
		OneOf: titled(
			"dev", "Development (dev)",
			"staging", "Staging",
			"prod", "Production (prod)",
		),
		Default: raw("dev"),
	}),
	prop("rollback_on_failure", &jsonschema.Schema{
		Type: "boolean", Title: "Roll back on failure", Description: "Undo the change by itself if it fails",
		Default: raw(true),
	}),
))

// productionSchema is round 3's requestedSchema: one yes/no question,
// unticked unless the user ticks it.
var productionSchema = newSchema(object([]string{"confirm"},
	prop("confirm", &jsonschema.Schema{
		Type: "boolean", Title: "Yes, change production", Description: "Leave unticked to block the change",
		Default: raw(false),
	}),
))

// A schema is a requestedSchema as sent and as answers are checked.
type schema struct {
	resolved *jsonschema.Resolved
	wire     json.RawMessage // properties in form order
}

// newSchema resolves s once. It panics on a schema that does not resolve:
// the schemas are constants of this package.
func newSchema(s *jsonschema.Schema) *schema {
	resolved, err := s.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("request_change: resolving a requestedSchema: %v", err))
	}
	wire, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("request_change: encoding a requestedSchema: %v", err))
	}
	return &schema{resolved, wire}
}

// changeTool is request_change: its audit log, and what keeps a
// requestState honest. The state travels through the client between rounds
// (PROTOCOL.md §1), so it is signed with a key only this process knows —
// a forged state could skip the approval — and a call that ended cannot be
// resumed by replaying one of its states.
type changeTool struct {
	audit *auditLog
	key   []byte // HMAC-SHA256 key of the requestStates this process issues
	now   func() time.Time

	// notShown says why prompts are not shown now (Options.NotShown);
	// nil: a cancel was a dismissal.
	notShown func() string

	mu    sync.Mutex
	ended map[string]bool // calls that reached an outcome; a few bytes each, for the life of one host session
}

func newChangeTool(auditPath string) *changeTool {
	key := make([]byte, 32)
	rand.Read(key) // never fails (crypto/rand)
	return &changeTool{audit: &auditLog{path: auditPath}, key: key, now: time.Now, ended: map[string]bool{}}
}

// tool is request_change's definition.
func (t *changeTool) tool() mcp.Tool {
	return mcp.NewTool(changeToolName,
		mcp.WithToolTitle("Request a change"),
		mcp.WithDescription(changeDescription),
		mcp.WithString("summary", mcp.Description("What the change does, in a sentence, shown for approval in round 1. Default: "+defaultSummary)),
		mcp.WithDestructiveHintAnnotation(true),
	)
}

// changeState is the requestState of a round: where the call stands.
type changeState struct {
	Call    string         `json:"call"`
	Round   int            `json:"round"` // the round whose answer the retry carries
	Summary string         `json:"summary"`
	Change  *changeRequest `json:"change,omitempty"`
}

// handle is request_change's tool handler. It runs once per round: the
// first call (no requestState) asks round 1; each retry carries the answer
// to the round its requestState names, and either ends the call with an
// outcome or asks the next round. mcp-go turns each round into a legacy
// elicitation/create push for 2025-11-25 hosts, re-invoking handle with the
// answer and the state, and sends it as an input_required result to
// 2026-07-28 hosts, whose retry brings both back; so handle is the same for
// both eras.
func (t *changeTool) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	caps, modern := elicitationOf(ctx)
	if !declaresForm(caps) {
		if modern {
			return nil, errMissingForm
		}
		return mcp.NewToolResultError("This host did not declare form elicitation, so request_change cannot ask for approval. Run the server through `elicitray wrap`, which declares it."), nil
	}
	if t.audit.path == "" {
		return mcp.NewToolResultError(errNoAuditLog.Error()), nil
	}
	if req.Params.RequestState == "" {
		return t.start(req)
	}

	entry := auditEntry{Tool: changeToolName, Protocol: server.RequestProtocolVersion(ctx)}
	st, err := t.open(req.Params.RequestState)
	if st != nil {
		entry.Call, entry.Round, entry.Step, entry.Summary, entry.Change = st.Call, st.Round, rounds[st.Round].step, st.Summary, st.Change
	}
	if err != nil {
		entry.Outcome, entry.Problem = outcomeAborted, err.Error()
		return t.end(entry, "")
	}
	res := server.ElicitationResponse(req.Params.InputResponses, rounds[st.Round].key)
	if res == nil {
		entry.Outcome, entry.Problem = outcomeAborted, fmt.Sprintf("the retry carries no answer to round %d (input %q)", st.Round, rounds[st.Round].key)
		return t.end(entry, "")
	}
	entry.Answer = string(res.Action)
	switch res.Action {
	case mcp.ElicitationResponseActionCancel:
		entry.Outcome = outcomeAborted
		if why := whyNotShown(res.Action, t.notShown); why != "" {
			return t.end(entry, "the "+entry.Step+" was not shown, because "+why+", so nothing was changed")
		}
		return t.end(entry, "the "+entry.Step+" was dismissed without an answer, so nothing was changed")
	case mcp.ElicitationResponseActionDecline:
		if st.Round == roundProduction {
			entry.Outcome = outcomeBlocked
			return t.end(entry, "production was not confirmed, so nothing was changed")
		}
		entry.Outcome = outcomeDeclined
		if st.Round == roundApproval {
			return t.end(entry, "the user declined the change, so nothing was changed")
		}
		return t.end(entry, "the user declined to give the change request, so nothing was changed")
	case mcp.ElicitationResponseActionAccept:
	default:
		entry.Outcome, entry.Problem = outcomeAborted, fmt.Sprintf("the client answered with the unknown action %q", res.Action)
		return t.end(entry, "")
	}

	switch st.Round {
	case roundApproval:
		// Whatever content came with it: the form has no fields.
		st.Round = roundChange
		return t.ask(*st, "Describe the change to make:\n\n"+st.Summary, changeSchema)
	case roundChange:
		change, err := changeRequestOf(res.Content)
		if err != nil {
			entry.Outcome, entry.Problem = outcomeAborted, err.Error()
			return t.end(entry, "")
		}
		st.Change, entry.Change = change, change
		if change.Environment == "prod" {
			st.Round = roundProduction
			return t.ask(*st, productionMessage(change), productionSchema)
		}
		entry.Outcome = outcomeExecuted
		return t.end(entry, executedText(change))
	default: // roundProduction
		content, err := checkContent(productionSchema, res.Content)
		if err != nil {
			entry.Outcome, entry.Problem = outcomeAborted, err.Error()
			return t.end(entry, "")
		}
		if yes, _ := content["confirm"].(bool); !yes {
			entry.Outcome = outcomeBlocked
			return t.end(entry, "production was not confirmed, so nothing was changed")
		}
		entry.Outcome = outcomeExecuted
		return t.end(entry, executedText(st.Change))
	}
}

// start asks round 1 of a new call: approve the summary.
func (t *changeTool) start(req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	summary := strings.TrimSpace(req.GetString("summary", ""))
	if summary == "" {
		summary = defaultSummary
	}
	if n := chars.Count(summary); n > maxSummary {
		return mcp.NewToolResultError(fmt.Sprintf("request_change: the summary has %d characters; at most %d fit in the approval window", n, maxSummary)), nil
	}
	id := make([]byte, 8)
	rand.Read(id)
	st := changeState{Call: hex.EncodeToString(id), Round: roundApproval, Summary: summary}
	return t.ask(st, "Approve this change?\n\n"+summary+"\n\nSubmit approves it, and then asks for the details; Decline refuses it.", approvalSchema)
}

// ask returns the input_required result of st.Round: one elicitation, and
// st signed as the requestState.
func (t *changeTool) ask(st changeState, message string, s *schema) (*mcp.CallToolResult, error) {
	state, err := t.seal(st)
	if err != nil {
		return nil, err
	}
	return server.NewInputRequestBuilder(state).Elicit(rounds[st.Round].key, mcp.ElicitationParams{
		Mode: "form", Message: message, RequestedSchema: s.wire,
	}).ToolResult(), nil
}

// end records entry in the audit log and returns the tool result that says
// how the call ended: "OUTCOME at round N (STEP): TEXT. Audit log: PATH
// (call ID)." An outcome that could not be recorded is an error result, and
// an executed change that could not be recorded is not made.
func (t *changeTool) end(entry auditEntry, text string) (*mcp.CallToolResult, error) {
	entry.Time = t.now().UTC()
	if entry.Call != "" {
		t.mu.Lock()
		t.ended[entry.Call] = true
		t.mu.Unlock()
	}
	if err := t.audit.append(entry); err != nil {
		if entry.Outcome == outcomeExecuted {
			return mcp.NewToolResultError(fmt.Sprintf("request_change: the change was not made, because its outcome could not be recorded: %v", err)), nil
		}
		return mcp.NewToolResultError(fmt.Sprintf("request_change ended %s, but that could not be recorded: %v", entry.Outcome, err)), nil
	}
	where := fmt.Sprintf("Audit log: %s", t.audit.path)
	if entry.Call != "" {
		where += fmt.Sprintf(" (call %s)", entry.Call)
	}
	at := string(entry.Outcome)
	if entry.Round != 0 {
		at += fmt.Sprintf(" at round %d (%s)", entry.Round, entry.Step)
	}
	if entry.Problem != "" {
		return mcp.NewToolResultError(fmt.Sprintf("%s: %s; nothing was changed. %s.", at, entry.Problem, where)), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("%s: %s. %s.", at, text, where)), nil
}

// productionMessage is round 3's message: the change, once more, for prod.
func productionMessage(c *changeRequest) string {
	return fmt.Sprintf("This changes PRODUCTION. Confirm once more:\n\nService: %s\nReason: %s\nRoll back on failure: %s\n\nTick the box and Submit to go ahead; leave it unticked, or Decline, to block the change.",
		c.Service, c.Reason, yesNo(c.RollbackOnFailure))
}

// executedText says what an executed change did.
func executedText(c *changeRequest) string {
	return fmt.Sprintf("%s changed in %s, roll back on failure: %s (a demo: nothing really ran)", c.Service, c.Environment, yesNo(c.RollbackOnFailure))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// changeRequestOf is round 2's accepted content as a change request, checked
// against the form and completed with its defaults.
func changeRequestOf(content any) (*changeRequest, error) {
	m, err := checkContent(changeSchema, content)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding the change request: %w", err)
	}
	var c changeRequest
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("reading the change request: %w", err)
	}
	return &c, nil
}

// checkContent is an accepted content checked against s and completed with
// its defaults.
func checkContent(s *schema, content any) (map[string]any, error) {
	m, err := asObject(content)
	if err != nil {
		return nil, err
	}
	if err := s.resolved.Validate(m); err != nil {
		return nil, fmt.Errorf("the accepted content does not match the form: %w", err)
	}
	if err := s.resolved.ApplyDefaults(&m); err != nil {
		return nil, fmt.Errorf("applying the form's defaults: %w", err)
	}
	return m, nil
}

// Errors of a requestState that cannot be resumed.
var (
	errForgedState = errors.New("the requestState was not issued by this server (forged, altered, or from an earlier run)")
	errEndedState  = errors.New("the requestState belongs to a call that has already ended")
)

// seal encodes st as a requestState: base64url(JSON) "." base64url(HMAC).
func (t *changeTool) seal(st changeState) (string, error) {
	payload, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("encoding the requestState: %w", err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(t.mac(payload)), nil
}

// open is the changeState of a requestState seal made, unless it was
// altered or names no round (then it is nil), or its call has ended (then
// it comes with errEndedState).
func (t *changeTool) open(state string) (*changeState, error) {
	enc := base64.RawURLEncoding
	p, m, ok := strings.Cut(state, ".")
	payload, err1 := enc.DecodeString(p)
	mac, err2 := enc.DecodeString(m)
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(mac, t.mac(payload)) {
		return nil, errForgedState
	}
	var st changeState
	if err := json.Unmarshal(payload, &st); err != nil {
		return nil, fmt.Errorf("reading the requestState: %w", err)
	}
	if _, ok := rounds[st.Round]; !ok || st.Call == "" || (st.Round == roundProduction) != (st.Change != nil) {
		return nil, errForgedState
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended[st.Call] {
		return &st, errEndedState
	}
	return &st, nil
}

func (t *changeTool) mac(payload []byte) []byte {
	h := hmac.New(sha256.New, t.key)
	h.Write(payload)
	return h.Sum(nil)
}
