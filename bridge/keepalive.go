package bridge

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Keep-alive (PROTOCOL.md §10). Hosts time a request out on their own
// clock, often after 60 s, while the person is still reading the form: the
// server's elicitation is then answered into a call nobody waits for. Many
// hosts reset that clock on each notifications/progress for the call's
// progressToken (the TypeScript SDK's resetTimeoutOnProgress). So while a
// prompt of a call is open, and the host's request carried a
// progressToken, the relay sends the host a progress notification for that
// token every Options.KeepAlive.
//
// Two rules of §10 shape it. Progress must increase with every
// notification for a token, the server's and the relay's together: so the
// relay reads the server's progress for a token it follows, sends a little
// more than the last value the host got, and raises a server value that is
// no longer above the last one sent. And nothing may be sent for a token
// after the call's response: the call's end (end) and a tick both hold
// keepAlive.mu, a tick writes under it, and the relay ends a call before
// its reply goes on (Relay.callReplied, fromServer, loop.toHost).

// keepAliveMessage is the message of the relay's progress notifications:
// what a host that shows progress shows while the person answers.
const keepAliveMessage = "waiting for your answer in elicitray"

// keepAliveStep is how much the relay's progress adds to the last value the
// host got: small enough that a server's next whole step is still above
// it after hours of prompts (240 an hour at 15 s), exact in binary.
const keepAliveStep = 1.0 / 1024

// keepAlive follows the host calls in flight that carry a progressToken.
type keepAlive struct {
	w *wires
	// every is the interval between progress notifications in
	// nanoseconds; zero: none. Options.KeepAlive, until Relay.SetKeepAlive
	// stores another: atomic, as every host request reads it.
	every atomic.Int64

	// mu guards the fields below and every tokenCall, and is held while
	// a progress notification for a followed token is written to the
	// host: the value and its place in the stream then agree.
	mu sync.Mutex
	// calls maps the id keys of the calls followed to them, tokens the
	// idKeys of their progress tokens.
	calls  map[string]*tokenCall
	tokens map[string]*tokenCall
	// open is len(calls), stored under mu at each change: every server
	// notifications/progress asks (any) without the lock.
	open atomic.Int32
}

// tokenCall is one host call with a progressToken.
type tokenCall struct {
	key, tokenKey string
	token         json.RawMessage // as the host wrote it
	// last is the last progress the host got for the token, when sent.
	last float64
	sent bool
	// total is the server's last total, as it wrote it, or nil.
	total json.RawMessage
	// prompts counts the call's prompts open; timer runs while it is not
	// zero.
	prompts int
	timer   *time.Timer
}

func newKeepAlive(w *wires, every time.Duration) *keepAlive {
	k := &keepAlive{w: w, calls: map[string]*tokenCall{}, tokens: map[string]*tokenCall{}}
	k.every.Store(int64(every))
	return k
}

// interval is the interval between progress notifications now; zero or
// less: none.
func (k *keepAlive) interval() time.Duration { return time.Duration(k.every.Load()) }

// SetKeepAlive replaces Options.KeepAlive while the relay runs (the
// wrapper does when config.toml changes): calls the host makes from now on
// are followed at interval every (zero: none), and the next progress of a
// prompt open now comes at the new interval; with zero, none comes. Safe
// to call from any goroutine.
func (r *Relay) SetKeepAlive(every time.Duration) { r.keep.every.Store(int64(max(every, 0))) }

// tracked is how many calls and tokens keepAlive keeps (Relay.tracked).
func (k *keepAlive) tracked() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.calls) + len(k.tokens)
}

// any reports whether some call with a progress token is in flight: then
// the server's progress notifications take the full path.
func (k *keepAlive) any() bool { return k.open.Load() > 0 }

// noteCall follows the host call with id key when its params carry a
// progressToken (a string or an integer, as ids are).
func (k *keepAlive) noteCall(key string, params []byte) {
	if k.interval() <= 0 || key == "" || !bytes.Contains(params, []byte(`progressToken"`)) {
		return // (a search, cheaper than reading the members, for most calls)
	}
	meta, ok := getMember(params, "_meta")
	if !ok {
		return
	}
	token, ok := getMember(meta, "progressToken")
	if !ok {
		return
	}
	tokenKey, ok := progressTokenKey(token)
	if !ok {
		return
	}
	tc := &tokenCall{key: key, tokenKey: tokenKey, token: append(json.RawMessage(nil), token...)}
	k.mu.Lock()
	defer k.mu.Unlock()
	if old := k.calls[key]; old != nil {
		k.forget(old) // a reused id: the newer request wins
	}
	if old := k.tokens[tokenKey]; old != nil {
		k.forget(old) // a reused token: likewise
	}
	k.calls[key], k.tokens[tokenKey] = tc, tc
	k.open.Store(int32(len(k.calls)))
}

// end stops following the call with id key: its reply is about to go to
// the host, or the host cancelled it. A tick writing meanwhile has
// written when end returns.
func (k *keepAlive) end(key string) {
	if k.open.Load() == 0 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if tc := k.calls[key]; tc != nil {
		k.forget(tc)
	}
}

