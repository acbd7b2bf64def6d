package ui

import (
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/ui/lang"
	"github.com/elicitray/elicitray/ui/state"
)

// MenuWindow is the menu window: the tray menu's items in a small window,
// for desktops that show no tray icons (GNOME without an extension), opened
// from the app launcher or by `elicitray menu`.
type MenuWindow struct {
	win  fyne.Window
	view *menuView
}

// Window is the menu's window (to bring it forward, or to close it).
func (m *MenuWindow) Window() fyne.Window { return m.win }

// SetOnClosed makes f run after the window closed (any way it closes).
func (m *MenuWindow) SetOnClosed(f func()) {
	m.win.SetOnClosed(func() {
		m.view.stop()
		f()
	})
}

// SetState shows st: the number waiting, the problem, pause and the mutes.
func (m *MenuWindow) SetState(st state.MenuState) { m.view.setState(st) }

// menuSize is the window's size as it opens: a tray menu's width, tall
// enough for a few servers.
var menuSize = fyne.NewSize(360, 0)

// ShowMenu opens the menu window on st, its items doing what act's funcs
// do, top to bottom: the number of prompts waiting (and what keeps
// decisions out of history, when anything does); "Pause all prompts" (or
// "Resume prompts"); one line per server with "Mute for an hour" (or, while
// muted, until when and "Unmute"); History…; Settings…; Quit elicitray.
// History…, Settings… and Quit close the window, as choosing from a menu
// does; pausing and muting keep it open, showing the change at once (the
// hub's next SetState confirms it). A mute's end shows when it comes.
// Escape, Ctrl+W and the window's close button close it; the focus starts
// on the pause button, and Tab goes down the items in the order above.
//
// It must be called on the Fyne goroutine, and act's funcs run there: they
// must return promptly.
func ShowMenu(a fyne.App, st state.MenuState, act TrayActions) *MenuWindow {
	w := a.NewWindow(lang.L("elicitray — menu"))
	v := newMenuView(st, act, w.Close)
	w.SetContent(v.content)
	v.canvas = w.Canvas()
	v.keys.bind(w.Canvas())
	w.SetOnClosed(v.stop)
	if a.Icon() != nil {
		w.SetIcon(a.Icon())
	}
	w.Resize(menuSize)
	w.CenterOnScreen()
	w.Show()
	w.Canvas().Focus(v.pause)
	return &MenuWindow{win: w, view: v}
}

// menuView is the menu window's content, without the window, so that
// tests drive it on a test canvas.
type menuView struct {
	act   TrayActions
	close func() // closes the window
	keys  *windowKeys
	now   func() time.Time
	// after runs f on the Fyne goroutine after d (time.AfterFunc and
	// fyne.Do); tests replace it.
	after func(d time.Duration, f func()) (stop func() bool)

	// canvas is the window's, to keep the focus on a server's button
	// when its row is rebuilt; nil until the window has one.
	canvas fyne.Canvas

	state  state.MenuState
	expiry func() bool             // stops the timer for the next mute's end; nil when none
	mutes  map[string]*closeButton // each server's Mute or Unmute button

	waiting *widget.Label
	problem *widget.Label
	pause   *closeButton
	servers *fyne.Container // one row per server
	content fyne.CanvasObject
}

