package desktop

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os/exec"
	"sync"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/winproto"
	"github.com/elicitray/elicitray/ui/lang"
	"github.com/elicitray/elicitray/ui/state"

	"github.com/elicitray/elicitray/app/hub"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
)

// defaultLinger is how long the window process stays after its last window
// closed: a burst of prompts finds it running (a window in tens of
// milliseconds rather than the hundred or two a new process takes), and a
// hub left alone is back to no GL, no polling, within seconds.
const defaultLinger = 10 * time.Second

// LingerEnv, when set to a Go duration ("2s", "0s"), replaces defaultLinger:
// for tests and benchmarks that wait for the window process to go.
const LingerEnv = "ELICITRAY_WINDOW_LINGER"

// windowStopWait bounds how long a stopping hub waits for its window
// process to end after telling it to; then it is killed.
const windowStopWait = 3 * time.Second

// Windows is the hub's side of the window process (winwire.go): the
// desktop Prompter, and what opens the history and Settings windows. It
// starts the process when a window is wanted and none runs, and lets it go
// once it has had no window for the linger. A process that ends with a
// prompt on screen (a crash, a kill) answers that prompt cancel, with a
// sentence in history saying so; the next prompt starts a new one.
type Windows struct {
	Hub   *hub.Hub
	Paths paths.Paths
	// exe is the program run as `exe ui`: this binary.
	exe string
	// log receives the hub's sentences and the window process's stderr.
	log io.Writer
	// linger: see defaultLinger.
	linger time.Duration
	// open opens a link the user agreed to (guiPrompter.openURL, in the
	// user's own environment).
	open func(*url.URL) error

	// menu is what the menu window needs of the hub (menuwin.go).
	menu menuHub

	mu      sync.Mutex
	cur     *winProc // the process windows go to, or nil
	procs   map[*winProc]bool
	nextID  uint64
	waiting int
	closed  bool
	// offerNext: the first-run offer opens once the windows open now are
	// closed (offerAfterWindows).
	offerNext bool
}

// winProc is one window process.
type winProc struct {
	cmd  *exec.Cmd
	conn platform.Conn
	// lines frames conn: one message a line.
	lines *hubapi.Conn
	// Under windows.mu:
	seq      uint64            // window-opening messages sent
	prompts  map[uint64]*shown // on its screen, by id
	linger   *time.Timer
	retiring bool          // let go: its end is no crash
	exited   chan struct{} // closed once it exited and was reaped
}

// shown is a prompt sent to a window process.
type shown struct {
	p      *hub.Prompt
	answer func(bridge.Result)
	// onScreen: the process said its window is shown (winShown). Under
	// windows.mu.
	onScreen bool
}

var _ hub.Prompter = (*Windows)(nil)

// lingerFrom is the linger lingerEnv sets, else defaultLinger.
func lingerFrom(getenv func(string) string) time.Duration {
	if d, err := time.ParseDuration(getenv(LingerEnv)); err == nil && d >= 0 {
		return d
	}
	return defaultLinger
}

func (w *Windows) logf(format string, args ...any) {
	fmt.Fprintf(w.log, "elicitray hub: "+format+"\n", args...)
}

// Show sends p to the window process, starting one if none runs.
func (w *Windows) Show(p *hub.Prompt, answer func(bridge.Result)) func() {
	w.mu.Lock()
	defer w.mu.Unlock()
	proc, err := w.procLocked()
	if err != nil {
		go answer(bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByError,
			Reason: fmt.Sprintf("the prompt window could not be opened: %v", err)})
		return func() {}
	}
	w.nextID++
	id := w.nextID
	proc.prompts[id] = &shown{p: p, answer: answer}
	proc.opening()
	proc.send(winproto.Message{Op: winproto.OpShow, ID: id, Request: p.Request, Deadline: p.Deadline, Waiting: w.waiting,
		CanRemember: p.Remember != nil, Prefill: p.Prefill})
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if _, ok := proc.prompts[id]; ok {
			delete(proc.prompts, id)
			proc.send(winproto.Message{Op: winproto.OpDismiss, ID: id})
		}
	}
}

