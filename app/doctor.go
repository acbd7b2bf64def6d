package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/elicitray/elicitray/app/desktop"
	"github.com/elicitray/elicitray/app/hubapi"

	"github.com/elicitray/elicitray/app/session"
	"github.com/elicitray/elicitray/ui/lang"

	"github.com/elicitray/elicitray/app/journal"

	"github.com/elicitray/elicitray/app/autostart"
	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"

	"github.com/godbus/dbus/v5"
	"github.com/spf13/cobra"

	"github.com/elicitray/elicitray/app/hosts"
	"github.com/elicitray/elicitray/history"
)

// `elicitray doctor`: one screen of sentences on everything a prompt needs
// on its way to a window, in the order it needs them, and whether prompts
// can be shown at all. It exits 1 when it prints a ✗, 0 when every line is
// ✓ or ! (docs/troubleshooting.md says which is which).

// Finding levels.
const (
	levelOK      = "✓"
	levelNote    = "!" // works, with a limit the user should know
	levelProblem = "✗" // stops prompts, or loses something
)

// finding is one line of the report, with the lines under it.
type finding struct {
	level string
	topic string
	text  string
	more  []string
}

// doctor gathers findings. Its fields say where to look, so that tests
// can point it at their own home.
type doctor struct {
	paths  paths.Paths
	exe    string
	finder *session.Finder

	found []finding
	// hubRunning: a hub answered.
	hubRunning bool
	// hubProblem is what the running hub says keeps decisions out of
	// history, "" when nothing does.
	hubProblem string
	// hubPID is the pid of the process at the hub's socket, answering or
	// not; 0 when none.
	hubPID int
	// hubDisplay is the display the running hub says its windows open on
	// (Hub.Display); "" when it said none.
	hubDisplay string
	// blocked says why prompts cannot be shown; empty when they can.
	blocked []string
}

func newDoctorCmd(ctx context.Context, p paths.Paths, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check everything prompts need: display, tray, hub, history, config, hosts",
		Long: "doctor says, in one screen, whether and how elicitray can show prompts here: the\n" +
			"display and how it was found, the tray host and notifications, the hub's socket\n" +
			"directory, the running hub and its version, the history file and the free disk\n" +
			"space, every mistake in config.toml, and each host's config. It exits 1 when\n" +
			"it finds a problem (a line marked ✗), 0 when there are only warnings (!).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			exe, err := os.Executable()
			if err != nil {
				return runErr(err)
			}
			d := &doctor{paths: p, exe: exe, finder: session.NewFinder(exe)}
			d.run(ctx)
			d.write(stdout)
			// Every ✗, not only what stops prompts: a history that cannot
			// be written or a host entry whose binary is gone loses
			// decisions, and a script reads the status, not the lines.
			for _, f := range d.found {
				if f.level == levelProblem {
					return exitCode(exitError)
				}
			}
			return nil
		},
	}
}

func (d *doctor) add(level, topic, format string, args ...any) *finding {
	d.found = append(d.found, finding{level: level, topic: topic, text: fmt.Sprintf(format, args...)})
	return &d.found[len(d.found)-1]
}

// run makes every check.
func (d *doctor) run(ctx context.Context) {
	hubPID, hubVersion, hubErr := d.hub(ctx)
	d.hubPID, d.hubRunning = hubPID, hubErr == nil
	d.bus(ctx, d.display(ctx))
	d.fonts(ctx)
	d.runDir()
	d.reportHub(hubPID, hubVersion, hubErr)
	d.history()
	d.config()
	d.hosts()
	d.autostart()
}

// autostart says whether the hub starts at login (app/autostart).
func (d *doctor) autostart() {
	t, err := autostart.Current()
	var st autostart.State
	if err == nil {
		st, err = autostart.New().Status(t)
	}
	switch {
	case err != nil:
		d.add(levelNote, lang.L("Autostart"), lang.L("could not read the autostart entry: %v."), err)
	case st.On && st.Current:
		d.add(levelOK, lang.L("Autostart"), "%s", autostartSentence(st))
	default:
		d.add(levelNote, lang.L("Autostart"), "%s", autostartSentence(st))
	}
}

