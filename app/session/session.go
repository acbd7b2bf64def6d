package session

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
)

// Finding the user's desktop session. Hosts start wrappers with only HOME,
// LOGNAME, PATH, SHELL, TERM and USER (DESIGN.md, "Hosts strip the
// environment"), and hosts run as services or from a terminal have no
// DISPLAY at all. A wrapper that must start a hub therefore looks for the
// session itself, in this order, and takes the first whose display opens:
//
//  1. its own environment;
//  2. the environment of the processes that started it (the host itself
//     normally runs in the desktop session, only its children are stripped);
//  3. the systemd user manager's environment (desktops import DISPLAY and
//     the bus address there when a session starts);
//  4. logind's sessions of this user (the X11 display of a graphical one);
//  5. the environment of any other process of this user that has DISPLAY.
//
// Only processes of this user are read (/proc/PID/environ is readable by
// its owner alone), and only the variables in sessionVars are taken.

// desktopSession is the user's graphical session as found: the variables
// that let a process open windows in it and reach its session bus.
type Desktop struct {
	// Vars holds the session's values of sessionVars that are set.
	Vars map[string]string
	// From says where they were found, for a sentence ("the environment
	// of code (pid 4242), which started this one").
	From string
}

// Display is the session's X11 display, e.g. ":0".
func (s Desktop) Display() string { return s.Vars["DISPLAY"] }

// Env is base with the session's variables set, for a process to start in
// the session.
func (s Desktop) Env(base []string) []string {
	env := slices.DeleteFunc(slices.Clone(base), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		_, ours := s.Vars[k]
		return ours
	})
	for _, k := range sessionVars {
		if v, ok := s.Vars[k]; ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// sessionVars are the variables that place a process in a graphical
// session: the display, its authorization, the runtime directory and the
// session bus (notifications, the tray), the desktop's name, and the
// language the windows speak.
var sessionVars = []string{
	"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS",
	"XDG_SESSION_TYPE", "XDG_CURRENT_DESKTOP", "XDG_SESSION_DESKTOP", "DESKTOP_SESSION",
	"LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LC_TIME",
	// Where the user keeps config and data: a hub started from a stripped
	// wrapper reads the same config.toml and history as one started in
	// the session.
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
}

// hubEnvVars are the variables of a wrapper's own environment that a hub it
// starts keeps; the desktop session's are added (desktopSession.Env). The
// rest — the server's tokens a host config passes in env, say — stays with
// the wrapper: the hub serves every server, and starts the browser.
var hubEnvVars = []string{
	"HOME", "USER", "LOGNAME", "PATH", "SHELL", "TERM", "TZ", "TMPDIR", "ELICITRAY_HOME",
	// The language: LANGUAGE too, which lists the languages the windows
	// may speak, in order (Fyne's lang reads it after LC_ALL,
	// LC_MESSAGES and LANG).
	"LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LC_TIME", "LC_CTYPE",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
	// The Go runtime's own settings: a race-detector build of the tests
	// halts the hub on a race as it does the wrapper.
	"GORACE",
}

// HubEnv is the part of env a hub started from it keeps (hubEnvVars, and
// what the system needs: platform.SystemEnv).
func HubEnv(env []string) []string {
	keep := append(slices.Clone(hubEnvVars), platform.SystemEnv()...)
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return !slices.ContainsFunc(keep, func(v string) bool { return platform.SameEnvName(k, v) })
	})
}

// ErrNoSession is returned when no desktop session of the user's could be
// found whose display opens.
var ErrNoSession = errors.New("no desktop session of yours was found")

// sessionFinder looks for the user's desktop session. Its zero fields take
// the running process's values (newSessionFinder).
type Finder struct {
	Uid int
	// Pid is where the walk up the process tree starts.
	Pid int
	// Getenv reads this process's environment.
	Getenv func(string) string
	// runtimeDir is /run/user/UID when it exists, else "".
	runtimeDir string
	// UserBus is the systemd user manager's bus address; "" skips it.
	UserBus string
	// SystemBus is the system bus address for logind; "" skips it.
	SystemBus string
	// Proc is the proc file system's mount point.
	Proc string
	// Probe opens a session's display, returning why it did not; nil
	// takes every session found as working.
	Probe func(ctx context.Context, s Desktop) error
	// LoginIsDesktop says that this process's own session is the desktop
	// (macOS and Windows: platform.LoginIsDesktop); false looks for it.
	LoginIsDesktop bool
}

