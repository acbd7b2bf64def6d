package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
)

// legacy answers the server's elicitation/create requests (PROTOCOL.md §1:
// the push of 2025-06-18 and 2025-11-25). They never reach the host: each
// is decided on a goroutine of its own, so the relay keeps flowing while a
// person thinks, and answered by the relay, unless no desktop can show it
// and the host declared it can (issue 4). The server's notifications/
// cancelled for one ends its wait with no reply at all; the host's for
// the tools/call it belongs to ends it with cancel (PROTOCOL.md §7).
type legacy struct {
	w       *wires
	d       *decider
	session *session
	calls   *calls
	url     *urlMode
	keep    *keepAlive

	mu sync.Mutex // guards pending
	// pending maps the id keys of the server's elicitations being decided
	// to their prompts.
	pending map[string]*pendingElicitation
	// open is len(pending), stored under mu at each change: the end of
	// every tool call asks (callEnded), and nearly always none is pending.
	open atomic.Int32
	// ended are the last elicitations answered cancel because the host
	// cancelled their call: the server's own notice for one may follow.
	ended recentKeys
}

// pendingElicitation is an intercepted elicitation waiting for its answer.
type pendingElicitation struct {
	call          string // id key of the tools/call in flight when it came, or ""
	elicitationID string // URL mode: the server's elicitationId, or ""
	cancel        context.CancelCauseFunc
}

// refuse answers req, an elicitation the relay will not ask, -32600 (an
// invalid request) under id, for the reason msg, which the host's log says
// and history keeps, with what it asked.
func (l *legacy) refuse(req *Request, id json.RawMessage, msg string) {
	l.w.log.printf("%s: refused an elicitation (-32600): %s", l.w.serverName, msg)
	l.d.refused(req, errors.New(msg))
	l.answer(req, encodeError(id, codeInvalidRequest, msg))
}

// readRequest is the Request of params as far as they can be read, for a
// refusal's record.
func (l *legacy) readRequest(params json.RawMessage, o origin) *Request {
	var p elicitParams
	_ = json.Unmarshal(params, &p)
	return l.d.request(&p, o)
}

