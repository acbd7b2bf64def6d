//go:build darwin

package autostart

import (
	"path/filepath"

	"github.com/adrg/xdg"
)

// New is a LaunchAgent: launchd loads the user's
// ~/Library/LaunchAgents at login and starts what RunAtLoad says.
func New() Entry {
	return entryFile{
		path:    filepath.Join(xdg.Home, "Library", "LaunchAgents", ID+".plist"),
		content: LaunchAgent,
		exe:     programOf,
	}
}
