package ui

import (
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/systray"

	"github.com/elicitray/elicitray/assets"
	"github.com/elicitray/elicitray/ui/lang"
	"github.com/elicitray/elicitray/ui/state"
)

// TrayActions are what the tray menu's items do, in the tray and in the
// menu window (ShowMenu). Each runs on the tray's goroutine, or the Fyne
// goroutine in the menu window, and must return promptly; a nil one makes
// its item do nothing.
type TrayActions struct {
	// History opens (or brings forward) the history window.
	History func()
	// Settings opens (or brings forward) the settings window.
	Settings func()
	// Quit stops the hub.
	Quit func()
	// SetPaused pauses (true) or resumes (false) all prompts: while paused,
	// every prompt is answered cancel without a window.
	SetPaused func(paused bool)
	// Mute mutes server for an hour (its prompts are answered cancel
	// without a window); Unmute lifts it. server is the configured name.
	Mute, Unmute func(server string)
}

// muteFor is how long the tray's "Mute for an hour" mutes a server; the
// hub decides for real, the tray only shows it until the hub's next
// SetServers.
const muteFor = time.Hour

// Tray is the tray icon's menu. Its setters may be called from any
// goroutine: each hands its work to the tray's goroutine. A nil *Tray (no
// tray host) accepts them and does nothing.
type Tray struct {
	act TrayActions

	menu    *fyne.Menu
	pending *fyne.MenuItem
	problem *fyne.MenuItem // under pending while decisions are not in history
	pause   *fyne.MenuItem
	mute    *fyne.MenuItem // its ChildMenu lists servers

	// Read and written on the tray's goroutine only (inside do).
	paused  bool
	servers []state.TrayServer // sorted by name
	expiry  *time.Timer        // refreshes the menu when the first mute ends
	refresh func()             // shows menu changes: render, or a counter in tests
	count   func(n int)        // shows the count on the icon: showCount, or a recorder in tests
	counted int                // the count the icon shows
	do      func(func())       // runs on the tray's goroutine (serialQueue.do)
	now     func() time.Time
	stop    func() // takes the icon off the bus; nil once closed or in tests
}

// SetupTray shows the tray icon (the app icon) with a menu, top to bottom:
// the number of prompts waiting (greyed out); "Pause all prompts" (or
// "Resume prompts" while paused); "Mute for an hour", a submenu with one
// item per server (a muted one shows until when, and unmutes when
// clicked); History…; Settings…; Quit. Call it only when app/platform's
// TrayAvailable reports true: Fyne's tray crashes on quit without DBus.
//
// The icon is a StatusNotifierItem with a com.canonical.dbusmenu menu on
// the session bus, made with fyne.io/systray directly: no Fyne driver runs,
// so a hub with no window open has no GL loop polling (issue 12). Clicks
// call act's funcs on the tray's own goroutine, one at a time in the order
// they came, as the setters' changes are; Close takes the icon away.
func SetupTray(act TrayActions) *Tray {
	t := newTray(act)
	q := &serialQueue{}
	t.do = q.do
	t.refresh = t.render
	t.count = func(n int) {
		if t.stop != nil { // closed: the icon is off the bus
			showCount(n)
		}
	}
	systray.SetTitle("elicitray")
	systray.SetTooltip(trayTooltip(0))
	systray.SetIcon(assets.Icon)
	// On Windows the icon exists only once the tray's window is made,
	// after start: what was set before is dropped ("tray not ready yet"),
	// so it is set again when the tray is ready, with the count of then.
	ready := func() { t.do(func() { showCount(t.counted) }) }
	start, end := systray.RunWithExternalLoop(ready, nil)
	start()
	t.stop = end
	t.do(t.render)
	return t
}

// Close takes the tray icon off the session bus. A nil *Tray does nothing.
func (t *Tray) Close() {
	if t == nil || t.stop == nil {
		return
	}
	done := make(chan struct{})
	// After every change queued before it: the bus sees no update after
	// its connection closed.
	t.do(func() {
		t.stop()
		t.stop = nil
		close(done)
	})
	<-done
}

// render hands the menu as it is now to the tray host: systray's menu is
// rebuilt from t.menu, each item's clicks queued to the tray's goroutine.
// On the tray's goroutine (inside do).
func (t *Tray) render() {
	if t.stop == nil {
		return // closed
	}
	systray.ResetMenu()
	t.addItems(t.menu.Items, nil)
}

