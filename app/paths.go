package app

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"syscall"

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
	Auth    string // 0700 directory of OAuth token files, one 0600 file per remote server (app/oauth)
	// OtherRunDirs are where a hub of this user may also listen: the home
	// directory's run directory while /run/user/UID is the one in use — a
	// hub started before the user's login session made /run/user/UID.
	// Clients look there too before they start a hub.
	OtherRunDirs []string
}

// DefaultPaths returns the paths for the current user.
func DefaultPaths() Paths {
	if home := os.Getenv("ELICITRAY_HOME"); home != "" {
		return pathsUnder(home, home, home, filepath.Join(home, "run"))
	}
	p := pathsUnder(
		filepath.Join(xdg.ConfigHome, "elicitray"),
		filepath.Join(xdg.DataHome, "elicitray"),
		filepath.Join(xdg.StateHome, "elicitray"),
		runDir(homeDir(), os.Getuid()),
	)
	if home := filepath.Join(homeDir(), ".local", "state", "elicitray", "run"); home != p.RunDir {
		p.OtherRunDirs = []string{home}
	}
	return p
}

// runDir is where the hub's socket and lock live. It is derived from the
// uid and the home directory alone, never from XDG_RUNTIME_DIR: hosts start
// wrappers with only HOME, LOGNAME, PATH, SHELL, TERM and USER (DESIGN.md,
// "Hosts strip the environment"), and such a wrapper must find the socket
// of the hub that runs in the desktop session, whose environment has it.
//
// On Linux that is the per-user runtime directory logind makes,
// /run/user/UID, when it exists as a directory of the user's own (it is
// what XDG_RUNTIME_DIR names in a desktop session); else (su, containers,
// systems without logind) ~/.local/state/elicitray/run. Other systems keep
// the XDG library's runtime directory.
//
// A unix socket's path holds at most maxSocketPath bytes: under a home too
// long for that, the directory is /tmp/elicitray-UID (verified like any
// run directory before use; another user's squatting it is refused).
func runDir(home string, uid int) string {
	if runtime.GOOS != "linux" {
		return filepath.Join(xdg.RuntimeDir, "elicitray")
	}
	dir := filepath.Join(home, ".local", "state", "elicitray", "run")
	if rt := userRuntimeDir(uid); rt != "" {
		dir = filepath.Join(rt, "elicitray")
	}
	if len(filepath.Join(dir, socketName)) > maxSocketPath {
		dir = fmt.Sprintf("/tmp/elicitray-%d", uid)
	}
	return dir
}

// maxSocketPath is the longest path a unix socket may have on Linux:
// sun_path holds 108 bytes, the last a NUL.
const maxSocketPath = 107

// socketName is the hub's socket in its run directory.
const socketName = "hub.sock"

// userRuntimeDir is /run/user/UID when it is a real directory (not a link)
// owned by uid, else "".
func userRuntimeDir(uid int) string {
	dir := fmt.Sprintf("/run/user/%d", uid)
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
		return ""
	}
	return dir
}

// homeDir is the user's home: HOME, which every host passes on, else the
// password database's entry (a service started without HOME).
func homeDir() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		return u.HomeDir
	}
	return xdg.Home
}

func pathsUnder(config, data, state, run string) Paths {
	return Paths{
		Config:  filepath.Join(config, "config.toml"),
		History: filepath.Join(data, "history.db"),
		RunDir:  run,
		Socket:  filepath.Join(run, socketName),
		Lock:    filepath.Join(run, "hub.lock"),
		HubLog:  filepath.Join(state, "hub.log"),
		Auth:    filepath.Join(data, "auth"),
	}
}
