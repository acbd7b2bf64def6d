package app

import (
	"os"
	"path/filepath"

	"github.com/adrg/xdg"
)

// Paths are the files elicitray uses. They follow the OS's conventions (XDG
// on Linux); ELICITRAY_HOME moves all of them under one directory, which is
// what tests and portable installs use (DESIGN.md).
type Paths struct {
	Config  string // config.toml, 0600
	History string // history.db (bbolt), 0600, owned by the hub
	RunDir  string // 0700 directory holding the socket and the lock
	Socket  string // the hub's unix socket
	Lock    string // flock held by the one running hub
	HubLog  string // the detached hub's stderr
}

// DefaultPaths returns the paths for the current user.
func DefaultPaths() Paths {
	if home := os.Getenv("ELICITRAY_HOME"); home != "" {
		return pathsUnder(home, home, home, filepath.Join(home, "run"))
	}
	// Without XDG_RUNTIME_DIR (su, some ssh sessions and containers) the
	// library still names /run/user/UID, which then may not exist and cannot
	// be made: the state directory holds the socket instead.
	run := filepath.Join(xdg.RuntimeDir, "elicitray")
	if os.Getenv("XDG_RUNTIME_DIR") == "" {
		run = filepath.Join(xdg.StateHome, "elicitray", "run")
	}
	return pathsUnder(
		filepath.Join(xdg.ConfigHome, "elicitray"),
		filepath.Join(xdg.DataHome, "elicitray"),
		filepath.Join(xdg.StateHome, "elicitray"),
		run,
	)
}

func pathsUnder(config, data, state, run string) Paths {
	return Paths{
		Config:  filepath.Join(config, "config.toml"),
		History: filepath.Join(data, "history.db"),
		RunDir:  run,
		Socket:  filepath.Join(run, "hub.sock"),
		Lock:    filepath.Join(run, "hub.lock"),
		HubLog:  filepath.Join(state, "hub.log"),
	}
}
