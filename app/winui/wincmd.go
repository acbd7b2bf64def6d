package winui

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/url"
	"sync"

	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/winproto"
	"github.com/elicitray/elicitray/ui/state"

	"github.com/elicitray/elicitray/app/hub"

	"github.com/elicitray/elicitray/app/remember"

	"fyne.io/fyne/v2"

	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui"
)

// runWindows is the window process (`elicitray ui`, started by the hub
// only): it shows the windows the hub sends until the hub ends its socket,
// then stops. Every answer, history call and Settings save goes to the hub.
func Run(stderr io.Writer) error {
	fc, err := platform.ParentConn()
	if err != nil {
		return fmt.Errorf("elicitray ui is started by the hub only (no connection to it: %w)", err)
	}
	log.SetOutput(&fyneLog{w: log.Writer()})
	// The hub stamps each line of this process's stderr with the time in
	// its log (desktop.StampWriter): a second time stamp was noise.
	log.SetFlags(0)
	a, err := newFyneApp()
	if err != nil {
		fc.Close()
		return err
	}
	s := &Side{app: a, conn: fc, lines: hubapi.NewConn(fc, 0), log: stderr,
		calls: map[uint64]*WinCall{}, prompts: map[uint64]func(){}}
	s.prompter = &Prompter{app: a, open: s.openURL}
	s.history = &WinHistorySource{s: s}
	// Prompts come one after another here: each next one reuses the last
	// one's window, tens of milliseconds sooner on screen.
	ui.KeepPromptWindows(a)
	go s.read()
	// A process the hub started ahead of any window (windows.prestart)
	// says so at once, so that its linger starts: nothing was sent yet.
	// fyne.Do keeps order: a show read before this counts first.
	fyne.Do(s.idleCheck)
	// The OpenGL driver and the fonts, most of a first window's time on
	// its way to the screen, load now (ui.WarmUp), while the hub, the
	// wrapper and the reader above get the first prompt here; what comes
	// meanwhile waits for the loop.
	ui.WarmUp(a)
	a.Run()
	fc.Close()
	return nil
}

// winSide is the window process's end of its socket to the hub.
type Side struct {
	app      fyne.App
	conn     platform.Conn
	log      io.Writer
	prompter *Prompter
	history  *WinHistorySource

	// lines frames conn: one message a line.
	lines *hubapi.Conn

	mu      sync.Mutex
	calls   map[uint64]*WinCall // waiting for their reply
	nextID  uint64
	gone    bool              // the hub ended the socket
	prompts map[uint64]func() // on screen: their dismiss

	// On the Fyne goroutine only:
	seq         uint64 // window-opening messages handled
	open        int    // windows open
	historyWin  *ui.HistoryWindow
	settingsWin fyne.Window
	menuWin     *ui.MenuWindow
	offerWin    fyne.Window
}

// WinCall is one call waiting for the hub's reply; data receives an
// export's chunks.
type WinCall struct {
	reply chan winproto.Message
	data  io.Writer
	werr  error
}

func (s *Side) send(m winproto.Message) {
	_ = s.lines.Write(m)
}

// read handles what the hub sends until it ends the socket; then the
// process stops.
func (s *Side) read() {
	for {
		var m winproto.Message
		err := s.lines.Read(&m)
		if bad := (hubapi.BadLineError{}); errors.As(err, &bad) {
			fmt.Fprintf(s.log, "elicitray ui: the hub said something unreadable: %v\n", bad)
			continue
		}
		if err != nil {
			break
		}
		s.handle(&m)
	}
	s.mu.Lock()
	s.gone = true
	for id, c := range s.calls {
		close(c.reply)
		delete(s.calls, id)
	}
	s.mu.Unlock()
	// The driver's Quit, not a.Quit, which first closes every window:
	// Fyne 2.7.1 may then hand a pointer event to a window marked closing
	// and, when the cursor changes over it, call through its nil view (a
	// panic in processMouseMoved). The driver's Quit, which Fyne itself
	// calls on SIGTERM, ends the loop with the windows as they are, and
	// glfw then destroys them (issue 10: a clean quit).
	fyne.Do(func() { s.app.Driver().Quit() })
}

