package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/elicitray/elicitray/ui/lang"
)

// The tool-call guard (issue 14, "Guard tool calls, not only
// elicitations"). A host's tools/call for a tool the user guards
// (Options.Guard names it, or Options.GuardDestructive and the server
// annotated it destructiveHint: true) is held: it is not written to the
// server until a person approved it. The Approver is asked on the call's
// own goroutine, with a Request of Mode ModeToolCall, so that every other
// message keeps flowing meanwhile. Approve writes the call as the host
// sent it (and from then on the relay follows it as any call); anything
// else answers the host with a tool error result (CallToolResult,
// isError: true) that says why, and the server never hears of the call.
// A host's notifications/cancelled for a held call closes the window and
// goes nowhere: the server never saw the request it names. When no
// desktop can show the window, the rule of elicitations holds (DESIGN.md:
// no desktop → to the host, or cancel): a host that declared form-mode
// elicitation is asked in its own prompt (guardhost.go); any other host's
// call is denied.
//
// What the window shows of the tool (its title, description and
// destructiveHint) is learned from the server's tools/list results as they
// pass to the host, and before any from the definitions the user has seen
// in earlier runs (Options.Pins, ToolPins.Known): only a tool never listed
// is shown by name only, and GuardDestructive cannot know it is
// destructive.

// ModeToolCall is the Mode of a Request that asks the user to approve a
// tools/call (guard.go), and the mode history records for it: its kind,
// beside "form" and "url". Such a Request has no RequestedSchema; its
// Message says what the call would do (tool, title, description, the
// arguments as masked, bounded text). An accept approves the call; decline
// and cancel deny it.
const ModeToolCall = "tool call"

// toolInfo is what a server's tools/list said of one tool: the text of
// its approval window (its title and description; Changed, how its
// definition changed since the user saw it while they have not accepted
// it, Options.Pins) and whether it says it is destructive.
type toolInfo struct {
	text        Guard
	destructive bool
}

// ToolDef is what a tools/list said of one tool, as Options.Pins keeps it
// (MCP server/tools, Tool).
type ToolDef struct {
	Name, Title, Description string
	InputSchema, Annotations json.RawMessage
}

// ModeToolChange is the Mode of a Request that tells the user a tool's
// definition changed since they first saw it (Options.Pins), once per
// change, and the mode history records for it. Its Message says what
// changed; accept accepts the new definition, and decline and cancel keep
// each call of the tool waiting for the user's approval.
const ModeToolChange = "tool change"

// Guards reports whether a Request of mode is the guard's (ModeToolCall,
// ModeToolChange): its answer is elicitray's to act on, and no answer is
// sent to the server.
func Guards(mode string) bool { return mode == ModeToolCall || mode == ModeToolChange }

// ToolChange is a tool whose definition changed since the user saw it and
// is not accepted (ToolPins.Listed).
type ToolChange struct {
	// Account says what changed, for a person.
	Account string
	// New: the user has not answered a window telling of this change
	// (it was first seen in this list, or the window that told it closed
	// unanswered: the host went away, no desktop, a timeout); they are
	// told of it now.
	New bool
}

// ToolPins is the user's pinned tool definitions (Options.Pins).
type ToolPins interface {
	// Known returns what earlier runs left of the server's tools: the
	// definitions the user has seen (a changed tool's twice: the one they
	// have, and the one listed since), which are what the relay knows of
	// them until the host lists the tools (their approval window's text,
	// and whether they say they are destructive); and the tools whose
	// changes wait for the user, whose calls the relay holds before any
	// list.
	Known() (defs []ToolDef, pending map[string]ToolChange)
	// Listed takes the definitions of one tools/list result, in its
	// order, and returns those among them whose definitions changed since
	// the user saw them and are not accepted. On an error (the pins could
	// not be read or kept), the changes known stay as they were.
	Listed(defs []ToolDef) (map[string]ToolChange, error)
	// Waits reports whether the changed tool name still waits for the
	// user's acceptance: they may have accepted it since the list.
	Waits(name string) bool
	// Accept makes the definition of the tool name last listed the one
	// the user has, when its change is the one they accepted, told as
	// account; else ErrToolChangedAgain.
	Accept(name, account string) error
	// Told notes that the user answered the window that told of the
	// change to name (as account), keeping it waiting: it is not told
	// again. ErrToolChangedAgain when the change is another now.
	Told(name, account string) error
}