// hub asks the running hub for its status: its pid and version, or why none
// answers (with the pid of what listens, if anything does).
func (d *doctor) hub(ctx context.Context) (pid int, version string, err error) {
	c := cliHub(d.paths, nil)
	defer c.Close()
	r, err := c.Probe(ctx)
	pid = c.PID()
	switch {
	case err == nil:
		d.hubProblem, d.hubDisplay = r.Problem, r.Display
		return pid, r.Version, nil
	case pid == 0:
		return 0, "", err // nothing listens, or nothing to trust
	case errors.Is(err, context.DeadlineExceeded):
		return pid, "", fmt.Errorf(lang.L("the hub (pid %d) did not answer within 5s: it may be stopped or hung (`kill %d`; the next prompt starts a new one)"), pid, pid)
	}
	return pid, "", fmt.Errorf(lang.L("the hub (pid %d) did not answer: %w"), pid, err)
}

// display finds the desktop session a wrapper would start a hub in.
func (d *doctor) display(ctx context.Context) session.Desktop {
	sess, err := d.finder.Find(ctx)
	if err == nil && platform.LoginIsDesktop {
		d.add(levelOK, lang.L("Display"), lang.L("windows open in %s."), sessionFrom(sess.From))
		return sess
	}
	if err == nil {
		d.add(levelOK, lang.L("Display"), lang.L("%s opens (found in %s)."), sess.Display(), sessionFrom(sess.From))
		return sess
	}
	// The verdict follows this line: prompts can be shown only where a
	// display is, here or the running hub's. A hub answers only while its
	// display is open (it stops when the display goes: openDisplay), so a
	// display it names is one it holds.
	switch {
	case d.hubRunning && d.hubDisplay != "":
		d.add(levelOK, lang.L("Display"), lang.L("the running hub (pid %d) shows the windows on DISPLAY=%s; none found here (%v)."), d.hubPID, d.hubDisplay, err)
	case d.hubRunning && !platform.LoginIsDesktop:
		d.add(levelProblem, lang.L("Display"), lang.L("none found here (%v), and the running hub (pid %d) does not say which display it shows the windows on (an older elicitray: `elicitray quit`, and the next prompt starts this one)."), err, d.hubPID)
		d.blocked = append(d.blocked, lang.L("no display was found that the windows could open on"))
	case d.hubRunning:
		d.add(levelNote, lang.L("Display"), lang.L("none found here (%v); the running hub shows the windows."), err)
	default:
		d.add(levelProblem, lang.L("Display"), "%v.", err)
		d.blocked = append(d.blocked, lang.L("no desktop session was found to start a hub in"))
	}
	return session.Desktop{}
}

// bus checks the tray host and the notification server on the session's
// bus.
func (d *doctor) bus(ctx context.Context, sess session.Desktop) {
	if platform.LoginIsDesktop {
		// macOS and Windows: the tray icon and the notifications are the
		// system's own (the menu bar, the notification area), always there.
		d.add(levelOK, lang.L("Tray"), "%s", lang.L("the system's tray (the menu bar on macOS, the notification area on Windows) shows the icon."))
		return
	}
	addr := sess.Vars["DBUS_SESSION_BUS_ADDRESS"]
	if addr == "" {
		addr = desktop.SessionBusAddress()
	}
	if addr == "" {
		d.add(levelNote, lang.L("Tray"), "%s", lang.L("this session has no D-Bus session bus, so no tray icon: `elicitray menu` opens its menu in a window (the launcher's Open Menu), and `history window`, `settings`, `pause`, `status` and `quit` do what its items do."))
		d.add(levelNote, lang.L("Notifications"), lang.L("no session bus, so no desktop notifications: notices go to %s only."), d.paths.HubLog)
		return
	}
	if platform.TrayHostOn(addr) {
		d.add(levelOK, lang.L("Tray"), "%s", lang.L("a tray host (StatusNotifierWatcher) runs on the session bus."))
	} else {
		d.add(levelNote, lang.L("Tray"), "%s", lang.L("no tray host (StatusNotifierWatcher) on the session bus (stock GNOME needs an extension): the hub runs without a tray icon; `elicitray menu` opens its menu in a window (the launcher's Open Menu), and `history window`, `settings`, `pause`, `status` and `quit` do what its items do."))
	}
	if name, err := notificationServer(ctx, addr); err == nil {
		d.add(levelOK, lang.L("Notifications"), lang.L("%s shows desktop notifications."), name)
	} else {
		d.add(levelNote, lang.L("Notifications"), lang.L("%v: notices (suppressed prompts, config mistakes) go to %s only."), err, d.paths.HubLog)
	}
}

