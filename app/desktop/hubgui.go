package desktop

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/elicitray/elicitray/app/winproto"
	"github.com/elicitray/elicitray/ui/lang"
	"github.com/elicitray/elicitray/ui/state"

	"github.com/elicitray/elicitray/app/session"

	"github.com/elicitray/elicitray/app/hub"

	"github.com/elicitray/elicitray/app/remember"

	"github.com/elicitray/elicitray/app/journal"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/ui"
)

// StartError is runHub's error when the hub could not start, already said
// in its log (session.HubFailPrefix). NoDisplay: its display did not open,
// and the hub process ends with session.HubExitNoDisplay.
type StartError struct {
	Err       error
	NoDisplay bool
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Run runs the desktop hub until Quit or ctx ends; forWindow says it was
// started to show a window (session.StartHub). When it cannot start,
// its last line in the log (its stderr) is session.HubFailPrefix and a sentence
// saying why, which the wrapper or command that started it shows the user.
func Run(ctx context.Context, p paths.Paths, version string, forWindow bool, stderr io.Writer) error {
	// The hub's log is read later, from hub.log: each line says when.
	stderr = &StampWriter{W: stderr, Now: time.Now}
	fail := func(err error) error {
		fmt.Fprintf(stderr, "%s%v\n", session.HubFailPrefix, err)
		return &StartError{Err: err}
	}
	// The display first, then the lock: a hub whose display does not open
	// stops before it holds the lock (saying so by its exit status, so that
	// the wrapper that started it tries the next session), and so never
	// turns away a hub started at the same time on one that opens. Of hubs
	// started together, all but one stop at the lock.
	userEnv, releaseDisplay, displayLost, err := prepareDesktop(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s%v\n", session.HubFailPrefix, err)
		return &StartError{Err: err, NoDisplay: true}
	}
	defer releaseDisplay() // held for the hub's life (below)
	lock, err := hub.Lock(p)
	if errors.Is(err, hub.ErrRunning) {
		fmt.Fprintf(stderr, "elicitray: %v\n", err)
		return nil
	}
	if err != nil {
		return fail(err)
	}
	defer lock.Close()
	// A config the hub cannot use must not turn prompts off: the hub runs
	// with the defaults (it asks) and says what is wrong.
	var notices []string
	cfg, err := config.Load(p.Config)
	if err != nil {
		lines, _, body := config.Trouble(err, config.DefaultSettings)
		for _, l := range lines {
			fmt.Fprintf(stderr, "elicitray hub: %s\n", l)
		}
		notices = append(notices, body)
		warnings := cfg.Warnings
		cfg, _ = config.Load("")
		cfg.Warnings = warnings
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "elicitray hub: %s\n", w)
		notices = append(notices, w)
	}
	// The display was opened to check it (prepareDesktop): a hub that
	// cannot reach it has failed by now, before it takes the socket, so
	// that no wrapper hands it a prompt. The hub itself draws nothing: its
	// windows are the window process's (winproc.go), started when one is
	// wanted, and first now (windows.prestart): its start is most of a cold
	// prompt's way to the screen, and overlaps the history's opening, the
	// socket, the tray and the wrapper's connecting from here. The hub
	// keeps the display connection, idle, for its life: an X server resets
	// when its last client leaves and refuses connections meanwhile, and
	// the window process that ended may have been the last.
	exe, err := os.Executable()
	if err != nil {
		return fail(fmt.Errorf("finding elicitray's own program: %w", err))
	}
	hb := &hub.Hub{Version: version, Config: cfg, ConfigPath: p.Config, RulesPath: remember.Path(p), Log: stderr, Display: os.Getenv("DISPLAY")}
	win := &Windows{Hub: hb, Paths: p, exe: exe, log: stderr, linger: lingerFrom(os.Getenv), open: browserOpener(userEnv)}
	hb.Prompter = win
	win.prestart()
	defer win.Close() // a hub that fails below lets it go; else done below
	// The history before the socket. A history that cannot take records
	// now (another process holds it, the disk is full) does not cost a
	// prompt: the hub spools decisions and tries again (journal.go). An
	// unreadable history file is moved aside, not lost: the user is told
	// where it went, and decisions go on being kept in a new one.
	hubLog := func(format string, args ...any) { fmt.Fprintf(stderr, "elicitray hub: "+format+"\n", args...) }
	jr, movedTo := journal.Open(p.History, &journal.Spool{Dir: journal.SpoolDir(p), Role: "hub", Reserve: journal.HubReserve}, hubLog)
	defer jr.Close()
	if movedTo != "" {
		fmt.Fprintf(stderr, "elicitray hub: the history file %s could not be read; it was moved to %s and a new one started\n", p.History, movedTo)
		notices = append(notices, lang.L("The history file could not be read. It was moved to {{.Path}} and a new history started.", map[string]any{"Path": movedTo}))
	}
	if st := jr.State(); st.Problem() != "" {
		fmt.Fprintf(stderr, "elicitray hub: %s; prompts work meanwhile, and their decisions are kept in the spool (%s) until history takes them\n", st.Problem(), journal.SpoolDir(p))
		notices = append(notices, st.Notice())
	}
	ln, err := hub.OpenSocket(p)
	if err != nil {
		return fail(err)
	}
	defer ln.Close()
	notes := &Notifier{Addr: SessionBusAddress(), log: stderr}
	defer notes.Close()
	notify := notes.Notify
	// Each prompt on screen comes with a notification of it (notice.go).
	hb.Prompter = &Noticer{Prompter: win, Hub: hb, Note: notes}

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	hb.SetJournal(jr)
	hb.ConfigRead()
	hb.Recorded = win.changed
	quit := func() { stop() }
	var tray *ui.Tray
	// noTrayTold, in the hub log's directory, says the desktop was shown
	// noTrayNotice: made once a notification server took it, so that a
	// session with no notifications either (no bus) tells at a later start.
	noTrayTold := filepath.Join(filepath.Dir(p.HubLog), NoTrayMarker)
	tellNoTray := false
	if platform.TrayAvailable() {
		tray = ui.SetupTray(ui.TrayActions{
			History:   win.showHistory,
			Settings:  win.showSettings,
			Quit:      quit,
			SetPaused: func(paused bool) { go hb.SetPaused(paused) },
			Mute:      func(server string) { go hb.Mute(server, hub.MuteFor) },
			Unmute:    func(server string) { go hb.Unmute(server) },
		})
	} else {
		fmt.Fprintln(stderr, "elicitray hub: this session has no tray host (StatusNotifier on DBus); running without a tray icon — windows and `elicitray history` still work")
		if _, err := os.Lstat(noTrayTold); err == nil {
			fmt.Fprintln(stderr, "elicitray hub: (the desktop was told once, at the first start without a tray, where the tray's menu is instead)")
		} else {
			tellNoTray = true
		}
	}
	// The menu window (menuwin.go) shows what the tray shows.
	win.menu.quit = quit
	win.menu.noTray = tray == nil
	win.menu.state = func() state.MenuState {
		st := state.MenuState{Waiting: int(win.menu.waiting.Load()), Paused: hb.Paused(), Problem: jr.State().Problem()}
		for _, s := range hb.Servers() {
			st.Servers = append(st.Servers, state.TrayServer{Name: s.Name, MutedUntil: s.MutedUntil})
		}
		return st
	}
	hb.Changed = func(n int) {
		win.menu.waiting.Store(int64(n))
		tray.SetPending(n)
		win.setWaiting(n - 1) // behind the window on screen
		win.menuChanged()
	}
	hb.PolicyChanged = func() {
		// Read on the tray's goroutine, in the order changes happen: the
		// tray ends on the latest state.
		tray.Sync(func() (bool, []state.TrayServer) {
			var servers []state.TrayServer
			for _, s := range hb.Servers() {
				servers = append(servers, state.TrayServer{Name: s.Name, MutedUntil: s.MutedUntil})
			}
			return hb.Paused(), servers
		})
		win.menuChanged()
	}
	hb.PolicyChanged()
	// What waits to be saved shows in the tray, and a change of it as a
	// notification: the user learns when decisions are not in history,
	// and when they are again.
	var lastMu sync.Mutex
	var lastNotice string
	jr.Told = func(st journal.State) {
		tray.SetProblem(st.Problem())
		win.menuChanged()
		lastMu.Lock()
		n := st.Notice()
		changed := n != lastNotice
		lastNotice = n
		lastMu.Unlock()
		if changed {
			notify("elicitray", n)
		}
	}
	if st := jr.State(); st.Problem() != "" {
		tray.SetProblem(st.Problem())
	}
	hb.Notify = notify
	hb.Quit = quit
	hb.ShowHistory = win.showHistory
	hb.ShowSettings = win.showSettings
	hb.ShowMenu = win.showMenu
	for _, n := range notices {
		notify("elicitray", n)
	}
	// told is closed once the no-tray notice is sent and marked as told: a
	// hub quit as the notice shows still marks it, so the next does not
	// tell again. Not cut off by the quit (the send's own bus timeout
	// bounds it): the hub waits for it as it stops.
	told := make(chan struct{})
	if tellNoTray {
		go func() {
			defer close(told)
			if _, err := notes.send(context.WithoutCancel(ctx), Note{Title: "elicitray", Body: lang.L(noTrayNotice)}); err != nil {
				notes.failedOnce(err)
				return
			}
			firstTime(noTrayTold)
		}()
	} else {
		close(told)
	}
	// Before the socket serves: a window a command opens comes after it,
	// unless the hub was started to show that window, which then comes
	// first and alone.
	switch {
	case !autostartOfferDue(p, forWindow, stderr):
	case forWindow:
		win.offerAfterWindows()
	default:
		win.openWindow(winproto.Message{Op: winproto.OpOffer})
	}

	go hb.KeepPruning(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := hb.Serve(ctx, ln); err != nil {
			fmt.Fprintf(stderr, "elicitray hub: %v\n", err)
		}
	}()
	fmt.Fprintf(stderr, "%s%s, history in %s, display %s\n", session.HubStartedLine, platform.Endpoint(p.Socket), p.History, os.Getenv("DISPLAY"))
	// Until Quit, a signal, the socket failing, or the display going: the
	// hub then stops. A hub whose X server ended can show nothing more:
	// every window process it started would fail, and every prompt be
	// answered cancel, until the user quit it. Stopping frees the lock and
	// the socket, so that the next prompt's wrapper starts a hub on the
	// display there is then, or says there is none (session.HubExitNoDisplay).
	select {
	case <-ctx.Done():
	case <-served:
	case <-displayLost:
		fmt.Fprintf(stderr, "elicitray hub: the display DISPLAY=%s is gone (its X server ended or closed the connection), so the hub stops; the next prompt starts a new hub on the display there is then\n", os.Getenv("DISPLAY"))
	}
	stop()
	<-served
	<-told
	hb.Handled()
	win.Close()
	tray.Close()
	fmt.Fprintln(stderr, "elicitray hub: stopped")
	return nil
}

