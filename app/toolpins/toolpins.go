// Package toolpins keeps, per server, the tool definitions the user has
// seen: what a server's tools/list said of each tool (its title,
// description, input schema and annotations) the first time the wrapper
// saw it pass. A later list that says otherwise is a change: the tool's
// calls wait behind the guard, and their window shows the change, until the
// user accepts it (`elicitray tools accept`). A server that rewrites a
// trusted tool's description or schema after the fact ("rug pull", "tool
// poisoning") is caught so (docs/how-it-works.md, "Pinned tools").
//
// The pins are one JSON file beside history.db (tools.json, 0600), changed
// by the wrappers and the tools command under a lock file (tools.lock), as
// the remembered answers are (paths.JSONFile).
package toolpins

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/elicitray/elicitray/bridge"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/elicitray/elicitray/app/paths"
)

// Def is what a tools/list said of one tool (MCP server/tools, Tool).
type Def struct {
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// Same reports whether d and e define the tool alike, as a host reads them:
// the same texts, and the same JSON values in the schema and the
// annotations, whatever the order of their members, their spacing or the
// spelling of their numbers (hostJSON).
func (d Def) Same(e Def) bool {
	return d.Title == e.Title && d.Description == e.Description &&
		bytes.Equal(hostJSON(d.InputSchema), hostJSON(e.InputSchema)) &&
		bytes.Equal(hostJSON(d.Annotations), hostJSON(e.Annotations))
}

// hostJSON is raw spelt one way for what a host's JSON.parse makes of it:
// members sorted, the last of a name given twice, each number as the
// double it reads (10, 10.0 and 1e1 alike), and null as no value at all
// (a tool that lists "annotations": null has none). raw itself when it is
// not JSON. The relay's bridge.CanonicalJSON keeps a number's digits,
// which it must pass on; a definition is only compared and shown.
func hostJSON(raw json.RawMessage) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // shown to people too (indented)
	if enc.Encode(asDoubles(v)) != nil {
		return raw
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// asDoubles is v with each number as a float64, the double a JavaScript
// host holds; one beyond its range stays as written.
func asDoubles(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return f
		}
	case map[string]any:
		for k, e := range x {
			x[k] = asDoubles(e)
		}
	case []any:
		for i, e := range x {
			x[i] = asDoubles(e)
		}
	}
	return v
}

// maxPinned is the most bytes of one text of a definition kept as it is;
// a longer one is kept as its length and SHA-256 (Bounded).
const maxPinned = 64 << 10

// Bounded is d as the pins keep it: each text or JSON value longer than
// 64 KiB replaced by its length and SHA-256, which still tells any change
// to it, so that one tool listed with megabytes of description cannot
// grow tools.json past what is read back (paths.JSONFile).
func Bounded(d Def) Def {
	digest := func(b []byte) string {
		return fmt.Sprintf("[%d bytes, SHA-256 %x]", len(b), sha256.Sum256(b))
	}
	if len(d.Title) > maxPinned {
		d.Title = digest([]byte(d.Title))
	}
	if len(d.Description) > maxPinned {
		d.Description = digest([]byte(d.Description))
	}
	for _, raw := range []*json.RawMessage{&d.InputSchema, &d.Annotations} {
		if len(*raw) > maxPinned {
			s, _ := json.Marshal(digest(*raw))
			*raw = s
		}
	}
	return d
}

// Tool is one pinned tool.
type Tool struct {
	// Def is the definition the user has: the first one seen, or the last
	// one accepted.
	Def Def `json:"definition"`
	// Since is when Def was pinned or accepted.
	Since time.Time `json:"since"`
	// Changed is what the server lists now, when it differs from Def and
	// the user has not accepted it; ChangedAt is when it was first seen.
	Changed   *Def      `json:"changed,omitempty"`
	ChangedAt time.Time `json:"changedAt,omitzero"`
	// Told is set once the user answered the window that told of Changed
	// and kept it waiting: it is not told again.
	Told bool `json:"told,omitempty"`
}

// file is tools.json.
type file struct {
	// Servers are the pins by server name (wrap --name), then by tool.
	Servers map[string]map[string]*Tool `json:"servers"`
}

// tidy drops what a hand-edited file may hold that is no tool (a null in
// place of one), and reports whether it dropped anything.
func (f *file) tidy() bool {
	dropped := false
	for server, pins := range f.Servers {
		for name, t := range pins {
			if t == nil {
				delete(pins, name)
				dropped = true
			}
		}
		if pins == nil {
			delete(f.Servers, server)
		}
	}
	return dropped
}

// Store is the pinned tools of one user. Each call reads the file afresh.
type Store struct{ f paths.JSONFile }

