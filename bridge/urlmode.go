package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// codeURLElicitationRequired is -32042 (PROTOCOL.md §6, §8).
const codeURLElicitationRequired = -32042

// urlMode keeps the elicitationIds of the URL elicitations the relay took
// (PROTOCOL.md §6): their notifications/elicitation/complete are the
// relay's, not the host's, and close a window still open. It also opens
// the links of a -32042 error, one after the other (openRequired).
type urlMode struct {
	d *decider

	mu sync.Mutex // guards the fields below
	// ids maps the elicitationIds of legacy URL elicitations the relay
	// took, whose prompt is open, to its cancel.
	ids map[string]context.CancelCauseFunc
	// done are the last elicitationIds the relay answered or whose links
	// it opened: their completion notices are still the relay's, and stay
	// here.
	done recentKeys
	// waits maps the elicitationIds of -32042 links whose window is open
	// to its cancel: the server's completion closes it.
	waits map[string]context.CancelCauseFunc
}

// tracked is how many elicitationIds urlMode keeps (Relay.tracked).
func (u *urlMode) tracked() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.ids) + len(u.waits)
}

// take notes a legacy URL elicitation the relay took; cancel closes its
// prompt when the server reports it complete.
func (u *urlMode) take(elicitationID string, cancel context.CancelCauseFunc) {
	u.mu.Lock()
	u.ids[elicitationID] = cancel
	u.mu.Unlock()
}

// answered marks a URL elicitation the relay answered: its completion
// notice is still the relay's.
func (u *urlMode) answered(elicitationID string) {
	u.mu.Lock()
	if _, ok := u.ids[elicitationID]; ok {
		delete(u.ids, elicitationID)
		u.done.add(elicitationID)
	}
	u.mu.Unlock()
}

// release forgets a URL elicitation that went to the host: its completion
// notice is the host's now.
func (u *urlMode) release(elicitationID string) {
	u.mu.Lock()
	delete(u.ids, elicitationID)
	u.mu.Unlock()
}

// complete handles notifications/elicitation/complete: it closes the
// window of a URL elicitation still waiting, and reports whether the
// elicitationId is one the relay took (so the host never saw it).
func (u *urlMode) complete(params json.RawMessage) bool {
	var p struct {
		ElicitationID string `json:"elicitationId"`
	}
	if json.Unmarshal(params, &p) != nil || p.ElicitationID == "" {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if cancel, ok := u.waits[p.ElicitationID]; ok {
		cancel(ErrElicitationComplete)
		return true
	}
	cancel, ok := u.ids[p.ElicitationID]
	if !ok {
		return u.done.take(p.ElicitationID)
	}
	delete(u.ids, p.ElicitationID)
	cancel(ErrElicitationComplete)
	return true
}

// openRequired shows the URL elicitations of a -32042 error to the call hc
// one after the other (PROTOCOL.md §6); it reports whether the user opened
// every one, so that the call may be retried.
func (u *urlMode) openRequired(hc *hostCall, hostEl json.RawMessage, errRaw []byte) bool {
	var e struct {
		Data struct {
			Elicitations []elicitParams `json:"elicitations"`
		} `json:"data"`
	}
	if json.Unmarshal(errRaw, &e) != nil || len(e.Data.Elicitations) == 0 {
		return false
	}
	for i := range e.Data.Elicitations {
		p := &e.Data.Elicitations[i]
		if p.Mode == "" {
			p.Mode = "url" // PROTOCOL.md §6: -32042 carries URL elicitations
		}
		req, _, err := u.d.prepare(p, origin{tool: hc.call, version: hc.version, mode: "url"})
		if err != nil {
			return false
		}
		// While the window is open, the server's completion notice for the
		// link closes it (PROTOCOL.md §6) and stays here.
		ctx, cancel := context.WithCancelCause(hc.ctx)
		if p.ElicitationID != "" {
			u.mu.Lock()
			u.waits[p.ElicitationID] = cancel
			u.mu.Unlock()
		}
		v := u.d.decide(ctx, req, nil, hostEl, nil)
		completed := errors.Is(context.Cause(ctx), ErrElicitationComplete)
		cancel(nil)
		if p.ElicitationID != "" {
			u.mu.Lock()
			delete(u.waits, p.ElicitationID)
			u.mu.Unlock()
		}
		if v.noDesktop != nil && hc.ctx.Err() == nil {
			// The host gets the server's error either way; it shows the
			// links if it can.
			return false
		}
		if hc.ctx.Err() != nil || (v.result.Action != ActionAccept && !completed) {
			return false
		}
	}
	// The links are done: their completion notices are the relay's, since
	// the host never saw the error.
	u.mu.Lock()
	for _, p := range e.Data.Elicitations {
		if p.ElicitationID != "" {
			u.done.add(p.ElicitationID)
		}
	}
	u.mu.Unlock()
	return true
}
