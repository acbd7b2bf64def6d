package app

import (
	"time"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
)

// actionError is the history action of an elicitation answered with a
// JSON-RPC error (an unrenderable schema: PROTOCOL.md §4).
const actionError = "error"

// ActionForwarded is the history action of an elicitation passed to the
// host because no desktop could show it; the host's answer is its own.
const ActionForwarded = "forwarded"

// newRecord is the history record of req and of what its server was sent,
// res: the one place a record is made, by the hub (source
// history.SourceHub, before it sends its decision) and by the wrapper
// (history.SourceWrapper, when the server got something else). Values of
// secret-looking fields of form are redacted (DESIGN.md); content goes only
// with accept (PROTOCOL.md §5). The record is keyed by the request, so that
// history keeps one per elicitation. A request whose wrapper reports
// delivery is kept as history.DeliveryPending.
func newRecord(req *bridge.Request, res bridge.Result, form *elicit.Form, source string) history.Record {
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
		rec.Content = redact(form, res.Content)
	}
	if req.ReportsDelivery {
		// Kept before the answer leaves: the wrapper's word on whether
		// it reached the server settles it (or the hub's, when the
		// wrapper ended without one).
		rec.Delivery = history.DeliveryPending
	}
	return rec
}

// deliveryWord is the record that settles the delivery of request key's
// record (history.SourceDelivery): "" the server got the answer, else why
// not.
func deliveryWord(server, key, why string) history.Record {
	return history.Record{Server: server, Key: key, Source: history.SourceDelivery, Delivery: why}
}