// addItems adds items to the tray's menu, under parent unless it is nil.
func (t *Tray) addItems(items []*fyne.MenuItem, parent *systray.MenuItem) {
	for _, it := range items {
		if it.IsSeparator {
			if parent != nil {
				parent.AddSeparator()
			} else {
				systray.AddSeparator()
			}
			continue
		}
		var si *systray.MenuItem
		if parent != nil {
			si = parent.AddSubMenuItem(it.Label, "")
		} else {
			si = systray.AddMenuItem(it.Label, "")
		}
		if it.Disabled {
			si.Disable()
		}
		if it.ChildMenu != nil {
			t.addItems(it.ChildMenu.Items, si)
		}
		action := it.Action
		// Ends when the next render removes the item (systray closes
		// ClickedCh); it sleeps on the channel meanwhile.
		go func() {
			for range si.ClickedCh {
				if action != nil {
					t.do(action)
				}
			}
		}()
	}
}

// serialQueue runs funcs one at a time in the order they were queued, on a
// goroutine that exists only while there is work: nothing waits, so
// nothing wakes, while the tray is idle. do never blocks, so a func it runs
// may queue more.
type serialQueue struct {
	mu      sync.Mutex
	queue   []func()
	running bool
}

func (q *serialQueue) do(f func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queue = append(q.queue, f)
	if !q.running {
		q.running = true
		go q.run()
	}
}

func (q *serialQueue) run() {
	for {
		q.mu.Lock()
		if len(q.queue) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		f := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		q.mu.Unlock()
		f()
	}
}

// Sync shows the state read returns, read on the tray's goroutine in the
// order Sync was called: of changes made in quick succession, the menu
// ends on the latest.
func (t *Tray) Sync(read func() (paused bool, servers []state.TrayServer)) {
	if t == nil {
		return
	}
	t.do(func() {
		paused, servers := read()
		s := slices.Clone(servers)
		slices.SortFunc(s, func(a, b state.TrayServer) int { return strings.Compare(a.Name, b.Name) })
		t.showPaused(paused)
		t.servers = s
		t.showServers()
	})
}

// newTray builds the menu; nothing shows it until SetupTray hands it to
// the driver.
func newTray(act TrayActions) *Tray {
	t := &Tray{act: act, refresh: func() {}, count: func(int) {}, do: func(f func()) { f() }, now: time.Now}
	t.pending = fyne.NewMenuItem(pendingText(0), nil)
	t.pending.Disabled = true
	t.problem = fyne.NewMenuItem("", nil)
	t.problem.Disabled = true
	t.pause = fyne.NewMenuItem(pauseText(false), t.onPause)
	t.mute = fyne.NewMenuItem(lang.L("Mute for an hour"), nil)
	t.mute.ChildMenu = fyne.NewMenu("")
	t.buildMute()
	quit := fyne.NewMenuItem(lang.L("Quit"), func() { call(act.Quit) })
	// Marked so that Fyne does not add a second Quit of its own.
	quit.IsQuit = true
	t.menu = fyne.NewMenu("elicitray",
		t.pending,
		fyne.NewMenuItemSeparator(),
		t.pause,
		t.mute,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem(lang.L("History…"), func() { call(act.History) }),
		fyne.NewMenuItem(lang.L("Settings…"), func() { call(act.Settings) }),
		fyne.NewMenuItemSeparator(),
		quit,
	)
	return t
}

// call runs f unless it is nil.
func call(f func()) {
	if f != nil {
		f()
	}
}

// SetPending shows n, the number of prompts waiting for an answer, in the
// menu, on the icon (a badge) and in its tooltip (traybadge.go).
func (t *Tray) SetPending(n int) {
	if t == nil {
		return
	}
	t.do(func() {
		if n != t.counted {
			t.counted = n
			t.count(n)
		}
		text := pendingText(n)
		if t.pending.Label == text {
			return
		}
		t.pending.Label = text
		t.refresh()
	})
}

// showCount puts the icon and tooltip for n prompts waiting on the bus;
// on the tray's goroutine.
func showCount(n int) {
	systray.SetIcon(trayIcon(n))
	systray.SetTooltip(trayTooltip(n))
}

// SetProblem shows, greyed out under the number of prompts waiting, what
// keeps decisions out of history ("12 decisions not saved: the disk is
// full"); "" removes the line.
func (t *Tray) SetProblem(text string) {
	if t == nil {
		return
	}
	t.do(func() {
		shown := slices.Contains(t.menu.Items, t.problem)
		if text != "" {
			text = "⚠ " + text
		}
		if t.problem.Label == text && shown == (text != "") {
			return
		}
		t.problem.Label = text
		switch {
		case text == "" && shown:
			t.menu.Items = slices.DeleteFunc(t.menu.Items, func(it *fyne.MenuItem) bool { return it == t.problem })
		case text != "" && !shown:
			t.menu.Items = slices.Insert(t.menu.Items, 1, t.problem)
		}
		t.refresh()
	})
}

