package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// The one decision path. Whatever carries an elicitation to the relay (a
// legacy push, an entry of an input_required round, a link of a -32042
// error), it goes the same way:
//
//	prepare: params → Request → check (a refusal is told to Rejected)
//	decide:  the Approver → the answer checked (an overrule is told to
//	         Overruled) → no desktop (told to NoDesktop): to the host, or
//	         cancel
//
// This file is the only one that calls the Approver and the Options hooks
// for an elicitation: every record history keeps of an elicitation starts
// here. (Guarded tool calls, which are no elicitations, are asked in
// guard.go.) The features
// say only what differs: which call the elicitation belongs to (origin),
// and what to do with the verdict.

// elicitParams are the params of elicitation/create (PROTOCOL.md §4, §6).
type elicitParams struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	URL             string          `json:"url"`
	ElicitationID   string          `json:"elicitationId"`
}

// errNeedsParams refuses an elicitation/create without usable params.
var errNeedsParams = errors.New("elicitation/create needs params: an object with a message and a requestedSchema")

// origin is what a feature knows of the call an elicitation belongs to.
type origin struct {
	// tool is what the prompt names as the call in flight, or "".
	tool string
	// input is the key of the inputRequests entry it came in, or "".
	input string
	// toolUnknown: several tools/call were in flight, and tool is "".
	toolUnknown bool
	// version is the protocol version the request arrived under; ""
	// means the one the session agreed.
	version string
	// mode, when set, is the only mode the carrier allows (a -32042
	// carries URL elicitations only, PROTOCOL.md §6).
	mode string
	// reports: the carrier tells Options.Delivered whether the answer
	// reached the server (legacy.go's answers do).
	reports bool
}

// decider runs the one decision path for every feature.
type decider struct {
	w       *wires
	opts    *Options // the Relay's; read only
	session *session
	// prefix starts every Request.ID; seq numbers them.
	prefix string
	seq    atomic.Uint64
	// noDesktopSaid makes the no-desktop sentence appear once.
	noDesktopSaid sync.Once
	// arrivals keeps the order of requests to the Approver (order.go).
	arrivals arrivals
	// deciding counts the goroutines deciding an elicitation and the
	// calls of the Approver, a guarded call's or a changed tool's (wait).
	deciding Busy
}

// wait waits up to d for the elicitations being decided and the
// Approver's calls to end, once the relay stopped: the Approver hears
// why each prompt ended before the wrapper exits, or the hub would blame
// a crashed wrapper.
func (d *decider) wait(timeout time.Duration) {
	select {
	case <-d.deciding.Idle():
	case <-time.After(timeout):
	}
}

// Busy counts work under way, and tells when none is. Unlike a
// sync.WaitGroup, work may start while another goroutine waits (a host
// pump still running as the relay stops, a request reaching a hub as it
// stops, a delivery's word as a wrapper closes), which a WaitGroup takes
// for misuse and panics on. The zero Busy is idle.
type Busy struct {
	mu   sync.Mutex
	n    int
	none chan struct{} // closed while n is 0
}

// Start counts one more; the func it returns counts it done.
func (b *Busy) Start() (done func()) {
	b.mu.Lock()
	if b.n == 0 {
		b.none = make(chan struct{})
	}
	b.n++
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		if b.n--; b.n == 0 {
			close(b.none)
		}
		b.mu.Unlock()
	}
}

// Idle returns a channel closed once nothing is under way.
func (b *Busy) Idle() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return b.none
}

// prepareRaw is prepare for params as the server sent them: an object, or
// the elicitation is refused.
func (d *decider) prepareRaw(params json.RawMessage, o origin) (*Request, *elicit.Form, error) {
	var p elicitParams
	if len(params) == 0 || params[0] != '{' || json.Unmarshal(params, &p) != nil {
		req := d.request(&p, o)
		d.refused(req, errNeedsParams)
		return req, nil, errNeedsParams
	}
	return d.prepare(&p, o)
}

// prepare builds the Approver's view of an elicitation and parses what it
// asks for: the form of form mode, or the link of URL mode. An error says
// why it cannot be shown; Options.Rejected has been told, and the caller
// answers the error.
func (d *decider) prepare(p *elicitParams, o origin) (*Request, *elicit.Form, error) {
	req := d.request(p, o)
	form, err := d.check(req, p, o)
	if err != nil {
		d.refused(req, err)
		return req, nil, err
	}
	return req, form, nil
}