func (s *Side) handle(m *winproto.Message) {
	switch m.Op {
	case winproto.OpShow:
		s.show(m)
	case winproto.OpDismiss:
		s.mu.Lock()
		dismiss, open := s.prompts[m.ID]
		delete(s.prompts, m.ID)
		s.mu.Unlock()
		if !open {
			return // answered meanwhile
		}
		if dismiss != nil {
			dismiss()
		}
		fyne.Do(s.closedOne)
	case winproto.OpWaiting:
		s.prompter.setWaiting(m.Waiting)
	case winproto.OpHistory:
		fyne.Do(func() {
			s.seq++
			s.showHistory()
			if m.NoTray {
				s.offerMenu()
			}
		})
	case winproto.OpSettings:
		fyne.Do(func() {
			s.seq++
			if m.Settings != nil {
				s.showSettings(*m.Settings)
			}
			s.idleCheck()
		})
	case winproto.OpMenu:
		fyne.Do(func() {
			s.seq++
			if m.Menu != nil {
				s.showMenu(*m.Menu)
			}
			s.idleCheck()
		})
	case winproto.OpMenuState:
		if m.Menu != nil {
			s.menuState(*m.Menu)
		}
	case winproto.OpOffer:
		fyne.Do(func() {
			s.seq++
			s.showOffer()
		})
	case winproto.OpChanged:
		fyne.Do(func() {
			if s.historyWin != nil {
				s.historyWin.Changed()
			}
		})
	case winproto.OpReply, winproto.OpData:
		s.mu.Lock()
		c := s.calls[m.ID]
		if c != nil && m.Op == winproto.OpReply {
			delete(s.calls, m.ID)
		}
		s.mu.Unlock()
		switch {
		case c == nil:
		case m.Op == winproto.OpData:
			if c.werr == nil {
				_, c.werr = c.data.Write(m.Data)
			}
		default:
			c.reply <- *m
		}
	default:
		fmt.Fprintf(s.log, "elicitray ui: unknown operation %q from the hub\n", m.Op)
	}
}

// show opens a prompt's window. The window counts as open from here, on
// the Fyne goroutine, before guiPrompter's own fyne.Do makes it: fyne.Do
// keeps order. show and dismiss run on the reader's goroutine, one after
// the other; only an answer may come meanwhile.
func (s *Side) show(m *winproto.Message) {
	id := m.ID
	fyne.Do(func() {
		s.seq++
		s.open++
	})
	s.mu.Lock()
	s.prompts[id] = nil // on its way; its dismiss once Show returned it
	s.mu.Unlock()
	if m.Request == nil {
		s.answer(id, bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByError, Reason: "the hub sent a prompt without its request"}, false)
		return
	}
	p, err := hub.PromptFor(m.Request)
	if err != nil {
		s.answer(id, bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByError, Reason: "the prompt window could not show it: " + err.Error()}, false)
		return
	}
	p.Deadline = m.Deadline
	p.Prefill = remember.PrefillValues(p.Form, m.Request.Message, m.Prefill)
	var muteMu sync.Mutex
	mute, remember := false, false
	p.Mute = func() {
		muteMu.Lock()
		mute = true
		muteMu.Unlock()
	}
	if m.CanRemember {
		p.Remember = func(bridge.Result) {
			muteMu.Lock()
			remember = true
			muteMu.Unlock()
		}
	}
	// The hub counts what was on the screen when a process ends: a
	// process that fails as it makes the window never says this.
	p.Shown = func() { go s.send(winproto.Message{Op: winproto.OpShown, ID: id}) }
	s.prompter.setWaiting(m.Waiting)
	// guiPrompter calls Mute and Remember before answer, on one goroutine.
	dismiss := s.prompter.Show(&p, func(res bridge.Result) {
		muteMu.Lock()
		muted, remembered := mute, remember
		muteMu.Unlock()
		s.answerWith(id, res, muted, remembered)
	})
	s.mu.Lock()
	if _, open := s.prompts[id]; open {
		s.prompts[id] = dismiss
	}
	s.mu.Unlock()
}

// answer sends the answer of prompt id and counts its window closed,
// unless the hub dismissed it first (the hub decided then).
func (s *Side) answer(id uint64, res bridge.Result, muteHour bool) {
	s.answerWith(id, res, muteHour, false)
}

// answerWith is answer with the "Always answer this way" choice.
func (s *Side) answerWith(id uint64, res bridge.Result, muteHour, remember bool) {
	s.mu.Lock()
	_, open := s.prompts[id]
	delete(s.prompts, id)
	s.mu.Unlock()
	if !open {
		return
	}
	s.send(winproto.Message{Op: winproto.OpAnswer, ID: id, Result: &res, MuteHour: muteHour, Remember: remember})
	fyne.Do(s.closedOne)
}

// closedOne counts a window closed; on the Fyne goroutine.
func (s *Side) closedOne() {
	s.open--
	s.idleCheck()
}

