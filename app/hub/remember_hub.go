package hub

import (
	"errors"
	"fmt"
	"time"

	"github.com/elicitray/elicitray/app/remember"
	"github.com/elicitray/elicitray/ui/state"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/bridge"
)

// The hub's part of remembered answers (remember.go): the policy step
// that answers from a rule, the offer of "Always answer this way" and the
// pre-filled values on a prompt, and keeping what the user answered.

// Memory returns the hub's remembered answers, nil when it keeps none.
func (h *Hub) Memory() *remember.Memory {
	h.memoOnce.Do(func() {
		if h.RulesPath != "" {
			h.memo = &remember.Memory{Path: h.RulesPath}
		}
	})
	return h.memo
}

// RememberedAnswer is the answer a remembered rule gives it, or nil when
// none holds (or it is a prompt no rule may answer: URL mode, a secret
// field). A rule whose content no longer passes the form's checks is not
// used: the user is asked.
func (h *Hub) RememberedAnswer(it *Item) *bridge.Result {
	m := h.Memory()
	if m == nil || remember.Rememberable(it.Prompt.Request, it.Prompt.Form) != "" {
		return nil
	}
	r, ok, err := m.Match(remember.QuestionOf(it.Prompt.Request), h.now())
	if err != nil {
		h.logf("remembered answers: %v", err)
		return nil
	}
	if !ok {
		return nil
	}
	res := &bridge.Result{Action: r.Action, DecidedBy: bridge.DecidedByRule, Reason: "answered by " + remember.RememberDesc(r)}
	if r.Action == bridge.ActionAccept {
		content, err := it.Prompt.Form.Normalize(r.Content)
		if err != nil {
			h.logf("%s no longer fits the form (%v): asking", r.Describe(), err)
			return nil
		}
		res.Content = content
	}
	return res
}

// OfferRemember gives it's prompt the "Always answer this way" choice
// when it may be remembered.
func (h *Hub) OfferRemember(it *Item) {
	m := h.Memory()
	// Prefill is set when the prompt shows (showNext: refreshPrefill), a
	// form with a secret included: its other fields come back.
	if m == nil || remember.Rememberable(it.Prompt.Request, it.Prompt.Form) != "" {
		return
	}
	q := remember.QuestionOf(it.Prompt.Request)
	it.Prompt.Remember = func(res bridge.Result) {
		if res.Action != bridge.ActionAccept && res.Action != bridge.ActionDecline {
			return // cancel is no choice (remember.go)
		}
		now := h.now()
		r := remember.Rule{Server: q.Server, Tool: q.Tool, Input: q.Input, Message: q.Message, Schema: q.Schema,
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

// RefreshPrefill sets it's Prefill to the values last given for its
// question, when the config pre-fills; nil otherwise.
func (h *Hub) RefreshPrefill(it *Item) {
	m := h.Memory()
	it.Prompt.Prefill = nil
	if m == nil || it.Prompt.Form == nil || it.Prompt.Request.ToolUnknown || !h.remembering().Prefills() {
		return
	}
	it.Prompt.Prefill = remember.PrefillValues(it.Prompt.Form, it.Prompt.Request.Message, m.Last(remember.QuestionOf(it.Prompt.Request).Key()))
}

// answerQueued answers from the rule just remembered the prompts of the
// same question already waiting behind the window: the user said how to
// answer them.
func (h *Hub) answerQueued(q remember.Question) {
	h.Mu.Lock()
	var same []*Item
	for _, it := range h.Queue {
		if it != h.showing && it.Prompt.Remember != nil && remember.QuestionOf(it.Prompt.Request) == q {
			same = append(same, it)
		}
	}
	h.Mu.Unlock()
	for _, it := range same {
		if res := h.RememberedAnswer(it); res != nil {
			h.finish(it, *res)
		}
	}
}

// remembering is the [remember] config in force.
func (h *Hub) remembering() config.Remember {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	return h.Config.Remember
}

// KeepLastValues keeps what the user typed into its free-text fields
// (remember.Prefills: no secret, no choice, no check box, nothing the
// server set a default for, no typed confirmation), to pre-fill them the
// next time the same question is asked.
func (h *Hub) KeepLastValues(it *Item, res bridge.Result) {
	m := h.Memory()
	// With pre-filling off nothing is kept; of a question whose tool is
	// not known, nothing could be told apart from another tool's.
	if m == nil || it.Prompt.Form == nil || it.Prompt.Request.ToolUnknown || !h.remembering().Prefills() ||
		res.DecidedBy != bridge.DecidedByUser || res.Action != bridge.ActionAccept {
		return
	}
	values := map[string]any{}
	for i := range it.Prompt.Form.Fields {
		f := &it.Prompt.Form.Fields[i]
		if v, ok := res.Content[f.Name].(string); ok && remember.Prefills(f, v, it.Prompt.Request.Message) {
			values[f.Name] = v
		}
	}
	key := remember.QuestionOf(it.Prompt.Request).Key()
	if len(values) == 0 && m.Last(key) == nil {
		return // nothing to keep, nothing to forget
	}
	if err := m.KeepLast(key, values, h.now()); err != nil {
		h.logf("keeping the values given: %v", err)
	}
}

// RememberSettings is the Settings window's "Remembered answers" section
// under config c: the rules in force and the pre-fill option. A rules file
// that does not read shows no rules (the log says why).
func (h *Hub) RememberSettings(c config.Config) state.RememberSettings {
	s := state.RememberSettings{Prefill: c.Remember.Prefills()}
	m := h.Memory()
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

// RememberConfigOf is the [remember] table after Settings saved s over old:
// the pre-fill option as ticked, written only when off (on is the default).
func RememberConfigOf(s state.RememberSettings, old config.Remember) config.Remember {
	old.Prefill = nil
	if !s.Prefill {
		off := false
		old.Prefill = &off
	}
	return old
}

// ForgetRules forgets the rules numbered ids (Settings' Forget); one
// already gone (forgotten from the command line meanwhile) is no error.
func (h *Hub) ForgetRules(ids []int) error {
	m := h.Memory()
	if m == nil {
		return nil
	}
	for _, id := range ids {
		if _, err := m.Forget(id, false); err != nil && !errors.Is(err, remember.ErrNotFound) {
			return fmt.Errorf("could not forget remembered rule %d: %w", id, err)
		}
	}
	return nil
}
