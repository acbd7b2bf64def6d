package app

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/elicitray/elicitray/app/winproto"

	"github.com/elicitray/elicitray/app/hub"

	"fyne.io/fyne/v2"

	"github.com/elicitray/elicitray/ui"
	"github.com/elicitray/elicitray/ui/state"
)

// The menu window (issue 13): the tray menu's items in a small window, for
// desktops that show no tray icons. `elicitray menu` and the launcher
// entry's Open Menu action open it through the hub (opMenu), which sends it
// to the window process with its state (winMenu) and, while that process
// runs, every change of that state (winMenuState: prompts waiting, pause,
// mutes, what keeps decisions out of history). The items chosen come back
// as menu-do calls, which the hub serves as the tray's clicks.

// The items of a menu-do call.
const (
	menuDoPause    = "pause"
	menuDoResume   = "resume"
	menuDoMute     = "mute"
	menuDoUnmute   = "unmute"
	menuDoHistory  = "history"
	menuDoSettings = "settings"
	menuDoQuit     = "quit"
	menuDoMenu     = "menu" // the history window's Menu…
)

// menuHub is what the hub's side of the menu window needs of the hub, set
// by runHub.
type menuHub struct {
	// state is the menu's state now; it may take the hub's locks.
	state func() state.MenuState
	// quit stops the hub, as the tray's Quit does.
	quit func()
	// noTray is set when the hub has no tray icon: the history window
	// then offers the menu window.
	noTray bool
	// waiting is the number of prompts waiting, as the hub's Changed
	// last said.
	waiting atomic.Int64

	// sendMu makes the state read and its sending one step: of changes in
	// quick succession, the window ends on the latest.
	sendMu sync.Mutex
	mu     sync.Mutex
	dirty  bool // a send is on its way and has not read the state yet
}

// showMenu opens the menu window on the hub's state now (or brings it
// forward). The state is read and sent in one step with menuChanged's: a
// change meanwhile, which finds no window process yet to send to, is sent
// after, to the process this starts.
func (w *windows) showMenu() {
	w.menu.sendMu.Lock()
	defer w.menu.sendMu.Unlock()
	st := state.MenuState{}
	if w.menu.state != nil {
		st = w.menu.state()
	}
	w.openWindow(winproto.Message{Op: winproto.OpMenu, Menu: &st})
}

// menuChanged sends the menu's state to the window process, when one runs,
// for an open menu window to show. It never blocks: the hub calls it from
// its callbacks (Changed, PolicyChanged, the journal's told, which may hold
// locks the state's read takes). Changes that come while a send waits are
// in the state it reads.
func (w *windows) menuChanged() {
	m := &w.menu
	if m.state == nil {
		return
	}
	m.mu.Lock()
	if m.dirty {
		m.mu.Unlock()
		return
	}
	m.dirty = true
	m.mu.Unlock()
	go func() {
		m.sendMu.Lock()
		defer m.sendMu.Unlock()
		m.mu.Lock()
		m.dirty = false
		m.mu.Unlock()
		// No window process, no menu window: the state (which reads the
		// history's servers) is not read for nobody. A menu window opened
		// later gets it fresh (showMenu, under sendMu).
		w.mu.Lock()
		running := w.cur != nil
		w.mu.Unlock()
		if !running {
			return
		}
		st := m.state()
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.cur != nil {
			w.cur.send(winproto.Message{Op: winproto.OpMenuState, Menu: &st})
		}
	}()
}

// menuDo serves a menu window's item, as the tray serves its clicks.
func (w *windows) menuDo(m *winproto.Message) error {
	h := w.hub
	switch m.Do {
	case menuDoPause, menuDoResume:
		h.SetPaused(m.Do == menuDoPause)
	case menuDoMute:
		h.Mute(m.Server, hub.MuteFor)
	case menuDoUnmute:
		h.Unmute(m.Server)
	case menuDoHistory:
		w.showHistory()
	case menuDoSettings:
		w.showSettings()
	case menuDoMenu:
		w.showMenu()
	case menuDoQuit:
		if w.menu.quit == nil {
			return errors.New("this hub cannot quit from its menu")
		}
		w.menu.quit()
	default:
		return fmt.Errorf("unknown menu item %q", m.Do)
	}
	return nil
}

// showMenu opens the menu window on st, or brings it forward showing st;
// on the Fyne goroutine (window process).
func (s *winSide) showMenu(st state.MenuState) {
	if s.menuWin != nil {
		s.menuWin.SetState(st)
		s.menuWin.Window().Show()
		s.menuWin.Window().RequestFocus()
		return
	}
	mw := ui.ShowMenu(s.app, st, ui.TrayActions{
		History:   func() { s.menuItem(menuDoHistory, "", true) },
		Settings:  func() { s.menuItem(menuDoSettings, "", true) },
		Quit:      func() { s.menuItem(menuDoQuit, "", true) },
		SetPaused: func(paused bool) { s.menuItem(pauseItem(paused), "", false) },
		Mute:      func(server string) { s.menuItem(menuDoMute, server, false) },
		Unmute:    func(server string) { s.menuItem(menuDoUnmute, server, false) },
	})
	s.menuWin = mw
	s.open++
	mw.SetOnClosed(func() {
		if s.menuWin == mw {
			s.menuWin = nil
		}
		s.closedOne()
	})
}

// offerMenu gives the history window Menu…, which opens the menu window:
// with no tray, History (what the app launcher opens) leads to the tray's
// items; on the Fyne goroutine (window process).
func (s *winSide) offerMenu() {
	if s.historyWin != nil {
		s.historyWin.OfferMenu(func() { s.menuItem(menuDoMenu, "", true) })
	}
}

// pauseItem is the menu-do item that pauses (paused) or resumes.
func pauseItem(paused bool) string {
	if paused {
		return menuDoPause
	}
	return menuDoResume
}

// menuItem tells the hub of a menu item chosen; on the Fyne goroutine.
// An item that opens a window (opens) counts as a window open until the
// hub replied, by when the window it opens is on its way here: the menu
// window, which closes now, is not the last, and the hub does not let this
// process go in between.
func (s *winSide) menuItem(do, server string, opens bool) {
	if opens {
		s.open++
	}
	go func() {
		_, err := s.call(winproto.Message{Op: winproto.OpMenuDo, Do: do, Server: server}, nil)
		if err != nil && !errors.Is(err, errHubGone) {
			fmt.Fprintf(s.log, "elicitray ui: the menu's %s: %v\n", do, err)
		}
		if opens {
			fyne.Do(s.closedOne)
		}
	}()
}

// menuState sends an open menu window the hub's state; on the reader's
// goroutine.
func (s *winSide) menuState(st state.MenuState) {
	fyne.Do(func() {
		if s.menuWin != nil {
			s.menuWin.SetState(st)
		}
	})
}
