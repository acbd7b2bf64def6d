package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/ui/state"
)

// The hub's part of remembered answers (remember.go): the policy step
// that answers from a rule, the offer of "Always answer this way" and the
// pre-filled values on a prompt, and keeping what the user answered.

// memory returns the hub's remembered answers, nil when it keeps none.
func (h *Hub) memory() *memory {
	h.memoOnce.Do(func() {
		if h.RulesPath != "" {
			h.memo = &memory{path: h.RulesPath}
		}
	})
	return h.memo
}

// rememberedAnswer is the answer a remembered rule gives it, or nil when
// none holds (or it is a prompt no rule may answer: URL mode, a secret
// field). A rule whose content no longer passes the form's checks is not
// used: the user is asked.
func (h *Hub) rememberedAnswer(it *item) *bridge.Result {
	m := h.memory()
	if m == nil || rememberable(&it.prompt) != "" {
		return nil
	}
	r, ok, err := m.match(questionOf(it.prompt.Request), h.now())
	if err != nil {
		h.logf("remembered answers: %v", err)
		return nil
	}
	if !ok {
		return nil
	}
	res := &bridge.Result{Action: r.Action, DecidedBy: bridge.DecidedByRule, Reason: "answered by " + rememberDesc(r)}
	if r.Action == bridge.ActionAccept {
		content, err := it.prompt.Form.Normalize(r.Content)
		if err != nil {
			h.logf("%s no longer fits the form (%v): asking", r.Describe(), err)
			return nil
		}
		res.Content = content
	}
	return res
}

// offerRemember gives it's prompt the "Always answer this way" choice
// when it may be remembered.
func (h *Hub) offerRemember(it *item) {
	m := h.memory()
	// Prefill is set when the prompt shows (showNext: refreshPrefill), a
	// form with a secret included: its other fields come back.
	if m == nil || rememberable(&it.prompt) != "" {
		return
	}
	q := questionOf(it.prompt.Request)
	it.prompt.Remember = func(res bridge.Result) {
		if res.Action != bridge.ActionAccept && res.Action != bridge.ActionDecline {
			return // cancel is no choice (remember.go)
		}
		now := h.now()
		r := RememberedRule{Server: q.Server, Tool: q.Tool, Input: q.Input, Message: q.Message, Schema: q.Schema,
			Action: res.Action, Saved: now, Expires: now.Add(h.remembering().Holds())}
		if res.Action == bridge.ActionAccept {
			r.Content = res.Content
		}
		r, err := m.Add(r, now)
		if err != nil {
			h.logf("remembering the answer: %v", err)
			return
		}
		h.logf("%s, until %s", r.Describe(), r.Expires.Format(time.DateTime))
		h.answerQueued(q)
	}
}

// refreshPrefill sets it's Prefill to the values last given for its
// question, when the config pre-fills; nil otherwise.
func (h *Hub) refreshPrefill(it *item) {
	m := h.memory()
	it.prompt.Prefill = nil
	if m == nil || it.prompt.Form == nil || it.prompt.Request.ToolUnknown || !h.remembering().Prefills() {
		return
	}
	it.prompt.Prefill = prefillValues(it.prompt.Form, m.last(questionOf(it.prompt.Request).key()))
}

// answerQueued answers from the rule just remembered the prompts of the
// same question already waiting behind the window: the user said how to
// answer them.
func (h *Hub) answerQueued(q question) {
	h.mu.Lock()
	var same []*item
	for _, it := range h.queue {
		if it != h.showing && it.prompt.Remember != nil && questionOf(it.prompt.Request) == q {
			same = append(same, it)
		}
	}
	h.mu.Unlock()
	for _, it := range same {
		if res := h.rememberedAnswer(it); res != nil {
			h.finish(it, *res)
		}
	}
}

// remembering is the [remember] config in force.
func (h *Hub) remembering() Remember {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.Config.Remember
}

// keepLastValues keeps what the user typed into it's free-text fields
// (elicit.Field.Prefillable: no secret, no choice, no check box, nothing the
// server set a default for), to pre-fill them the next time the same
// question is asked.
func (h *Hub) keepLastValues(it *item, res bridge.Result) {
	m := h.memory()
	// With pre-filling off nothing is kept; of a question whose tool is
	// not known, nothing could be told apart from another tool's.
	if m == nil || it.prompt.Form == nil || it.prompt.Request.ToolUnknown || !h.remembering().Prefills() ||
		res.DecidedBy != bridge.DecidedByUser || res.Action != bridge.ActionAccept {
		return
	}
	values := map[string]any{}
	for i := range it.prompt.Form.Fields {
		f := &it.prompt.Form.Fields[i]
		if v, ok := res.Content[f.Name].(string); ok && v != "" && f.Prefillable() && !secretValue(v) {
			values[f.Name] = v
		}
	}
	key := questionOf(it.prompt.Request).key()
	if len(values) == 0 && m.last(key) == nil {
		return // nothing to keep, nothing to forget
	}
	if err := m.keepLast(key, values, h.now()); err != nil {
		h.logf("keeping the values given: %v", err)
	}
}

// rememberSettings is the Settings window's "Remembered answers" section
// under config c: the rules in force and the pre-fill option. A rules file
// that does not read shows no rules (the log says why).
func (h *Hub) rememberSettings(c Config) state.RememberSettings {
	s := state.RememberSettings{Prefill: c.Remember.Prefills()}
	m := h.memory()
	if m == nil {
		return s
	}
	rules, err := m.Rules(h.now())
	if err != nil {
		h.logf("remembered answers: %v", err)
	}
	for _, r := range rules {
		s.Rules = append(s.Rules, state.RememberedAnswer{ID: r.ID, Server: r.Server, Message: r.Message, Answer: r.Answer(), Expires: r.Expires})
	}
	return s
}

// rememberConfigOf is the [remember] table after Settings saved s over old:
// the pre-fill option as ticked, written only when off (on is the default).
func rememberConfigOf(s state.RememberSettings, old Remember) Remember {
	old.Prefill = nil
	if !s.Prefill {
		off := false
		old.Prefill = &off
	}
	return old
}

// forgetRules forgets the rules numbered ids (Settings' Forget); one
// already gone (forgotten from the command line meanwhile) is no error.
func (h *Hub) forgetRules(ids []int) error {
	m := h.memory()
	if m == nil {
		return nil
	}
	for _, id := range ids {
		if _, err := m.Forget(id, false); err != nil && !errors.Is(err, ErrRuleNotFound) {
			return fmt.Errorf("could not forget remembered rule %d: %w", id, err)
		}
	}
	return nil
}
