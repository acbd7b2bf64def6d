package bridge

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// The 2026-07-28 input_required loop (PROTOCOL.md §1, "modern (MRTR)").
//
// A modern server answers tools/call, prompts/get or resources/read with a
// result of resultType "input_required" whose inputRequests the client must
// answer, then re-sends the same request with inputResponses and the
// requestState echoed. The relay does that on the host's behalf: the
// input_required result never reaches the host; each elicitation/create
// entry is asked of the Approver in order; the retry goes out under an id
// the relay owns; and the host receives exactly one reply under its own id,
// the final one.
//
// The same machinery serves the 2025-11-25 error -32042 (PROTOCOL.md §6):
// its data.elicitations are URL elicitations; once the user has opened
// every link the call is retried once.

const (
	// maxRounds caps the input_required rounds one host request may take
	// (PROTOCOL.md §9: SDKs use 10).
	maxRounds = 10
	// statePause is the first pause before retrying a result that carries
	// only a requestState ("try again later"); it doubles each time up to
	// maxStatePause, and such rounds count toward maxRounds.
	statePause    = 250 * time.Millisecond
	maxStatePause = 4 * time.Second
	// codeURLElicitationRequired is -32042 (PROTOCOL.md §6, §8).
	codeURLElicitationRequired = -32042
)

// Keys of the request _meta of 2026-07-28 (PROTOCOL.md §2, §3).
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// loopMethods are the requests whose results may ask for input
// (PROTOCOL.md §1).
var loopMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// hostMethods are the input requests only the host can answer, and the
// client capability the host must have declared for each (PROTOCOL.md §9).
var hostMethods = map[string]string{"sampling/createMessage": "sampling", "roots/list": "roots"}

// hostCall is a host request whose reply the relay may have to finish: a
// tools/call, prompts/get or resources/read, in either era.
type hostCall struct {
	id      json.RawMessage // the host's id, as it wrote it
	method  string
	call    string // what the prompt names as the call in flight
	line    []byte // the request as it went to the server
	version string // the _meta protocol version, or "" (legacy)
	// hostCaps are the client capabilities the host itself declared in
	// _meta (before the relay added elicitation), or nil.
	hostCaps json.RawMessage

	ctx    context.Context
	cancel context.CancelCauseFunc
	// replies receives the server's reply to the relay's retry in flight
	// (takeReply sends, send receives). Set once, before hc is shared.
	replies chan []byte

	// Guarded by Relay.mu.
	running   bool // the relay took over the reply
	cancelled bool // the host sent notifications/cancelled for it

	// What the loop itself keeps from round to round (whether it retried
	// a -32042 already, the request it last sent) lives in runLoop's
	// variables: only its goroutine touches it.
}

// forwardedRound is an input_required round the relay passed on to the
// host because it asked for something only the host can give (sampling,
// roots): the relay answered the elicitations in it and adds those answers
// to the host's retry.
type forwardedRound struct {
	hostKey string // id key of the host call it was the reply to
	method  string
	params  string          // the call's params without _meta, inputResponses and requestState, canonical
	state   json.RawMessage // requestState as sent to the host, or nil
	answers []inputResponse
	expires time.Time
}

// forwardedLife is how long the relay keeps the answers of a forwarded
// round for the host's retry.
const forwardedLife = time.Hour

// callParams is the canonical text of a request's params without the
// members a retry changes: what identifies "the same request" (PROTOCOL.md
// §1: same params and _meta, plus inputResponses and requestState).
func callParams(line []byte) string {
	params, _ := getMember(line, "params")
	for _, k := range []string{"_meta", "inputResponses", "requestState"} {
		if p, err := deleteMember(params, k); err == nil {
			params = p
		}
	}
	return canonicalJSON(params)
}

type inputResponse struct {
	key   string
	value []byte // an ElicitResult
}

// newIDPrefix returns the prefix of the ids of the relay's own retries:
// random per process, so they never collide with a host's ids
// (PROTOCOL.md §7).
func newIDPrefix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "elicitray-" + hex.EncodeToString(b) + "-"
}

// ownsID reports whether key (an idKey) names one of the relay's retries.
func (r *Relay) ownsID(key string) bool { return strings.HasPrefix(key, "s:"+r.idPrefix) }