func newMenuView(st state.MenuState, act TrayActions, close func()) *menuView {
	v := &menuView{act: act, close: close, now: time.Now, after: afterOnFyne}
	v.keys = &windowKeys{close: func() { v.close() }}
	v.waiting = widget.NewLabel("")
	v.problem = widget.NewLabel("")
	v.problem.Wrapping = fyne.TextWrapWord
	v.problem.Importance = widget.WarningImportance
	v.pause = newCloseButton(v.keys, "", nil, v.onPause)
	v.servers = container.NewVBox()
	chosen := func(f func()) func() {
		return func() {
			// f first: what it opens is on its way before this window
			// goes, so that the hub's window process never finds itself
			// with no window between the two.
			call(f)
			v.close()
		}
	}
	history := newCloseButton(v.keys, lang.L("History…"), theme.HistoryIcon(), chosen(act.History))
	settings := newCloseButton(v.keys, lang.L("Settings…"), theme.SettingsIcon(), chosen(act.Settings))
	quit := newCloseButton(v.keys, lang.L("Quit elicitray"), theme.LogoutIcon(), chosen(act.Quit))
	for _, b := range []*closeButton{v.pause, history, settings, quit} {
		b.Alignment = widget.ButtonAlignLeading
	}
	v.content = container.NewVBox(
		v.waiting,
		v.problem,
		widget.NewSeparator(),
		v.pause,
		widget.NewLabelWithStyle(lang.L("Mute for an hour"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		v.servers,
		widget.NewSeparator(),
		history,
		settings,
		widget.NewSeparator(),
		quit,
	)
	v.setState(st)
	return v
}

// afterOnFyne runs f on the Fyne goroutine after d.
func afterOnFyne(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, func() { fyne.Do(f) }).Stop
}

// setState shows st.
func (v *menuView) setState(st state.MenuState) {
	st.Servers = slices.Clone(st.Servers)
	slices.SortFunc(st.Servers, func(a, b state.TrayServer) int { return strings.Compare(a.Name, b.Name) })
	v.state = st
	v.render()
}

// render shows v.state, and arms the timer for the next mute's end.
func (v *menuView) render() {
	st := v.state
	v.waiting.SetText(pendingText(st.Waiting))
	if st.Problem != "" {
		v.problem.SetText("⚠ " + st.Problem)
		v.problem.Show()
	} else {
		v.problem.Hide()
	}
	v.pause.SetText(pauseText(st.Paused))
	if st.Paused {
		v.pause.SetIcon(theme.MediaPlayIcon())
	} else {
		v.pause.SetIcon(theme.MediaPauseIcon())
	}
	v.renderServers()
}

// relayout lays the window out again after lines came, went or grew: a
// container lays out only its own children, so the whole window, whose
// lines the problem and the servers' rows are.
func (v *menuView) relayout() {
	if v.content != nil {
		v.content.Refresh()
	} else {
		v.servers.Refresh()
	}
}

// renderServers rebuilds the servers' rows. A server's button that had the
// focus hands it to the button that replaces it: someone going down the
// menu with Tab stays where they were.
func (v *menuView) renderServers() {
	if v.expiry != nil {
		v.expiry()
		v.expiry = nil
	}
	focused := ""
	if v.canvas != nil {
		for name, b := range v.mutes {
			if v.canvas.Focused() == b {
				focused = name
			}
		}
	}
	v.mutes = map[string]*closeButton{}
	now := v.now()
	var rows []fyne.CanvasObject
	var next time.Time
	for _, s := range v.state.Servers {
		name := s.Name
		muted := s.MutedUntil.After(now)
		label := widget.NewLabel(oneLine(name))
		label.Truncation = fyne.TextTruncateEllipsis
		text := lang.L("Mute")
		if muted {
			label.SetText(oneLine(name) + lang.L(" — muted until {{.Time}}", map[string]any{"Time": muteTime(s.MutedUntil, now)}))
			text = lang.L("Unmute")
			if next.IsZero() || s.MutedUntil.Before(next) {
				next = s.MutedUntil
			}
		}
		b := newCloseButton(v.keys, text, nil, func() { v.onMute(name, muted) })
		v.mutes[name] = b
		rows = append(rows, container.NewBorder(nil, nil, nil, b, label))
	}
	if len(rows) == 0 {
		none := widget.NewLabel(lang.L("(no servers yet)"))
		none.Importance = widget.LowImportance
		rows = append(rows, hinted(none))
	}
	v.servers.Objects = rows
	v.relayout()
	if b := v.mutes[focused]; b != nil {
		v.canvas.Focus(b)
	}
	if !next.IsZero() {
		// "muted until 14:05" must not outlive 14:05, as in the tray.
		v.expiry = v.after(next.Sub(now), v.renderServers)
	}
}

// onPause pauses or resumes all prompts, showing the change at once.
func (v *menuView) onPause() {
	v.state.Paused = !v.state.Paused
	v.render()
	if v.act.SetPaused != nil {
		v.act.SetPaused(v.state.Paused)
	}
}

// onMute mutes server for an hour, or unmutes it when it is muted, showing
// the change at once.
func (v *menuView) onMute(server string, muted bool) {
	until := time.Time{}
	if !muted {
		until = v.now().Add(muteFor)
	}
	for i := range v.state.Servers {
		if v.state.Servers[i].Name == server {
			v.state.Servers[i].MutedUntil = until
		}
	}
	v.renderServers()
	f := v.act.Mute
	if muted {
		f = v.act.Unmute
	}
	if f != nil {
		f(server)
	}
}

// stop ends the timer of the next mute's end: the window closed.
func (v *menuView) stop() {
	if v.expiry != nil {
		v.expiry()
		v.expiry = nil
	}
}
