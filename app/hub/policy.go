package hub

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"

	"golang.org/x/time/rate"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/lang"
)

// The hub's policy (DESIGN.md, "One elicitation", step 4): before a prompt
// joins the queue, "Pause all", a muted server, the server's rule and its
// rate limit may answer it. Whatever no person saw is cancel, never a fabricated decline
// or accept (DESIGN.md), except what the user's own rule says.

// MuteFor is how long "Don't ask again for an hour" and the tray's mute
// silence a server.
const MuteFor = time.Hour

// suppressedNotice is how long after the last suppressed prompt of a burst
// its one notification waits, so a flood gives one notice, not hundreds;
// a flood that goes on is summed up every suppressedAtMost all the same.
const (
	suppressedNotice = 2 * time.Second
	suppressedAtMost = 30 * time.Second
)

// PolicyState is the hub's policy state, guarded by Hub.mu.
type PolicyState struct {
	paused     bool
	muted      map[string]time.Time     // server → muted until
	limiters   map[string]*rate.Limiter // server → its limit, shared by all its wrappers
	suppressed map[string]*Suppression
	seen       map[string]bool // servers that asked since the hub started
}

// Suppression counts one server's suppressed prompts until its notice.
type Suppression struct {
	count int
	timer *time.Timer
	since time.Time // the policy clock at the burst's first suppression
}

// Settings returns the config in force (SetConfig, or config.toml read
// again).
func (h *Hub) Settings() config.Config {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	return h.Config
}

// SetConfig replaces the policy in force (the Settings window saved).
// Limits change at once for every server.
func (h *Hub) SetConfig(c config.Config) {
	h.Mu.Lock()
	h.Config = c
	for name, l := range h.policy.limiters {
		p := c.Policy(name)
		l.SetLimit(rate.Every(p.Every))
		l.SetBurst(p.Burst)
	}
	h.Mu.Unlock()
	h.policyChanged()
}

// SetPaused pauses or resumes all prompts. Pausing also answers the prompts
// waiting behind the window on screen.
func (h *Hub) SetPaused(paused bool) {
	h.Mu.Lock()
	h.policy.paused = paused
	h.Mu.Unlock()
	if paused {
		h.dropQueued(func(*Item) bool { return true }, bridge.DecidedByPaused, "all prompts were paused")
	}
	h.policyChanged()
}

// Paused reports whether all prompts are paused.
func (h *Hub) Paused() bool {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	return h.policy.paused
}

// Mute silences server for d: its prompts are answered cancel, including
// those already waiting behind the window on screen.
func (h *Hub) Mute(server string, d time.Duration) {
	until := h.now().Add(d)
	h.Mu.Lock()
	h.policy.init()
	h.policy.muted[server] = until
	h.policy.seen[server] = true
	h.Mu.Unlock()
	h.logf("%s is muted until %s", server, until.Format("15:04"))
	h.dropQueued(func(it *Item) bool { return it.Prompt.Request.Server == server },
		bridge.DecidedByMuted, fmt.Sprintf("%s was muted until %s", server, until.Format("15:04")))
	h.policyChanged()
}

// Unmute lifts a mute, and returns when it would have ended (zero when the
// server was not muted).
func (h *Hub) Unmute(server string) (was time.Time) {
	h.Mu.Lock()
	if until := h.policy.muted[server]; until.After(h.now()) {
		was = until
	}
	delete(h.policy.muted, server)
	h.Mu.Unlock()
	h.policyChanged()
	return was
}