// prestart starts the window process now, with no window: a hub is most
// often started by a wrapper with a prompt to ask (hubClient connects on
// the first), and the window process's start (its program, Fyne, the
// display) then overlaps the hub's own and the wrapper's connecting. With
// nothing to show it goes after the linger, as after its last window.
func (w *Windows) prestart() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.procLocked(); err != nil {
		w.logf("%v", err)
	}
}

// setWaiting tells the window on screen how many prompts wait behind it.
// It starts no process.
func (w *Windows) setWaiting(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiting = max(n, 0)
	if w.cur != nil {
		w.cur.send(winproto.Message{Op: winproto.OpWaiting, Waiting: w.waiting})
	}
}

// showHistory opens the history window (or brings it forward).
func (w *Windows) showHistory() {
	if _, err := w.Hub.Records().Store(); err != nil {
		if w.Hub.Notify != nil {
			w.Hub.Notify("elicitray", err.Error())
		}
		return
	}
	w.openWindow(winproto.Message{Op: winproto.OpHistory, NoTray: w.menu.noTray})
}

// showSettings opens the Settings window on the config in force (or
// brings it forward).
func (w *Windows) showSettings() {
	h := w.Hub
	cfg := h.Settings()
	servers := map[string]bool{}
	for _, s := range h.Servers() {
		servers[s.Name] = true
	}
	s := SettingsOf(cfg, servers)
	s.Remember = h.RememberSettings(cfg)
	var err error
	if s.Tools, err = ToolSettings(w.Paths); err != nil {
		w.logf("pinned tools: %v", err)
	}
	w.openWindow(winproto.Message{Op: winproto.OpSettings, Settings: &s})
}

// openWindow sends m, a window-opening message, starting a process if none
// runs.
func (w *Windows) openWindow(m winproto.Message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	proc, err := w.procLocked()
	if err != nil {
		w.logf("%v", err)
		if w.Hub.Notify != nil {
			w.Hub.Notify("elicitray", lang.L("The window could not be opened: {{.Error}}", map[string]any{"Error": err}))
		}
		return
	}
	proc.opening()
	proc.send(m)
}

// offerAfterWindows opens the first-run offer once the windows the hub
// opens first have been closed, and no other came for the linger (retire):
// a hub started to show a window (a wrapper's prompt, a command's window)
// shows that one alone. The offer put before it would wait behind it, a
// second question at the moment the user meets elicitray's first. A hub
// that shows no window does not ask this time; the next one asks.
func (w *Windows) offerAfterWindows() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.offerNext = true
}

// changed tells an open history window that history changed.
func (w *Windows) changed() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur != nil {
		w.cur.send(winproto.Message{Op: winproto.OpChanged})
	}
}

// opening counts a window-opening message about to be sent; a linger
// armed meanwhile no longer applies. windows.mu is held.
func (p *winProc) opening() {
	p.seq++
	if p.linger != nil {
		p.linger.Stop()
		p.linger = nil
	}
}

func (p *winProc) send(m winproto.Message) {
	// A process gone is found by the reader (EOF), which answers its
	// prompts: the error here adds nothing.
	_ = p.lines.Write(m)
}

// procLocked returns the window process, started now when none runs.
// windows.mu is held.
func (w *Windows) procLocked() (*winProc, error) {
	if w.closed {
		return nil, errors.New("the hub is stopping")
	}
	if w.cur != nil {
		return w.cur, nil
	}
	p, err := w.start()
	if err != nil {
		return nil, err
	}
	w.cur = p
	if w.procs == nil {
		w.procs = map[*winProc]bool{}
	}
	w.procs[p] = true
	return p, nil
}

// start runs `elicitray ui` with its end of a new connection to the hub
// (platform.ChildConn: a socketpair as fd 3 on Unix, its stdin and stdout
// on Windows).
func (w *Windows) start() (*winProc, error) {
	cmd := exec.Command(w.exe, "ui")
	conn, started, err := platform.ChildConn(cmd)
	if err != nil {
		return nil, fmt.Errorf("making the window process's socket: %w", err)
	}
	defer started()
	cmd.Stderr = w.log
	cmd.SysProcAttr = windowProcAttr()
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("starting the window process: %w", err)
	}
	p := &winProc{cmd: cmd, conn: conn, lines: hubapi.NewConn(conn, 0), prompts: map[uint64]*shown{}, exited: make(chan struct{})}
	go w.read(p)
	return p, nil
}

