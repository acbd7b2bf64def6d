//go:build !darwin && !windows

package autostart

import (
	"path/filepath"

	"github.com/adrg/xdg"
)

// New is the XDG autostart file (Linux, the BSDs): the desktop
// session starts what $XDG_CONFIG_HOME/autostart holds at login.
func New() Entry {
	return entryFile{
		path:    filepath.Join(xdg.ConfigHome, "autostart", ID+".desktop"),
		content: XDGEntry,
		exe:     tryExecOf,
	}
}
