package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// ErrNoDesktop is returned (wrapped) by an Approver that has no desktop to
// show a prompt on: no display, or the hub could not start. The relay then
// passes the elicitation to the host when the host declared it can show
// that mode itself, and otherwise answers cancel (issue 4, "No display").
var ErrNoDesktop = errors.New("no desktop can show the prompt")

// Actions of an ElicitResult (PROTOCOL.md §5).
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// Who decided an elicitation, as recorded in history.
const (
	DecidedByUser            = "user"
	DecidedByTimeout         = "timeout"
	DecidedByServerCancelled = "server-cancelled"
	DecidedByHostCancelled   = "host-cancelled"
	DecidedByError           = "error"
	// Decided by the user's policy in the hub (issue 4): a rule in the
	// config, "Pause all", a muted server, the server's rate limit.
	DecidedByRule      = "rule"
	DecidedByPaused    = "paused"
	DecidedByMuted     = "muted"
	DecidedByRateLimit = "rate-limit"
	// DecidedByNoDesktop: no desktop could show the prompt; it was answered
	// cancel or passed to the host (see ErrNoDesktop).
	DecidedByNoDesktop = "no-display"
	// DecidedByCommandLine: the user, with a command of theirs rather than
	// in a window (`elicitray tools accept`).
	DecidedByCommandLine = "command-line"
)

// ByPerson reports whether decidedBy is a person's decision: in the
// window, or with a command (a tool change accepted elsewhere).
func ByPerson(decidedBy string) bool {
	return decidedBy == DecidedByUser || decidedBy == DecidedByCommandLine
}

// ServerInfo is what a server calls itself in its initialize reply
// (server-controlled text: shown second, PROTOCOL.md §6).
type ServerInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version,omitempty"`
}

// Called is what the server calls itself, as windows and the command line
// show it: its title (else its name) and version, "elicitray demo 1.0.0".
func (info ServerInfo) Called() string {
	s := info.Name
	if info.Title != "" {
		s = info.Title
	}
	if s != "" && info.Version != "" {
		s += " " + info.Version
	}
	return s
}

// Request is one elicitation the wrapper asks its Approver to decide.
type Request struct {
	// ID identifies this elicitation wherever it is recorded (the hub, the
	// spool, history's Record.Key): unique across relays and restarts.
	ID string `json:"id,omitempty"`
	// Time is when the elicitation was asked: when it reached the relay,
	// or, for a question of a round after the first, when the one before
	// it was answered (round.go).
	Time time.Time `json:"time,omitzero"`
	// Server is the name the user configured (--name): the trusted identity.
	Server string `json:"server"`
	// ServerInfo is the server's own name from its initialize reply; zero
	// when the server never sent one.
	ServerInfo ServerInfo `json:"serverInfo"`
	// Tool is the name of the tools/call in flight when the server asked,
	// or "" when unknown.
	Tool string `json:"tool,omitempty"`
	// InputKey is the key the server gave this elicitation among the
	// inputRequests of a 2026-07-28 input_required round (PROTOCOL.md §1),
	// or "" for a request the server pushed (elicitation/create) or one of
	// URL mode's carriers. Two rounds asking the same message under other
	// keys are different questions to the hub's remembered answers.
	InputKey string `json:"inputKey,omitempty"`
	// Step and Steps are this elicitation's place (from 1) among those of
	// its input_required round, and their number; 0 outside a round. The
	// window says "Question 2 of 50": a round is one question in parts.
	Step  int `json:"step,omitempty"`
	Steps int `json:"steps,omitempty"`
	// Counted says that an earlier question of this round was shown to
	// a person, so the rate limit took the round's one token already
	// (issue 27: a round is one ask). A round whose earlier questions a
	// rule or a remembered answer settled took none yet.
	Counted bool `json:"counted,omitempty"`
	// ToolUnknown is set when the server pushed the request while several
	// tools/call were in flight, so that which one asks is not known (Tool
	// is ""): it is no question of a known tool call, and the hub neither
	// answers it from a remembered rule nor pre-fills it.
	ToolUnknown bool `json:"toolUnknown,omitempty"`
	// Mode is "form" or "url" (PROTOCOL.md §6); an absent mode is "form".
	Mode string `json:"mode"`
	// Message is the server's message, as sent; a guard window's text in
	// English (Guard).
	Message string `json:"message"`
	// Guard is what a guard window's text is made of, for the window to
	// say it in the user's language (Said); nil for the server's
	// elicitations.
	Guard *Guard `json:"guard,omitempty"`
	// RequestedSchema is the form schema as sent (form mode).
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL and ElicitationID are set in URL mode.
	URL           string `json:"url,omitempty"`
	ElicitationID string `json:"elicitationId,omitempty"`
	// ProtocolVersion is the revision the request arrived under.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// ReportsDelivery is set when the relay tells Options.Delivered whether
	// the answer reached the server: the hub then keeps the decision as
	// sent, not yet delivered, until the wrapper says (a wrapper of an
	// older version never sets it, and its decisions read as delivered).
	ReportsDelivery bool `json:"reportsDelivery,omitempty"`
}

// Result is the decision on a Request: an ElicitResult plus who decided.
type Result struct {
	Action    string         `json:"action"`
	Content   map[string]any `json:"content,omitempty"` // only with accept in form mode
	DecidedBy string         `json:"decidedBy,omitempty"`
	Reason    string         `json:"reason,omitempty"` // why, when no person decided
}

// An Approver decides elicitations. Approve blocks until a decision is
// made or ctx is done; when ctx is done (the server cancelled the request,
// or the wrapper is shutting down) it must return promptly, and whatever it
// returns is not sent. An error means no decision could be had: the relay
// answers cancel (never a fabricated decline or accept, DESIGN.md).
type Approver interface {
	Approve(ctx context.Context, req *Request) (*Result, error)
}

// ApproverFunc adapts a function to the Approver interface.
type ApproverFunc func(ctx context.Context, req *Request) (*Result, error)

// Approve calls f(ctx, req).
func (f ApproverFunc) Approve(ctx context.Context, req *Request) (*Result, error) { return f(ctx, req) }