// newSessionFinder is the finder for this process, probing displays with
// `exe probe-display`.
func NewFinder(exe string) *Finder {
	uid := os.Getuid()
	f := &Finder{Uid: uid, Pid: os.Getpid(), Getenv: os.Getenv, runtimeDir: paths.UserRuntimeDir(uid), Proc: "/proc",
		LoginIsDesktop: platform.LoginIsDesktop}
	if f.runtimeDir != "" {
		f.UserBus = "unix:path=" + filepath.Join(f.runtimeDir, "bus")
	}
	f.SystemBus = "unix:path=/run/dbus/system_bus_socket"
	if exe != "" {
		f.Probe = func(ctx context.Context, s Desktop) error {
			return probeDisplay(ctx, Runnable(exe), s.Env(HubEnv(os.Environ())))
		}
	}
	return f
}

// Find returns the first session found whose display opens (probe).
// Its error wraps ErrNoSession and says where it looked and why each
// display found did not open.
func (f *Finder) Find(ctx context.Context) (Desktop, error) {
	var found Desktop
	err := f.Each(ctx, func(s Desktop) error {
		if f.Probe != nil {
			if err := f.Probe(ctx, s); err != nil {
				return DisplayFailed{Err: err}
			}
		}
		found = s
		return nil
	})
	return found, err
}

// DisplayFailed is why a session's display did not open, from a try of
// sessionFinder.each: the next session is tried.
type DisplayFailed struct{ Err error }

func (e DisplayFailed) Error() string { return e.Err.Error() }
func (e DisplayFailed) Unwrap() error { return e.Err }

// Each offers the sessions found to try, in the order of the package
// comment, until one is taken: try returns nil. A try that fails with a
// displayFailed moves on to the next session; any other error ends the
// search with that error. When no session was taken, the error wraps
// ErrNoSession and says where it looked and why each display found did
// not open. f.probe is not used: try checks the display (find probes; a
// wrapper starts a hub there, which checks it itself).
func (f *Finder) Each(ctx context.Context, try func(Desktop) error) error {
	var failed []string
	for s := range f.sessions(ctx) {
		err := try(s)
		if err == nil {
			return nil
		}
		var df DisplayFailed
		if !errors.As(err, &df) {
			return err
		}
		failed = append(failed, fmt.Sprintf("display %s (from %s) did not open: %v", s.Display(), s.From, df.Err))
	}
	if len(failed) > 0 {
		return fmt.Errorf("%w: %s", ErrNoSession, strings.Join(failed, "; "))
	}
	return fmt.Errorf("%w: DISPLAY is not set here, nor in the environment of the processes that started this one, the systemd user manager, logind or any other process of yours", ErrNoSession)
}

// Candidates lists the sessions found, in the order of the package comment,
// one per display.
func (f *Finder) Candidates(ctx context.Context) []Desktop {
	return slices.Collect(f.sessions(ctx))
}

// sessions yields the sessions found, in the order of the package comment,
// one per display, each looked for only when the ones before it were not
// taken: a wrapper whose own environment names a display that opens reads
// no other process's (issue 12: scanning every process of the user cost a
// cold prompt milliseconds before its hub even started).
func (f *Finder) sessions(ctx context.Context) iter.Seq[Desktop] {
	return func(yield func(Desktop) bool) {
		if f.LoginIsDesktop {
			// macOS and Windows: windows open wherever the user is logged
			// in, with no display to name; this process's session is the
			// one.
			vars := map[string]string{}
			for _, k := range sessionVars {
				if v := f.Getenv(k); v != "" {
					vars[k] = v
				}
			}
			yield(Desktop{Vars: vars, From: "this login session"})
			return
		}
		seen := map[string]bool{}
		// add offers s unless its display came already; false: stop.
		add := func(s Desktop) bool {
			if s.Display() == "" || seen[s.Display()] {
				return true
			}
			seen[s.Display()] = true
			return yield(f.complete(s))
		}
		if d := f.Getenv("DISPLAY"); d != "" {
			vars := map[string]string{}
			for _, k := range sessionVars {
				if v := f.Getenv(k); v != "" {
					vars[k] = v
				}
			}
			if !add(Desktop{Vars: vars, From: "this process's environment"}) {
				return
			}
		}
		visited := map[int]bool{f.Pid: true}
		for _, s := range f.fromAncestors(visited) {
			if !add(s) {
				return
			}
		}
		if s, ok := f.fromSystemd(ctx); ok && !add(s) {
			return
		}
		for _, s := range f.fromLogind(ctx) {
			if !add(s) {
				return
			}
		}
		for _, s := range f.fromProcesses(visited) {
			if !add(s) {
				return
			}
		}
	}
}