// idleCheck tells the hub when no window is open, naming the last
// window-opening message handled: the hub lets the process go after the
// linger unless it sent another since. On the Fyne goroutine.
func (s *Side) idleCheck() {
	if s.open <= 0 {
		s.open = 0
		seq := s.seq
		go s.send(winproto.Message{Op: winproto.OpIdle, Seq: seq})
	}
}

// showHistory opens the history window, or brings it forward; on the Fyne
// goroutine.
func (s *Side) showHistory() {
	if s.historyWin != nil {
		s.historyWin.Window().Show()
		s.historyWin.Window().RequestFocus()
		return
	}
	hw := ui.ShowHistory(s.app, s.history)
	s.historyWin = hw
	s.open++
	hw.Window().SetOnClosed(func() {
		if s.historyWin == hw {
			s.historyWin = nil
		}
		s.closedOne()
	})
}

// showSettings opens the Settings window on st, or brings it forward; on
// the Fyne goroutine. Save goes to the hub, which writes config.toml.
func (s *Side) showSettings(st state.Settings) {
	if s.settingsWin != nil {
		s.settingsWin.Show()
		s.settingsWin.RequestFocus()
		return
	}
	win := ui.ShowSettings(s.app, st, func(saved state.Settings) error {
		_, err := s.call(winproto.Message{Op: winproto.OpSaveSettings, Settings: &saved}, nil)
		return err
	})
	s.settingsWin = win
	s.open++
	win.SetOnClosed(func() {
		if s.settingsWin == win {
			s.settingsWin = nil
		}
		s.closedOne()
	})
}

// call sends m as a call to the hub and waits for its reply; data, when
// set, receives an export's chunks.
func (s *Side) call(m winproto.Message, data io.Writer) (winproto.Message, error) {
	c := &WinCall{reply: make(chan winproto.Message, 1), data: data}
	s.mu.Lock()
	if s.gone {
		s.mu.Unlock()
		return winproto.Message{}, errHubGone
	}
	s.nextID++
	m.ID = s.nextID
	s.calls[m.ID] = c
	s.mu.Unlock()
	s.send(m)
	r, ok := <-c.reply
	if !ok {
		return winproto.Message{}, errHubGone
	}
	if err := winproto.Error(r); err != nil {
		return r, err
	}
	return r, c.werr
}

// errHubGone is a call's error once the hub ended the socket.
var errHubGone = errors.New("the hub stopped")

// openURL asks the hub to open u in the user's browser (it knows the
// user's environment: prepareDesktop).
func (s *Side) openURL(u *url.URL) error {
	_, err := s.call(winproto.Message{Op: winproto.OpOpen, URL: u.String()}, nil)
	return err
}

// WinHistorySource is the history window's HistorySource in the window process:
// every read and change is a call to the hub, which holds history.db.
type WinHistorySource struct{ s *Side }

var _ ui.HistorySource = (*WinHistorySource)(nil)

func (h *WinHistorySource) List(q history.Query) ([]history.Record, error) {
	r, err := h.s.call(winproto.Message{Op: winproto.OpList, Query: &q}, nil)
	return r.Records, err
}

func (h *WinHistorySource) Get(id uint64) (history.Record, error) {
	r, err := h.s.call(winproto.Message{Op: winproto.OpGet, RecordID: id}, nil)
	if err != nil {
		return history.Record{}, err
	}
	if len(r.Records) != 1 {
		return history.Record{}, fmt.Errorf("the hub sent %d records for one", len(r.Records))
	}
	return r.Records[0], nil
}

func (h *WinHistorySource) CountQuery(q history.Query) (int, error) {
	r, err := h.s.call(winproto.Message{Op: winproto.OpCount, Query: &q}, nil)
	return r.Count, err
}

func (h *WinHistorySource) Delete(id uint64) error {
	_, err := h.s.call(winproto.Message{Op: winproto.OpDelete, RecordID: id}, nil)
	return err
}

func (h *WinHistorySource) Clear() error {
	_, err := h.s.call(winproto.Message{Op: winproto.OpClear}, nil)
	return err
}

func (h *WinHistorySource) Export(w io.Writer, format string, q history.Query) (int, error) {
	r, err := h.s.call(winproto.Message{Op: winproto.OpExport, Format: format, Query: &q}, w)
	return r.Count, err
}

// Servers names the servers with records, for the server filter.
func (h *WinHistorySource) Servers() ([]string, error) {
	r, err := h.s.call(winproto.Message{Op: winproto.OpServers}, nil)
	return r.Servers, err
}