// prepareDesktop makes this process's environment the desktop session's
// before Fyne reads it: a hub started without DISPLAY (from a terminal
// over ssh, a service) finds the user's session as a wrapper would; the
// display is opened once to check it; the session bus is named when only
// its socket is known. With ELICITRAY_HOME set, Fyne's preferences and cache
// go under it too. It returns the environment for programs the hub starts
// for the user (the browser), which keep the user's own settings, the
// release of the display connection it checked with, and the channel closed
// when that display goes (openDisplay).
func prepareDesktop(ctx context.Context, log io.Writer) (userEnv []string, release func(), lost <-chan struct{}, err error) {
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, nil, err
		}
		sess, err := session.NewFinder(exe).Find(ctx)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w (%w)", session.ErrNoDisplay, err)
		}
		for k, v := range sess.Vars {
			os.Setenv(k, v)
		}
		fmt.Fprintf(log, "elicitray hub: DISPLAY was not set; using display %s, found in %s\n", sess.Display(), sess.From)
	}
	release, lost, err = session.OpenDisplay()
	if err != nil {
		return nil, nil, nil, err
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		if addr := SessionBusAddress(); addr != "" {
			os.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
		}
	}
	userEnv = os.Environ()
	// Mesa's on-disk shader cache saves nothing worth it for a few small
	// windows, and on a full disk its mapped file faults (SIGBUS).
	if os.Getenv("MESA_SHADER_CACHE_DISABLE") == "" {
		os.Setenv("MESA_SHADER_CACHE_DISABLE", "true")
	}
	if home := os.Getenv("ELICITRAY_HOME"); home != "" {
		os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "desktop", "config"))
		os.Setenv("XDG_CACHE_HOME", filepath.Join(home, "desktop", "cache"))
	}
	return userEnv, release, lost, nil
}