// Servers lists the servers the hub knows, sorted by name: those that
// asked since it started, those in the config, and those in the history
// (read before the lock; a history that cannot be read, which the journal
// reports, adds none). So a server that asked before the hub restarted
// is in the tray's and the menu's Mute lists, and in Settings, before it
// asks again.
func (h *Hub) Servers() []hubapi.ServerState {
	var inHistory []string
	if st := h.store(); st != nil {
		inHistory, _ = st.Servers()
	}
	h.Mu.Lock()
	defer h.Mu.Unlock()
	names := map[string]bool{}
	for _, n := range inHistory {
		names[n] = true
	}
	for n := range h.policy.seen {
		names[n] = true
	}
	for n := range h.Config.Servers {
		names[n] = true
	}
	now := h.now()
	var out []hubapi.ServerState
	for n := range names {
		sc := h.Config.Servers[n]
		keepAlive := h.Config.KeepAliveFor(n)
		pol := h.Config.Policy(n)
		s := hubapi.ServerState{Name: n, Rule: pol.Rule, Guard: sc.Guard, GuardDestructive: sc.GuardDestructive,
			KeepAlive: &keepAlive, Timeout: pol.Timeout, Burst: pol.Burst, Every: pol.Every}
		if until := h.policy.muted[n]; until.After(now) {
			s.MutedUntil = until
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// knows reports whether server is one the hub knows: configured, seen
// since it started (it asked, or was muted), or named in the history. It
// also returns the names it knows, for suggestions.
func (h *Hub) knows(server string) (bool, []string) {
	var names []string
	for _, s := range h.Servers() {
		names = append(names, s.Name)
	}
	return slices.Contains(names, server), names
}

// unknownServer is the hub's answer to a mute or unmute of a server it
// does not know, or nil when it knows it: most likely a typo, which must
// not silently mute nothing (issue 9).
func (h *Hub) unknownServer(id uint64, server string) *hubapi.Message {
	known, names := h.knows(server)
	if known {
		return nil
	}
	msg := fmt.Sprintf("no server named %q is configured, has asked since the hub started, or is in the history", server)
	if s := DidYouMean(server, names); s != "" {
		msg += "; " + s
	}
	r := hubapi.UnknownServerReply(id, msg)
	return &r
}

func (p *PolicyState) init() {
	if p.muted == nil {
		p.muted = map[string]time.Time{}
		p.limiters = map[string]*rate.Limiter{}
		p.suppressed = map[string]*Suppression{}
		p.seen = map[string]bool{}
	}
}

// decidePolicy returns the answer the policy gives it without a window, or
// nil when a person must be asked.
func (h *Hub) decidePolicy(it *Item) *bridge.Result {
	h.refreshConfig()
	req := it.Prompt.Request
	now := h.now()
	h.Mu.Lock()
	h.policy.init()
	newServer := !h.policy.seen[req.Server]
	h.policy.seen[req.Server] = true
	pol := h.Config.Policy(req.Server)
	paused := h.policy.paused
	mutedUntil := h.policy.muted[req.Server]
	h.Mu.Unlock()
	if newServer {
		defer h.policyChanged()
	}

	switch {
	case paused:
		return &bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByPaused, Reason: "all prompts are paused"}
	case mutedUntil.After(now):
		return &bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByMuted,
			Reason: fmt.Sprintf("%s is muted until %s", req.Server, mutedUntil.Format("15:04"))}
	}
	// An answer the user remembered for this very question is more
	// specific than the server's rule, so it comes first (remember.go).
	if res := h.RememberedAnswer(it); res != nil {
		return res
	}
	switch pol.Rule {
	case config.RuleDecline:
		return &bridge.Result{Action: bridge.ActionDecline, DecidedBy: bridge.DecidedByRule, Reason: "the rule for " + req.Server + " is decline"}
	case config.RuleCancel:
		return &bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByRule, Reason: "the rule for " + req.Server + " is cancel"}
	case config.RuleAcceptDefaults, config.RuleAcceptDefaultsOrCancel:
		content, whyNot := defaultsOnly(it.Prompt.Form)
		switch req.Mode {
		case bridge.ModeToolCall:
			// The guard exists so that a person approves the call: no
			// rule ever does (an unattended run denies it below).
			content, whyNot = nil, "a guarded tool call is never approved by a rule"
		case bridge.ModeToolChange:
			content, whyNot = nil, "a tool's changed definition is never accepted by a rule"
		}
		if whyNot == "" {
			return &bridge.Result{Action: bridge.ActionAccept, Content: content, DecidedBy: bridge.DecidedByRule,
				Reason: "the rule for " + req.Server + " is " + pol.Rule + ", and the form's required fields all have defaults: they were sent"}
		}
		if pol.Rule == config.RuleAcceptDefaultsOrCancel {
			// Unattended: nobody is there to ask, so what the defaults
			// cannot answer is cancel, never a window that waits for the
			// timeout (DESIGN.md: no fabricated decline or accept).
			return &bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByRule,
				Reason: "the rule for " + req.Server + " is " + pol.Rule + ", and " + whyNot}
		}
	}
	// A round of a 2026-07-28 call is one ask (issue 27): once one of its
	// questions was shown (Counted) the others pass the limit, and the
	// relay asks none of them when one was held back (bridge/round.go).
	// Questions a rule settled took no token, so the next one counts.
	if !(req.Step > 1 && req.Counted) && !h.allow(req.Server, pol, now) {
		return &bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByRateLimit,
			Reason: fmt.Sprintf("%s asked more than %d %s in a row; its limit is one prompt every %v", req.Server, pol.Burst, times(pol.Burst), pol.Every)}
	}
	return nil
}