// ErrToolChangedAgain is what errors.Is finds in the error of
// ToolPins.Accept or Told when the server changed the tool again since the
// user was shown the change they answered.
var ErrToolChangedAgain = errors.New("the server changed the tool again since the change was shown")

// guard holds the host's guarded tools/calls until the user decides.
type guard struct {
	w       *wires
	d       *decider
	keep    *keepAlive
	session *session
	// host asks the host in place of the window when no desktop can show
	// it (guardhost.go).
	host *hostAsks
	// settings is what the user guards: Options.Guard and
	// GuardDestructive, until Relay.SetGuard swaps in others. Every host
	// request reads it, so it is one atomic load, never a lock.
	settings atomic.Pointer[guardSettings]
	// follow is what the relay does with an approved call
	// (Relay.trackCall): it follows it, and returns the line to write to
	// the server.
	follow func(key string, env *envelope, line []byte, version string, hostCaps json.RawMessage) []byte

	mu sync.Mutex // guards the maps below
	// tools are what the server's tools/list results said, by name.
	tools map[string]toolInfo
	// lists are the id keys of the host's tools/list requests in flight.
	lists map[string]bool
	// held are the guarded calls waiting for a decision, or whose decision
	// is on its way out, by id key.
	held map[string]*heldCall
	// listing is len(lists), stored under mu: every reply asks (listing),
	// without the lock.
	listing atomic.Int32
	// pins is Options.Pins; changed are the tools whose definitions
	// changed and wait for the user's acceptance, with the account of the
	// change, by name; waiting is len(changed), stored under mu.
	pins    ToolPins
	changed map[string]string
	// telling are the tools whose change a window is telling now: a list
	// meanwhile does not tell it again.
	telling map[string]bool
	// again are, by tool, the changes a list brought while their window
	// was open: told again should that window close unanswered.
	again   map[string]string
	waiting atomic.Int32
}

// guardSettings is one version of what the user guards; it is never
// changed once stored, only replaced.
type guardSettings struct {
	patterns    []string
	destructive bool
}

// on reports whether s guards any tool.
func (s *guardSettings) on() bool { return len(s.patterns) > 0 || s.destructive }

func newGuard(r *Relay) *guard {
	g := &guard{
		w: r.w, d: r.decide, keep: r.keep, session: r.session,
		// A prefix of its own, not the retries' (loop.go): the server
		// reads those, and could otherwise ask the host under the id of
		// the relay's question and have the answer to its own question
		// approve the call.
		host:   newHostAsks(r.w, newIDPrefix(), r.opts.PromptTimeout),
		follow: r.trackCall,
		tools:  map[string]toolInfo{}, lists: map[string]bool{}, held: map[string]*heldCall{},
		pins: r.opts.Pins, changed: map[string]string{}, telling: map[string]bool{}, again: map[string]string{},
	}
	g.set(r.opts.Guard, r.opts.GuardDestructive)
	if g.pins != nil {
		// A host may call a tool it did not list (it listed in an
		// earlier session): guard_destructive still knows it.
		defs, pending := g.pins.Known()
		for _, d := range defs {
			g.tools[d.Name] = d.info(g.tools[d.Name].destructive)
		}
		for name, c := range pending {
			g.note(name, c.Account, true)
		}
	}
	return g
}

// set makes patterns and destructive what the next tools/call is judged
// by; a call held already stays held.
func (g *guard) set(patterns []string, destructive bool) {
	g.settings.Store(&guardSettings{patterns: slices.Clone(patterns), destructive: destructive})
}

// SetGuard replaces what Options.Guard and Options.GuardDestructive said
// while the relay runs (the wrapper does when config.toml changes): the
// host's next tools/call is judged by patterns and destructive. A call held
// already stays held until its decision, and one approved already runs.
// Safe to call from any goroutine.
func (r *Relay) SetGuard(patterns []string, destructive bool) { r.guard.set(patterns, destructive) }

// tracked is how many requests the guard keeps: tools/lists awaiting their
// result, held calls, and questions asked in the host (Relay.tracked). The
// tools learned are not counted: there is one entry a tool, not a call.
func (g *guard) tracked() int {
	g.mu.Lock()
	n := len(g.lists) + len(g.held)
	g.mu.Unlock()
	g.host.mu.Lock()
	defer g.host.mu.Unlock()
	return n + len(g.host.waits)
}