// read serves what p says until it goes, then reaps it and answers what it
// left on screen.
func (w *Windows) read(p *winProc) {
	for {
		var m winproto.Message
		err := p.lines.Read(&m)
		if bad := (hubapi.BadLineError{}); errors.As(err, &bad) {
			w.logf("the window process said something unreadable: %v", bad)
			continue
		}
		if err != nil {
			break
		}
		w.handle(p, &m)
	}
	p.conn.Close()
	werr := p.cmd.Wait()
	w.mu.Lock()
	if w.cur == p {
		w.cur = nil
	}
	delete(w.procs, p)
	if p.linger != nil {
		p.linger.Stop()
	}
	left := p.prompts
	p.prompts = nil
	crashed, closing := !p.retiring, w.closed
	w.mu.Unlock()
	close(p.exited)
	if !crashed || closing {
		return
	}
	why := "it exited"
	if werr != nil {
		why = werr.Error()
	}
	// Counted by what the process said was on its screen: a process that
	// failed as it started (no display) showed nothing it was sent.
	onScreen := 0
	for _, s := range left {
		if s.onScreen {
			onScreen++
		}
	}
	unshown := ""
	if n := len(left) - onScreen; n > 0 {
		unshown = fmt.Sprintf(" and %d sent to it but not yet shown", n)
	}
	w.logf("the window process (pid %d) ended (%s) with %d prompt(s) on screen%s; the next window starts a new one", p.cmd.Process.Pid, why, onScreen, unshown)
	for _, s := range left {
		reason := fmt.Sprintf("the prompt window closed before anyone answered: its process ended (%s)", why)
		if !s.onScreen {
			reason = fmt.Sprintf("the prompt window could not be shown: its process ended (%s) before it showed it", why)
		}
		s.answer(bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByError, Reason: reason})
	}
}

// handle serves one message of p's.
func (w *Windows) handle(p *winProc, m *winproto.Message) {
	switch m.Op {
	case winproto.OpAnswer:
		w.mu.Lock()
		s := p.prompts[m.ID]
		delete(p.prompts, m.ID)
		w.mu.Unlock()
		if s == nil {
			return // dismissed meanwhile: the hub decided first
		}
		res := bridge.Result{Action: bridge.ActionCancel}
		if m.Result != nil {
			res = *m.Result
		}
		go s.p.Decided(res, m.MuteHour, m.Remember, s.answer)
	case winproto.OpShown:
		w.mu.Lock()
		if s := p.prompts[m.ID]; s != nil {
			s.onScreen = true
		}
		w.mu.Unlock()
	case winproto.OpIdle:
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.cur != p || m.Seq != p.seq || len(p.prompts) > 0 {
			return // a window is on its way there
		}
		seq := p.seq
		if p.linger != nil {
			p.linger.Stop()
		}
		p.linger = time.AfterFunc(w.linger, func() { w.retire(p, seq) })
	default:
		go w.serveCall(p, m)
	}
}

// retire lets p go when it still has had no window since its idle at seq:
// it reads the end of its input and exits. When the first-run offer waits
// for the windows the hub was started for (offerAfterWindows), it opens
// then instead: a linger with no window is the quiet after them, and an
// agent that asks again at once finds no offer between its prompts.
func (w *Windows) retire(p *winProc, seq uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur != p || p.seq != seq || len(p.prompts) > 0 {
		return
	}
	if w.offerNext && seq > 0 {
		w.offerNext = false
		w.logf("the windows it was started for are closed: asking whether to start it at login")
		p.linger = nil
		p.opening()
		p.send(winproto.Message{Op: winproto.OpOffer})
		return
	}
	p.retiring = true
	p.linger = nil
	w.cur = nil
	_ = p.conn.CloseWrite()
}