// modernVersion returns the protocol version in a request's
// params._meta, or "" for a legacy request (PROTOCOL.md §2).
func modernVersion(params []byte) string {
	meta, ok := getMember(params, "_meta")
	if !ok {
		return ""
	}
	raw, ok := getMember(meta, metaProtocolVersion)
	if !ok {
		return ""
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v
}

// injectMeta returns a modern request with elicitation (form and url)
// merged into params._meta's client capabilities (PROTOCOL.md §3: every
// request carries them, and the server elicits only what they declare). It
// also returns the capabilities the host declared itself.
func injectMeta(line []byte) (out []byte, hostCaps json.RawMessage, err error) {
	params, _ := getMember(line, "params")
	meta, _ := getMember(params, "_meta")
	hostCaps, _ = getMember(meta, metaClientCapabilities)
	out, err = mergeCapabilities(line, "params", "_meta", metaClientCapabilities)
	return out, hostCaps, err
}

// callName is what a prompt names as the call in flight.
func callName(method string, params []byte) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(params, &p)
	switch method {
	case "prompts/get":
		return "prompt " + p.Name
	case "resources/read":
		return "resource " + p.URI
	}
	return p.Name
}

// trackCall registers a host request the relay may have to finish, and
// fills in the answers of a round the relay forwarded to the host. It
// returns the line to send to the server.
func (r *Relay) trackCall(key string, env *envelope, line []byte, version string, hostCaps json.RawMessage) []byte {
	line = r.completeForwarded(env.Method, line)
	params, _ := getMember(line, "params")
	hc := &hostCall{
		id:       append(json.RawMessage(nil), env.ID...),
		method:   env.Method,
		call:     callName(env.Method, params),
		line:     append([]byte(nil), line...),
		version:  version,
		hostCaps: append(json.RawMessage(nil), hostCaps...),
		replies:  make(chan []byte, 1),
	}
	hc.ctx, hc.cancel = context.WithCancelCause(r.ctx)
	r.mu.Lock()
	if old := r.loops[key]; old != nil {
		old.cancel(nil) // a reused id: the newer request wins
	}
	r.loops[key] = hc
	r.mu.Unlock()
	return line
}

// completeForwarded adds the relay's elicitation answers to a host's retry
// of a round it forwarded (see forwardedRound); other lines pass unchanged.
func (r *Relay) completeForwarded(method string, line []byte) []byte {
	r.mu.Lock()
	n := len(r.forwarded)
	r.mu.Unlock()
	if n == 0 {
		return line
	}
	params, _ := getMember(line, "params")
	responses, ok := getMember(params, "inputResponses")
	if !ok {
		return line
	}
	state, hasState := getMember(params, "requestState")
	call := callParams(line)
	now := time.Now()
	r.mu.Lock()
	var fr *forwardedRound
	kept := r.forwarded[:0]
	for _, f := range r.forwarded {
		switch {
		case now.After(f.expires):
			// The host never came back for it.
		case fr == nil && f.method == method && f.params == call && hasState == (f.state != nil) && (!hasState || sameJSON(state, f.state)):
			fr = f
		default:
			kept = append(kept, f)
		}
	}
	r.forwarded = kept
	r.mu.Unlock()
	if fr == nil {
		return line
	}
	for _, a := range fr.answers {
		if _, given := getMember(responses, a.key); given {
			continue // the host answered it itself
		}
		var err error
		if responses, err = setMember(responses, a.key, a.value); err != nil {
			return line
		}
	}
	out, _, err := editMember(line, "params", func(params []byte) ([]byte, bool, error) {
		p, err := setMember(params, "inputResponses", responses)
		return p, err == nil, err
	})
	if err != nil {
		return line
	}
	return withNewline(out)
}

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