// notificationServer names the notification server on the bus at addr
// (org.freedesktop.Notifications.GetServerInformation).
func notificationServer(ctx context.Context, addr string) (string, error) {
	var name, vendor, version, spec string
	err := session.WithBus(ctx, addr, func(conn *dbus.Conn) error {
		return conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications").
			CallWithContext(ctx, "org.freedesktop.Notifications.GetServerInformation", 0).
			Store(&name, &vendor, &version, &spec)
	})
	if err != nil {
		return "", fmt.Errorf(lang.L("no notification server answers on the session bus (%v)"), err)
	}
	return strings.TrimSpace(name + " " + version), nil
}

// runDir checks the directory of the hub's socket.
func (d *doctor) runDir() {
	if n, most := len(d.paths.Socket), platform.MaxSocketPath(); n > most {
		d.add(levelProblem, lang.L("Socket directory"), lang.L("the hub's socket %s is %d bytes long, and a unix socket's path may have %d at most: no hub can listen there (set ELICITRAY_HOME to a shorter directory)."), d.paths.Socket, n, most)
		d.blocked = append(d.blocked, lang.L("the hub's socket path is too long"))
		return
	}
	err := paths.CheckRunDir(d.paths.RunDir)
	switch {
	case err == nil:
		d.add(levelOK, lang.L("Socket directory"), lang.L("%s is yours, mode 0700."), d.paths.RunDir)
	case errors.Is(err, fs.ErrNotExist):
		d.add(levelOK, lang.L("Socket directory"), lang.L("%s does not exist yet: the first hub makes it, mode 0700."), d.paths.RunDir)
	default:
		d.add(levelProblem, lang.L("Socket directory"), "%s.", runDirRefusal(strings.TrimSuffix(err.Error(), ": "+paths.ErrUntrusted.Error())))
		if !d.hubRunning {
			d.blocked = append(d.blocked, lang.L("the hub's socket directory cannot be trusted"))
		}
	}
}

// reportHub says whether a hub runs, and whether it is this binary's.
func (d *doctor) reportHub(pid int, version string, err error) {
	switch {
	case err == nil:
		f := d.add(levelOK, lang.L("Hub"), lang.L("running (pid %d), elicitray %s like this binary."), pid, version)
		if version != Version {
			f.level = levelNote
			f.text = fmt.Sprintf(lang.L("running (pid %d), but it is elicitray %s and this binary is %s: `elicitray quit`, and the next prompt starts this one."), pid, orUnknown(version), Version)
		}
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && exe != d.exe {
			f.more = append(f.more, fmt.Sprintf(lang.L("it runs %s, not %s"), exe, d.exe))
		}
	case errors.Is(err, paths.ErrUntrusted) && paths.CheckRunDir(d.paths.RunDir) != nil:
		d.add(levelProblem, lang.L("Hub"), "%s", lang.L("not reached: its socket directory cannot be trusted (see above)."))
	case errors.Is(err, paths.ErrUntrusted):
		d.add(levelProblem, lang.L("Hub"), "%s.", strings.TrimSuffix(err.Error(), ": "+paths.ErrUntrusted.Error()))
		d.blocked = append(d.blocked, lang.L("what listens at the hub's socket is not yours"))
	case errors.Is(err, hubapi.ErrNotRunning):
		f := d.add(levelOK, lang.L("Hub"), "%s", lang.L("not running; the first prompt starts one."))
		if why := session.HubFailure(d.paths.HubLog, 0); why != "" {
			f.level = levelNote
			f.more = append(f.more, lang.L("the last hub that was started could not: ")+why)
		}
	default:
		d.add(levelProblem, lang.L("Hub"), "%v.", err)
	}
}

func orUnknown(v string) string {
	if v == "" {
		return lang.L("(an older version that does not say)")
	}
	return v
}