// defaultsOnly returns the content a form's defaults make, when every
// required field has a default and together they pass the form's checks;
// otherwise it says why not, as the end of a sentence for the history
// ("a link is never opened by a rule"). URL prompts (no form) never
// qualify: a rule never opens a link (PROTOCOL.md §6: open only after
// explicit consent).
func defaultsOnly(form *elicit.Form) (content map[string]any, whyNot string) {
	if form == nil {
		return nil, "a link is never opened by a rule"
	}
	// A form with nothing to fill in ("Delete the production database?"),
	// or none of whose fields has a default, is a question for a person.
	withDefault := false
	for _, f := range form.Fields {
		if f.Required && f.Default == nil {
			return nil, fmt.Sprintf("the required field %q has no default", f.Name)
		}
		withDefault = withDefault || f.Default != nil
	}
	if !withDefault {
		return nil, "no field of the form has a default: a confirmation is for a person"
	}
	content, err := form.Content(form.Defaults())
	if err != nil {
		return nil, fmt.Sprintf("the form's defaults do not pass its own checks (%v)", err)
	}
	return content, ""
}

// keptUp starts server's rate limit over, full, when a person answered one
// of its prompts and none of its others waits: the limit is against floods
// a person cannot keep up with, and a server whose prompts are answered as
// they come is never cut off (issue 27: `make demo` answered at key-repeat
// speed was). While others wait, an answer gives nothing back: a server
// that sends a burst after each answer does not grow the queue without
// end. h.Mu is held; it has left the queue.
func (h *Hub) keptUp(server string) {
	for _, q := range h.Queue {
		if q.Prompt.Request.Server == server {
			return
		}
	}
	delete(h.policy.limiters, server) // allow makes a full one
}

// allow takes one token from server's limiter; on refusal it counts the
// prompt toward the burst's one notification (PROTOCOL.md §6).
func (h *Hub) allow(server string, pol config.Policy, now time.Time) bool {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	l := h.policy.limiters[server]
	if l == nil {
		l = rate.NewLimiter(rate.Every(pol.Every), pol.Burst)
		h.policy.limiters[server] = l
	}
	if l.AllowN(now, 1) {
		return true
	}
	s := h.policy.suppressed[server]
	if s == nil {
		s = &Suppression{}
		h.policy.suppressed[server] = s
	}
	s.count++
	switch {
	case s.timer == nil:
		s.since = now
		s.timer = time.AfterFunc(suppressedNotice, func() { h.noticeSuppressed(server) })
	case now.Sub(s.since) >= suppressedAtMost:
		// A flood that goes on: say so now, not when it ends.
		s.timer.Stop()
		go h.noticeSuppressed(server)
	default:
		s.timer.Reset(suppressedNotice)
	}
	return false
}