// forget drops tc; k.mu is held.
func (k *keepAlive) forget(tc *tokenCall) {
	if tc.timer != nil {
		tc.timer.Stop()
		tc.timer = nil
	}
	if k.calls[tc.key] == tc {
		delete(k.calls, tc.key)
	}
	if k.tokens[tc.tokenKey] == tc {
		delete(k.tokens, tc.tokenKey)
	}
	k.open.Store(int32(len(k.calls)))
}

// prompt notes a prompt of the call with id key open, and returns what to
// call when it closes. The first open prompt of a followed call starts the
// ticks; the last one to close stops them. A prompt tied to no one call
// (key ""; a push while several calls are in flight) may hold up any of
// them: every call in flight with a progress token hears the keep-alive
// while it is open, so that a host running calls in parallel does not
// time out the one that waits for the person.
func (k *keepAlive) prompt(key string) (closed func()) {
	every := k.interval()
	if every <= 0 {
		return func() {}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	var tcs []*tokenCall
	if key != "" {
		if tc := k.calls[key]; tc != nil {
			tcs = append(tcs, tc)
		}
	} else {
		for _, tc := range k.calls {
			tcs = append(tcs, tc)
		}
	}
	for _, tc := range tcs {
		tc.prompts++
		if tc.timer == nil {
			tc.timer = time.AfterFunc(every, func() { k.tick(tc) })
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			k.mu.Lock()
			defer k.mu.Unlock()
			for _, tc := range tcs {
				tc.prompts--
				if tc.prompts == 0 && tc.timer != nil {
					tc.timer.Stop()
					tc.timer = nil
				}
			}
		})
	}
}

// tick sends the host one progress notification for tc, if its call is
// still followed and a prompt of it still open, and sets the next.
func (k *keepAlive) tick(tc *tokenCall) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.calls[tc.key] != tc || tc.prompts == 0 || tc.timer == nil {
		return // ended, or its prompts closed, while this tick waited
	}
	every := k.interval()
	if every <= 0 {
		tc.timer = nil // turned off meanwhile (SetKeepAlive)
		return
	}
	v := tc.next()
	line := concat([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`), tc.token,
		[]byte(`,"progress":`), []byte(formatProgress(v)))
	if tc.total != nil && totalAbove(tc.total, v) {
		// A host showing a bar keeps the server's scale.
		line = concat(line, []byte(`,"total":`), tc.total)
	}
	line = concat(line, []byte(`,"message":"`+keepAliveMessage+`"}}`+"\n"))
	k.w.toHost(line)
	tc.timer.Reset(every)
}

// next is the progress to send after the last the host got; k.mu is held.
func (tc *tokenCall) next() float64 {
	v := 0.0
	if tc.sent {
		v = tc.last + keepAliveStep
		if v <= tc.last { // so large that the step is lost
			v = math.Nextafter(tc.last, math.Inf(1))
		}
	}
	tc.last, tc.sent = v, true
	return v
}

// fromServer takes a server's notifications/progress (params its params)
// and reports whether it wrote it to the host itself: when its token is
// one the relay sends progress for, it goes out under k.mu, its progress
// raised above the last value the host got if it no longer was. Other
// notifications, and one whose progress is not a number, are the caller's
// to pass on as they are.
func (k *keepAlive) fromServer(line, params []byte) bool {
	if k.open.Load() == 0 {
		return false
	}
	token, ok := getMember(params, "progressToken")
	if !ok {
		return false
	}
	tokenKey, ok := progressTokenKey(token)
	if !ok {
		return false
	}
	raw, ok := getMember(params, "progress")
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	tc := k.tokens[tokenKey]
	if tc == nil {
		return false
	}
	if total, ok := getMember(params, "total"); ok {
		tc.total = append(tc.total[:0:0], total...)
	}
	out := line
	if tc.sent && v <= tc.last {
		// The relay's own progress came in between: the host must still
		// see this one increase (PROTOCOL.md §10).
		v = tc.next()
		edited, _, err := editMember(line, "params", func(p []byte) ([]byte, bool, error) {
			p, err := setMember(p, "progress", []byte(formatProgress(v)))
			return p, err == nil, err
		})
		if err != nil {
			return false
		}
		out = withNewline(edited)
	} else {
		tc.last, tc.sent = v, true
	}
	k.w.toHost(out)
	return true
}

// formatProgress writes v as a JSON number, without an exponent.
func formatProgress(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// totalAbove reports whether the JSON number total is above v.
func totalAbove(total []byte, v float64) bool {
	t, err := strconv.ParseFloat(string(total), 64)
	return err == nil && t > v
}

// progressTokenKey is the key of a progressToken: a string, or any number
// (MCP's ProgressToken; ids are strings or integers only, idKey). A number
// is keyed by its value, so that 1e2 and 100 are one token, as a server that
// decoded and wrote it again may spell it.
func progressTokenKey(token json.RawMessage) (string, bool) {
	if key, ok := idKey(token); ok {
		return key, true
	}
	var f float64
	if json.Unmarshal(token, &f) != nil || math.IsInf(f, 0) {
		return "", false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return "n:" + strconv.FormatInt(int64(f), 10), true
	}
	return "n:" + strconv.FormatFloat(f, 'g', -1, 64), true
}