func (d *decider) check(req *Request, p *elicitParams, o origin) (*elicit.Form, error) {
	if o.mode != "" && req.Mode != o.mode {
		return nil, fmt.Errorf("error -32042 carries a %q elicitation; only URL elicitations belong there", req.Mode)
	}
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

// request builds the Approver's view of an elicitation.
func (d *decider) request(p *elicitParams, o origin) *Request {
	mode := p.Mode
	if mode == "" {
		mode = "form" // PROTOCOL.md §6: an absent mode is form mode
	}
	info, version := d.session.server()
	if o.version != "" {
		version = o.version
	}
	return &Request{
		ID:              fmt.Sprintf("%s%d", d.prefix, d.seq.Add(1)),
		Time:            time.Now(),
		Server:          d.opts.Server,
		ServerInfo:      info,
		Tool:            o.tool,
		InputKey:        o.input,
		ToolUnknown:     o.toolUnknown,
		Mode:            mode,
		Message:         p.Message,
		RequestedSchema: validUTF8(p.RequestedSchema),
		URL:             p.URL,
		ElicitationID:   p.ElicitationID,
		ProtocolVersion: version,
		ReportsDelivery: o.reports && d.opts.Delivered != nil,
	}
}

// delivered tells Options.Delivered whether req's answer reached the
// server (err nil: it did, or nothing was owed).
func (d *decider) delivered(req *Request, err error) {
	if req.ReportsDelivery {
		d.opts.Delivered(req, err)
	}
}

// verdict is what the decision path concluded about one elicitation.
type verdict struct {
	// result is the ElicitResult the server gets (cancel when no person
	// decided), unless toHost.
	result elicitResult
	// noDesktop, when set, wraps ErrNoDesktop: no desktop could show it.
	noDesktop error
	// toHost: no desktop could show it, and the host declared it can show
	// that mode itself, so it goes to the host instead (issue 4).
	toHost bool
	// by and why are who decided, and why, when the Approver answered
	// (Result.DecidedBy, Reason): a round reads from them whether its
	// question was shown or held back by the rate limit (round.go).
	by, why string
}

// decide asks the Approver and turns whatever it says into a valid
// ElicitResult. Anything that is not a checked accept, decline or cancel
// becomes cancel: no person chose otherwise (DESIGN.md). When the Approver
// has no desktop (or noDesktop says so already: the round found out on an
// earlier entry), Options.NoDesktop is told, while ctx lasts, whether the
// elicitation goes to the host: it does when hostEl, the elicitation
// capability the host declared, covers its mode.
func (d *decider) decide(ctx context.Context, req *Request, form *elicit.Form, hostEl json.RawMessage, noDesktop error) verdict {
	defer Submitted(ctx)
	cancel := elicitResult{Action: ActionCancel}
	if noDesktop == nil {
		if d.opts.Approver == nil {
			return verdict{result: cancel}
		}
		res, err := d.approve(ctx, req)
		if !errors.Is(err, ErrNoDesktop) {
			v := verdict{result: d.checkAnswer(ctx, req, form, res, err)}
			if err == nil {
				v.by, v.why = res.DecidedBy, res.Reason
			}
			return v
		}
		noDesktop = err
	}
	v := verdict{result: cancel, noDesktop: noDesktop}
	if ctx.Err() == nil {
		v.toHost = d.unshown(req, hostDeclares(hostEl, req.Mode), noDesktop)
	}
	return v
}

// checkAnswer turns an Approver's answer into a valid ElicitResult.
func (d *decider) checkAnswer(ctx context.Context, req *Request, form *elicit.Form, res *Result, err error) elicitResult {
	if err != nil {
		if ctx.Err() == nil {
			d.w.log.printf("%s: no decision for %q, answering cancel: %v", req.Server, req.Message, err)
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
			d.w.log.printf("%s: the answer does not fit the server's schema, answering cancel: %v", req.Server, err)
			return d.overrule(req, DecidedByError, "the answer does not fit the server's schema: "+err.Error())
		}
		return elicitResult{Action: ActionAccept, Content: content}
	}
	d.w.log.printf("%s: unknown action %q, answering cancel", req.Server, res.Action)
	return d.overrule(req, DecidedByError, fmt.Sprintf("the hub answered the unknown action %q", res.Action))
}

// overrule is the cancel the server gets in place of the Approver's
// decision, or of none: it tells Options.Overruled (who decided, and why)
// before the answer is written, so that history keeps what the server got.
func (d *decider) overrule(req *Request, decidedBy, why string) elicitResult {
	if d.opts.Overruled != nil {
		d.opts.Overruled(req, Result{Action: ActionCancel, DecidedBy: decidedBy, Reason: why})
	}
	return elicitResult{Action: ActionCancel}
}

// unshown handles an elicitation no desktop could show: it says so once
// on the host's log, tells Options.NoDesktop, and reports whether the
// elicitation goes to the host (when declared, the host can show that mode).
func (d *decider) unshown(req *Request, declared bool, err error) bool {
	d.noDesktopSaid.Do(func() {
		d.w.log.printf("%v. Elicitations go to the host where it declared it can show them; the others are answered cancel.", err)
	})
	if d.opts.NoDesktop != nil {
		d.opts.NoDesktop(req, declared, err)
	}
	return declared
}

// refused hands an elicitation answered with an error to Options.Rejected,
// so that history keeps it, before the error is written (DESIGN.md: a
// decision is durable before its answer leaves). Every one: a server that
// floods the relay with requests it cannot show waits for their records,
// rather than losing them.
func (d *decider) refused(req *Request, err error) {
	if d.opts.Rejected != nil {
		d.opts.Rejected(req, err)
	}
}

// newIDPrefix returns the prefix of the ids the relay makes: random per
// process, so they never collide with a host's ids (PROTOCOL.md §7).
func newIDPrefix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "elicitray-" + hex.EncodeToString(b) + "-"
}