// noticeSuppressed sends the one notification of a burst of suppressed
// prompts: "github: 37 prompts suppressed".
func (h *Hub) noticeSuppressed(server string) {
	h.Mu.Lock()
	s := h.policy.suppressed[server]
	delete(h.policy.suppressed, server)
	h.Mu.Unlock()
	if s == nil || s.count == 0 {
		return
	}
	d := map[string]any{"Server": server, "Count": s.count}
	title := lang.N("{{.Server}}: {{.Count}} prompts suppressed", s.count, d)
	body := lang.L("{{.Server}} asked faster than its limit allows, so elicitray answered cancel. The history has each one; Settings changes the limit.", d)
	h.logf("%s", title)
	if h.Notify != nil {
		h.Notify(title, body)
	}
}

// dropQueued answers cancel every queued prompt that match selects, except
// the one on screen.
func (h *Hub) dropQueued(match func(*Item) bool, decidedBy, reason string) {
	h.Mu.Lock()
	var drop []*Item
	for _, it := range h.Queue {
		if it != h.showing && match(it) {
			drop = append(drop, it)
		}
	}
	h.Mu.Unlock()
	for _, it := range drop {
		h.finish(it, bridge.Result{Action: bridge.ActionCancel, DecidedBy: decidedBy, Reason: reason})
	}
}

func (h *Hub) policyChanged() {
	if h.PolicyChanged != nil {
		h.PolicyChanged()
	}
}

func (h *Hub) now() time.Time {
	if h.Clock != nil {
		return h.Clock()
	}
	return time.Now()
}

// retention is what the config keeps of the history, as of now.
func (h *Hub) retention() history.PruneOptions {
	h.refreshConfig()
	h.Mu.Lock()
	c := h.Config
	h.Mu.Unlock()
	return c.Keeps(time.Now())
}

// prune deletes what retention does not keep, then gives the space back to
// the disk.
func (h *Hub) prune(opts history.PruneOptions) (int, error) {
	st, err := h.Records().Store()
	if err != nil {
		return 0, err
	}
	before, err := st.Count()
	if err != nil {
		return 0, err
	}
	n, err := st.Prune(opts)
	if err != nil || n == 0 {
		return n, err
	}
	h.logf("history: %d old decisions deleted", n)
	if h.Recorded != nil {
		h.Recorded()
	}
	// Compacting holds the file (7 s at a million records): only worth it
	// when much of it was freed.
	if n*4 < before {
		return n, nil
	}
	return n, st.Compact()
}

// retentionEvery is how often a running hub applies the retention.
const retentionEvery = 24 * time.Hour

// KeepPruning applies the retention now and then once a day until ctx ends.
func (h *Hub) KeepPruning(ctx context.Context) {
	t := time.NewTicker(retentionEvery)
	defer t.Stop()
	for {
		if h.store() == nil {
			// No history yet (locked, say): the journal tries to open it.
		} else if _, err := h.prune(h.retention()); err != nil {
			h.logf("history: applying retention: %v", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ConfigRead records that Config is what the file at ConfigPath says now,
// so that refreshConfig reads it again only once it changes.
func (h *Hub) ConfigRead() {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	h.cfgStamp = config.StampOf(h.ConfigPath)
}

// refreshConfig reads the config file again when it changed since it was
// last read: an edit applies to the next prompt, without a restart. A file
// that no longer reads keeps the settings in force, and the hub says why.
func (h *Hub) refreshConfig() {
	if h.ConfigPath == "" {
		return
	}
	stamp := config.StampOf(h.ConfigPath)
	h.Mu.Lock()
	same := stamp.Same(h.cfgStamp)
	h.cfgStamp = stamp
	h.Mu.Unlock()
	if same {
		return
	}
	c, err := config.Load(h.ConfigPath)
	if err != nil {
		// Every mistake at once: the user fixes them in one go.
		lines, title, body := config.Trouble(err, config.KeptSettings)
		for _, l := range append(lines, c.Warnings...) {
			h.logf("%s", l)
		}
		if h.Notify != nil {
			h.Notify(title, body)
		}
		return
	}
	for _, w := range c.Warnings {
		h.logf("%s", w)
	}
	h.logf("settings read again from %s", h.ConfigPath)
	h.SetConfig(c)
}

// times is "time" or "times", as many as n.
func times(n int) string {
	if n == 1 {
		return "time"
	}
	return "times"
}