// takeReply decides what happens to the server's reply to a host call or
// to one of the relay's retries; it reports whether the line goes on to the
// host unchanged.
func (r *Relay) takeReply(key string, env *envelope, line []byte) bool {
	if r.ownsID(key) {
		r.mu.Lock()
		hc := r.retries[key]
		delete(r.retries, key)
		r.mu.Unlock()
		if hc != nil {
			hc.replies <- append([]byte(nil), line...)
		}
		return false // a late reply to a cancelled retry: nobody's
	}
	r.mu.Lock()
	hc := r.loops[key]
	r.mu.Unlock()
	if hc == nil {
		return true
	}
	kind := classify(env)
	r.mu.Lock()
	defer r.mu.Unlock()
	if kind == replyFinal {
		delete(r.loops, key)
		hc.cancel(nil)
		return true
	}
	if hc.cancelled {
		delete(r.loops, key)
		return false // the host gave up on it: start no windows
	}
	if hc.running {
		return false // the server answered this id again: one loop per call
	}
	hc.running = true
	go r.runLoop(hc, append([]byte(nil), line...))
	return false
}

// runLoop finishes a host call whose reply asked for input: it answers
// each round and retries until the server gives a final reply, which goes
// to the host under the host's id.
func (r *Relay) runLoop(hc *hostCall, reply []byte) {
	defer r.endLoop(hc)
	pause := statePause
	// last is the request as last sent to the server (the host's, then
	// each retry): what a -32042 retry sends again.
	last := hc.line
	urlRetried := false
	for round := 1; ; round++ {
		env, err := scanEnvelope(reply)
		if err != nil { // cannot happen: takeReply scanned it
			r.failCall(hc, codeInternalError, "the server's reply could not be read")
			return
		}
		var responses []inputResponse
		var state json.RawMessage
		switch classify(&env) {
		case replyFinal:
			r.toHostLine(hc, reply)
			return
		case replyURLRequired:
			if urlRetried || !r.openRequiredURLs(hc, env.Error) {
				// Declined, cancelled, or still required after the user
				// opened the links: the host gets the server's error.
				r.toHostLine(hc, reply)
				return
			}
			urlRetried = true
			// The request that failed, as it was: a retry's answers and
			// requestState stay (PROTOCOL.md §6: retry after completion).
			if reply, last = r.send(hc, last); reply == nil {
				return
			}
			continue
		case replyInputRequired:
			if round > maxRounds {
				r.failCall(hc, codeInternalError, fmt.Sprintf("the server asked for input %d times in a row without finishing; elicitray stopped at %d rounds", round, maxRounds))
				return
			}
			var done bool
			if responses, state, done = r.answerRound(hc, env.Result); done {
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
		if reply, last = r.retry(hc, responses, state); reply == nil {
			return
		}
	}
}

// answerRound answers the inputRequests of one input_required result. It
// returns the responses and the requestState for the retry, or done when
// the round ended otherwise (an error or a forward to the host was sent,
// or the host cancelled). Responses are nil for a result that carries only
// a requestState.
func (r *Relay) answerRound(hc *hostCall, result []byte) (responses []inputResponse, state json.RawMessage, done bool) {
	r.noteServerInfo(result)
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
			r.failCall(hc, codeInvalidParams, fmt.Sprintf("the server's inputRequests is %s, not an object of input requests by key; elicitray cannot answer it", jsonKind(irRaw)))
			return nil, nil, true
		}
	}
	if len(irs) == 0 {
		if state == nil {
			r.failCall(hc, codeInternalError, "the server asked for input but sent no inputRequests and no requestState")
			return nil, nil, true
		}
		return nil, state, false
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
	// The round's elicitations, parsed before any window opens: an entry
	// that cannot be shown fails the round before the user answers the
	// others for nothing (their answers could never be sent).
	type parsedEntry struct {
		req  *Request
		form *elicit.Form
	}
	parsed := make(map[string]parsedEntry, len(irs))
	for _, m := range irs {
		if seen[m.key] {
			r.failCall(hc, codeInvalidParams, fmt.Sprintf("the server's inputRequests name the key %q twice", m.key))
			return nil, nil, true
		}
		seen[m.key] = true
		entry := irRaw[m.vStart:m.vEnd]
		if entry[0] != '{' {
			r.failCall(hc, codeInvalidParams, fmt.Sprintf("elicitray cannot answer input request %q: it is %s, not an object with a method and params", m.key, jsonKind(entry)))
			return nil, nil, true
		}
		method := entryMethod(entry)
		if method == "elicitation/create" {
			continue
		}
		capName, known := hostMethods[method]
		switch _, declared := getMember(hc.hostCaps, capName); {
		case method == "":
			r.failCall(hc, codeInvalidParams, fmt.Sprintf("elicitray cannot answer input request %q: it names no method", m.key))
			return nil, nil, true
		case !known:
			// Not a request of the revisions elicitray knows. Its host
			// cannot be assumed to know it either: it declared no
			// capability for it.
			r.failCall(hc, codeInvalidParams, fmt.Sprintf("elicitray cannot answer input request %q of method %q: unknown method", m.key, method))
			return nil, nil, true
		case !declared:
			r.failCall(hc, codeInvalidParams, fmt.Sprintf("elicitray cannot answer input request %q of method %q: only the host can, and it did not declare the %s capability", m.key, method, capName))
			return nil, nil, true
		}
		forHost = append(forHost, m)
	}

	for _, m := range irs {
		entry := irRaw[m.vStart:m.vEnd]
		if entryMethod(entry) != "elicitation/create" {
			continue
		}
		params, _ := getMember(entry, "params")
		req, form, err := r.parseEntry(hc, params)
		if err != nil {
			r.failCall(hc, codeInvalidParams, "elicitray cannot show this elicitation: "+err.Error())
			return nil, nil, true
		}
		parsed[m.key] = parsedEntry{req, form}
	}

	responses = []inputResponse{}
	var answered []*Request // the round's requests decided so far
	var noDesktop error
	for _, m := range irs {
		entry := irRaw[m.vStart:m.vEnd]
		if entryMethod(entry) != "elicitation/create" {
			continue
		}
		req, form := parsed[m.key].req, parsed[m.key].form
		var res elicitResult
		if noDesktop == nil {
			res, noDesktop = r.decide(hc.ctx, req, form)
		}
		if hc.ctx.Err() != nil {
			// The host cancelled: windows closed, nothing sent. The answers
			// given earlier in this round never reach the server, which
			// history must say (what the server received: nothing).
			if cause := context.Cause(hc.ctx); errors.Is(cause, ErrHostCancelled) {
				for _, a := range answered {
					r.overrule(a, DecidedByHostCancelled, cause.Error()+" before this answer was sent; the server received none")
				}
			}
			return nil, nil, true
		}
		answered = append(answered, req)
		if noDesktop != nil {
			// No desktop for this round: what the host declared it can
			// show goes to the host, the rest is cancel.
			if r.unshown(req, hostDeclares(r.hostElicitationOf(hc), req.Mode), noDesktop) {
				forHost = append(forHost, m)
				continue
			}
			res = elicitResult{Action: ActionCancel}
		}
		b, _ := json.Marshal(res)
		responses = append(responses, inputResponse{m.key, b})
	}
	if len(forHost) > 0 {
		r.forwardRound(hc, irRaw, forHost, state, responses)
		return nil, nil, true
	}
	return responses, state, false
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

// parseEntry parses one elicitation/create entry (form or URL) into the
// Approver's request and its form. An error means the entry cannot be
// shown; it is recorded.
func (r *Relay) parseEntry(hc *hostCall, params []byte) (*Request, *elicit.Form, error) {
	var p elicitParams
	if len(params) == 0 || params[0] != '{' || json.Unmarshal(params, &p) != nil {
		err := errors.New("elicitation/create needs params: an object with a message and a requestedSchema")
		r.record(r.callRequest(hc, &p), err)
		return nil, nil, err
	}
	req := r.callRequest(hc, &p)
	form, err := r.check(req, &p)
	if err != nil {
		r.record(req, err)
		return nil, nil, err
	}
	return req, form, nil
}

// hostElicitationOf is the elicitation capability the host declared for
// hc: in the request's _meta (2026-07-28) or its initialize (legacy).
func (r *Relay) hostElicitationOf(hc *hostCall) json.RawMessage {
	if hc.version != "" {
		el, _ := getMember(hc.hostCaps, "elicitation")
		return el
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hostElicitation
}

// callRequest builds the Approver's view of an elicitation that belongs to
// the host call hc.
func (r *Relay) callRequest(hc *hostCall, p *elicitParams) *Request {
	req := r.request(p)
	req.Tool = hc.call
	if hc.version != "" {
		req.ProtocolVersion = hc.version
	}
	return req
}

// serverInfoMeta is where a 2026-07-28 result names its server: there is
// no initialize reply to do it, and servers should send it in every
// result's _meta (mcp-go and go-sdk servers do).
const serverInfoMeta = "io.modelcontextprotocol/serverInfo"

// noteServerInfo takes what the server calls itself from the _meta of an
// input_required result, when no initialize reply named it: the prompt
// shows it second, after the configured name (PROTOCOL.md §6).
func (r *Relay) noteServerInfo(result []byte) {
	meta, ok := getMember(result, "_meta")
	if !ok {
		return
	}
	raw, ok := getMember(meta, serverInfoMeta)
	if !ok {
		return
	}
	var info ServerInfo
	if json.Unmarshal(raw, &info) != nil || info.Name == "" {
		return
	}
	r.mu.Lock()
	if r.info.Name == "" {
		r.info = info
	}
	r.mu.Unlock()
}

// forwardRound hands an input_required round to the host when it holds
// requests only the host can answer (PROTOCOL.md §9). The host sees those
// entries alone, under its own id; the relay keeps its elicitation answers
// and adds them to the host's retry (completeForwarded). From there the
// host runs the loop.
func (r *Relay) forwardRound(hc *hostCall, irRaw []byte, forHost []member, state json.RawMessage, answers []inputResponse) {
	entries := make([]inputResponse, len(forHost))
	for i, m := range forHost {
		entries[i] = inputResponse{m.key, irRaw[m.vStart:m.vEnd]}
	}
	ir := objectOf(entries)
	result := []byte(`{"resultType":"input_required"}`)
	result, _ = setMember(result, "inputRequests", ir)
	if state != nil {
		result, _ = setMember(result, "requestState", state)
	}
	line := concat([]byte(`{"jsonrpc":"2.0","id":`), hc.id, []byte(`,"result":`), result, []byte("}\n"))
	r.mu.Lock()
	key, _ := idKey(hc.id)
	r.forwarded = append(r.forwarded, &forwardedRound{hostKey: key, method: hc.method, params: callParams(hc.line),
		state: state, answers: answers, expires: time.Now().Add(forwardedLife)})
	r.mu.Unlock()
	r.writeHost(line)
}

// openRequiredURLs shows the URL elicitations of a -32042 error one after
// the other; it reports whether the user opened every one.
func (r *Relay) openRequiredURLs(hc *hostCall, errRaw []byte) bool {
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
		req := r.callRequest(hc, p)
		if req.Mode != "url" {
			r.record(req, fmt.Errorf("error -32042 carries a %q elicitation; only URL elicitations belong there", req.Mode))
			return false
		}
		if _, err := r.check(req, p); err != nil {
			r.record(req, err)
			return false
		}
		// While the window is open, the server's completion notice for the
		// link closes it (PROTOCOL.md §6) and stays here.
		ctx, cancel := context.WithCancelCause(hc.ctx)
		if p.ElicitationID != "" {
			r.mu.Lock()
			r.urlWaits[p.ElicitationID] = cancel
			r.mu.Unlock()
		}
		res, noDesktop := r.decide(ctx, req, nil)
		completed := errors.Is(context.Cause(ctx), ErrElicitationComplete)
		cancel(nil)
		if p.ElicitationID != "" {
			r.mu.Lock()
			delete(r.urlWaits, p.ElicitationID)
			r.mu.Unlock()
		}
		if noDesktop != nil && hc.ctx.Err() == nil {
			// The host gets the server's error either way; it shows the
			// links if it can.
			r.unshown(req, hostDeclares(r.hostElicitationOf(hc), req.Mode), noDesktop)
			return false
		}
		if hc.ctx.Err() != nil || (res.Action != ActionAccept && !completed) {
			return false
		}
	}
	// The links are done: their completion notices are the relay's, since
	// the host never saw the error.
	r.mu.Lock()
	for _, p := range e.Data.Elicitations {
		if p.ElicitationID != "" {
			r.urlIDs[p.ElicitationID] = ""
		}
	}
	r.mu.Unlock()
	return true
}

// retry re-sends the host call under a new id of the relay's, with the
// round's inputResponses and requestState (echoed byte for byte,
// PROTOCOL.md §1), and waits for the server's reply. It returns nil when
// the host cancelled meanwhile; the server is then told to stop too. sent
// is the request as it went out.
func (r *Relay) retry(hc *hostCall, responses []inputResponse, state json.RawMessage) (reply, sent []byte) {
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
		r.failCall(hc, codeInternalError, "elicitray could not build the retry: "+err.Error())
		return nil, nil
	}
	return r.send(hc, line)
}

// send sends request line (a host call as the server should get it) under
// a new id of the relay's, and waits for the server's reply. It returns
// nil when the host cancelled meanwhile; the server is then told to stop
// too. sent is line as it went out, under its new id.
func (r *Relay) send(hc *hostCall, line []byte) (reply, sent []byte) {
	r.mu.Lock()
	r.retrySeq++
	id := strconv.Quote(r.idPrefix + strconv.FormatUint(r.retrySeq, 10))
	r.mu.Unlock()
	key, _ := idKey(json.RawMessage(id))
	line, err := setMember(line, "id", []byte(id))
	if err != nil {
		r.failCall(hc, codeInternalError, "elicitray could not build the retry: "+err.Error())
		return nil, nil
	}

	r.mu.Lock()
	if hc.cancelled {
		r.mu.Unlock()
		return nil, nil
	}
	r.retries[key] = hc
	r.mu.Unlock()
	// A legacy push during the retry names the call (and closes with it).
	params, _ := getMember(line, "params")
	r.noteCall(key, hc.method, params)
	r.writeServer(withNewline(line))

	select {
	case reply := <-hc.replies:
		return reply, line
	case <-hc.ctx.Done():
		r.mu.Lock()
		_, inFlight := r.retries[key]
		delete(r.retries, key)
		r.mu.Unlock()
		if inFlight {
			// PROTOCOL.md §7: cancel the relay's in-flight retry too.
			r.writeServer(concat([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`),
				[]byte(id), []byte(`,"reason":"the host cancelled the request"}}`+"\n")))
		}
		return nil, nil
	}
}

// toHostLine sends the server's final reply to the host under the host's
// id, every other byte as the server wrote it.
func (r *Relay) toHostLine(hc *hostCall, reply []byte) {
	if hc.ctx.Err() != nil {
		return // cancelled: late replies are dropped
	}
	out, err := setMember(reply, "id", hc.id)
	if err != nil {
		r.failCall(hc, codeInternalError, "the server's reply could not be read")
		return
	}
	r.writeHost(withNewline(out))
}

// failCall answers the host call with a JSON-RPC error that says what went
// wrong, and logs it.
func (r *Relay) failCall(hc *hostCall, code int, msg string) {
	if hc.ctx.Err() != nil {
		return
	}
	r.log.printf("%s: %s: %s", r.opts.Server, hc.method, msg)
	r.writeHost(withNewline(encodeError(hc.id, code, msg)))
}

// endLoop forgets a finished host call.
func (r *Relay) endLoop(hc *hostCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, v := range r.loops {
		if v == hc {
			delete(r.loops, k)
		}
	}
	hc.cancel(nil)
}

// cancelCall handles a host's notifications/cancelled for one of its calls
// (PROTOCOL.md §7): the call's windows close and the relay's retry in
// flight is cancelled; its later replies are dropped. It returns the id
// keys the call went by: the host's, and its retry's in flight.
func (r *Relay) cancelCall(key string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := []string{key}
	for k, hc := range r.retries {
		if r.loops[key] == hc {
			keys = append(keys, k)
		}
	}
	// Until the relay has taken the reply over, the server may still answer
	// the host's id; takeReply then drops an input_required reply.
	if hc := r.loops[key]; hc != nil {
		hc.cancelled = true
		hc.cancel(ErrHostCancelled)
	}
	// The host gave up on the call: answers kept for its retry go too.
	kept := r.forwarded[:0]
	for _, f := range r.forwarded {
		if f.hostKey != key {
			kept = append(kept, f)
		}
	}
	r.forwarded = kept
	return keys
}

func (r *Relay) writeHost(line []byte) {
	if err := r.toHost.Write(line, true); err != nil {
		r.log.printf("writing to the host: %v", err)
	}
}

func (r *Relay) writeServer(line []byte) {
	if err := r.toServer.Write(line, true); err != nil {
		r.log.printf("writing to the server: %v", err)
	}
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
