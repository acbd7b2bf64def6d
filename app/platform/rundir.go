package platform

import (
	"fmt"
	"math"
	"os"
	"path"
	"runtime"
	"strings"
)

// SocketName is the hub's socket in its run directory.
const SocketName = "hub.sock"

// maxSocketPath is the longest path an AF_UNIX socket may have on goos:
// sun_path holds 108 bytes on Linux and Windows (afunix.h), 104 on macOS,
// the last a NUL.
func maxSocketPath(goos string) int {
	switch goos {
	case "darwin":
		return 103
	case "windows":
		// The hub listens on a named pipe whose name does not grow with
		// the directory (PipeName): a long profile path is no problem.
		return math.MaxInt
	}
	return 107
}

// MaxSocketPath is the longest path the hub's socket may have here.
func MaxSocketPath() int { return maxSocketPath(runtime.GOOS) }

// RunDirs returns the directory of the hub's socket and lock for the
// current user whose home is home, and the other directories where a hub
// of this user may listen (see runDirFor).
func RunDirs(home string) (dir string, others []string) {
	dir = runDirFor(runtime.GOOS, home, os.Getuid(), UserRuntimeDir(os.Getuid()), os.Getenv)
	if runtime.GOOS == "linux" {
		if h := join("linux", home, ".local", "state", "elicitray", "run"); h != dir {
			others = []string{h}
		}
	}
	return dir, others
}

// runDirFor is where the hub's socket and lock live on goos, for the user
// uid whose home is home; runtimeDir is /run/user/UID when logind made it
// ("" when not), getenv reads the environment. It depends on nothing a
// host strips from a wrapper's environment (hosts pass HOME and little
// else on Unix; on Windows the SDKs pass LOCALAPPDATA and USERPROFILE), so
// that a wrapper finds the socket of the hub that runs in the desktop
// session.
//
//   - Linux: runtimeDir/elicitray when there is one (what XDG_RUNTIME_DIR
//     names in a desktop session), else ~/.local/state/elicitray/run (su,
//     containers, systems without logind).
//   - macOS: ~/Library/Caches/elicitray/run (there is no runtime
//     directory; $TMPDIR is per-user but hosts strip it).
//   - Windows: %LOCALAPPDATA%\elicitray\run, or the home's
//     AppData\Local when LOCALAPPDATA is not set.
//
// A socket's path is short (maxSocketPath): under a home too long for it,
// Linux and macOS use /tmp/elicitray-UID, verified like any run directory
// before use (another user's squatting it is refused).
func runDirFor(goos, home string, uid int, runtimeDir string, getenv func(string) string) string {
	var dir string
	switch goos {
	case "windows":
		base := getenv("LOCALAPPDATA")
		if base == "" {
			base = join(goos, home, "AppData", "Local")
		}
		return join(goos, base, "elicitray", "run")
	case "darwin":
		dir = join(goos, home, "Library", "Caches", "elicitray", "run")
	default:
		dir = join(goos, home, ".local", "state", "elicitray", "run")
		if runtimeDir != "" {
			dir = join(goos, runtimeDir, "elicitray")
		}
	}
	if len(join(goos, dir, SocketName)) > maxSocketPath(goos) {
		dir = fmt.Sprintf("/tmp/elicitray-%d", uid)
	}
	return dir
}

// join joins path elements with goos's separator, as filepath.Join does
// there (runDirFor is tested for every system on one).
func join(goos string, elem ...string) string {
	if goos != "windows" {
		return path.Join(elem...)
	}
	parts := make([]string, 0, len(elem))
	for i, e := range elem {
		if i > 0 {
			e = strings.TrimLeft(e, `\`)
		}
		if e = strings.TrimRight(e, `\`); e != "" {
			parts = append(parts, e)
		}
	}
	return strings.Join(parts, `\`)
}

// UserRuntimeDir is /run/user/UID when it is a real directory (not a link)
// owned by uid, else "" (and always "" off Linux, where logind makes no
// such directory).
func UserRuntimeDir(uid int) string {
	if runtime.GOOS != "linux" {
		return ""
	}
	dir := fmt.Sprintf("/run/user/%d", uid)
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return ""
	}
	if o, ok := FileOwner(dir, fi); !ok || o != UID(uid) {
		return ""
	}
	return dir
}

// LoginIsDesktop reports whether any process of the user's login runs in
// their desktop session: true on macOS and Windows, where windows open
// wherever the user is logged in; false on Linux, where a process needs
// DISPLAY and friends of the session it draws in.
const LoginIsDesktop = runtime.GOOS == "darwin" || runtime.GOOS == "windows"
