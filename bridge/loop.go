package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The 2026-07-28 input_required loop (PROTOCOL.md §1, "input_required rounds").
//
// A modern server answers tools/call, prompts/get or resources/read with a
// result of resultType "input_required" whose inputRequests the client must
// answer, then re-sends the same request with inputResponses and the
// requestState echoed. The relay does that on the host's behalf: the
// input_required result never reaches the host; each elicitation/create
// entry is decided in order (decide.go); the retry goes out under an id
// the relay owns; and the host receives exactly one reply under its own id,
// the final one. A round that asks what only the host can give goes to the
// host (forward.go).
//
// The same loop serves the 2025-11-25 error -32042 (PROTOCOL.md §6): its
// data.elicitations are URL elicitations (urlmode.go); once the user has
// opened every link the call is retried once.

const (
	// maxRounds caps the input_required rounds one host request may take
	// (PROTOCOL.md §9: SDKs use 10).
	maxRounds = 10
	// statePause is the first pause before retrying a result that carries
	// only a requestState ("try again later"); it doubles each time up to
	// maxStatePause, and such rounds count toward maxRounds.
	statePause    = 250 * time.Millisecond
	maxStatePause = 4 * time.Second
)

// loop follows the host calls whose reply may ask for input, and runs the
// loop for those whose reply did, each on a goroutine of its own (run).
type loop struct {
	w       *wires
	d       *decider
	session *session
	calls   *calls
	url     *urlMode
	forward *forwards
	keep    *keepAlive
	// prefix starts the ids of the relay's retries (see NewRelay), and
	// ownKey their id keys ("s:" and prefix).
	prefix, ownKey string

	mu sync.Mutex // guards the fields below and hostCall.running, .cancelled
	// loops maps the id keys of host calls the relay may have to finish.
	loops map[string]*hostCall
	// retries maps the id keys of the relay's own retries in flight.
	retries map[string]*hostCall
	// retrySeq numbers the retries.
	retrySeq uint64

	// waiting is len(loops)+len(retries), and owned whether retrySeq is
	// not 0, stored under mu at each change: every reply asks (any,
	// anyOwned), and a lock per reply costs more than the reply.
	waiting atomic.Int32
	owned   atomic.Bool
}

// count stores how many calls and retries wait (waiting); mu is held.
func (l *loop) count() { l.waiting.Store(int32(len(l.loops) + len(l.retries))) }

// tracked is how many calls and retries the loop keeps (Relay.tracked).
func (l *loop) tracked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.loops) + len(l.retries)
}

// hostCall is a host request whose reply the relay may have to finish: a
// tools/call, prompts/get or resources/read, in either era.
type hostCall struct {
	key     string          // the host's id, as an idKey
	id      json.RawMessage // the host's id, as it wrote it
	method  string
	call    string // what the prompt names as the call in flight
	line    []byte // the request as it went to the server
	version string // the _meta protocol version, or "" (legacy)
	// hostCaps are the client capabilities the host itself declared in
	// _meta (before the relay added elicitation), or nil.
	hostCaps json.RawMessage

	// ctx ends when the call is finished, the host cancels it
	// (ErrHostCancelled) or the relay stops. replies receives the server's
	// reply to the relay's retry in flight (fromServer sends, send
	// receives). Both are made when the loop takes the call over (under
	// loop.mu, before run starts): most calls never need them, and a
	// tools/call's round trip should not pay for them.
	ctx     context.Context
	cancel  context.CancelCauseFunc
	replies chan []byte

	// Guarded by loop.mu.
	running   bool // the relay took over the reply
	cancelled bool // the host sent notifications/cancelled for it (it left loops then)

	// What the loop itself keeps from round to round (whether it retried
	// a -32042 already, the request it last sent) lives in run's
	// variables: only its goroutine touches it.
}

// fromHost follows a host request of a loop method, and fills in the
// answers of a round the relay forwarded to the host. It returns the line
// to send to the server.
func (l *loop) fromHost(key string, env *envelope, line []byte, version string, hostCaps json.RawMessage, call string) []byte {
	line = l.forward.complete(env.Method, line)
	// The id and the line, copied into one allocation: every tools/call
	// comes here.
	kept := make([]byte, len(env.ID)+len(line))
	n := copy(kept, env.ID)
	copy(kept[n:], line)
	hc := &hostCall{
		key:      key,
		id:       json.RawMessage(kept[:n:n]),
		method:   env.Method,
		call:     call,
		line:     kept[n:],
		version:  version,
		hostCaps: append(json.RawMessage(nil), hostCaps...),
	}
	l.mu.Lock()
	if old := l.loops[key]; old != nil {
		old.stop(nil) // a reused id: the newer request wins
	}
	l.loops[key] = hc
	l.count()
	l.mu.Unlock()
	return line
}