// New is the store of paths p.
func New(p paths.Paths) *Store {
	return &Store{f: paths.JSONFile{Path: filepath.Join(filepath.Dir(p.History), "tools.json"), Lock: "tools.lock", What: "pinned tools"}}
}

// Named is one tool of a list, by name.
type Named struct {
	Name string
	Def
}

// Listed takes what one tools/list result of server said, in its order:
// a tool seen for the first time is pinned; one whose definition differs
// from its pin is noted as changed (and a change taken back, the server
// listing the pinned definition again, is forgotten). A name listed twice
// is judged by each of its definitions: any that differs is a change,
// since a host may read either. It returns the tools whose calls wait for
// the user: those changed and not accepted, as they stand after the list.
func (s *Store) Listed(server string, defs []Named, now time.Time) (map[string]Tool, error) {
	var f file
	changed := map[string]Tool{}
	err := s.f.Edit(&f, func() error {
		dirty := f.tidy()
		if f.Servers == nil {
			f.Servers = map[string]map[string]*Tool{}
		}
		pins := f.Servers[server]
		if pins == nil {
			pins = map[string]*Tool{}
			f.Servers[server] = pins
		}
		differs := map[string]bool{} // a name with a definition unlike its pin in this list
		for _, n := range defs {
			name, d := n.Name, n.Def
			t := pins[name]
			switch {
			case t == nil:
				pins[name] = &Tool{Def: d, Since: now}
				dirty = true
			case t.Def.Same(d):
				if t.Changed != nil && !differs[name] {
					t.Changed, t.ChangedAt, t.Told = nil, time.Time{}, false
					dirty = true
				}
			default:
				differs[name] = true
				if t.Changed == nil || !t.Changed.Same(d) {
					d := d
					t.Changed, t.ChangedAt, t.Told = &d, now, false
					dirty = true
				}
				changed[name] = *t
			}
		}
		if !dirty {
			return paths.Unchanged // a list as pinned: the file is not written again
		}
		return nil
	})
	return changed, err
}

// Server returns server's pins, by tool name.
func (s *Store) Server(server string) (map[string]Tool, error) {
	var f file
	if err := s.f.Read(&f); err != nil {
		return nil, err
	}
	f.tidy()
	out := map[string]Tool{}
	for name, t := range f.Servers[server] {
		out[name] = *t
	}
	return out, nil
}

// Servers returns the names of the servers with pins, sorted.
func (s *Store) Servers() ([]string, error) {
	var f file
	if err := s.f.Read(&f); err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(f.Servers)), nil
}

// Changes returns the changes of server's tools named (all its changed
// tools when none is named) that wait for the user, by name: what Diff
// shows of each, to show them before Accept. A named tool with no change
// waiting is an error that names it.
func (s *Store) Changes(server string, names []string) (map[string]string, error) {
	pins, err := s.Server(server)
	if err != nil {
		return nil, err
	}
	if len(pins) == 0 {
		return nil, notPinned(fmt.Sprintf("no tools of %q are pinned", server))
	}
	out := map[string]string{}
	for _, name := range names {
		if t, ok := pins[name]; !ok || t.Changed == nil {
			return nil, fmt.Errorf("%q's tool %q has no changed definition waiting to be accepted", server, name)
		}
	}
	for name, t := range pins {
		if t.Changed != nil && (len(names) == 0 || slices.Contains(names, name)) {
			out[name] = Diff(t.Def, *t.Changed)
		}
	}
	return out, nil
}

// Accept makes the changed definitions of server's tools in shown the ones
// the user has, from now, each as the change shown to the user (its Diff,
// by name: Changes). When any is not that change any more (the server
// changed it again since, or it was accepted meanwhile), nothing is
// accepted: the error names it (ErrChangedAgain). Nothing is accepted
// unseen.
func (s *Store) Accept(server string, shown map[string]string, now time.Time) error {
	return s.editServer(server, func(f *file, pins map[string]*Tool) error {
		for _, name := range slices.Sorted(maps.Keys(shown)) {
			t := pins[name]
			if t == nil || t.Changed == nil || Diff(t.Def, *t.Changed) != shown[name] {
				return fmt.Errorf("%q's tool %q: %w since it was shown", server, name, ErrChangedAgain)
			}
			t.Def, t.Since, t.Changed, t.ChangedAt = *t.Changed, now, nil, time.Time{}
		}
		return nil
	})
}

// editServer applies edit to server's pins in the file, under its lock; a
// server with none is an error that names it.
func (s *Store) editServer(server string, edit func(f *file, pins map[string]*Tool) error) error {
	var f file
	return s.f.Edit(&f, func() error {
		f.tidy()
		pins := f.Servers[server]
		if pins == nil {
			return notPinned(fmt.Sprintf("no tools of %q are pinned", server))
		}
		return edit(&f, pins)
	})
}