// on reports whether the user guards any tool of this server now.
func (g *guard) on() bool { return g.settings.Load().on() || g.waiting.Load() > 0 }

// awaitsList reports whether a host's tools/list waits for its result,
// which the guard reads to learn the tools (the fast path then gives
// replies to the full path).
func (g *guard) awaitsList() bool { return g.listing.Load() > 0 }

// noteRequest notes a host request: a tools/list, whose result the guard
// reads. It does so while nothing is guarded too: the guard may be set
// later (SetGuard), and a host lists its tools once, at the start, so the
// window could otherwise not show a tool's title, nor guard_destructive
// know which tools are destructive.
func (g *guard) noteRequest(env *envelope) {
	if env.Method != "tools/list" {
		return
	}
	key, ok := idKey(env.ID)
	if !ok {
		return
	}
	g.mu.Lock()
	g.lists[key] = true
	g.listing.Store(int32(len(g.lists)))
	g.mu.Unlock()
}

// fromServer reads the reply with id key when it answers a host's
// tools/list: its tools are learned (MCP 2025-06-18, server/tools: name,
// title, description, input schema, annotations), and compared with the
// user's pins (Options.Pins). The reply passes on unchanged, once this
// returns: a call of a changed tool that the host sends after reading the
// list is guarded.
func (g *guard) fromServer(id, result json.RawMessage) {
	if g.listing.Load() == 0 {
		return
	}
	g.mu.Lock()
	key, ok := g.listOf(id)
	if !ok {
		g.mu.Unlock()
		return
	}
	delete(g.lists, key)
	g.listing.Store(int32(len(g.lists)))
	defs := listedTools(result)
	learned := make(map[string]toolInfo, len(defs))
	for _, d := range defs {
		learned[d.Name] = d.info(learned[d.Name].destructive)
	}
	maps.Copy(g.tools, learned)
	g.mu.Unlock()
	if g.pins == nil || len(defs) == 0 {
		return
	}
	// The pins are a file: read and written outside the lock.
	changed, err := g.pins.Listed(defs)
	if err != nil {
		return // the changes known stay; the pins said what went wrong
	}
	for _, d := range defs {
		c, ok := changed[d.Name]
		g.note(d.Name, c.Account, ok)
	}
	for _, name := range slices.Sorted(maps.Keys(changed)) {
		g.mu.Lock()
		tell := changed[name].New && !g.telling[name]
		if tell {
			g.telling[name] = true
		} else if changed[name].New {
			g.again[name] = changed[name].Account
		}
		g.mu.Unlock()
		if tell {
			// Told once, in its turn among the prompts, on a goroutine
			// of its own: the list goes on to the host meanwhile.
			go g.tellChange(g.d.arrivals.take(g.w.ctx), name, changed[name].Account)
		}
	}
}

// info is what d says of its tool; destructive when it says so, or when
// destructive is set already (a name defined twice is destructive when
// either definition says so).
func (d ToolDef) info(destructive bool) toolInfo {
	info := toolInfo{text: Guard{Title: d.Title, Description: d.Description}, destructive: destructive}
	// Annotations read two ways by hosts are a pair (listedTools):
	// destructive when either reading says so.
	readings := []json.RawMessage{d.Annotations}
	if len(d.Annotations) > 0 && d.Annotations[0] == '[' {
		_ = json.Unmarshal(d.Annotations, &readings)
	}
	for _, a := range readings {
		var ann map[string]json.RawMessage
		_ = json.Unmarshal(a, &ann) // absent or not an object: no annotations
		if info.text.Title == "" {
			_ = json.Unmarshal(ann["title"], &info.text.Title)
		}
		// Only an explicit true: the spec's default (true, when
		// readOnlyHint is false) would guard every unannotated tool.
		info.destructive = info.destructive || string(ann["destructiveHint"]) == "true"
	}
	return info
}