// complete fills in what a session found without them needs: the runtime
// directory, the bus in it, and the display's authorization file where the
// display manager keeps it there.
func (f *Finder) complete(s Desktop) Desktop {
	vars := make(map[string]string, len(s.Vars)+3)
	for k, v := range s.Vars {
		vars[k] = v
	}
	if vars["XDG_RUNTIME_DIR"] == "" && f.runtimeDir != "" {
		vars["XDG_RUNTIME_DIR"] = f.runtimeDir
	}
	if rt := vars["XDG_RUNTIME_DIR"]; rt != "" {
		if vars["DBUS_SESSION_BUS_ADDRESS"] == "" && IsSocket(filepath.Join(rt, "bus")) {
			vars["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + filepath.Join(rt, "bus")
		}
		if vars["XAUTHORITY"] == "" && !Exists(filepath.Join(paths.HomeDir(os.Getenv), ".Xauthority")) {
			// GDM's X sessions and mutter's XWayland keep the cookie in
			// the runtime directory instead of ~/.Xauthority.
			cands := []string{filepath.Join(rt, "gdm", "Xauthority")}
			more, _ := filepath.Glob(filepath.Join(rt, ".mutter-Xwaylandauth.*"))
			for _, c := range append(cands, more...) {
				if Exists(c) {
					vars["XAUTHORITY"] = c
					break
				}
			}
		}
	}
	s.Vars = vars
	return s
}

// fromAncestors returns the sessions in the environments of this process's
// parent, its parent, and so on, as far as they run as this user.
func (f *Finder) fromAncestors(visited map[int]bool) []Desktop {
	var out []Desktop
	pid := f.Pid
	for range 64 {
		ppid := f.parentOf(pid)
		if ppid <= 1 || visited[ppid] {
			break
		}
		visited[ppid] = true
		pid = ppid
		vars, ok := f.environOf(pid)
		if !ok {
			continue // another user's (sudo, sshd): look further up
		}
		if vars["DISPLAY"] != "" {
			out = append(out, Desktop{Vars: vars, From: fmt.Sprintf("the environment of %s (pid %d), which started this one", f.commOf(pid), pid)})
		}
	}
	return out
}

// fromSystemd returns the session in the systemd user manager's
// environment (org.freedesktop.systemd1.Manager.Environment).
func (f *Finder) fromSystemd(ctx context.Context) (Desktop, bool) {
	if f.UserBus == "" || !IsSocket(strings.TrimPrefix(f.UserBus, "unix:path=")) {
		return Desktop{}, false
	}
	var env []string
	err := WithBus(ctx, f.UserBus, func(conn *dbus.Conn) error {
		v, err := conn.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").
			GetProperty("org.freedesktop.systemd1.Manager.Environment")
		if err != nil {
			return err
		}
		return v.Store(&env)
	})
	if err != nil {
		return Desktop{}, false
	}
	vars := pickVars(env)
	if vars["DISPLAY"] == "" {
		return Desktop{}, false
	}
	return Desktop{Vars: vars, From: "the systemd user manager's environment"}, true
}

// LogindSession is an entry of org.freedesktop.login1.Manager.ListSessions.
type LogindSession struct {
	ID   string
	UID  uint32
	User string
	Seat string
	Path dbus.ObjectPath
}

// fromLogind returns this user's graphical logind sessions that name an
// X11 display, active ones first; the session leader's environment is used
// when it is the user's own.
func (f *Finder) fromLogind(ctx context.Context) []Desktop {
	if f.SystemBus == "" || !IsSocket(strings.TrimPrefix(f.SystemBus, "unix:path=")) {
		return nil
	}
	type found struct {
		s      Desktop
		active bool
	}
	var all []found
	_ = WithBus(ctx, f.SystemBus, func(conn *dbus.Conn) error {
		var sessions []LogindSession
		if err := conn.Object("org.freedesktop.login1", "/org/freedesktop/login1").
			CallWithContext(ctx, "org.freedesktop.login1.Manager.ListSessions", 0).Store(&sessions); err != nil {
			return err
		}
		for _, ls := range sessions {
			if int(ls.UID) != f.Uid {
				continue
			}
			obj := conn.Object("org.freedesktop.login1", ls.Path)
			prop := func(name string) dbus.Variant {
				v, _ := obj.GetProperty("org.freedesktop.login1.Session." + name)
				return v
			}
			display, _ := prop("Display").Value().(string)
			typ, _ := prop("Type").Value().(string)
			active, _ := prop("Active").Value().(bool)
			leader, _ := prop("Leader").Value().(uint32)
			if display == "" {
				continue
			}
			vars := map[string]string{"DISPLAY": display, "XDG_SESSION_TYPE": typ}
			if env, ok := f.environOf(int(leader)); ok && env["DISPLAY"] == display {
				vars = env
			}
			all = append(all, found{Desktop{Vars: vars, From: fmt.Sprintf("logind session %s (%s)", ls.ID, typ)}, active})
		}
		return nil
	})
	slices.SortStableFunc(all, func(a, b found) int {
		switch {
		case a.active == b.active:
			return 0
		case a.active:
			return -1
		}
		return 1
	})
	out := make([]Desktop, len(all))
	for i, x := range all {
		out[i] = x.s
	}
	return out
}

// fromProcesses returns, for each display named in the environment of a
// process of this user, the session of the process that looks most like a
// desktop session's own, best display first. A user may have several X
// servers (a desktop and an Xvfb a test runner started, say): a display
// whose processes name a desktop (XDG_CURRENT_DESKTOP, or XDG_SESSION_TYPE
// x11 or wayland) comes first, then one whose processes name a session bus,
// then the display more processes use.
func (f *Finder) fromProcesses(visited map[int]bool) []Desktop {
	entries, err := os.ReadDir(f.Proc)
	if err != nil {
		return nil
	}
	type display struct {
		pid   int // the most session-like process
		vars  map[string]string
		score int
		procs int
	}
	byDisplay := map[string]*display{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || visited[pid] {
			continue
		}
		vars, ok := f.environOf(pid)
		d := vars["DISPLAY"]
		if !ok || d == "" {
			continue
		}
		score := sessionScore(vars)
		b := byDisplay[d]
		if b == nil {
			b = &display{pid: pid, vars: vars, score: score}
			byDisplay[d] = b
		} else if score > b.score {
			b.pid, b.vars, b.score = pid, vars, score
		}
		b.procs++
	}
	displays := slices.Collect(maps.Values(byDisplay))
	slices.SortFunc(displays, func(a, b *display) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(b.procs, a.procs); c != 0 {
			return c
		}
		return cmp.Compare(a.pid, b.pid)
	})
	var out []Desktop
	for _, p := range displays {
		out = append(out, Desktop{Vars: p.vars, From: fmt.Sprintf("the environment of %s (pid %d), a process of yours", f.commOf(p.pid), p.pid)})
	}
	return out
}