// history checks the history file and the disk it is on.
func (d *doctor) history() {
	path := d.paths.History
	var f *finding
	if d.hubRunning {
		size := lang.L("not made yet")
		if fi, err := os.Stat(path); err == nil {
			size = lang.Bytes(fi.Size())
		}
		f = d.add(levelOK, lang.L("History"), lang.L("%s, %s, kept by the running hub"), path, size)
		if d.hubProblem != "" {
			f.level = levelProblem
			f.more = append(f.more, d.hubProblem+lang.L(" (prompts still work; the hub keeps trying)"))
		}
	} else {
		info, err := history.Inspect(path, 500*time.Millisecond)
		var unwritable error
		if err == nil && info.Exists {
			unwritable = platform.Writable(path)
		}
		switch {
		case unwritable != nil:
			f = d.add(levelProblem, lang.L("History"), lang.L("%s cannot be written (%v): a hub keeps decisions in the spool until it can"), path, unwritable)
		case err == nil && !info.Exists:
			f = d.add(levelOK, lang.L("History"), lang.L("%s is not made yet (the first decision makes it)"), path)
		case err == nil && info.Records < 0:
			f = d.add(levelOK, lang.L("History"), lang.L("%s, %s, of an older layout that the hub upgrades when it starts"), path, lang.Bytes(info.Size))
		case err == nil:
			f = d.add(levelOK, lang.L("History"), lang.L("%s, %s, %s"), path, lang.N("{{.Count}} decisions", info.Records, lang.Count(info.Records)), lang.Bytes(info.Size))
		case errors.Is(err, history.ErrLocked) && d.hubPID > 0:
			if holder, _ := journal.LockHolder(path); holder == d.hubPID {
				f = d.add(levelProblem, lang.L("History"), lang.L("%s is held by the hub (pid %d), which does not answer: it may be stopped or hung (`kill %d`; the next prompt starts a new one)"), path, d.hubPID, d.hubPID)
				break
			}
			fallthrough
		case errors.Is(err, history.ErrLocked):
			f = d.add(levelProblem, lang.L("History"), lang.L("%v; a hub keeps decisions in the spool until it is free"), journal.OpenError(path, err))
		case errors.Is(err, history.ErrCorrupt):
			f = d.add(levelNote, lang.L("History"), lang.L("%s cannot be read (%v): the hub will move it aside and start a new one"), path, err)
		default:
			f = d.add(levelProblem, lang.L("History"), lang.L("%s: %v"), path, err)
		}
	}
	if free, ok := journal.FreeSpace(path); ok {
		f.text += fmt.Sprintf(lang.L("; %s free on its disk"), lang.Bytes(free))
		if free < journal.MinFree {
			f.level = levelProblem
			f.more = append(f.more, lang.L("the disk is full: decisions are kept in memory, and saved once space is freed"))
		}
	}
	f.text += lang.L(".")
	if n := journal.CountSpool(journal.SpoolDir(d.paths)); n > 0 && !d.hubRunning {
		d.add(levelNote, lang.L("Spool"), lang.L("%s in %s, not yet in history: the next hub (or `elicitray history list`) takes them in."), lang.N("{{.Count}} decisions", n, lang.Count(n)), journal.SpoolDir(d.paths))
	}
}

// config reports every mistake in config.toml at once.
func (d *doctor) config() {
	_, problems, err := config.Check(d.paths.Config)
	var mistakes, warnings []string
	for _, p := range problems {
		if p.Warning {
			warnings = append(warnings, p.Shown())
		} else {
			mistakes = append(mistakes, p.Shown())
		}
	}
	switch {
	case err != nil:
		d.add(levelProblem, lang.L("Config"), lang.L("%v; the hub uses the default settings."), err) // err names the file
	case !session.Exists(d.paths.Config):
		d.add(levelOK, lang.L("Config"), lang.L("%s does not exist: the defaults apply."), d.paths.Config)
	case len(mistakes) > 0:
		uses := lang.N("a hub started now uses the default settings until they are fixed", len(mistakes))
		if d.hubRunning {
			uses = lang.N("the running hub keeps the settings it had, and one started now uses the defaults, until they are fixed", len(mistakes))
		}
		f := d.add(levelProblem, lang.L("Config"), lang.L("%s has %s; %s:"), d.paths.Config, lang.N("{{.Count}} mistakes", len(mistakes), lang.Count(len(mistakes))), uses)
		f.more = append(mistakes, warnings...)
	case len(warnings) > 0:
		f := d.add(levelNote, lang.L("Config"), lang.L("%s has keys elicitray does not know, ignored:"), d.paths.Config)
		f.more = warnings
	default:
		d.add(levelOK, lang.L("Config"), lang.L("%s has no mistakes."), d.paths.Config)
	}
}