// listOf returns the key of the host's tools/list in flight that a reply
// with this id answers in some host's reading; g.mu is held. Go hosts
// match ids exactly; a TypeScript host matches Number(id), so that a reply
// id 1.0, 1e0 or "1" answers its request 1, and the list in it is the
// one it shows the model.
func (g *guard) listOf(id json.RawMessage) (string, bool) {
	if key, ok := idKey(id); ok && g.lists[key] {
		return key, true
	}
	if n, ok := jsNumber(id); ok {
		if key := "n:" + strconv.FormatInt(n, 10); g.lists[key] {
			return key, true
		}
	}
	return "", false
}

// jsNumber is JavaScript's Number(id) of a JSON id when it is an integer
// a request id can be: a number in any spelling, or a string that Number
// reads (blanks around it, 0x, 0o and 0b prefixes, an exponent).
func jsNumber(id json.RawMessage) (int64, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(id))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return 0, false
	}
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(x), 64); err != nil {
			return 0, false
		}
	case string:
		s := strings.TrimFunc(x, func(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' })
		switch {
		case s == "":
			f = 0
		case len(s) > 2 && s[0] == '0' && strings.ContainsRune("xXoObB", rune(s[1])):
			u, err := strconv.ParseUint(s[2:], map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[s[1]], 64)
			if err != nil {
				return 0, false
			}
			f = float64(u)
		case strings.ContainsAny(s, "_xXpP") || strings.EqualFold(strings.TrimLeft(s, "+-"), "inf") || strings.EqualFold(strings.TrimLeft(s, "+-"), "infinity") || strings.EqualFold(s, "nan"):
			return 0, false // Go reads these; Number does not (or not as a finite number)
		default:
			var err error
			if f, err = strconv.ParseFloat(s, 64); err != nil {
				return 0, false
			}
		}
	default:
		return 0, false
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// toolOfCall is the tool a tools/call's params name, as any server reads
// it: every member whose name is "name" in any case (Go's encoding/json
// folds case, and takes the last; JSON.parse takes the exact one). clear is
// false when they name different tools, or one that is not a string.
func toolOfCall(params json.RawMessage) (name string, clear bool) {
	dec := json.NewDecoder(bytes.NewReader(params))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", true
	}
	seen := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return name, !seen
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return name, !seen
		}
		if k, _ := t.(string); !strings.EqualFold(k, "name") {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil || (seen && s != name) {
			return "", false
		}
		name, seen = s, true
	}
	return name, true
}

// listedTools reads a tools/list result's tools as hosts read JSON. A
// TypeScript host's JSON.parse takes members by their exact names, the
// last of a name twice winning; a Go host's encoding/json takes a member
// whose name matches in any case ("DESCRIPTION"), the last winning. Where
// the two readings of a tool's title, description, input schema or
// annotations differ, the definition the pins see holds both, so that no
// spelling hides a change from the user that one host shows its model. A
// tool with no name as a string is left out, as a host cannot call it;
// texts that are not strings are kept as their JSON, so that a change to
// them still shows.
func listedTools(result json.RawMessage) []ToolDef {
	var entries, other []json.RawMessage
	list, ok := readMembers(result)
	if !ok || json.Unmarshal(list.exact("tools"), &entries) != nil {
		return nil // an error reply, or a result that is not a list: nothing learned
	}
	// A list a Go host reads instead ("TOOLS" after "tools"): its tools
	// are listed too, a name in both judged by each definition.
	if folded := list.folded("tools"); !bytes.Equal(folded, list.exact("tools")) && json.Unmarshal(folded, &other) == nil {
		entries = append(entries, other...)
	}
	text := func(raw json.RawMessage) string {
		var s string
		if len(raw) == 0 || json.Unmarshal(raw, &s) == nil {
			return s
		}
		return string(raw)
	}
	both := func(m objectMembers, key string) json.RawMessage {
		exact, folded := m.exact(key), m.folded(key)
		if bytes.Equal(exact, folded) {
			return exact
		}
		// Both readings, as one JSON array: the pins compare and show it.
		pair, _ := json.Marshal([]json.RawMessage{orNull(exact), orNull(folded)})
		return pair
	}
	defs := make([]ToolDef, 0, len(entries))
	for _, e := range entries {
		// An entry that is no object, or has no name, is left out alone:
		// the others are still read.
		t, ok := readMembers(e)
		var name string
		if !ok || json.Unmarshal(t.exact("name"), &name) != nil {
			continue
		}
		d := ToolDef{Name: name, InputSchema: both(t, "inputSchema"), Annotations: both(t, "annotations")}
		for _, f := range []struct {
			key string
			to  *string
		}{{"title", &d.Title}, {"description", &d.Description}} {
			exact, folded := text(t.exact(f.key)), text(t.folded(f.key))
			*f.to = exact
			if exact != folded {
				*f.to = exact + "\n\n[a host that ignores case in names reads instead:]\n" + folded
			}
		}
		defs = append(defs, d)
	}
	return defs
}