// fromServer takes a server's elicitation/create (its id present, maybe
// null): schema problems are answered at once, the rest is decided on a
// goroutine of its own.
func (l *legacy) fromServer(line, id, params json.RawMessage) {
	id = append(json.RawMessage(nil), id...)
	tool, call, several := l.calls.inFlight()
	o := origin{tool: tool, toolUnknown: several, reports: true}
	if _, ok := idKey(id); !ok {
		// PROTOCOL.md §7: ids are strings or integers, never null. JSON-RPC
		// answers an invalid request -32600 with id null, the id it could
		// not use; the host's log says why, since the server may not.
		msg := "elicitation/create: the id must be a string or an integer, not " + string(id)
		if isNull(id) {
			msg = "elicitation/create: the id must be a string or an integer, not null (a request's id is never null; a notification has none)"
		}
		l.refuse(l.readRequest(params, o), json.RawMessage("null"), msg)
		return
	}
	if l.session.awaitsInit() {
		// PROTOCOL.md §7: before initialization the server sends no
		// request but ping (and logging). The host has not even got the
		// initialize result, so nothing is settled to ask under: refused,
		// and history says why, not that anyone cancelled it.
		msg := "elicitation/create: the server asked before initialization finished (the initialize result had not reached the host yet); until then a server may send no request but ping"
		l.refuse(l.readRequest(params, o), id, msg)
		return
	}
	req, form, err := l.d.prepareRaw(params, o)
	if err != nil {
		// PROTOCOL.md §4: a clear error, never a crash, never a silent
		// decline. Rejected has been told.
		msg := "elicitray cannot show this elicitation: " + err.Error()
		l.w.log.printf("%s: %s", req.Server, msg)
		l.answer(req, encodeError(id, codeInvalidParams, msg))
		return
	}

	key, _ := idKey(id)
	pctx, cancel := context.WithCancelCause(l.w.ctx)
	pe := &pendingElicitation{call: call, cancel: cancel}
	l.mu.Lock()
	if _, dup := l.pending[key]; dup {
		l.mu.Unlock()
		cancel(nil)
		// PROTOCOL.md §7: ids are never reused within a session. Refused,
		// and the host's log and history say why, as for every refused
		// elicitation (the first, still pending, goes on).
		l.refuse(req, id, "elicitation/create: id "+string(id)+" is already in use by a pending elicitation")
		return
	}
	l.pending[key] = pe
	l.open.Store(int32(len(l.pending)))
	l.mu.Unlock()
	if req.Mode == "url" && req.ElicitationID != "" {
		// Its completion notice is the relay's, and closes the window.
		pe.elicitationID = req.ElicitationID
		l.url.take(req.ElicitationID, cancel)
	}

	line = append(json.RawMessage(nil), line...)
	pctx = l.d.arrivals.take(pctx)
	done := l.d.deciding.Start()
	go func() {
		defer done()
		closed := l.keep.prompt(call)
		v := l.d.decide(pctx, req, form, l.session.hostDeclared(), nil)
		closed()
		if v.toHost {
			// The host shows it and answers the server itself; its
			// completion and cancel notices are the host's now.
			l.mu.Lock()
			if l.pending[key] == pe {
				delete(l.pending, key)
				l.open.Store(int32(len(l.pending)))
			}
			l.mu.Unlock()
			l.url.release(pe.elicitationID)
			cancel(nil)
			l.w.toHost(withNewline(line))
			l.d.delivered(req, nil) // the host answers it, itself
			return
		}
		cause := context.Cause(pctx)
		hostCancelled := errors.Is(cause, ErrHostCancelled)
		l.mu.Lock()
		// The server withdrew it (serverCancelled took the entry away).
		withdrawn := l.pending[key] != pe
		if !withdrawn {
			delete(l.pending, key)
			l.open.Store(int32(len(l.pending)))
			if hostCancelled || errors.Is(cause, ErrCallEnded) {
				// After the host cancelled the call, the server often
				// cancels its own request too (cases/server-cancels.jsonl),
				// and once the call is answered over HTTP the relay says
				// the server withdrew it (httpServer.withdraw), which may
				// come after this: that notice is recognised and kept from
				// the host, which never saw the id (it reached the host,
				// now and then, as if its own request were cancelled).
				l.ended.add(key)
			}
		}
		l.mu.Unlock()
		l.url.answered(pe.elicitationID)
		switch {
		case withdrawn:
			// PROTOCOL.md §7: the server cancelled its request: the window
			// is closed and no response is written, nor owed.
			l.d.delivered(req, nil)
			return
		case hostCancelled, errors.Is(cause, ErrElicitationComplete), errors.Is(cause, ErrCallEnded), errors.Is(cause, ErrServerUnreachable):
			// The host gave up on the call (PROTOCOL.md §7), or the server
			// finished the URL flow without this window, or the call is
			// over (ErrCallEnded): nobody chose, and
			// the server still awaits an answer, which is cancel
			// (PROTOCOL.md §5). The host's notice went to the server first
			// (Relay.fromHost), so it knows why. History keeps this cancel,
			// even where a person answered at that very moment.
			by := DecidedByHostCancelled
			switch {
			case errors.Is(cause, ErrServerUnreachable): // nobody's doing
				by = DecidedByError
			case !hostCancelled: // the server's doing
				by = DecidedByServerCancelled
			}
			l.answer(req, encodeResult(id, l.d.overrule(req, by, cause.Error())))
			return
		case pctx.Err() != nil:
			// Nobody is left to answer: the server exited (ErrServerGone),
			// or the relay stopped (cause was read before: it may have
			// stopped since). Where nobody decided, history keeps that even
			// if no hub took the request (none ran, or it was still
			// starting); a hub that did keeps the same record, once, under
			// the request's key. A decision made meanwhile stays the hub's
			// record, not delivered.
			cause = context.Cause(pctx)
			if v.by == "" {
				l.d.overrule(req, DecidedByError, cause.Error())
			}
			if !errors.Is(cause, ErrServerGone) {
				cause = ErrNotWritten
			}
			l.d.delivered(req, cause)
			return
		}
		cancel(nil)
		l.answer(req, encodeResult(id, v.result))
	}()
}

// answer writes req's answer msg to the server and tells whether it got
// there (decider.delivered).
func (l *legacy) answer(req *Request, msg []byte) {
	l.d.delivered(req, l.w.deliver(withNewline(msg)))
}

// tracked is how many elicitations legacy keeps (Relay.tracked).
func (l *legacy) tracked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pending)
}

// serverCancelled closes the prompt of a pending elicitation named by the
// server's notifications/cancelled; it reports whether there was one (the
// host never saw that id, so the notice stops here).
func (l *legacy) serverCancelled(params json.RawMessage) bool {
	key, ok := cancelledID(params)
	if !ok {
		return false
	}
	l.mu.Lock()
	p, ok := l.pending[key]
	delete(l.pending, key)
	l.open.Store(int32(len(l.pending)))
	late := !ok && l.ended.take(key)
	l.mu.Unlock()
	if ok {
		p.cancel(ErrServerCancelled)
	}
	return ok || late
}

// hostCancelled closes the prompts of the calls with id keys (a tools/call
// the host cancelled, and its retry in flight); their server requests are
// answered cancel by the goroutine of each, once its Approver has let go.
func (l *legacy) hostCancelled(keys []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.pending {
		if slices.Contains(keys, p.call) {
			p.cancel(ErrHostCancelled)
		}
	}
}

// callEnded closes the prompts of the tools/call with id key, whose reply
// has come (cause: ErrCallEnded, or ErrServerUnreachable); their server
// requests are answered cancel.
func (l *legacy) callEnded(key string, cause error) {
	if l.open.Load() == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.pending {
		if p.call == key {
			p.cancel(cause)
		}
	}
}
