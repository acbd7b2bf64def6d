package bridge

import (
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// forwards are the input_required rounds the relay handed to the host
// because they asked for something only the host can give (sampling,
// roots: PROTOCOL.md §9). The host sees those entries alone, under its own
// id, and runs the loop from there; the relay keeps its own answers to the
// round's elicitations and adds them to the host's retry.
type forwards struct {
	w    *wires
	keep *keepAlive

	mu sync.Mutex // guards rounds
	// rounds are the forwarded rounds whose retry has not come, oldest
	// first.
	rounds []*forwardedRound
	// open is len(rounds), stored under mu at each change: every host
	// call asks (complete), and nearly always none is open.
	open atomic.Int32
}

// forwardedRound is one round handed to the host.
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

// send hands the round of hc to the host: only the entries forHost of its
// inputRequests irRaw, with its requestState; answers are the relay's own
// answers to the rest, kept for the host's retry (complete).
func (f *forwards) send(hc *hostCall, irRaw []byte, forHost []member, state json.RawMessage, answers []inputResponse) {
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
	key, _ := idKey(hc.id)
	now := time.Now()
	f.mu.Lock()
	// Rounds the host never came back for go here too, not only when a
	// retry comes: a host that retries nothing must not pile them up.
	f.rounds = slices.DeleteFunc(f.rounds, func(r *forwardedRound) bool { return now.After(r.expires) })
	f.rounds = append(f.rounds, &forwardedRound{hostKey: key, method: hc.method, params: callParams(hc.line),
		state: state, answers: answers, expires: now.Add(forwardedLife)})
	f.open.Store(int32(len(f.rounds)))
	f.mu.Unlock()
	f.keep.end(key) // the round ends the host's call: no progress after it
	f.w.toHost(line)
}

// complete adds the relay's elicitation answers to a host's retry of a
// round it forwarded; other lines pass unchanged.
func (f *forwards) complete(method string, line []byte) []byte {
	if f.open.Load() == 0 {
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
	f.mu.Lock()
	var fr *forwardedRound
	kept := f.rounds[:0]
	for _, r := range f.rounds {
		switch {
		case now.After(r.expires):
			// The host never came back for it.
		case fr == nil && r.method == method && r.params == call && hasState == (r.state != nil) && (!hasState || sameJSON(state, r.state)):
			fr = r
		default:
			kept = append(kept, r)
		}
	}
	f.rounds = kept
	f.open.Store(int32(len(f.rounds)))
	f.mu.Unlock()
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

// tracked is how many forwarded rounds wait for their retry (Relay.tracked).
func (f *forwards) tracked() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.rounds)
}

// drop forgets the rounds forwarded for the host call with id key: the
// host gave up on it.
func (f *forwards) drop(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	kept := f.rounds[:0]
	for _, r := range f.rounds {
		if r.hostKey != key {
			kept = append(kept, r)
		}
	}
	f.rounds = kept
	f.open.Store(int32(len(f.rounds)))
}
