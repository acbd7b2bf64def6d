package journal

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"time"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
)

// ActionError is the history action of an elicitation answered with a
// JSON-RPC error (an unrenderable schema: PROTOCOL.md §4).
const ActionError = "error"

// ActionForwarded is the history action of an elicitation passed to the
// host because no desktop could show it; the host's answer is its own.
const ActionForwarded = "forwarded"

// NewRecord is the history record of req and of what its server was sent,
// res: the one place a record is made, by the hub (source
// history.SourceHub, before it sends its decision) and by the wrapper
// (history.SourceWrapper, when the server got something else). No secret
// leaves it (redacted): every record goes through here before history.db,
// the spool or a log sees it. Content goes only with accept (PROTOCOL.md
// §5). The record is keyed by the request, so that history keeps one per
// elicitation. A request whose wrapper reports delivery is kept as
// history.DeliveryPending.
func NewRecord(req *bridge.Request, res bridge.Result, form *elicit.Form, source string) history.Record {
	if form == nil && len(req.RequestedSchema) > 0 {
		form, _ = elicit.Parse(req.RequestedSchema) // refused: the schema's own words still count
	}
	now := time.Now()
	arrived := req.Time
	if arrived.IsZero() || arrived.After(now) {
		arrived = now
	}
	rec := history.Record{
		Time:            arrived,
		Server:          req.Server,
		ServerInfo:      history.ServerInfo(req.ServerInfo),
		Tool:            req.Tool,
		Mode:            req.Mode,
		Message:         req.Message,
		RequestedSchema: req.RequestedSchema,
		URL:             req.URL,
		Action:          res.Action,
		DecidedBy:       res.DecidedBy,
		Reason:          res.Reason,
		Elapsed:         now.Sub(arrived),
		Key:             req.ID,
		Source:          source,
	}
	if res.Action == bridge.ActionAccept {
		rec.Content = res.Content
	}
	if req.ReportsDelivery {
		// Kept before the answer leaves: the wrapper's word on whether
		// it reached the server settles it (or the hub's, when the
		// wrapper ended without one).
		rec.Delivery = history.DeliveryPending
	}
	return RedactRecord(rec, form)
}

// ToolAccepted is the history record of a changed tool definition that
// the user accepted outside the window telling of the change (Settings,
// `elicitray tools accept`), kept as that window's answer is: a tool
// change (its message, with account, what changed), accept, decided by
// decidedBy for reason, now. Each is an elicitation of its own, under a
// key of its own.
func ToolAccepted(server, tool, account, decidedBy, reason string) history.Record {
	key := make([]byte, 12)
	_, _ = rand.Read(key)
	req := &bridge.Request{ID: "tool-accepted-" + hex.EncodeToString(key), Server: server, Tool: tool,
		Mode: bridge.ModeToolChange, Message: bridge.ChangeMessage(tool, account)}
	return NewRecord(req, bridge.Result{Action: bridge.ActionAccept, DecidedBy: decidedBy, Reason: reason}, nil, history.SourceHub)
}

// DeliveryWord is the record that settles the delivery of request key's
// record (history.SourceDelivery): "" the server got the answer, else why
// not.
func DeliveryWord(server, key, why string) history.Record {
	return history.Record{Server: server, Key: key, Source: history.SourceDelivery, Delivery: why}
}

// redacted is rec without a secret value (DESIGN.md): the values of its
// secret fields (bridge.SecretProperties of form, which may be nil) are
// Redacted in the answer and wherever the requestedSchema carries them,
// and a URL-mode link keeps its shape without its tokens
// (bridge.RedactURL); the message is the server's and stays. It changes
// nothing twice, so the hub passes what it takes from elsewhere through it
// too: a record a wrapper sends, a spooled one, which an older elicitray
// may have made.
func RedactRecord(rec history.Record, form *elicit.Form) history.Record {
	secret := bridge.SecretProperties(rec.RequestedSchema, form)
	rec.RequestedSchema = bridge.RedactSchema(rec.RequestedSchema, secret)
	rec.URL = bridge.RedactURL(rec.URL)
	rec.Content = redact(secret, rec.Content)
	return rec
}

// redact is content with the values of the fields named secret replaced by
// Redacted.
func redact(secret []string, content map[string]any) map[string]any {
	if len(secret) == 0 || len(content) == 0 {
		return content
	}
	out := make(map[string]any, len(content))
	for k, v := range content {
		if slices.Contains(secret, k) {
			v = Redacted
		}
		out[k] = v
	}
	return out
}

// Redacted stands in history for a secret value (bridge.Redacted).
const Redacted = bridge.Redacted