// objectMembers is a JSON object and its members (jsonedit.go).
type objectMembers struct {
	obj []byte
	ms  []member
}

// readMembers reads raw's members, or false when it is no JSON object.
func readMembers(raw json.RawMessage) (objectMembers, bool) {
	ms, err := members(raw)
	return objectMembers{raw, ms}, err == nil
}

// exact is the value of the last member named key, as JSON.parse reads
// it; nil for none.
func (m objectMembers) exact(key string) json.RawMessage {
	return m.last(func(k string) bool { return k == key })
}

// folded is the value of the last member whose name is key in any case,
// as encoding/json reads it; nil for none.
func (m objectMembers) folded(key string) json.RawMessage {
	return m.last(func(k string) bool { return strings.EqualFold(k, key) })
}

func (m objectMembers) last(match func(string) bool) json.RawMessage {
	var v json.RawMessage
	for _, mb := range m.ms {
		if match(mb.key) {
			v = m.obj[mb.vStart:mb.vEnd]
		}
	}
	return v
}

// orNull is v, or JSON null for no value.
func orNull(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	return v
}

// tellChange tells the user that the tool name's definition changed
// (ModeToolChange), and accepts the new definition when they do; else
// each call of the tool keeps waiting for their approval. Unless a person
// answered the window, the next list tells it again: a host that lists
// its tools and goes away at once (an inspector's one call) must not
// use up the only telling.
func (g *guard) tellChange(ctx context.Context, name, account string) {
	answered, stale := false, false
	defer func() {
		// A list that came while the window was open tells it again now,
		// unless the user answered what it lists: the window was not
		// answered, or answered of a change that is not the one there now.
		g.mu.Lock()
		delete(g.telling, name)
		next, again := g.again[name]
		delete(g.again, name)
		again = again && (!answered || stale) && g.w.ctx.Err() == nil
		if again {
			g.telling[name] = true
		}
		g.mu.Unlock()
		if again {
			go g.tellChange(g.d.arrivals.take(g.w.ctx), name, next)
		}
	}()
	if g.d.opts.Approver == nil {
		Submitted(ctx)
		return
	}
	res, err := g.d.approve(ctx, g.newRequest(ModeToolChange, name, Guard{Changed: account}, ""))
	// The user, in this window or elsewhere (the hub answers it when they
	// accept the change in Settings or with `elicitray tools accept`).
	answered = err == nil && ByPerson(res.DecidedBy)
	switch {
	case err != nil:
		g.w.log.printf("%s: the tool %s changed its definition; the user could not be told (%v), so its calls wait for their approval until they accept it (elicitray tools accept), and the next list of its tools tells it again", g.d.opts.Server, strconv.Quote(name), err)
	case !answered:
		g.w.log.printf("%s: the window telling that the tool %s changed closed unanswered (%s); its calls wait for the user's approval, and the next list of its tools tells it again", g.d.opts.Server, strconv.Quote(name), res.DecidedBy)
	case res.Action != ActionAccept:
		if err := g.pins.Told(name, account); errors.Is(err, ErrToolChangedAgain) {
			stale = true
		} else if err != nil {
			g.w.log.printf("%s: the user kept the changed tool %s waiting, but that could not be kept (%v): the next list tells it again", g.d.opts.Server, strconv.Quote(name), err)
		}
	default:
		err := g.pins.Accept(name, account)
		switch {
		case errors.Is(err, ErrToolChangedAgain):
			// What the user accepted is not what the server lists now: a
			// server may show a harmless change and list another at once.
			stale = true
			g.w.log.printf("%s: the user accepted the change of the tool %s they were shown, but the server has changed it again since: nothing is accepted, its calls wait for their approval, and the new change is told", g.d.opts.Server, strconv.Quote(name))
		case err != nil:
			g.w.log.printf("%s: the user accepted the new definition of the tool %s, but it could not be kept (%v); its calls still wait for their approval", g.d.opts.Server, strconv.Quote(name), err)
		default:
			g.note(name, "", false)
		}
	}
}

