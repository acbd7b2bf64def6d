package desktop

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/elicitray/elicitray/app/winproto"
	"github.com/elicitray/elicitray/ui/state"

	"github.com/elicitray/elicitray/app/hub"
)

// The menu window (issue 13): the tray menu's items in a small window, for
// desktops that show no tray icons. `elicitray menu` and the launcher
// entry's Open Menu action open it through the hub (opMenu), which sends it
// to the window process with its state (winMenu) and, while that process
// runs, every change of that state (winMenuState: prompts waiting, pause,
// mutes, what keeps decisions out of history). The items chosen come back
// as menu-do calls, which the hub serves as the tray's clicks.

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
func (w *Windows) showMenu() {
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
func (w *Windows) menuChanged() {
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
func (w *Windows) menuDo(m *winproto.Message) error {
	h := w.Hub
	switch m.Do {
	case winproto.MenuPause, winproto.MenuResume:
		h.SetPaused(m.Do == winproto.MenuPause)
	case winproto.MenuMute:
		h.Mute(m.Server, hub.MuteFor)
	case winproto.MenuUnmute:
		h.Unmute(m.Server)
	case winproto.MenuHistory:
		w.showHistory()
	case winproto.MenuSettings:
		w.showSettings()
	case winproto.MenuMenu:
		w.showMenu()
	case winproto.MenuQuit:
		if w.menu.quit == nil {
			return errors.New("this hub cannot quit from its menu")
		}
		w.menu.quit()
	default:
		return fmt.Errorf("unknown menu item %q", m.Do)
	}
	return nil
}