// SettingsOf is what the Settings window shows for c: the defaults, every
// server configured (with what its table sets; the rest follows the
// defaults), and every server seen but not configured, following the
// defaults in everything.
func SettingsOf(c config.Config, seen map[string]bool) state.Settings {
	d := c.Policy("")
	s := state.Settings{Defaults: state.ServerPolicy{Rule: config.RuleAsk, Burst: d.Burst, Every: d.Every, Timeout: d.Timeout,
		KeepAlive: keepAliveOf(c.KeepAlive)},
		Notice: state.NoticeSettings{Notification: c.Notice.Notifies(), Sound: c.Notice.Sound}}
	names := map[string]bool{}
	maps.Copy(names, seen)
	for n := range c.Servers {
		names[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if n == "" {
			continue
		}
		sp := state.ServerPolicy{Name: n, Rule: config.RuleAsk}
		if sc, ok := c.Servers[n]; ok {
			sp = state.ServerPolicy{Name: n, Rule: cmp.Or(sc.Rule, config.RuleAsk), Burst: sc.Burst,
				Every: sc.Every.Duration, Timeout: sc.Timeout.Duration, Own: true,
				Guard: sc.Guard, GuardDestructive: sc.GuardDestructive, KeepAlive: keepAliveOf(sc.KeepAlive)}
		}
		s.Servers = append(s.Servers, sp)
	}
	return s
}

// keepAliveOf is a keep_alive as the Settings window holds it: nil when
// the file says nothing.
func keepAliveOf(d *config.Duration) *time.Duration {
	if d == nil {
		return nil
	}
	v := d.Duration
	return &v
}

// WithUnshown is c, the config the Settings window saved, with what the
// window does not show carried over from old: [history], [remote] and
// [remember] (whose prefill the caller then sets from the window:
// rememberConfigOf).
func WithUnshown(c, old config.Config) config.Config {
	c.History = old.History
	c.Remember = old.Remember
	c.Remote = old.Remote
	return c
}

// ConfigOf is the config the Settings window saved (the window does not
// show [history]: the caller keeps it). It writes only what differs from
// what would apply without it: the defaults where they are not the
// built-in ones, a [servers.NAME] table only for a server with settings of
// its own (configured before, or added or changed in the window), and in
// it only the values that are not the defaults'. A server seen but never
// configured, left as it was, is not written, so that it goes on following
// the defaults (issue 9).
func ConfigOf(s state.Settings) config.Config {
	d := s.Defaults
	var c config.Config
	if d.Timeout != config.DefaultTimeout {
		c.Timeout = config.Duration{Duration: d.Timeout}
	}
	if d.Burst != config.DefaultBurst {
		c.Rate.Burst = d.Burst
	}
	if d.Every != config.DefaultEvery {
		c.Rate.Every = config.Duration{Duration: d.Every}
	}
	keepAlive := config.DefaultKeepAlive // what a server's keep-alive left empty follows
	if d.KeepAlive != nil {
		keepAlive = *d.KeepAlive
		if keepAlive != config.DefaultKeepAlive {
			c.KeepAlive = &config.Duration{Duration: keepAlive}
		}
	}
	// [notice]: only what is not the default (a notification, no sound).
	if !s.Notice.Notification {
		c.Notice.Notification = new(false)
	}
	c.Notice.Sound = s.Notice.Sound
	for _, sp := range s.Servers {
		if !sp.Own {
			continue
		}
		var sc config.Server
		if sp.Rule != "" && sp.Rule != config.RuleAsk {
			sc.Rule = sp.Rule
		}
		if sp.Timeout > 0 && sp.Timeout != d.Timeout {
			sc.Timeout = config.Duration{Duration: sp.Timeout}
		}
		if sp.Burst > 0 && sp.Burst != d.Burst {
			sc.Burst = sp.Burst
		}
		if sp.Every > 0 && sp.Every != d.Every {
			sc.Every = config.Duration{Duration: sp.Every}
		}
		if sp.KeepAlive != nil && *sp.KeepAlive != keepAlive {
			sc.KeepAlive = &config.Duration{Duration: *sp.KeepAlive}
		}
		sc.Guard, sc.GuardDestructive = sp.Guard, sp.GuardDestructive
		if c.Servers == nil {
			c.Servers = map[string]config.Server{}
		}
		c.Servers[sp.Name] = sc
	}
	return c
}

// browserOpener is what opens a link the user agreed to: on Linux xdg-open
// in the user's own environment env rather than the hub's (prepareDesktop);
// nil (other systems, or no environment kept) leaves it to Fyne.
func browserOpener(env []string) func(*url.URL) error {
	if runtime.GOOS != "linux" || env == nil {
		return nil
	}
	return func(u *url.URL) error {
		cmd := exec.Command("xdg-open", u.String())
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting xdg-open: %w", err)
		}
		go cmd.Wait() // reaped; the browser lives on
		return nil
	}
}

