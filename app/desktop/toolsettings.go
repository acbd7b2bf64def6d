package desktop

import (
	"errors"
	"fmt"
	"github.com/elicitray/elicitray/ui/lang"
	"maps"
	"slices"
	"time"

	"github.com/elicitray/elicitray/app/journal"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/toolpins"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/state"
)

// ToolSettings is the Settings window's "Pinned tools" section: every pin
// of p's tools.json, by server and tool, with the change that waits, as
// `elicitray tools list` shows them.
func ToolSettings(p paths.Paths) (state.ToolSettings, error) {
	store := toolpins.New(p)
	servers, err := store.Servers()
	if err != nil {
		return state.ToolSettings{}, err
	}
	var s state.ToolSettings
	for _, server := range servers {
		pins, err := store.Server(server)
		if err != nil {
			return state.ToolSettings{}, err
		}
		for _, name := range slices.Sorted(maps.Keys(pins)) {
			t := pins[name]
			pt := state.PinnedTool{Server: server, Tool: name, Since: t.Since}
			if t.Changed != nil {
				pt.Change, pt.ChangedAt = toolpins.Diff(t.Def, *t.Changed), t.ChangedAt
				pt.Warning = bridge.SuspicionsSaid(pt.Change, lang.User)
			}
			s.Pins = append(s.Pins, pt)
		}
	}
	return s, nil
}

// SaveToolSettings does what the section saved: it accepts each change
// the user accepted, when it is still the change the window showed (a
// server that changed the tool again meanwhile is asked about anew), and
// forgets the pins forgotten. A pin gone meanwhile (forgotten from the
// command line) is no error. Each change accepted is a decision of the
// user's, given to keep for history (journal.ToolAccepted), as the answer
// in the change's own window is.
func SaveToolSettings(p paths.Paths, s state.ToolSettings, now time.Time, keep func(history.Record)) error {
	store := toolpins.New(p)
	var errs []error
	for _, a := range s.Accept {
		if slices.ContainsFunc(s.Forget, func(f state.PinnedTool) bool { return f.Server == a.Server && f.Tool == a.Tool }) {
			continue
		}
		pins, err := store.Server(a.Server)
		if err != nil {
			// tools.json unreadable: said, the change still waits.
			errs = append(errs, err)
			continue
		}
		t, ok := pins[a.Tool]
		switch {
		case !ok || t.Changed == nil:
			continue
		case toolpins.Diff(t.Def, *t.Changed) != a.Change:
			errs = append(errs, fmt.Errorf("%s changed its tool %q again since the window opened: open Settings again to see the change", a.Server, a.Tool))
			continue
		}
		accepted, err := store.AcceptDef(a.Server, a.Tool, *t.Changed, a.Change, now)
		if err != nil {
			errs = append(errs, err)
		}
		if !accepted {
			continue // refused, or accepted elsewhere meanwhile, which kept its own record
		}
		keep(journal.ToolAccepted(a.Server, a.Tool, a.Change, bridge.DecidedByUser, "accepted in Settings"))
	}
	for _, f := range s.Forget {
		if _, err := store.Forget(f.Server, []string{f.Tool}); err != nil && !errors.Is(err, toolpins.ErrNotPinned) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
