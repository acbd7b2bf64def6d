package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// elicitParams are the params of elicitation/create (PROTOCOL.md §4, §6).
type elicitParams struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	URL             string          `json:"url"`
	ElicitationID   string          `json:"elicitationId"`
}

// request builds the Approver's view of an elicitation.
func (r *Relay) request(p *elicitParams) *Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	mode := p.Mode
	if mode == "" {
		mode = "form" // PROTOCOL.md §6: an absent mode is form mode
	}
	// The call in flight, when there is only one: with several, which one
	// asks is not known (README: the tool "when known").
	tool := ""
	if len(r.calls) == 1 {
		tool = r.lastTool
	}
	r.reqSeq++
	return &Request{
		ID:              fmt.Sprintf("%s%d", r.idPrefix, r.reqSeq),
		Time:            time.Now(),
		Server:          r.opts.Server,
		ServerInfo:      r.info,
		Tool:            tool,
		Mode:            mode,
		Message:         p.Message,
		RequestedSchema: validUTF8(p.RequestedSchema),
		URL:             p.URL,
		ElicitationID:   p.ElicitationID,
		ProtocolVersion: r.version,
	}
}

// startElicitation handles a legacy elicitation/create request (PROTOCOL.md
// §1): it is answered here, never forwarded. Schema problems are answered at
// once; otherwise the Approver is asked on a goroutine of its own so the
// relay keeps flowing. The server's notifications/cancelled for id ends the
// wait with no reply at all; the host's for the tools/call it belongs to
// ends it with cancel (PROTOCOL.md §7).
func (r *Relay) startElicitation(ctx context.Context, line, id, params json.RawMessage, toServer Conn) {
	id = append(json.RawMessage(nil), id...)
	if _, ok := idKey(id); !ok {
		// PROTOCOL.md §7: ids are strings or integers, never null. JSON-RPC
		// answers an invalid request -32600 with id null, the id it could
		// not use; the host's log says why, since the server may not.
		msg := "elicitation/create: the id must be a string or an integer, not " + string(id)
		if isNull(id) {
			msg = "elicitation/create: the id must be a string or an integer, not null (a request's id is never null; a notification has none)"
		}
		r.log.printf("%s: refused an elicitation (-32600): %s", r.opts.Server, msg)
		// History keeps it too, with what it asked, as far as it can be read.
		var p elicitParams
		_ = json.Unmarshal(params, &p)
		r.record(r.request(&p), errors.New(msg))
		r.reply(toServer, encodeError(json.RawMessage("null"), codeInvalidRequest, msg))
		return
	}
	var p elicitParams
	if len(params) == 0 || json.Unmarshal(params, &p) != nil || params[0] != '{' {
		r.reject(toServer, id, r.request(&p), errors.New("elicitation/create needs params: an object with a message and a requestedSchema"))
		return
	}
	req := r.request(&p)

	form, err := r.check(req, &p)
	if err != nil {
		r.reject(toServer, id, req, err)
		return
	}

	key, _ := idKey(id)
	pctx, cancel := context.WithCancelCause(ctx)
	pe := &pendingElicitation{cancel: cancel}
	r.mu.Lock()
	if _, dup := r.pending[key]; dup {
		r.mu.Unlock()
		cancel(nil)
		// PROTOCOL.md §7: ids are never reused within a session.
		r.reply(toServer, encodeError(id, codeInvalidRequest, "elicitation/create: id "+string(id)+" is already in use by a pending elicitation"))
		return
	}
	if len(r.calls) == 1 {
		pe.call = r.lastCall
	}
	r.pending[key] = pe
	if req.Mode == "url" && req.ElicitationID != "" {
		pe.elicitationID = req.ElicitationID
		r.urlIDs[req.ElicitationID] = key
	}
	r.mu.Unlock()

	line = append(json.RawMessage(nil), line...)
	go func() {
		res, noDesktop := r.decide(pctx, req, form)
		if noDesktop != nil && pctx.Err() == nil {
			r.mu.Lock()
			declared := hostDeclares(r.hostElicitation, req.Mode)
			r.mu.Unlock()
			if r.unshown(req, declared, noDesktop) {
				// The host shows it and answers the server itself; its
				// completion and cancel notices are the host's now.
				r.mu.Lock()
				if r.pending[key] == pe {
					delete(r.pending, key)
				}
				delete(r.urlIDs, pe.elicitationID)
				r.mu.Unlock()
				cancel(nil)
				r.writeHost(withNewline(line))
				return
			}
		}
		cause := context.Cause(pctx)
		hostCancelled := errors.Is(cause, ErrHostCancelled)
		r.mu.Lock()
		// The server withdrew it (cancelPending took the entry away).
		withdrawn := r.pending[key] != pe
		// After the host cancelled the call, the server often cancels its
		// own request too (cases/server-cancels.jsonl): the entry stays so
		// that notice is recognised and kept from the host.
		if !withdrawn && !hostCancelled {
			delete(r.pending, key)
		}
		if _, ok := r.urlIDs[pe.elicitationID]; ok {
			r.urlIDs[pe.elicitationID] = "" // answered; its completion notice is still ours
		}
		r.mu.Unlock()
		switch {
		case withdrawn:
			// PROTOCOL.md §7: the server cancelled its request: the window
			// is closed and no response is written.
			return
		case hostCancelled, errors.Is(cause, ErrElicitationComplete):
			// The host gave up on the call (PROTOCOL.md §7), or the server
			// finished the URL flow without this window: nobody chose, and
			// the server still awaits an answer, which is cancel
			// (PROTOCOL.md §5). The host's notice went to the server first
			// (fromHost), so it knows why. History keeps this cancel, even
			// where a person answered at that very moment.
			by := DecidedByHostCancelled
			if !hostCancelled {
				by = DecidedByServerCancelled
			}
			r.reply(toServer, encodeResult(id, r.overrule(req, by, cause.Error())))
			return
		case pctx.Err() != nil:
			return // the relay stopped: nobody is left to answer
		}
		cancel(nil)
		r.reply(toServer, encodeResult(id, res))
	}()
}