// sessionScore is how much a process's environment looks like a desktop
// session's: 2 for a desktop named, 1 for a session bus.
func sessionScore(vars map[string]string) int {
	score := 0
	if t := vars["XDG_SESSION_TYPE"]; vars["XDG_CURRENT_DESKTOP"] != "" || t == "x11" || t == "wayland" {
		score += 2
	}
	if vars["DBUS_SESSION_BUS_ADDRESS"] != "" {
		score++
	}
	return score
}

// environOf returns the session variables in the environment of process
// pid, and whether it could be read: it runs as this user.
func (f *Finder) environOf(pid int) (map[string]string, bool) {
	dir := filepath.Join(f.Proc, strconv.Itoa(pid))
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, false
	}
	if o, ok := platform.FileOwner(dir, fi); !ok || o != platform.UID(f.Uid) {
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(dir, "environ"))
	if err != nil {
		return nil, false
	}
	var env []string
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if len(kv) > 0 {
			env = append(env, string(kv))
		}
	}
	return pickVars(env), true
}

// parentOf is pid's parent process id, or 0.
func (f *Finder) parentOf(pid int) int {
	b, err := os.ReadFile(filepath.Join(f.Proc, strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// commOf is process pid's command name, e.g. "code".
func (f *Finder) commOf(pid int) string {
	b, err := os.ReadFile(filepath.Join(f.Proc, strconv.Itoa(pid), "comm"))
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return "process"
	}
	return string(bytes.TrimSpace(b))
}

// pickVars returns the sessionVars among env's KEY=value entries.
func pickVars(env []string) map[string]string {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if ok && v != "" && slices.Contains(sessionVars, k) {
			vars[k] = v
		}
	}
	return vars
}

// BusTimeout bounds each question to a bus: one that does not answer must
// not hold up a prompt.
const BusTimeout = 2 * time.Second

// WithBus connects to the bus at addr, runs f, and disconnects.
func WithBus(ctx context.Context, addr string, f func(*dbus.Conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, BusTimeout)
	defer cancel()
	done := make(chan error, 1)
	// Connecting and authenticating take no context: aside, and given up
	// on when the bus does not answer.
	go func() {
		conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
		if err != nil {
			done <- err
			return
		}
		defer conn.Close()
		done <- f(conn)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func IsSocket(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode()&os.ModeSocket != 0
}

func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Runnable is exe, or this very program through /proc/self/exe when exe is
// gone: an upgrade may move the binary while a wrapper runs.
func Runnable(exe string) string {
	if _, err := os.Stat(exe); err != nil && Exists("/proc/self/exe") {
		return "/proc/self/exe"
	}
	return exe
}
