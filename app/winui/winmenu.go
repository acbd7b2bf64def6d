package winui

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"github.com/elicitray/elicitray/app/winproto"
	"github.com/elicitray/elicitray/ui"
	"github.com/elicitray/elicitray/ui/state"
)

// showMenu opens the menu window on st, or brings it forward showing st;
// on the Fyne goroutine (window process).
func (s *Side) showMenu(st state.MenuState) {
	if s.menuWin != nil {
		s.menuWin.SetState(st)
		s.menuWin.Window().Show()
		s.menuWin.Window().RequestFocus()
		return
	}
	mw := ui.ShowMenu(s.app, st, ui.TrayActions{
		History:   func() { s.menuItem(winproto.MenuHistory, "", true) },
		Settings:  func() { s.menuItem(winproto.MenuSettings, "", true) },
		Quit:      func() { s.menuItem(winproto.MenuQuit, "", true) },
		SetPaused: func(paused bool) { s.menuItem(pauseItem(paused), "", false) },
		Mute:      func(server string) { s.menuItem(winproto.MenuMute, server, false) },
		Unmute:    func(server string) { s.menuItem(winproto.MenuUnmute, server, false) },
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
func (s *Side) offerMenu() {
	if s.historyWin != nil {
		s.historyWin.OfferMenu(func() { s.menuItem(winproto.MenuMenu, "", true) })
	}
}

// pauseItem is the menu-do item that pauses (paused) or resumes.
func pauseItem(paused bool) string {
	if paused {
		return winproto.MenuPause
	}
	return winproto.MenuResume
}

// menuItem tells the hub of a menu item chosen; on the Fyne goroutine.
// An item that opens a window (opens) counts as a window open until the
// hub replied, by when the window it opens is on its way here: the menu
// window, which closes now, is not the last, and the hub does not let this
// process go in between.
func (s *Side) menuItem(do, server string, opens bool) {
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
func (s *Side) menuState(st state.MenuState) {
	fyne.Do(func() {
		if s.menuWin != nil {
			s.menuWin.SetState(st)
		}
	})
}