// any reports whether some host call or retry awaits its reply.
func (l *loop) any() bool { return l.waiting.Load() > 0 }

// endFinal reports whether the loop follows the call with id key
// (follows), and ends the call (ended) when the reply at hand is surely its
// final one: plain (a result naming no resultType) to a legacy call, since
// only a 2026-07-28 result asks for input (PROTOCOL.md §1), and a -32042 is
// an error. Such a reply can pass without being read. (One look, under one
// lock: every reply to a tools/call comes here.)
func (l *loop) endFinal(key string, plain bool) (follows, ended bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	hc := l.loops[key]
	follows = hc != nil || l.retries[key] != nil
	if !plain || hc == nil || hc.version != "" || l.owns(key) {
		return follows, false
	}
	delete(l.loops, key)
	l.count()
	hc.stop(nil)
	return true, true
}

// onlyLegacy reports whether every call the loop follows is a legacy one
// and no retry is in flight: then any result is a final reply.
func (l *loop) onlyLegacy() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.retries) > 0 {
		return false
	}
	for _, hc := range l.loops {
		if hc.version != "" {
			return false
		}
	}
	return true
}

// finish forgets the call with id key, whose final reply passed without
// going through fromServer (onlyLegacy; endFinal has ended the rest).
func (l *loop) finish(key string) {
	if l.waiting.Load() == 0 {
		return
	}
	l.mu.Lock()
	hc := l.loops[key]
	delete(l.loops, key)
	l.count()
	if hc != nil {
		hc.stop(nil)
	}
	l.mu.Unlock()
}

// stop ends the call's context, if the loop took the call over (before,
// it has none: a call that ends or is cancelled then is never run); loop.mu
// is held.
func (hc *hostCall) stop(cause error) {
	if hc.cancel != nil {
		hc.cancel(cause)
	}
}

// anyOwned reports whether the relay ever sent a retry: until it has, no
// reply can carry an id of its own (mayOwn).
func (l *loop) anyOwned() bool { return l.owned.Load() }

// mayOwn reports whether the JSON-RPC id raw may be one of the relay's
// retries, so that a late reply to one is kept from the host.
func (l *loop) mayOwn(raw []byte) bool { return hasStringPrefix(raw, l.prefix) }

// owns reports whether key (an idKey) names one of the relay's retries.
func (l *loop) owns(key string) bool { return strings.HasPrefix(key, l.ownKey) }

// replyKind sorts a server's reply to a host call.
type replyKind int

const (
	replyFinal         replyKind = iota // complete, or an error: the host's
	replyInputRequired                  // resultType input_required (PROTOCOL.md §1)
	replyURLRequired                    // error -32042 (PROTOCOL.md §6)
)

func classify(env *envelope) replyKind {
	if len(env.Error) > 0 {
		var e struct {
			Code int `json:"code"`
		}
		if json.Unmarshal(env.Error, &e) == nil && e.Code == codeURLElicitationRequired {
			return replyURLRequired
		}
		return replyFinal
	}
	rt, ok := getMember(env.Result, "resultType")
	if ok && string(rt) == `"input_required"` {
		return replyInputRequired
	}
	return replyFinal
}

