package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// One input_required round (PROTOCOL.md §1): its inputRequests checked as
// a whole before any window opens, its elicitations decided in order
// through the one decision path (decide.go), and the inputResponses of the
// retry built from the answers.

// hostMethods are the input requests only the host can answer, and the
// client capability the host must have declared for each (PROTOCOL.md §9).
var hostMethods = map[string]string{"sampling/createMessage": "sampling", "roots/list": "roots"}

type inputResponse struct {
	key   string
	value []byte // an ElicitResult
}

// answerRound answers the inputRequests of one input_required result. It
// returns the responses and the requestState for the retry, or done when
// the round ended otherwise (an error or a forward to the host was sent,
// or the host cancelled). Responses are nil for a result that carries only
// a requestState.
func (l *loop) answerRound(hc *hostCall, result []byte) (responses []inputResponse, state json.RawMessage, answered []*Request, done bool) {
	l.session.noteServerInfo(result)
	state, _ = getMember(result, "requestState")
	if isNull(state) {
		state = nil
	}
	irRaw, given := getMember(result, "inputRequests")
	var irs []member
	if given && !isNull(irRaw) {
		// PROTOCOL.md §1: a map key → input request. Anything else can
		// never be answered, so it fails now rather than after ten retries.
		var err error
		if irs, err = members(irRaw); err != nil {
			l.fail(hc, codeInvalidParams, fmt.Sprintf("the server's inputRequests is %s, not an object of input requests by key; elicitray cannot answer it", jsonKind(irRaw)))
			return nil, nil, nil, true
		}
	}
	if len(irs) == 0 {
		if state == nil {
			l.fail(hc, codeInternalError, "the server asked for input but sent no inputRequests and no requestState")
			return nil, nil, nil, true
		}
		return nil, state, nil, false
	}

	// PROTOCOL.md §9: sampling and roots only the host can answer; it must
	// have declared them, or the round cannot be finished. Every entry is
	// checked before any window opens: a round that cannot be finished
	// fails at once, and the host hears why. The host's request was
	// fine; what the server asked in reply to it is invalid, so the error
	// is -32602 for the host's id (-32601 would say the host's own method
	// is unknown).
	var forHost []member
	seen := make(map[string]bool, len(irs))
	for _, m := range irs {
		if seen[m.key] {
			l.fail(hc, codeInvalidParams, fmt.Sprintf("the server's inputRequests name the key %q twice", m.key))
			return nil, nil, nil, true
		}
		seen[m.key] = true
		entry := irRaw[m.vStart:m.vEnd]
		if entry[0] != '{' {
			l.fail(hc, codeInvalidParams, fmt.Sprintf("elicitray cannot answer input request %q: it is %s, not an object with a method and params", m.key, jsonKind(entry)))
			return nil, nil, nil, true
		}
		method := entryMethod(entry)
		if method == "elicitation/create" {
			continue
		}
		capName, known := hostMethods[method]
		switch _, declared := getMember(hc.hostCaps, capName); {
		case method == "":
			l.fail(hc, codeInvalidParams, fmt.Sprintf("elicitray cannot answer input request %q: it names no method", m.key))
			return nil, nil, nil, true
		case !known:
			// Not a request of the revisions elicitray knows. Its host
			// cannot be assumed to know it either: it declared no
			// capability for it.
			l.fail(hc, codeInvalidParams, fmt.Sprintf("elicitray cannot answer input request %q of method %q: unknown method", m.key, method))
			return nil, nil, nil, true
		case !declared:
			l.fail(hc, codeInvalidParams, fmt.Sprintf("elicitray cannot answer input request %q of method %q: only the host can, and it did not declare the %s capability", m.key, method, capName))
			return nil, nil, nil, true
		}
		forHost = append(forHost, m)
	}

	// The round's elicitations, prepared before any window opens: an entry
	// that cannot be shown fails the round before the user answers the
	// others for nothing (their answers could never be sent).
	type prepared struct {
		req  *Request
		form *elicit.Form
	}
	entries := make(map[string]prepared, len(irs))
	o := origin{tool: hc.call, version: hc.version, reports: true}
	for _, m := range irs {
		entry := irRaw[m.vStart:m.vEnd]
		if entryMethod(entry) != "elicitation/create" {
			continue
		}
		params, _ := getMember(entry, "params")
		o.input = m.key
		req, form, err := l.d.prepareRaw(params, o)
		if err != nil {
			l.fail(hc, codeInvalidParams, "elicitray cannot show this elicitation: "+err.Error())
			return nil, nil, nil, true
		}
		entries[m.key] = prepared{req, form}
	}
	step := 0
	for _, m := range irs {
		if e, ok := entries[m.key]; ok {
			step++
			e.req.Step, e.req.Steps = step, len(entries)
		}
	}

	responses = []inputResponse{}
	// answered are the round's requests decided so far: their answers
	// reach the server with the retry (loop.send tells delivery).
	var noDesktop error              // set once the round found no desktop
	limitedWhy, limitedStep := "", 0 // the rate limit's reason for the question it held back, and its place
	counted := false                 // a question of the round was shown: its token is taken
	hostEl := l.hostElicitation(hc)
	for _, m := range irs {
		e, ok := entries[m.key]
		if !ok {
			continue
		}
		// Asked now, once the one before it is answered: the hub puts it
		// behind every prompt that came before this moment (issue 27).
		e.req.Time = time.Now()
		if limitedStep > 0 {
			// The round is one ask (issue 27): the hub limits its
			// questions until one is shown, and when one was held back so
			// is the rest.
			which := "the first question of this round"
			if limitedStep > 1 {
				which = fmt.Sprintf("question %d of this round", limitedStep)
			}
			r := l.d.overrule(e.req, DecidedByRateLimit, which+" was not shown: "+limitedWhy)
			b, _ := json.Marshal(r)
			answered = append(answered, e.req)
			responses = append(responses, inputResponse{m.key, b})
			continue
		}
		e.req.Counted = counted
		closed := l.keep.prompt(hc.key)
		v := l.d.decide(hc.ctx, e.req, e.form, hostEl, noDesktop)
		closed()
		if hc.ctx.Err() != nil {
			// The host cancelled: windows closed, nothing sent. The answers
			// given earlier in this round never reach the server, which
			// history must say (what the server received: nothing).
			if cause := context.Cause(hc.ctx); errors.Is(cause, ErrHostCancelled) {
				for _, a := range answered {
					l.d.overrule(a, DecidedByHostCancelled, cause.Error()+" before this answer was sent; the server received none")
				}
			}
			l.unsent(append(answered, e.req), "the host cancelled the call before the round's answers were sent")
			return nil, nil, nil, true
		}
		answered = append(answered, e.req)
		noDesktop = v.noDesktop
		switch v.by {
		case DecidedByRateLimit:
			limitedWhy, limitedStep = v.why, e.req.Step
		case DecidedByUser, DecidedByTimeout:
			counted = true
		}
		if v.toHost {
			// No desktop for this round: what the host declared it can
			// show goes to the host, the rest is cancel.
			forHost = append(forHost, m)
			continue
		}
		b, _ := json.Marshal(v.result)
		responses = append(responses, inputResponse{m.key, b})
	}
	if len(forHost) > 0 {
		// No desktop: the host's own retry carries the relay's answers
		// (forward.complete), which the relay cannot follow further.
		l.unsent(answered, "")
		l.forward.send(hc, irRaw, forHost, state, responses)
		return nil, nil, nil, true
	}
	return responses, state, answered, false
}

// unsent settles the delivery of a round's answers that go no further
// than this: why they never reached the server, or "" when nothing more
// is owed.
func (l *loop) unsent(reqs []*Request, why string) {
	var err error
	if why != "" {
		err = errors.New(why)
	}
	for _, r := range reqs {
		l.d.delivered(r, err)
	}
}

// hostElicitation is the elicitation capability the host declared for
// hc: in the request's _meta (2026-07-28) or its initialize (legacy).
func (l *loop) hostElicitation(hc *hostCall) json.RawMessage {
	if hc.version != "" {
		el, _ := getMember(hc.hostCaps, "elicitation")
		return el
	}
	return l.session.hostDeclared()
}

// jsonKind names the kind of the JSON value raw, for error messages.
func jsonKind(raw []byte) string {
	switch raw[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object that is not valid JSON"
	}
	return "a number"
}

func entryMethod(entry []byte) string {
	raw, _ := getMember(entry, "method")
	var m string
	_ = json.Unmarshal(raw, &m)
	return m
}

// objectOf builds the JSON object of entries, in order, in one pass.
func objectOf(entries []inputResponse) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(e.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
