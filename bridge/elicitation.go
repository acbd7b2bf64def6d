package bridge

import (
	"context"
	"encoding/json"
	"fmt"

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
	return &Request{
		Server:          r.opts.Server,
		ServerInfo:      r.info,
		Tool:            r.lastTool,
		Mode:            mode,
		Message:         p.Message,
		RequestedSchema: p.RequestedSchema,
		URL:             p.URL,
		ElicitationID:   p.ElicitationID,
		ProtocolVersion: r.version,
	}
}

// startElicitation handles a legacy elicitation/create request (PROTOCOL.md
// §1): it is answered here, never forwarded. Schema problems are answered at
// once; otherwise the Approver is asked on a goroutine of its own so the
// relay keeps flowing, and a notifications/cancelled for id ends the wait
// with no reply at all (PROTOCOL.md §7).
func (r *Relay) startElicitation(ctx context.Context, id json.RawMessage, params json.RawMessage, toServer *lineWriter) {
	id = append(json.RawMessage(nil), id...)
	var p elicitParams
	if err := json.Unmarshal(params, &p); err != nil {
		r.reply(toServer, encodeError(id, codeInvalidParams, "elicitation/create: params are not an object: "+err.Error()))
		return
	}
	req := r.request(&p)

	var form *elicit.Form
	switch req.Mode {
	case "form":
		f, err := elicit.Parse(p.RequestedSchema)
		if err != nil {
			r.reject(toServer, id, req, err)
			return
		}
		form = f
	case "url":
		// Handled by the Approver: a consent window, never a fetch.
	default:
		// PROTOCOL.md §3: a mode the client did not declare gets -32602.
		r.reject(toServer, id, req, fmt.Errorf("unsupported elicitation mode %q", req.Mode))
		return
	}

	key, _ := idKey(id)
	pctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	r.pending[key] = cancel
	r.mu.Unlock()

	go func() {
		defer func() {
			r.mu.Lock()
			delete(r.pending, key)
			r.mu.Unlock()
			cancel()
		}()
		res := r.decide(pctx, req, form)
		if pctx.Err() != nil {
			// Cancelled by the server, or the server is gone: no reply.
			return
		}
		r.reply(toServer, encodeResult(id, res))
	}()
}

// decide asks the Approver and turns whatever it says into a valid
// ElicitResult. Anything that is not a checked accept, decline or cancel
// becomes cancel: no person chose otherwise (DESIGN.md).
func (r *Relay) decide(ctx context.Context, req *Request, form *elicit.Form) elicitResult {
	if r.opts.Approver == nil {
		return elicitResult{Action: ActionCancel}
	}
	res, err := r.opts.Approver.Approve(ctx, req)
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
			return elicitResult{Action: ActionCancel}
		}
		return elicitResult{Action: ActionAccept, Content: content}
	}
	r.log.printf("%s: unknown action %q, answering cancel", req.Server, res.Action)
	return elicitResult{Action: ActionCancel}
}

// reject answers an elicitation the relay cannot show with -32602
// (PROTOCOL.md §4: a clear error, never a crash, never a silent decline).
func (r *Relay) reject(toServer *lineWriter, id json.RawMessage, req *Request, err error) {
	msg := "elicitray cannot show this elicitation: " + err.Error()
	r.log.printf("%s: %s", req.Server, msg)
	r.reply(toServer, encodeError(id, codeInvalidParams, msg))
	if r.opts.Rejected != nil {
		go r.opts.Rejected(req, err)
	}
}

func (r *Relay) reply(toServer *lineWriter, msg []byte) {
	if err := toServer.write(withNewline(msg), true); err != nil {
		r.log.printf("writing to the server: %v", err)
	}
}