// check parses what an elicitation asks for: the form of form mode, or the
// link of URL mode. An error says why it cannot be shown.
func (r *Relay) check(req *Request, p *elicitParams) (*elicit.Form, error) {
	switch req.Mode {
	case "form":
		return elicit.Parse(p.RequestedSchema)
	case "url":
		// PROTOCOL.md §6: a consent window, never a fetch; a link that is
		// not https or http is refused outright.
		if check := elicit.CheckURL(p.URL); check.Refused != nil {
			return nil, check.Refused
		}
		return nil, nil
	}
	// PROTOCOL.md §3: a mode the client did not declare gets -32602.
	return nil, fmt.Errorf("unsupported elicitation mode %q", req.Mode)
}

// decide asks the Approver and turns whatever it says into a valid
// ElicitResult. Anything that is not a checked accept, decline or cancel
// becomes cancel: no person chose otherwise (DESIGN.md). When the Approver
// had no desktop, the error wrapping ErrNoDesktop is returned too, so the
// caller may pass the elicitation to the host instead.
func (r *Relay) decide(ctx context.Context, req *Request, form *elicit.Form) (elicitResult, error) {
	if r.opts.Approver == nil {
		return elicitResult{Action: ActionCancel}, nil
	}
	res, err := r.opts.Approver.Approve(ctx, req)
	if errors.Is(err, ErrNoDesktop) {
		return elicitResult{Action: ActionCancel}, err
	}
	return r.checkAnswer(ctx, req, form, res, err), nil
}

// checkAnswer turns an Approver's answer into a valid ElicitResult.
func (r *Relay) checkAnswer(ctx context.Context, req *Request, form *elicit.Form, res *Result, err error) elicitResult {
	if err != nil {
		if ctx.Err() == nil {
			r.log.printf("%s: no decision for %q, answering cancel: %v", req.Server, req.Message, err)
		}
		return elicitResult{Action: ActionCancel}
	}
	switch res.Action {
	case ActionDecline, ActionCancel:
		return elicitResult{Action: res.Action}
	case ActionAccept:
		if form == nil { // URL mode: accept means only "opened it" (PROTOCOL.md §6)
			return elicitResult{Action: ActionAccept}
		}
		// PROTOCOL.md §5: validate the content against the schema before
		// sending; numbers as numbers.
		content, err := form.Normalize(res.Content)
		if err != nil {
			r.log.printf("%s: the answer does not fit the server's schema, answering cancel: %v", req.Server, err)
			return r.overrule(req, DecidedByError, "the answer does not fit the server's schema: "+err.Error())
		}
		return elicitResult{Action: ActionAccept, Content: content}
	}
	r.log.printf("%s: unknown action %q, answering cancel", req.Server, res.Action)
	return r.overrule(req, DecidedByError, fmt.Sprintf("the hub answered the unknown action %q", res.Action))
}

// overrule is the cancel the server gets in place of the Approver's
// decision, or of none: it tells Options.Overruled (who decided, and why)
// before the answer is written, so that history keeps what the server got.
func (r *Relay) overrule(req *Request, decidedBy, why string) elicitResult {
	if r.opts.Overruled != nil {
		r.opts.Overruled(req, Result{Action: ActionCancel, DecidedBy: decidedBy, Reason: why})
	}
	return elicitResult{Action: ActionCancel}
}

// hostDeclares reports whether an elicitation capability the host declared
// (el, nil when none) covers mode: an empty object means form only
// (PROTOCOL.md §3).
func hostDeclares(el json.RawMessage, mode string) bool {
	ms, err := members(el)
	if err != nil {
		return false
	}
	if len(ms) == 0 {
		return mode == "form"
	}
	_, ok := getMember(el, mode)
	return ok
}

// unshown handles an elicitation no desktop could show: it says so once
// on the host's log, tells Options.NoDesktop, and reports whether the
// elicitation goes to the host (when declared, the host can show that mode).
func (r *Relay) unshown(req *Request, declared bool, err error) bool {
	r.noDesktopSaid.Do(func() {
		r.log.printf("%v. Elicitations go to the host where it declared it can show them; the others are answered cancel.", err)
	})
	if r.opts.NoDesktop != nil {
		r.opts.NoDesktop(req, declared, err)
	}
	return declared
}

// reject answers an elicitation the relay cannot show with -32602
// (PROTOCOL.md §4: a clear error, never a crash, never a silent decline).
func (r *Relay) reject(toServer Conn, id json.RawMessage, req *Request, err error) {
	msg := "elicitray cannot show this elicitation: " + err.Error()
	r.log.printf("%s: %s", req.Server, msg)
	r.record(req, err)
	r.reply(toServer, encodeError(id, codeInvalidParams, msg))
}

// record hands an elicitation answered with an error to Options.Rejected,
// so that history keeps it, before the error is written (DESIGN.md: a
// decision is durable before its answer leaves). Every one: a server that
// floods the relay with requests it cannot show waits for their records,
// rather than losing them.
func (r *Relay) record(req *Request, err error) {
	if r.opts.Rejected != nil {
		r.opts.Rejected(req, err)
	}
}

func (r *Relay) reply(toServer Conn, msg []byte) {
	if err := toServer.Write(withNewline(msg), true); err != nil {
		r.log.printf("writing to the server: %v", err)
	}
}
