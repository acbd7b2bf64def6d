// Package paths says where elicitray keeps its files (config, history,
// the hub's socket and lock, logs, sign-in tokens) and whether a directory
// is safe to use: a real directory of the user's own that no one else may
// enter (DESIGN.md, "Trust nothing on the path").
//
// Nothing here reads the environment by itself: FromEnv is given the
// getenv to read, once, by app.Main (or a test).
//
// Files: paths.go (the layout), private.go (private directories).
package paths

import (
	"os/user"
	"path/filepath"

	"github.com/adrg/xdg"

	"github.com/elicitray/elicitray/app/platform"
)

// Paths are the files elicitray uses. They follow the OS's conventions (XDG
// on Linux); ELICITRAY_HOME moves all of them under one directory, which is
// what tests and portable installs use (DESIGN.md).
type Paths struct {
	Config  string // config.toml, 0600
	History string // history.db (bbolt), 0600, owned by the hub
	RunDir  string // 0700 directory holding the socket and the lock
	Socket  string // the hub's unix socket
	Lock    string // locked by the one running hub (platform.TryLock)
	HubLog  string // the detached hub's stderr
	Auth    string // 0700 directory of OAuth token files, one 0600 file per remote server (app/oauth)
	// OtherRunDirs are where a hub of this user may also listen: the home
	// directory's run directory while /run/user/UID is the one in use — a
	// hub started before the user's login session made /run/user/UID.
	// Clients look there too before they start a hub.
	OtherRunDirs []string
}

// FromEnv returns the paths for the current user, reading ELICITRAY_HOME
// and HOME with getenv.
func FromEnv(getenv func(string) string) Paths {
	if h := getenv("ELICITRAY_HOME"); h != "" {
		return Under(h)
	}
	// The run directory comes from the uid and the home alone, never from
	// XDG_RUNTIME_DIR: hosts start wrappers with only HOME, LOGNAME, PATH,
	// SHELL, TERM and USER (DESIGN.md, "Hosts strip the environment"), and
	// such a wrapper must find the socket of the hub that runs in the
	// desktop session, whose environment has it (platform.RunDirs).
	run, others := platform.RunDirs(HomeDir(getenv))
	p := Layout(
		filepath.Join(xdg.ConfigHome, "elicitray"),
		filepath.Join(xdg.DataHome, "elicitray"),
		filepath.Join(xdg.StateHome, "elicitray"),
		run,
	)
	p.OtherRunDirs = others
	return p
}

// Under returns the paths of an ELICITRAY_HOME of dir: every file under
// it, the socket and lock in dir/run.
func Under(dir string) Paths { return Layout(dir, dir, dir, filepath.Join(dir, "run")) }

// SocketName is the hub's socket in its run directory.
const SocketName = platform.SocketName

// UserRuntimeDir is /run/user/UID when it is a real directory (not a link)
// owned by uid, else "" (always off Linux).
func UserRuntimeDir(uid int) string { return platform.UserRuntimeDir(uid) }

// HomeDir is the user's home: HOME, which every host passes on, else the
// password database's entry (a service started without HOME).
func HomeDir(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		return u.HomeDir
	}
	return xdg.Home
}

// Layout places the files in four directories: config, data (history, tokens),
// state (logs) and run (socket, lock).
func Layout(config, data, state, run string) Paths {
	return Paths{
		Config:  filepath.Join(config, "config.toml"),
		History: filepath.Join(data, "history.db"),
		RunDir:  run,
		Socket:  filepath.Join(run, SocketName),
		Lock:    filepath.Join(run, "hub.lock"),
		HubLog:  filepath.Join(state, "hub.log"),
		Auth:    filepath.Join(data, "auth"),
	}
}