// serveCall answers one call of the window process: history, Settings'
// save, opening a link.
func (w *Windows) serveCall(p *winProc, m *winproto.Message) {
	reply := winproto.Message{Op: winproto.OpReply, ID: m.ID}
	err := w.call(p, m, &reply)
	if err != nil {
		reply.SetError(err)
	}
	p.send(reply)
}

func (w *Windows) call(p *winProc, m *winproto.Message, reply *winproto.Message) error {
	switch m.Op {
	case winproto.OpSaveSettings:
		if m.Settings == nil {
			return errors.New("no settings to save")
		}
		return w.SaveSettings(*m.Settings)
	case winproto.OpMenuDo:
		return w.menuDo(m)
	case winproto.OpOfferAnswer:
		return w.autostartAnswer(m.Yes)
	case winproto.OpOpen:
		u, err := url.Parse(m.URL)
		if err != nil {
			return fmt.Errorf("not a link: %w", err)
		}
		if w.open == nil {
			return errors.New("this hub cannot open links")
		}
		return w.open(u)
	}
	st, err := w.Hub.Records().Store()
	if err != nil {
		return err
	}
	q := history.Query{}
	if m.Query != nil {
		q = *m.Query
	}
	switch m.Op {
	case winproto.OpList:
		reply.Records, err = st.List(q)
	case winproto.OpGet:
		var rec history.Record
		rec, err = st.Get(m.RecordID)
		reply.Records = []history.Record{rec}
	case winproto.OpCount:
		reply.Count, err = st.CountQuery(q)
	case winproto.OpDelete:
		err = st.Delete(m.RecordID)
	case winproto.OpClear:
		err = st.Clear()
	case winproto.OpServers:
		reply.Servers, err = st.Servers()
	case winproto.OpExport:
		bw := bufio.NewWriterSize(winExportWriter{p: p, id: m.ID}, 256<<10)
		reply.Count, err = st.Export(bw, m.Format, q)
		err = history.EndExport(bw, err)
	default:
		err = fmt.Errorf("unknown operation %q", m.Op)
	}
	return err
}

// winExportWriter sends what Store.Export writes as data messages of call id.
type winExportWriter struct {
	p  *winProc
	id uint64
}

func (x winExportWriter) Write(b []byte) (int, error) {
	x.p.send(winproto.Message{Op: winproto.OpData, ID: x.id, Data: b})
	return len(b), nil
}

// SaveSettings writes what the Settings window saved to config.toml and
// puts it in force at once; what the window does not show ([history],
// [remember] for) stays as it was (withUnshown).
func (w *Windows) SaveSettings(s state.Settings) error {
	h := w.Hub
	c := WithUnshown(ConfigOf(s), h.Settings())
	c.Remember = hub.RememberConfigOf(s.Remember, c.Remember)
	if err := h.ForgetRules(s.Remember.Forget); err != nil {
		return err
	}
	if err := config.Save(w.Paths.Config, c); err != nil {
		return fmt.Errorf("could not write %s: %w", w.Paths.Config, err)
	}
	go h.SetConfig(c)
	// Last: a tool the server changed again since the window opened is
	// said, and the rest, saved already, is not lost with it.
	if err := SaveToolSettings(w.Paths, s.Tools, time.Now(), func(r history.Record) { _ = h.ToolAccepted(r) }); err != nil {
		return fmt.Errorf("the rest was saved, but: %w", err)
	}
	return nil
}

// Close lets every window process go and waits until each has exited; one
// that does not within windowStopWait is killed. Nothing starts another.
func (w *Windows) Close() {
	w.mu.Lock()
	w.closed = true
	w.cur = nil
	var procs []*winProc
	for p := range w.procs {
		p.retiring = true
		_ = p.conn.CloseWrite()
		procs = append(procs, p)
	}
	w.mu.Unlock()
	for _, p := range procs {
		select {
		case <-p.exited:
		case <-time.After(windowStopWait):
			w.logf("the window process (pid %d) did not stop within %v; killing it", p.cmd.Process.Pid, windowStopWait)
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	}
}