// fromServer decides what happens to the server's reply to a host call or
// to one of the relay's retries; it reports whether the line goes on to the
// host unchanged.
func (l *loop) fromServer(key string, env *envelope, line []byte) bool {
	if l.owns(key) {
		l.mu.Lock()
		hc := l.retries[key]
		delete(l.retries, key)
		l.count()
		l.mu.Unlock()
		if hc != nil {
			hc.replies <- append([]byte(nil), line...)
		}
		return false // a late reply to a cancelled retry: nobody's
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	hc := l.loops[key]
	if hc == nil {
		return true
	}
	kind := classify(env)
	if kind == replyFinal {
		delete(l.loops, key)
		l.count()
		hc.stop(nil)
		return true
	}
	if hc.running {
		return false // the server answered this id again: one loop per call
	}
	hc.running = true
	hc.ctx, hc.cancel = context.WithCancelCause(l.w.ctx)
	hc.ctx = l.d.arrivals.take(hc.ctx) // its first question's turn
	hc.replies = make(chan []byte, 1)
	go l.run(hc, append([]byte(nil), line...))
	return false
}

// hostCancelled handles a host's notifications/cancelled for one of its
// calls (PROTOCOL.md §7): the call's windows close and the relay's retry in
// flight is cancelled; later replies to the retry are dropped. It returns
// the id keys the call went by: the host's, and its retry's in flight.
func (l *loop) hostCancelled(key string) []string {
	l.mu.Lock()
	keys := []string{key}
	for k, hc := range l.retries {
		if l.loops[key] == hc {
			keys = append(keys, k)
		}
	}
	// The call is over for the relay: a server may never answer a request
	// its client cancelled (MCP: cancellation), so nothing of it is kept
	// for a reply. A late one passes to the host as any reply does, and the
	// host, which cancelled, ignores it (PROTOCOL.md §7); an input_required
	// one opens no window, as no call follows it any more.
	if hc := l.loops[key]; hc != nil {
		hc.cancelled = true
		hc.stop(ErrHostCancelled)
		delete(l.loops, key)
		l.count()
	}
	l.mu.Unlock()
	// The host gave up on the call: answers kept for its retry go too.
	l.forward.drop(key)
	return keys
}

// run finishes a host call whose reply asked for input: it answers each
// round and retries until the server gives a final reply, which goes to
// the host under the host's id.
func (l *loop) run(hc *hostCall, reply []byte) {
	defer l.end(hc)
	defer Submitted(hc.ctx) // a round that asked nobody
	pause := statePause
	// last is the request as last sent to the server (the host's, then
	// each retry): what a -32042 retry sends again.
	last := hc.line
	urlRetried := false
	for round := 1; ; round++ {
		env, err := scanEnvelope(reply)
		if err != nil { // cannot happen: fromServer scanned it
			l.fail(hc, codeInternalError, "the server's reply could not be read")
			return
		}
		var responses []inputResponse
		var state json.RawMessage
		var answered []*Request
		switch classify(&env) {
		case replyFinal:
			l.toHost(hc, reply)
			return
		case replyURLRequired:
			if urlRetried || !l.url.openRequired(hc, l.hostElicitation(hc), env.Error) {
				// Declined, cancelled, or still required after the user
				// opened the links: the host gets the server's error.
				l.toHost(hc, reply)
				return
			}
			urlRetried = true
			// The request that failed, as it was: a retry's answers and
			// requestState stay (PROTOCOL.md §6: retry after completion).
			if reply, last = l.send(hc, last, nil); reply == nil {
				return
			}
			continue
		case replyInputRequired:
			if round > maxRounds {
				l.fail(hc, codeInternalError, fmt.Sprintf("the server asked for input %d times in a row without finishing; elicitray stopped at %d rounds", round, maxRounds))
				return
			}
			var done bool
			if responses, state, answered, done = l.answerRound(hc, env.Result); done {
				return
			}
			if responses == nil {
				// requestState alone: the server is not ready; ask again
				// after a pause.
				select {
				case <-time.After(pause):
				case <-hc.ctx.Done():
					return
				}
				pause = min(2*pause, maxStatePause)
			}
		}
		// Whatever this round asked has reached the Approver: the turn
		// goes on before the retry, which the server may answer only
		// after it asked more (a round of requestState alone asks
		// nobody, and must not hold back the wrapper's other prompts).
		Submitted(hc.ctx)
		if reply, last = l.retry(hc, responses, state, answered); reply == nil {
			return
		}
	}
}

// retry re-sends the host call under a new id of the relay's, with the
// round's inputResponses and requestState (echoed byte for byte,
// PROTOCOL.md §1), and waits for the server's reply. It returns nil when
// the host cancelled meanwhile; the server is then told to stop too. sent
// is the request as it went out.
func (l *loop) retry(hc *hostCall, responses []inputResponse, state json.RawMessage, answered []*Request) (reply, sent []byte) {
	line, _, err := editMember(hc.line, "params", func(params []byte) ([]byte, bool, error) {
		var err error
		if responses == nil {
			params, err = deleteMember(params, "inputResponses")
		} else {
			params, err = setMember(params, "inputResponses", objectOf(responses))
		}
		if err != nil {
			return nil, false, err
		}
		if state == nil {
			params, err = deleteMember(params, "requestState")
		} else {
			params, err = setMember(params, "requestState", state)
		}
		return params, err == nil, err
	})
	if err != nil {
		l.unsent(answered, "elicitray could not build the retry that carries the answers: "+err.Error())
		l.fail(hc, codeInternalError, "elicitray could not build the retry: "+err.Error())
		return nil, nil
	}
	return l.send(hc, line, answered)
}

// send sends request line (a host call as the server should get it) under
// a new id of the relay's, and waits for the server's reply. It returns
// nil when the host cancelled meanwhile; the server is then told to stop
// too. sent is line as it went out, under its new id.
func (l *loop) send(hc *hostCall, line []byte, answered []*Request) (reply, sent []byte) {
	l.mu.Lock()
	l.retrySeq++
	l.owned.Store(true)
	id := strconv.Quote(l.prefix + strconv.FormatUint(l.retrySeq, 10))
	l.mu.Unlock()
	key, _ := idKey(json.RawMessage(id))
	line, err := setMember(line, "id", []byte(id))
	if err != nil {
		l.unsent(answered, "elicitray could not build the retry that carries the answers: "+err.Error())
		l.fail(hc, codeInternalError, "elicitray could not build the retry: "+err.Error())
		return nil, nil
	}

	l.mu.Lock()
	if hc.cancelled {
		l.mu.Unlock()
		l.unsent(answered, "the host cancelled the call before the round's answers were sent")
		return nil, nil
	}
	l.retries[key] = hc
	l.count()
	l.mu.Unlock()
	// A legacy push during the retry names the call (and closes with it).
	l.calls.note(key, hc.method, hc.call)
	// The answers reached the server once the retry was written (stdio),
	// or once the server answered the retry (HTTP: its POST was taken).
	_, stdio := l.w.server.(*lineConn)
	if stdio {
		werr := l.w.deliver(withNewline(line))
		for _, a := range answered {
			l.d.delivered(a, werr)
		}
		answered = nil
	} else {
		l.w.toServer(withNewline(line))
	}

	select {
	case reply := <-hc.replies:
		why := ""
		if relayMade(reply) {
			why = "the server did not take the retry that carries the answers (" + errorMessage(reply) + ")"
		}
		l.unsent(answered, why)
		return reply, line
	case <-hc.ctx.Done():
		l.unsent(answered, "the host cancelled the call before the server confirmed it had the round's answers")
		l.mu.Lock()
		_, inFlight := l.retries[key]
		delete(l.retries, key)
		l.count()
		l.mu.Unlock()
		if inFlight {
			// PROTOCOL.md §7: cancel the relay's in-flight retry too.
			l.w.toServer(concat([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`),
				[]byte(id), []byte(`,"reason":"the host cancelled the request"}}`+"\n")))
		}
		return nil, nil
	}
}

// toHost sends the server's final reply to the host under the host's id,
// every other byte as the server wrote it.
func (l *loop) toHost(hc *hostCall, reply []byte) {
	if hc.ctx.Err() != nil {
		return // cancelled: late replies are dropped
	}
	out, err := setMember(reply, "id", hc.id)
	if err != nil {
		l.fail(hc, codeInternalError, "the server's reply could not be read")
		return
	}
	l.keep.end(hc.key) // PROTOCOL.md §10: no progress after the reply
	l.w.toHost(withNewline(out))
}

// fail answers the host call with a JSON-RPC error that says what went
// wrong, and logs it.
func (l *loop) fail(hc *hostCall, code int, msg string) {
	if hc.ctx.Err() != nil {
		return
	}
	l.w.log.printf("%s: %s: %s", l.w.serverName, hc.method, msg)
	l.keep.end(hc.key)
	l.w.toHost(withNewline(encodeError(hc.id, code, msg)))
}

// end forgets a finished host call.
func (l *loop) end(hc *hostCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, v := range l.loops {
		if v == hc {
			delete(l.loops, k)
			l.count()
		}
	}
	hc.stop(nil)
}
