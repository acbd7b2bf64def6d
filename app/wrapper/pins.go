package wrapper

import (
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
// toolpins.Diff. What cannot be read or saved is said on log once: the
// relay then checks nothing for changes, and a change it knew of still
// waits.
func Pins(p paths.Paths, server string, log io.Writer) bridge.ToolPins {
	return &pins{store: toolpins.New(p), server: server, log: log}
}

type pins struct {
	store  *toolpins.Store
	server string
	log    io.Writer
	said   sync.Once
}

func (s *pins) Listed(defs map[string]bridge.ToolDef) map[string]string {
	in := make(map[string]toolpins.Def, len(defs))
	for name, d := range defs {
		in[name] = toolpins.Def{Title: d.Title, Description: d.Description, InputSchema: d.InputSchema, Annotations: d.Annotations}
	}
	changed, err := s.store.Listed(s.server, in, time.Now())
	if err != nil {
		s.say(err)
		return nil
	}
	out := make(map[string]string, len(changed))
	for name, t := range changed {
		out[name] = toolpins.Diff(t.Def, *t.Changed)
	}
	return out
}

func (s *pins) Waits(name string) bool {
	pinned, err := s.store.Server(s.server)
	if err != nil {
		s.say(err)
		return true
	}
	t, ok := pinned[name]
	return ok && t.Changed != nil
}

func (s *pins) say(err error) {
	s.said.Do(func() {
		fmt.Fprintf(s.log, "elicitray: %s: the pinned tool definitions could not be used, so changes to this server's tools are not caught: %v\n", s.server, err)
	})
}