// Told notes that the user answered the window telling that server's tool
// name changed to d (as account), and kept it waiting: while d is the
// change, it is not told again. A change since (the server changed it
// again: ErrChangedAgain when account is not d's) stays untold.
func (s *Store) Told(server, name string, d Def, account string) error {
	return s.editServer(server, func(f *file, pins map[string]*Tool) error {
		t := pins[name]
		switch {
		case t == nil || t.Changed == nil || !t.Changed.Same(d):
		case Diff(t.Def, d) != account:
			return fmt.Errorf("%q's tool %q: %w since the change kept waiting was shown", server, name, ErrChangedAgain)
		default:
			t.Told = true
		}
		return nil
	})
}

// ErrNotPinned is what errors.Is finds in the error of Accept or Forget
// for a server or a tool that has no pin.
var ErrNotPinned = errors.New("not pinned")

// notPinned is the sentence of such an error.
type notPinned string

func (e notPinned) Error() string        { return string(e) }
func (e notPinned) Is(target error) bool { return target == ErrNotPinned }

// ErrChangedAgain is what errors.Is finds in the error of AcceptDef or
// Told when the change the user answered is not the one that waits: the
// server changed the tool again since they were shown it.
var ErrChangedAgain = errors.New("changed again")

// AcceptDef makes d the definition of server's tool name that the user
// has, from now: what they accepted in the window that showed the change
// to d as account (whatever another wrapper of the same name wrote
// meanwhile). A pin that is neither d nor what account was made from
// (Diff) is left as it is, with ErrChangedAgain: the user accepted a
// change they were shown, never one they were not. accepted is false when
// the pin was d already (accepted elsewhere meanwhile).
func (s *Store) AcceptDef(server, name string, d Def, account string, now time.Time) (accepted bool, err error) {
	var f file
	err = s.f.Edit(&f, func() error {
		f.tidy()
		if f.Servers == nil {
			f.Servers = map[string]map[string]*Tool{}
		}
		if f.Servers[server] == nil {
			f.Servers[server] = map[string]*Tool{}
		}
		t := f.Servers[server][name]
		switch {
		case t != nil && t.Def.Same(d):
			return paths.Unchanged // accepted already (elsewhere, at the same time)
		case t != nil && Diff(t.Def, d) != account:
			return fmt.Errorf("%q's tool %q: %w since the change accepted was shown", server, name, ErrChangedAgain)
		}
		f.Servers[server][name] = &Tool{Def: d, Since: now}
		accepted = true
		return nil
	})
	return accepted && err == nil, err
}

// Forget removes server's pins of the tools named (all of them when none
// is named): the next list pins what it says as new. It returns how many
// were removed.
func (s *Store) Forget(server string, names []string) (int, error) {
	n := 0
	err := s.editServer(server, func(f *file, pins map[string]*Tool) error {
		if len(names) == 0 {
			n = len(pins)
			delete(f.Servers, server)
			return nil
		}
		for _, name := range names {
			if _, ok := pins[name]; !ok {
				return notPinned(fmt.Sprintf("%s has no pinned tool %q", server, name))
			}
			delete(pins, name)
			n++
		}
		if len(pins) == 0 {
			delete(f.Servers, server)
		}
		return nil
	})
	return n, err
}

// Diff is a readable account of what changed from old to new: each text
// that differs, and the schema and annotations, as unified diffs of their
// lines (JSON indented, members sorted) under a heading (bridge.Changed…),
// "-" before a pinned line and "+" before a line listed now, "…" between
// the places that changed.
func Diff(old, new Def) string {
	var b strings.Builder
	part := func(heading, a, z string) {
		if a == z {
			return
		}
		d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(a + "\n"), B: difflib.SplitLines(z + "\n"), Context: 2,
		})
		b.WriteString(heading + "\n")
		hunks := 0
		for line := range strings.Lines(d) {
			if strings.HasPrefix(line, "@@") {
				// A hunk's line numbers say nothing to a person.
				if hunks++; hunks > 1 {
					b.WriteString("…\n")
				}
				continue
			}
			b.WriteString(line)
		}
	}
	part(bridge.ChangedTitle, old.Title, new.Title)
	part(bridge.ChangedDescription, old.Description, new.Description)
	part(bridge.ChangedSchema, indented(old.InputSchema), indented(new.InputSchema))
	part(bridge.ChangedAnnotations, indented(old.Annotations), indented(new.Annotations))
	return strings.TrimSuffix(b.String(), "\n")
}

// indented is raw as a host reads it (hostJSON), indented by two spaces a
// level.
func indented(raw json.RawMessage) string {
	c := hostJSON(raw)
	var b bytes.Buffer
	if json.Indent(&b, c, "", "  ") != nil {
		return string(c)
	}
	return b.String()
}
