package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Guarded calls asked in the host (issue 14: "timeouts and no-desktop
// follow the same rules as elicitations"). When no desktop can show the
// approval window (ErrNoDesktop) and the host declared in its initialize
// that it shows form-mode elicitations (PROTOCOL.md §3), the guard does
// what the relay does with an elicitation it cannot show: it goes to the
// host. The relay sends the host an elicitation/create of its own, under an
// id the relay owns, saying what the window would have said; the host's
// accept approves the call, its decline denies it, and anything else
// (cancel, an error, no answer within Options.PromptTimeout, the host
// cancelling its own tools/call) leaves it unapproved. The host's answer
// never reaches the server. A host that declared no elicitation, or one
// that speaks 2026-07-28 (which has no requests from the server's side to
// carry the question), keeps the denial.

// DecidedByHost is who decided a guarded call the relay asked the host
// about because no desktop could show the window: the person, in the
// host's own prompt.
const DecidedByHost = "host"

// hostApprovalSchema is the requestedSchema of the relay's question: an
// object asking for nothing, so that the host's own accept and decline
// are the approval (PROTOCOL.md §4 allows any flat object, an empty one
// too). A boolean "approve" field would give the person a box to tick on
// top of the host's buttons, and an accept with the box left unticked, a
// form hosts pre-fill false, would say two things at once
// (modelcontextprotocol/python-sdk#1284 asks for just this confirmation
// shape for that reason). Hosts render it as the message with their
// accept and decline buttons.
const hostApprovalSchema = `{"type":"object","properties":{}}`

// hostAsks are the relay's own elicitations to the host, each standing for
// the approval window of one guarded call.
type hostAsks struct {
	w *wires
	// ids start with idPrefix (a random prefix and "guard-"): they
	// collide with no host's or server's id (PROTOCOL.md §7). The prefix
	// is not the one of the relay's retries, which the server reads: only
	// the host ever sees it, so a server cannot send the host a request
	// under the id of a question and have its answer approve the call.
	// seq numbers them.
	idPrefix string
	seq      atomic.Uint64
	// timeout is Options.PromptTimeout.
	timeout time.Duration
	// said makes the sentence on the host's log appear once.
	said sync.Once

	mu sync.Mutex // guards waits
	// waits are the questions the host has not answered, by id key; each
	// channel takes the host's reply.
	waits map[string]chan hostReply
	// asked is set once the relay asked the host anything: from then on
	// every reply of the host takes the full path, so that an answer to
	// the relay never passes to the server (quick.go).
	asked atomic.Bool
}

// hostReply is the host's reply to one of the relay's questions.
type hostReply struct{ result, err json.RawMessage }

func newHostAsks(w *wires, prefix string, timeout time.Duration) *hostAsks {
	return &hostAsks{w: w, idPrefix: prefix + "guard-", timeout: timeout, waits: map[string]chan hostReply{}}
}

// can reports whether the host can be asked about a call that arrived
// under version ("" for a legacy request): it declared form-mode
// elicitation in its initialize (hostEl), and the call is legacy.
func (h *hostAsks) can(hostEl json.RawMessage, version string) bool {
	return version == "" && hostDeclares(hostEl, "form")
}

// hostVerdict is what the host decided on a guarded call: the Result
// history records, and unless it is an accept, the sentence the host's
// tool error result says.
type hostVerdict struct {
	res    Result
	denial string
	// asked says why the host was asked: every Reason starts with it.
	asked string
}

// ask asks the host to approve the guarded call req, which no desktop
// could show (noDesktop says why). It returns when the host answered, or
// timeout passed, or ctx ended (the host cancelled its call, or the relay
// stops: the Result then says so, and no sentence is needed, as nobody
// waits for an answer). On a timeout and a host's cancel the host is told
// that the question is withdrawn (PROTOCOL.md §7), so its prompt closes.
func (h *hostAsks) ask(ctx context.Context, req *Request, noDesktop error) hostVerdict {
	h.said.Do(func() {
		h.w.log.printf("%v. Guarded tool calls are asked in the host, which declared it can show elicitations, because no desktop can show elicitray's approval window.", noDesktop)
	})
	why := noDesktop.Error() + "; asked in the host"
	id := strconv.Quote(h.idPrefix + strconv.FormatUint(h.seq.Add(1), 10))
	key, _ := idKey(json.RawMessage(id))
	ch := make(chan hostReply, 1)
	h.mu.Lock()
	h.waits[key] = ch
	h.mu.Unlock()
	h.asked.Store(true)
	h.w.toHost(h.question(id, req))
	v := h.await(ctx, key, id, ch, req.Tool, why)
	v.asked = why
	return v
}

// await waits for the answer to the question with id (key) on ch.
func (h *hostAsks) await(ctx context.Context, key, id string, ch chan hostReply, tool, why string) hostVerdict {
	var expired <-chan time.Time
	if h.timeout > 0 {
		t := time.NewTimer(h.timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case r := <-ch:
		return answerOf(r, tool, why)
	case <-expired:
		if !h.withdraw(key, id, "nobody answered in time") {
			// The answer came as the time ran out: it is taken.
			return answerOf(<-ch, tool, why)
		}
		return hostVerdict{
			res: Result{Action: ActionCancel, DecidedBy: DecidedByTimeout,
				Reason: fmt.Sprintf("%s, where nobody answered within %v", why, h.timeout)},
			denial: fmt.Sprintf("Nobody approved the call of the tool %s in time when the host asked; it did not run.", strconv.Quote(tool)),
		}
	case <-ctx.Done():
		cause := context.Cause(ctx)
		if errors.Is(cause, ErrRelayStopped) {
			// Nobody is left to tell: the question is only forgotten.
			h.mu.Lock()
			delete(h.waits, key)
			h.mu.Unlock()
		} else {
			h.withdraw(key, id, cause.Error())
		}
		return hostVerdict{res: endedResult(cause, why)}
	}
}

// endedResult is the record of a guarded call whose question ended
// unanswered by cause: the host cancelled its call, or the relay stops.
func endedResult(cause error, why string) Result {
	by := DecidedByError
	if errors.Is(cause, ErrHostCancelled) {
		by = DecidedByHostCancelled
	}
	return Result{Action: ActionCancel, DecidedBy: by, Reason: why + ", and " + cause.Error()}
}

// question is the relay's elicitation/create for req, under id: the
// configured server name first (the trusted identity, PROTOCOL.md §6),
// what the server calls itself second, then what the approval window says
// of the call (guardtext.go: title, description, arguments bounded and
// masked). No mode member: a 2025-06-18 host knows none, and an absent
// mode is form mode (PROTOCOL.md §6).
func (h *hostAsks) question(id string, req *Request) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "elicitray, for the server %s", strconv.Quote(cleanLine(req.Server, guardMaxValue)))
	if n := cleanLine(req.ServerInfo.Name, guardMaxValue); n != "" && n != req.Server {
		fmt.Fprintf(&b, " (it calls itself %s)", strconv.Quote(n))
	}
	b.WriteString(": no desktop can show elicitray's approval window, so it asks here.\n\n")
	b.WriteString(req.Message)
	b.WriteString("\n\nAccept runs the call; decline denies it.")
	params, _ := json.Marshal(struct {
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}{b.String(), json.RawMessage(hostApprovalSchema)})
	return concat([]byte(`{"jsonrpc":"2.0","id":`), []byte(id), []byte(`,"method":"elicitation/create","params":`), params, []byte("}\n"))
}