// hosts reports each installed host's config: which servers run through
// elicitray, and whether the binary a wrapped entry runs still exists.
func (d *doctor) hosts() {
	env, err := hosts.EnvFromOS(".")
	if err != nil {
		d.add(levelNote, lang.L("Hosts"), lang.L("could not look for host configs: %v."), err)
		return
	}
	any := false
	seen := map[string]bool{} // a project scope in the home directory is the user scope's file
	for _, r := range hosts.Survey(env) {
		if !r.Installed || !r.Exists || seen[r.Path] {
			continue
		}
		seen[r.Path] = true
		any = true
		topic := r.Title
		if r.Scope != "" {
			topic += " (" + r.Scope + ")"
		}
		path := tildePath(r.Path, env.Home)
		if r.Err != nil {
			d.add(levelProblem, topic, lang.L("%s cannot be read: %s."), path, tildeErr(r.Err, env.Home))
			continue
		}
		by := map[hosts.State][]string{}
		var moved, other []string
		wrappable := 0 // entries `hosts wrap --all` would wrap
		for _, e := range r.Entries {
			by[e.State] = append(by[e.State], displayText(e.Key))
			if e.Wrappable() {
				wrappable++
			}
			if e.State == hosts.StateWrapped && !e.BinaryExists {
				moved = append(moved, fmt.Sprintf(lang.L("%s runs %s, which does not exist: `elicitray hosts wrap %s %s` points it at this binary"), displayText(e.Key), displayText(e.Binary), r.Host, shellJoin([]string{e.Key})))
			} else if e.State == hosts.StateWrapped && !sameBinary(e.Binary, d.exe) {
				other = append(other, fmt.Sprintf(lang.L("%s runs %s, not this binary"), displayText(e.Key), displayText(e.Binary)))
			}
		}
		var parts []string
		for _, st := range []hosts.State{hosts.StateWrapped, hosts.StateNotWrapped, hosts.StateRemote, hosts.StateUnsupported} {
			if keys := by[st]; len(keys) > 0 {
				parts = append(parts, fmt.Sprintf(lang.L("%s: %s"), hostState(st), strings.Join(keys, lang.L(", "))))
			}
		}
		if len(parts) == 0 {
			parts = []string{lang.L("no servers")}
		}
		level := levelOK
		if wrappable > 0 {
			level = levelNote
			other = append(other, fmt.Sprintf(lang.L("`elicitray hosts wrap %s --all` wraps the rest"), r.Host))
		}
		if len(moved) > 0 {
			level = levelProblem
		}
		f := d.add(level, topic, lang.L("%s: %s."), path, strings.Join(parts, lang.L("; ")))
		f.more = append(append(f.more, moved...), other...)
	}
	if !any {
		d.add(levelNote, lang.L("Hosts"), "%s", lang.L("no config of a host elicitray knows was found (`elicitray hosts list` names them)."))
	}
}

// write prints the report.
func (d *doctor) write(w io.Writer) {
	fmt.Fprintf(w, "elicitray %s (%s)\n\n", Version, d.exe)
	for _, f := range d.found {
		fmt.Fprintln(w, fmt.Sprintf(lang.L("%s %s: %s"), f.level, f.topic, f.text))
		for _, m := range f.more {
			fmt.Fprintf(w, "    - %s\n", m)
		}
	}
	fmt.Fprintln(w)
	if len(d.blocked) > 0 {
		fmt.Fprintln(w, lang.L("Prompts cannot be shown: {{.Why}}.", map[string]any{"Why": strings.Join(d.blocked, lang.L("; "))}))
		return
	}
	fmt.Fprintln(w, lang.L("Prompts can be shown."))
}

// hostState is how a host entry's state reads in the report.
func hostState(st hosts.State) string {
	switch st {
	case hosts.StateWrapped:
		return lang.L("wrapped")
	case hosts.StateNotWrapped:
		return lang.L("not wrapped")
	case hosts.StateRemote:
		return lang.L("remote")
	case hosts.StateUnsupported:
		return lang.L("unsupported")
	}
	return string(st)
}