// note notes whether the tool name's definition changed and waits for the
// user (with account, the change), or not.
func (g *guard) note(name, account string, waits bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if waits {
		g.changed[name] = account
	} else {
		delete(g.changed, name)
	}
	g.waiting.Store(int32(len(g.changed)))
}

// heldCall is one guarded call held.
type heldCall struct {
	// cancel ends its prompt (with ErrHostCancelled when the host cancelled).
	cancel context.CancelCauseFunc
	// decided is set, under guard.mu, once its decision is made: the call
	// or its denial is being written, and written once out is closed.
	// approved says which. A host's cancel that comes meanwhile waits for
	// out, so that the server reads the call before its cancel, or, for a
	// denial, goes nowhere, as the server never saw the call.
	decided, approved bool
	out               chan struct{}
}

// guarded reports whether a call of the tool name needs approval, and what
// the server said of the tool.
func (g *guard) guarded(name string) (toolInfo, bool) {
	s := g.settings.Load()
	if !g.on() {
		return toolInfo{}, false
	}
	g.mu.Lock()
	info := g.tools[name]
	account, changed := g.changed[name]
	g.mu.Unlock()
	if changed {
		if g.pins.Waits(name) {
			info.text.Changed = account
			return info, true
		}
		g.note(name, "", false) // accepted since the list (elicitray tools accept)
	}
	if s.destructive && info.destructive {
		return info, true
	}
	for _, p := range s.patterns {
		if ok, err := path.Match(p, name); err == nil && ok {
			return info, true
		}
	}
	return info, false
}

// dropsUnanswerable reports whether env, a host message that is no request
// (no id, or a null one), is a tools/call of a guarded tool, and then says
// on the log that it was not passed on: nobody could answer its approval,
// and a lenient server might run it all the same.
func (g *guard) dropsUnanswerable(env *envelope) bool {
	if !g.on() || env.Method != "tools/call" {
		return false
	}
	name, clear := toolOfCall(env.Params)
	if _, ok := g.guarded(name); !ok && clear {
		return false
	}
	g.w.log.printf("%s: the host sent a tools/call of the guarded tool %s without a usable id; it was not passed on (a guarded call waits for approval, and one without an id can get no answer)", g.d.opts.Server, strconv.Quote(name))
	return true
}