// SetPaused shows whether prompts are paused: the menu offers "Resume
// prompts" while they are, "Pause all prompts" otherwise.
func (t *Tray) SetPaused(paused bool) {
	if t == nil {
		return
	}
	t.do(func() { t.showPaused(paused) })
}

// SetServers lists the servers seen so far in the mute submenu, sorted by
// name, each with its mute. The menu changes by itself when a mute ends.
func (t *Tray) SetServers(servers []state.TrayServer) {
	if t == nil {
		return
	}
	// Copied now: the caller may reuse its slice before do runs.
	s := slices.Clone(servers)
	slices.SortFunc(s, func(a, b state.TrayServer) int { return strings.Compare(a.Name, b.Name) })
	t.do(func() {
		t.servers = s
		t.showServers()
	})
}

// showPaused sets the pause item's text for paused; on the tray's goroutine.
func (t *Tray) showPaused(paused bool) {
	if t.paused == paused {
		return
	}
	t.paused = paused
	t.pause.Label = pauseText(paused)
	t.refresh()
}

// showServers rebuilds the mute submenu from t.servers, refreshes the menu
// when a line changed and arms the timer for the next mute to end; on the
// tray's goroutine.
func (t *Tray) showServers() {
	if t.buildMute() {
		t.refresh()
	}
	if t.expiry != nil {
		t.expiry.Stop()
		t.expiry = nil
	}
	now := t.now()
	var next time.Time
	for _, s := range t.servers {
		if s.MutedUntil.After(now) && (next.IsZero() || s.MutedUntil.Before(next)) {
			next = s.MutedUntil
		}
	}
	if !next.IsZero() {
		// The hub need not tell the tray when a mute ends: "muted until
		// 14:05" must not outlive 14:05.
		t.expiry = time.AfterFunc(next.Sub(now), func() { t.do(t.showServers) })
	}
}

// buildMute fills the mute submenu from t.servers and reports whether any
// line changed.
func (t *Tray) buildMute() bool {
	now := t.now()
	var items []*fyne.MenuItem
	for _, s := range t.servers {
		name := s.Name
		label := oneLine(name)
		muted := s.MutedUntil.After(now)
		if muted {
			label += lang.L(" — muted until {{.Time}}", map[string]any{"Time": muteTime(s.MutedUntil, now)})
		}
		items = append(items, fyne.NewMenuItem(label, func() { t.onMute(name, muted) }))
	}
	if len(items) == 0 {
		none := fyne.NewMenuItem(lang.L("(no servers yet)"), nil)
		none.Disabled = true
		items = append(items, none)
	}
	old := t.mute.ChildMenu.Items
	t.mute.ChildMenu.Items = items
	return !slices.EqualFunc(old, items, func(a, b *fyne.MenuItem) bool {
		return a.Label == b.Label && a.Disabled == b.Disabled
	})
}

// onPause pauses or resumes all prompts. The menu shows the change at once;
// the hub's SetPaused confirms it.
func (t *Tray) onPause() {
	paused := !t.paused
	t.showPaused(paused)
	if t.act.SetPaused != nil {
		t.act.SetPaused(paused)
	}
}

// onMute mutes server for an hour, or unmutes it when it is muted. The menu
// shows the change at once; the hub's SetServers confirms it.
func (t *Tray) onMute(server string, muted bool) {
	until := time.Time{}
	if !muted {
		until = t.now().Add(muteFor)
	}
	for i := range t.servers {
		if t.servers[i].Name == server {
			t.servers[i].MutedUntil = until
		}
	}
	t.showServers()
	f := t.act.Mute
	if muted {
		f = t.act.Unmute
	}
	if f != nil {
		f(server)
	}
}

// pauseText is the pause item's text while prompts are paused or not.
func pauseText(paused bool) string {
	if paused {
		return lang.L("Resume prompts")
	}
	return lang.L("Pause all prompts")
}

// muteTime is when a mute ends, in local time: "14:05" today, "Jan 2
// 14:05" on another day.
func muteTime(until, now time.Time) string {
	until, now = until.Local(), now.Local()
	if y, m, d := until.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return until.Format("15:04")
	}
	return until.Format(lang.L("Jan 2 15:04"))
}

// pendingText is the menu line for n pending prompts.
func pendingText(n int) string {
	if n == 0 {
		return lang.L("No prompts waiting")
	}
	return lang.N("{{.Count}} prompts waiting", n, lang.Count(n))
}
