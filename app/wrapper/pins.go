package wrapper

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/toolpins"
	"github.com/elicitray/elicitray/bridge"
)

// Pins is the relay's bridge.ToolPins for server: the user's pinned tool
// definitions (app/toolpins), with each change's account made by
// toolpins.Diff. A tool waits while the definition this wrapper's server
// last listed differs from the pin, whatever another wrapper of the same
// name wrote meanwhile (and that change is noted again where the other
// wrapper's list took it away). What cannot be read or saved is said on log: the
// relay then keeps the changes it knew of.
func Pins(p paths.Paths, server string, log io.Writer) bridge.ToolPins {
	return &pins{store: toolpins.New(p), server: server, log: log, seen: map[string]toolpins.Def{}}
}

type pins struct {
	store  *toolpins.Store
	server string
	log    io.Writer

	mu sync.Mutex
	// seen is, by name, the definition last listed that differs from the
	// pin (else the one listed last).
	seen map[string]toolpins.Def
	// said is the last error said, so that one that persists is said once.
	said string
}

func (s *pins) Known() ([]bridge.ToolDef, map[string]bridge.ToolChange) {
	pinned, err := s.store.Server(s.server)
	if err != nil {
		s.say(err)
		return nil, nil
	}
	var defs []bridge.ToolDef
	pending := map[string]bridge.ToolChange{}
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, t := range pinned {
		for _, d := range []*toolpins.Def{&t.Def, t.Changed} {
			if d != nil {
				defs = append(defs, bridge.ToolDef{Name: name, Title: d.Title, Description: d.Description, InputSchema: d.InputSchema, Annotations: d.Annotations})
			}
		}
		if t.Changed != nil {
			s.seen[name] = *t.Changed
			pending[name] = bridge.ToolChange{Account: toolpins.Diff(t.Def, *t.Changed)}
		}
	}
	return defs, pending
}

func (s *pins) Listed(defs []bridge.ToolDef) (map[string]bridge.ToolChange, error) {
	in := make([]toolpins.Named, len(defs))
	for i, d := range defs {
		in[i] = toolpins.Named{Name: d.Name, Def: toolpins.Bounded(toolpins.Def{Title: d.Title, Description: d.Description, InputSchema: d.InputSchema, Annotations: d.Annotations})}
	}
	now := time.Now()
	changed, err := s.store.Listed(s.server, in, now)
	if err != nil {
		s.say(err)
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range in {
		s.seen[n.Name] = n.Def
	}
	out := make(map[string]bridge.ToolChange, len(changed))
	for name, t := range changed {
		s.seen[name] = *t.Changed
		// New until the user answered a window telling of it.
		out[name] = bridge.ToolChange{Account: toolpins.Diff(t.Def, *t.Changed), New: !t.Told}
	}
	return out, nil
}

func (s *pins) Waits(name string) bool {
	pinned, err := s.store.Server(s.server)
	if err != nil {
		s.say(err)
		return true
	}
	s.mu.Lock()
	seen, listed := s.seen[name]
	s.mu.Unlock()
	t, ok := pinned[name]
	switch {
	case !ok:
		return false // forgotten (elicitray tools forget): the next list pins it anew
	case !listed:
		return t.Changed != nil
	case t.Def.Same(seen):
		return false
	case t.Changed == nil || !t.Changed.Same(seen):
		// Another wrapper of this name listed the pinned definition, or
		// another change, since: the change this wrapper's calls wait
		// for is noted again, so that `elicitray tools list`, Settings
		// and `tools accept` have it.
		if _, err := s.store.Listed(s.server, []toolpins.Named{{Name: name, Def: seen}}, time.Now()); err != nil {
			s.say(err)
		}
	}
	return true
}

func (s *pins) Accept(name, account string) error {
	d, err := s.listedDef(name)
	if err != nil {
		return err
	}
	_, err = s.store.AcceptDef(s.server, name, d, account, time.Now())
	return changedAgain(err)
}

func (s *pins) Told(name, account string) error {
	d, err := s.listedDef(name)
	if err != nil {
		return err
	}
	return changedAgain(s.store.Told(s.server, name, d, account))
}

// changedAgain is err, which bridge.ErrToolChangedAgain also finds when
// it is toolpins.ErrChangedAgain.
func changedAgain(err error) error {
	if errors.Is(err, toolpins.ErrChangedAgain) {
		return fmt.Errorf("%w (%w)", bridge.ErrToolChangedAgain, err)
	}
	return err
}

// listedDef returns the definition of the tool name the last list gave.
func (s *pins) listedDef(name string) (toolpins.Def, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.seen[name]
	if !ok {
		return toolpins.Def{}, fmt.Errorf("no definition of %q was listed", name)
	}
	return d, nil
}

func (s *pins) say(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if msg := err.Error(); msg != s.said {
		s.said = msg
		fmt.Fprintf(s.log, "elicitray: %s: the pinned tool definitions could not be used (%v); a change to this server's tools already known still waits for you, but a new one is not caught until they can\n", s.server, err)
	}
}