// dropsUnclear reports whether line, a host line that is not one clear
// message (scanEnvelope refused it: a batch, two messages on a line; or
// its member "method" is there more than once, or spelt in another case),
// may carry a tools/call while something is guarded, and then answers
// each request a parser could find in it with a denial and says so on the
// log. A server's parser may read such a line otherwise than the relay
// (oneline.go: go-sdk takes batches and each value of a stream, mcp-go
// matches "Method"), and run a guarded call nobody approved. A line
// without "tools/call" in it, spelt plainly, names no such call.
func (g *guard) dropsUnclear(line []byte, env *envelope, err error) bool {
	if !g.on() || (err == nil && env.Methods <= 1 && !env.FoldedMethod) || !hasMethodKey(line) {
		return false
	}
	if !bytes.Contains(line, []byte("tools/call")) && !bytes.Contains(line, []byte(`\`)) {
		return false
	}
	for _, id := range requestIDs(line) {
		g.w.toHost(deniedResult(id, "elicitray did not pass this request on: it is not one JSON-RPC message that every server reads the same way (a batch, two messages on a line, or a member \"method\" twice or spelt in another case), and a tool call in it could run without the user's approval."))
	}
	g.w.log.printf("%s: the host sent a line that is not one clear JSON-RPC message while tool calls are guarded; it was not passed on, as a server could read a guarded call in it that nobody approved: %s", g.d.opts.Server, linePreview(line))
	return true
}

// holds holds a host's tools/call (its id key, envelope and line as the
// relay would send it) when its tool is guarded, and asks the Approver on
// a goroutine of its own; it reports whether it held it. A call it holds
// is written later, on approval, or answered by the guard.
func (g *guard) holds(key string, env *envelope, line []byte, version string, hostCaps json.RawMessage) bool {
	if !g.on() || env.Method != "tools/call" {
		return false
	}
	name, clear := toolOfCall(env.Params)
	if !clear {
		g.w.toHost(deniedResult(env.ID, "elicitray did not pass this tool call on: it names its tool more than once (its member \"name\" twice, or spelt in another case), servers read such a call differently, and a guarded tool could run without the user's approval."))
		g.w.log.printf("%s: the host sent a tools/call naming its tool more than once while tool calls are guarded; it was not passed on, as a server could read a guarded tool's name in it", g.d.opts.Server)
		return true
	}
	info, ok := g.guarded(name)
	if !ok {
		return false
	}
	if key == "" {
		// PROTOCOL.md §7: ids are strings or integers. A server might run
		// a call under another id all the same, so a guarded one is
		// denied rather than passed on unasked.
		g.w.toHost(deniedResult(env.ID, fmt.Sprintf("elicitray did not run the tool %s: the request's id is not a string or an integer, so it cannot be held for approval.", strconv.Quote(name))))
		return true
	}
	// The line may be a reader's buffer: the held call keeps its own copy.
	kept := append([]byte(nil), line...)
	caps := append(json.RawMessage(nil), hostCaps...)
	held, err := scanEnvelope(kept)
	if err != nil {
		return false
	}
	args, _ := getMember(held.Params, "arguments")
	req := g.request(name, info, args, version)

	ctx, cancel := context.WithCancelCause(g.w.ctx)
	ctx = g.d.arrivals.take(ctx)
	hc := &heldCall{cancel: cancel, out: make(chan struct{})}
	g.mu.Lock()
	if old := g.held[key]; old != nil && !old.decided {
		old.cancel(nil) // a reused id: the newer request wins, the older is not sent
	}
	g.held[key] = hc
	g.mu.Unlock()
	// PROTOCOL.md §10: the host hears progress while the window is open,
	// as for an elicitation of the call.
	g.keep.noteCall(key, held.Params)
	closed := g.keep.prompt(key)
	go g.ask(ctx, hc, key, &held, kept, version, caps, req, closed)
	return true
}

// ask decides one held call and sends what the decision makes of it.
// With no desktop, a host that can show elicitations is asked instead
// (guardhost.go), and history keeps what it decided, here, exactly once.
func (g *guard) ask(ctx context.Context, hc *heldCall, key string, env *envelope, line []byte, version string, hostCaps json.RawMessage, req *Request, closed func()) {
	var res *Result
	var err error
	if g.d.opts.Approver != nil {
		res, err = g.d.approve(ctx, req)
	} else {
		err = errors.New("no approver is configured")
	}
	var inHost *hostVerdict
	if errors.Is(err, ErrNoDesktop) && ctx.Err() == nil && g.host.can(g.session.hostDeclared(), version) {
		v := g.host.ask(ctx, req, err)
		inHost, res, err = &v, &v.res, nil
	}
	closed()
	approved := err == nil && res != nil && res.Action == ActionAccept
	g.mu.Lock()
	mine := g.held[key] == hc && ctx.Err() == nil
	if mine {
		hc.decided, hc.approved = true, approved
	}
	g.mu.Unlock()
	defer hc.cancel(nil)
	if inHost != nil {
		if !mine && res.DecidedBy == DecidedByHost {
			// Decided in the host as the call ended: nothing is sent, and
			// history says why.
			*res = endedResult(context.Cause(ctx), inHost.asked)
		}
		// DESIGN.md: a decision is durable before its answer leaves.
		if g.d.opts.HostDecided != nil {
			g.d.opts.HostDecided(req, *res)
		}
	}
	if !mine {
		// The host cancelled the call (or sent another under its id), or
		// the relay stops: nothing goes anywhere.
		return
	}
	defer func() {
		g.mu.Lock()
		if g.held[key] == hc {
			delete(g.held, key)
		}
		g.mu.Unlock()
		close(hc.out)
	}()
	if approved {
		// Approve forwards the call untouched; from here the relay
		// follows it as any call.
		if out := g.follow(key, env, line, version, hostCaps); out != nil {
			g.w.toServer(out)
		}
		return
	}
	var why string
	if inHost != nil {
		why = inHost.denial
	} else {
		why = g.denial(req, res, err)
	}
	g.keep.end(key)
	g.w.toHost(deniedResult(env.ID, why))
}

// denial is the sentence a denied call's error result says, and tells
// Options.NoDesktop of a call no desktop could show (history keeps it).
func (g *guard) denial(req *Request, res *Result, err error) string {
	tool := strconv.Quote(req.Tool)
	switch {
	case errors.Is(err, ErrNoDesktop):
		g.d.noDesktopSaid.Do(func() {
			g.w.log.printf("%v. Guarded tool calls are denied while nobody can approve them.", err)
		})
		if g.d.opts.NoDesktop != nil {
			g.d.opts.NoDesktop(req, false, err)
		}
		return fmt.Sprintf("elicitray did not run the tool %s: it needs the user's approval, and no desktop could show the approval window.", tool)
	case err != nil:
		g.w.log.printf("%s: no decision on the call of %s, denying it: %v", req.Server, tool, err)
		return fmt.Sprintf("elicitray did not run the tool %s: it needs the user's approval, and none could be had (%v).", tool, err)
	}
	switch res.DecidedBy {
	case DecidedByUser, "":
		return fmt.Sprintf("The user denied the call of the tool %s in elicitray; it did not run.", tool)
	case DecidedByTimeout:
		return fmt.Sprintf("Nobody approved the call of the tool %s in elicitray in time; it did not run.", tool)
	}
	why := res.Reason
	if why == "" {
		why = "decided by " + res.DecidedBy
	}
	return fmt.Sprintf("elicitray did not run the tool %s without the user's approval: %s.", tool, strings.TrimSuffix(why, "."))
}

// hostCancelled closes the window of the held call with id key, if any:
// the host cancelled it (PROTOCOL.md §7). It reports whether the call was
// held; its cancel then goes nowhere, as the server never saw the call.
func (g *guard) hostCancelled(key string) bool {
	// Not only while something is guarded: a call held before SetGuard
	// unguarded its tool still waits, and a tools/list is always noted.
	g.mu.Lock()
	hc := g.held[key]
	if hc != nil && hc.decided {
		g.mu.Unlock()
		// Decided as the cancel came: an approved call reaches the
		// server before the cancel does; a denied one never does, nor
		// does its cancel.
		<-hc.out
		return !hc.approved
	}
	delete(g.held, key)
	if g.lists[key] {
		// A cancelled tools/list gets no result to learn from.
		delete(g.lists, key)
		g.listing.Store(int32(len(g.lists)))
	}
	g.mu.Unlock()
	if hc == nil {
		return false
	}
	g.keep.end(key)
	hc.cancel(ErrHostCancelled)
	return true
}

// request builds the Approver's view of a guarded call.
func (g *guard) request(name string, info toolInfo, args json.RawMessage, version string) *Request {
	text := info.text
	text.Arguments = args
	return g.newRequest(ModeToolCall, name, text, version)
}

// newRequest is a Request of the guard's (mode ModeToolCall or
// ModeToolChange) about the tool name, saying what text (Request.Said), at
// the protocol version given, or the one agreed when "".
func (g *guard) newRequest(mode, name string, text Guard, version string) *Request {
	serverInfo, agreed := g.session.server()
	if version == "" {
		version = agreed
	}
	req := &Request{
		ID:              fmt.Sprintf("%s%d", g.d.prefix, g.d.seq.Add(1)),
		Time:            time.Now(),
		Server:          g.d.opts.Server,
		ServerInfo:      serverInfo,
		Tool:            name,
		Mode:            mode,
		Guard:           &text,
		ProtocolVersion: version,
	}
	req.Message = req.Said(lang.English)
	if len(text.Arguments) > guardMaxArguments {
		req.Guard = nil // the window says Message
	}
	return req
}

// deniedResult is the reply a denied call gets: a CallToolResult with
// isError true and a text saying why (MCP server/tools, "Error
// Handling": tool execution errors are reported in the result, so the
// model sees them), under the host's own id.
func deniedResult(id json.RawMessage, why string) []byte {
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	msg := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  struct {
			Content []content `json:"content"`
			IsError bool      `json:"isError"`
		} `json:"result"`
	}{JSONRPC: "2.0", ID: id}
	msg.Result.Content = []content{{Type: "text", Text: why}}
	msg.Result.IsError = true
	b, _ := json.Marshal(msg)
	return append(b, '\n')
}