// StampWriter starts each line written to w with the local time.
type StampWriter struct {
	mu      sync.Mutex
	W       io.Writer
	Now     func() time.Time
	midLine bool
}

func (s *StampWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []byte
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !s.midLine {
			out = append(out, s.Now().Format("2006-01-02 15:04:05 ")...)
		}
		out = append(out, line...)
		s.midLine = line[len(line)-1] != '\n'
	}
	if _, err := s.W.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// noTrayNotice is the notification a hub with no tray host shows once, at
// the first start without one: where the tray's menu is instead (the
// launcher entry's actions, packaging/linux, and the commands).
const noTrayNotice = "This desktop shows no tray icons, so elicitray runs without one. " +
	"Its menu is in the app launcher (elicitray opens History; right-click for Open Menu, Settings, Pause All Prompts, Resume, Quit), " +
	"in `elicitray menu`, a small window with the tray's items, " +
	"and in the commands elicitray status, pause, resume, settings, history window and quit."

// NoTrayMarker, in the hub log's directory, says noTrayNotice was shown
// (noTrayTold).
const NoTrayMarker = "told-no-tray"

// firstTime reports whether marker did not exist, and makes it: a file of
// this user's, never through a link. When it cannot be made, it is the
// first time (better said twice than never).
func firstTime(marker string) bool {
	if err := os.MkdirAll(filepath.Dir(marker), 0o700); err != nil {
		return true
	}
	f, err := platform.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false
	}
	if err == nil {
		f.Close()
	}
	return true
}