// withdraw forgets the question with id key and tells the host it is
// withdrawn, so that its prompt closes (PROTOCOL.md §7: a requester may
// cancel its own elicitation/create). An answer that comes later is
// dropped (fromHost). It reports false when the answer came first: it is
// then on the question's channel.
func (h *hostAsks) withdraw(key, id, reason string) (open bool) {
	h.mu.Lock()
	_, open = h.waits[key]
	delete(h.waits, key)
	h.mu.Unlock()
	if !open {
		return false
	}
	params, _ := json.Marshal(struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}{json.RawMessage(id), reason})
	h.w.toHost(concat([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":`), params, []byte("}\n")))
	return true
}

// fromHost takes a host's reply when it answers one of the relay's
// questions, and reports whether it did: such a reply stops here, also one
// that comes after its question was withdrawn (the server never asked it).
func (h *hostAsks) fromHost(env *envelope) bool {
	if !h.asked.Load() {
		return false
	}
	key, ok := idKey(env.ID)
	if !ok || !strings.HasPrefix(key, "s:"+h.idPrefix) {
		return false
	}
	h.mu.Lock()
	ch := h.waits[key]
	delete(h.waits, key)
	h.mu.Unlock()
	if ch != nil {
		ch <- hostReply{result: append(json.RawMessage(nil), env.Result...), err: append(json.RawMessage(nil), env.Error...)}
	}
	return true
}

// answerOf is what the host's reply decided on the call of tool
// (PROTOCOL.md §5): accept approves, decline denies; cancel, an error, or
// a result that is no ElicitResult leave the call unapproved. why starts
// every Reason.
func answerOf(r hostReply, tool, why string) hostVerdict {
	tool = strconv.Quote(tool)
	if len(r.err) > 0 {
		var e rpcError
		_ = json.Unmarshal(r.err, &e)
		said := fmt.Sprintf("error %d: %s", e.Code, cleanLine(e.Message, guardMaxValue))
		return hostVerdict{
			res:    Result{Action: ActionCancel, DecidedBy: DecidedByError, Reason: why + ", which answered " + said},
			denial: fmt.Sprintf("Nobody approved the call of the tool %s: the host could not ask for the approval (it answered %s); it did not run.", tool, said),
		}
	}
	var res struct {
		Action string `json:"action"`
	}
	_ = json.Unmarshal(r.result, &res)
	switch res.Action {
	case ActionAccept:
		return hostVerdict{res: Result{Action: ActionAccept, DecidedBy: DecidedByHost, Reason: why + ", where the user approved it"}}
	case ActionDecline:
		return hostVerdict{
			res:    Result{Action: ActionDecline, DecidedBy: DecidedByHost, Reason: why + ", where the user denied it"},
			denial: fmt.Sprintf("The user denied the call of the tool %s when the host asked; it did not run.", tool),
		}
	case ActionCancel:
		return hostVerdict{
			res:    Result{Action: ActionCancel, DecidedBy: DecidedByHost, Reason: why + ", where the prompt was dismissed without an answer"},
			denial: fmt.Sprintf("Nobody approved the call of the tool %s: the host's prompt was dismissed without an answer; it did not run.", tool),
		}
	}
	return hostVerdict{
		res: Result{Action: ActionCancel, DecidedBy: DecidedByError,
			Reason: fmt.Sprintf("%s, whose answer was no ElicitResult (action %s)", why, strconv.Quote(cleanLine(res.Action, guardMaxValue)))},
		denial: fmt.Sprintf("Nobody approved the call of the tool %s: the host's answer was neither accept nor decline; it did not run.", tool),
	}
}
