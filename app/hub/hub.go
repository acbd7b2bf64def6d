package hub

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"

	"github.com/elicitray/elicitray/app/remember"

	"github.com/elicitray/elicitray/app/journal"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/lang"
)

// Prompt is one elicitation waiting for a person, as the hub hands it to a
// Prompter.
type Prompt struct {
	Request *bridge.Request
	Form    *elicit.Form     // form mode
	URL     *elicit.URLCheck // URL mode: what the consent window shows
	Arrived time.Time
	// Deadline is when the prompt is answered cancel by timeout.
	Deadline time.Time
	// Mute silences the prompt's server for an hour ("Don't ask again for
	// an hour"); the window calls it before it answers.
	Mute func()
	// Remember keeps the answer as a remembered rule ("Always answer this
	// way", remember.go); the window calls it with the answer before it
	// answers. Nil when the prompt cannot be remembered (URL mode, a
	// secret field): the window then offers no such choice.
	Remember func(bridge.Result)
	// Prefill holds the values last given for the same question, by
	// property name (never a secret's); the form starts with them in place
	// of its defaults. Nil: the defaults.
	Prefill map[string]any
	// Shown, when set, is called once the prompt's window is on the
	// screen (in the window process, on the Fyne goroutine; it must not
	// block): the window process tells the hub (winShown).
	Shown func()
}

// Decided does what follows a person's answer res to p, in order: mutes
// the server for an hour (muteHour; first, so that the prompts behind it
// are answered too), keeps the answer as a remembered rule (remember;
// before the answer, so that the next request finds it), then answers.
// It touches disk and socket: never call it on Fyne's goroutine.
func (p *Prompt) Decided(res bridge.Result, muteHour, remember bool, answer func(bridge.Result)) {
	if muteHour && p.Mute != nil {
		p.Mute()
	}
	if remember && p.Remember != nil {
		p.Remember(res)
	}
	answer(res)
}

// A Prompter shows prompts to a person: the desktop windows, or a scripted
// stand-in in tests. Show must not block; it calls answer at most once,
// with DecidedBy empty (the user decided) or "error" and a Reason when the
// prompt could not be shown or its window went away unanswered (the
// window process crashed). The hub calls dismiss when the prompt ended
// otherwise (timeout, server cancelled); dismiss must not call answer.
type Prompter interface {
	Show(p *Prompt, answer func(bridge.Result)) (dismiss func())
}

// Hub is the per-user process's core: it serves the socket, queues prompts
// in arrival order, shows one at a time through its Prompter, times them
// out, and records every decision in history. It has no Fyne in it; the
// desktop Prompter does.
type Hub struct {
	// Store is the history, when the caller opened it; runHub gives the
	// hub a journal instead (SetJournal), which may be without one for a
	// while. With neither, decisions are kept in memory only.
	Store    *history.Store
	Prompter Prompter
	// Config is the policy in force: timeouts, rate limits and rules per
	// server. Set it before Serve; SetConfig changes it while running.
	Config config.Config
	// ConfigPath, when set, is the config file Config came from: the hub
	// reads it again when it changes, before it next decides anything.
	ConfigPath string
	// Timeout, when set, replaces Config's default timeout (a server's own
	// timeout still wins).
	Timeout time.Duration
	// Notify, when set, shows a desktop notification. It must not block.
	Notify func(title, body string)
	// PolicyChanged, when set, is called after pause, a mute or the set of
	// known servers changed (the tray menu shows them). It must not block.
	PolicyChanged func()
	// Recorded, when set, is called after a decision was added to the
	// history (the history window shows it live). It must not block.
	Recorded func()
	// Clock, when set, replaces time.Now for the policy (tests).
	Clock func() time.Time
	// RulesPath, when set, is the file of remembered answers and of the
	// values last given (remember.go); empty: nothing is remembered.
	RulesPath string
	// Log receives sentences for people; nil discards.
	Log io.Writer
	// Version is the elicitray version status reports (app.Version).
	Version string
	// Display is the X display the hub's windows open on (its DISPLAY),
	// which status tells doctor; empty: none said. runHub sets it: the
	// hub holds that display open and stops when it goes (openDisplay).
	Display string
	// Changed, when set, is called after the queue changed, with the number
	// of prompts waiting (the one shown included). It must not block.
	Changed func(waiting int)
	// Quit, ShowHistory, ShowSettings and ShowMenu, when set, serve
	// `elicitray quit`, `history window`, `settings` and `menu`: the tray's
	// items without a tray. They must not block.
	Quit, ShowHistory, ShowSettings, ShowMenu func()

	// jr keeps decisions (journal.go): set once, by SetJournal or on first
	// use from Store.
	jr     *journal.Journal
	jrOnce sync.Once

	Mu      sync.Mutex
	Queue   []*Item // arrival order; the shown one stays in it until decided
	showing *Item
	policy  PolicyState
	// cfgStamp is the config file's size and time when Config was read.
	cfgStamp config.Stamp
	// memo is the remembered answers at RulesPath, made on first use.
	memoOnce sync.Once
	memo     *remember.Memory
	// handling counts the requests being handled (Handled waits for them);
	// another connection's request may begin while Handled waits.
	handling bridge.Busy
}

// Handled waits until no request is being handled: a hub that stops after
// Serve returned first sends the replies it owes (`elicitray quit`'s, say).
// Connections stay open meanwhile; only what they asked is waited for.
func (h *Hub) Handled() {
	<-h.handling.Idle()
}

// Item is one queued prompt.
type Item struct {
	Prompt  Prompt
	reply   func(bridge.Result)
	once    sync.Once
	timer   *time.Timer
	dismiss func()
	// unsaved is the prompt's record when neither history nor the spool
	// could take it (a full disk): it goes to the wrapper with the
	// decision, so that a hub killed before it could save it loses nothing
	// the wrapper still holds.
	unsaved *history.Record
	// conn is the connection of the wrapper that asked: it owes the word
	// on the decision's delivery (connState.awaiting).
	conn *ConnState
	// settled: the user answered the prompt elsewhere, and that answer's
	// record is its own (ToolAccepted): finish keeps none, and closes the
	// window.
	settled bool
}

func (h *Hub) logf(format string, args ...any) {
	if h.Log != nil {
		fmt.Fprintf(h.Log, "elicitray hub: "+format+"\n", args...)
	}
}

// Serve accepts connections on ln until ctx is done or ln is closed.
func (h *Hub) Serve(ctx context.Context, ln net.Listener) error {
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		if err := hubapi.CheckPeer(conn); err != nil {
			h.logf("refused a connection: %v", err)
			conn.Close()
			continue
		}
		go h.serveConn(ctx, conn)
	}
}

// ConnState is one wrapper's connection.
type ConnState struct {
	conn  *hubapi.Conn
	mu    sync.Mutex
	items map[uint64]*Item
	// awaiting maps the requests whose records are kept as
	// history.DeliveryPending to their servers: the wrapper owes word of
	// whether each answer reached its server (opDelivered). Those still
	// here when the connection ends are marked not delivered.
	awaiting map[string]string
}

// await notes that the wrapper owes word on rec's delivery.
func (c *ConnState) await(rec history.Record) {
	if rec.Delivery != history.DeliveryPending || rec.Key == "" {
		return
	}
	c.mu.Lock()
	c.awaiting[rec.Key] = rec.Server
	c.mu.Unlock()
}

// wrapperEnded is the Delivery of a decision whose wrapper's connection
// ended before it said whether the answer reached the server.
const wrapperEnded = "the wrapper ended (it crashed or was killed) before it passed the answer on to the server"

func (c *ConnState) send(m hubapi.Message) { _ = c.conn.Write(m) }

func (h *Hub) serveConn(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	// A wrapper that could not reach a hub spooled what it sent its
	// server; when it (or any client) connects, those records come in.
	go h.Records().Flush()
	cs := &ConnState{conn: hubapi.NewConn(conn, 0), items: map[uint64]*Item{}, awaiting: map[string]string{}}
	for {
		var m hubapi.Message
		err := cs.conn.Read(&m)
		if bad := (hubapi.BadLineError{}); errors.As(err, &bad) {
			cs.send(hubapi.Message{Error: "not a hub message: " + bad.Error()})
			continue
		}
		if err != nil {
			break
		}
		done := h.handling.Start()
		h.handle(cs, &m)
		done()
	}
	// The wrapper went away (its server or host stopped): nobody is left to
	// receive an answer, so its prompts close.
	cs.mu.Lock()
	left := make([]*Item, 0, len(cs.items))
	for _, it := range cs.items {
		left = append(left, it)
	}
	cs.mu.Unlock()
	for _, it := range left {
		// A wrapper that stops tells the hub why first (opCancel): only one
		// that crashed or was killed gets here. Its server did not cancel.
		h.finish(it, bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByError,
			Reason: "the wrapper went away (it crashed or was killed) before anyone answered; its server got no answer"})
	}
	// Decisions sent to it that it never said it passed on: history says
	// the server did not get them (issue 25).
	cs.mu.Lock()
	owed := cs.awaiting
	cs.awaiting = map[string]string{}
	cs.mu.Unlock()
	for key, server := range owed {
		h.logf("%s: a decision did not reach the server: %s (request %s)", server, wrapperEnded, key)
		_ = h.Keep(journal.DeliveryWord(server, key, wrapperEnded))
	}
}

// operations is the hub protocol: each operation's handler, which answers
// on cs (or not: cancel, delivered). wire.go says what each is.
var operations = map[string]func(h *Hub, cs *ConnState, m *hubapi.Message){
	hubapi.OpPrompt:       (*Hub).opPrompt,
	hubapi.OpCancel:       (*Hub).opCancel,
	hubapi.OpDelivered:    (*Hub).opDelivered,
	hubapi.OpRecord:       (*Hub).opRecord,
	hubapi.OpToolAccepted: (*Hub).opRecord,
	hubapi.OpHistory:      (*Hub).opHistory,
	hubapi.OpGet:          (*Hub).opGet,
	hubapi.OpExport:       (*Hub).opExport,
	hubapi.OpPrune:        (*Hub).opPrune,
	hubapi.OpVerify:       (*Hub).opVerify,
	hubapi.OpPause:        (*Hub).opPause,
	hubapi.OpMute:         (*Hub).opMute,
	hubapi.OpUnmute:       (*Hub).opUnmute,
	hubapi.OpStatus:       (*Hub).opStatus,
	hubapi.OpQuit:         (*Hub).opWindow,
	hubapi.OpWindow:       (*Hub).opWindow,
	hubapi.OpSettings:     (*Hub).opWindow,
	hubapi.OpMenu:         (*Hub).opWindow,
}

func (h *Hub) handle(cs *ConnState, m *hubapi.Message) {
	op, ok := operations[m.Op]
	if !ok {
		cs.send(hubapi.Message{ID: m.ID, Error: fmt.Sprintf("unknown operation %q", m.Op)})
		return
	}
	op(h, cs, m)
}

func (h *Hub) opPrompt(cs *ConnState, m *hubapi.Message) {
	if m.Request == nil {
		cs.send(hubapi.Message{ID: m.ID, Error: "prompt without a request"})
		return
	}
	id := m.ID
	it, err := h.Prepare(m.Request)
	if err != nil {
		cs.send(hubapi.Message{ID: id, Error: err.Error()})
		return
	}
	it.conn = cs
	if res := h.decidePolicy(it); res != nil {
		// Kept before it is sent (DESIGN.md: durable before its answer
		// leaves).
		h.recordDecision(it, res)
		cs.send(hubapi.PromptReply{Result: res, Record: it.unsaved}.Reply(id))
		return
	}
	// Registered under the lock, so a decision that comes at once (a
	// tiny timeout) finds the item to remove.
	cs.mu.Lock()
	h.enqueue(it, func(res bridge.Result) {
		cs.mu.Lock()
		delete(cs.items, id)
		cs.mu.Unlock()
		cs.send(hubapi.PromptReply{Result: &res, Record: it.unsaved}.Reply(id))
	})
	cs.items[id] = it
	cs.mu.Unlock()
	h.showNext()
}

func (h *Hub) opCancel(cs *ConnState, m *hubapi.Message) {
	cs.mu.Lock()
	it := cs.items[m.ID]
	cs.mu.Unlock()
	if it == nil {
		return
	}
	res := bridge.Result{DecidedBy: bridge.DecidedByServerCancelled, Reason: "the server cancelled the request"}
	if m.Result != nil {
		res = *m.Result // the wrapper knows why
	}
	res.Action = bridge.ActionCancel
	h.finish(it, res)
}

func (h *Hub) opDelivered(cs *ConnState, m *hubapi.Message) {
	if m.Key == "" {
		return
	}
	cs.mu.Lock()
	server, ok := cs.awaiting[m.Key]
	delete(cs.awaiting, m.Key)
	cs.mu.Unlock()
	if !ok {
		// Asked through another hub, which stopped: its record is in
		// history or the spool all the same.
		server = "a server"
	}
	if m.Error != "" {
		h.logf("%s: a decision did not reach the server: %s (request %s)", server, m.Error, m.Key)
	}
	_ = h.Keep(journal.DeliveryWord(server, m.Key, m.Error))
}

func (h *Hub) opRecord(cs *ConnState, m *hubapi.Message) {
	var err error
	switch {
	case m.Op == hubapi.OpToolAccepted:
		var errs []error
		for _, rec := range m.Records {
			errs = append(errs, h.ToolAccepted(journal.RedactRecord(rec, nil)))
		}
		err = errors.Join(errs...)
	case m.Record == nil:
	default:
		cs.await(*m.Record)
		err = h.Keep(journal.RedactRecord(*m.Record, nil)) // an older wrapper's too
	}
	if m.ID != 0 {
		// On disk, or not: a wrapper told "not saved" spools it itself.
		reply := hubapi.Message{ID: m.ID}
		if err != nil {
			reply.Error = err.Error()
		}
		cs.send(reply)
	}
}

func (h *Hub) opHistory(cs *ConnState, m *hubapi.Message) {
	q := history.Query{}
	if m.Query != nil {
		q = *m.Query
	}
	if st := h.historyFor(cs, m.ID); st != nil {
		recs, err := st.List(q)
		cs.send(h.historyReply(m.ID, recs, err))
	}
}

func (h *Hub) opGet(cs *ConnState, m *hubapi.Message) {
	if st := h.historyFor(cs, m.ID); st != nil {
		rec, err := st.Get(m.RecordID)
		cs.send(h.historyReply(m.ID, []history.Record{rec}, err))
	}
}

func (h *Hub) opExport(cs *ConnState, m *hubapi.Message) {
	q := history.Query{}
	if m.Query != nil {
		q = *m.Query
	}
	st := h.historyFor(cs, m.ID)
	if st == nil {
		return
	}
	// Streamed on this connection's goroutine: the connection's other
	// calls wait for it.
	bw := bufio.NewWriterSize(&ExportWriter{cs: cs, id: m.ID}, 256<<10)
	n, err := st.Export(bw, m.Format, q)
	if err = history.EndExport(bw, err); err != nil {
		reply := hubapi.Message{ID: m.ID, Count: n}
		reply.SetError(err)
		cs.send(reply)
		return
	}
	done := hubapi.CountReply{Count: n}.Reply(m.ID)
	done.Done = true
	cs.send(done)
}

func (h *Hub) opPrune(cs *ConnState, m *hubapi.Message) {
	opts := h.retention()
	if m.Prune != nil {
		opts = *m.Prune
	}
	n, err := h.prune(opts)
	if err != nil {
		cs.send(hubapi.Message{ID: m.ID, Error: err.Error()})
		return
	}
	cs.send(hubapi.CountReply{Count: n}.Reply(m.ID))
}

func (h *Hub) opVerify(cs *ConnState, m *hubapi.Message) {
	st := h.historyFor(cs, m.ID)
	if st == nil {
		return
	}
	v, err := st.Verify()
	if err != nil {
		cs.send(hubapi.Message{ID: m.ID, Error: err.Error()})
		return
	}
	cs.send(hubapi.Message{ID: m.ID, Verification: &v})
}

func (h *Hub) opPause(cs *ConnState, m *hubapi.Message) {
	h.SetPaused(m.Paused)
	cs.send(hubapi.Message{ID: m.ID})
}

func (h *Hub) opMute(cs *ConnState, m *hubapi.Message) {
	if m.Server == "" || m.For <= 0 {
		cs.send(hubapi.Message{ID: m.ID, Error: "mute needs a server and a positive duration"})
		return
	}
	if r := h.unknownServer(m.ID, m.Server); r != nil && !m.Force {
		cs.send(*r)
		return
	}
	h.Mute(m.Server, m.For)
	cs.send(hubapi.MuteReply{Until: h.now().Add(m.For)}.Reply(m.ID))
}

func (h *Hub) opUnmute(cs *ConnState, m *hubapi.Message) {
	if r := h.unknownServer(m.ID, m.Server); r != nil {
		cs.send(*r)
		return
	}
	cs.send(hubapi.MuteReply{Until: h.Unmute(m.Server)}.Reply(m.ID))
}

func (h *Hub) opStatus(cs *ConnState, m *hubapi.Message) {
	h.refreshConfig() // the rules as config.toml says now
	h.Mu.Lock()
	waiting := len(h.Queue)
	h.Mu.Unlock()
	cs.send(hubapi.StatusReply{Paused: h.Paused(), Waiting: waiting, Servers: h.Servers(), Version: h.Version,
		Display: h.Display, SavedState: h.savedState()}.Reply(m.ID))
}

// opWindow opens a window (show-history, settings, menu) or quits.
func (h *Hub) opWindow(cs *ConnState, m *hubapi.Message) {
	if m.Op == hubapi.OpWindow && h.historyFor(cs, m.ID) == nil {
		return
	}
	f := h.Quit
	switch m.Op {
	case hubapi.OpWindow:
		f = h.ShowHistory
	case hubapi.OpSettings:
		f = h.ShowSettings
	case hubapi.OpMenu:
		f = h.ShowMenu
	}
	if f == nil {
		cs.send(hubapi.Message{ID: m.ID, Error: "this hub has no windows"})
		return
	}
	reply := hubapi.Message{ID: m.ID}
	if m.Op == hubapi.OpQuit {
		// What still cannot be saved is said to the user who quits (and
		// logged, with each record, by the journal's close).
		reply = h.savedState().Reply(m.ID)
	}
	f()
	cs.send(reply)
}

// ExportWriter sends what Store.Export writes as chunks of one export.
type ExportWriter struct {
	cs *ConnState
	id uint64
}

func (w *ExportWriter) Write(p []byte) (int, error) {
	w.cs.send(hubapi.Message{ID: w.id, Data: p})
	return len(p), nil
}

// historyReply answers a history query with recs or err, and with what
// keeps decisions out of history, for the CLI to say.
func (h *Hub) historyReply(id uint64, recs []history.Record, err error) hubapi.Message {
	reply := hubapi.HistoryReply{Records: recs, Problem: h.Records().State().Problem()}.Reply(id)
	if err != nil {
		reply.Records = nil
		reply.SetError(err)
	}
	return reply
}

// historyFor returns the open history for request id, or nil after it
// answered why there is none (history.db locked since the hub started, say).
func (h *Hub) historyFor(cs *ConnState, id uint64) *history.Store {
	st, err := h.Records().Store()
	if err != nil {
		cs.send(h.historyReply(id, nil, err))
		return nil
	}
	return st
}

// savedState is what waits to be saved, after one more try to save it:
// the user asking after freeing the disk sees it land.
func (h *Hub) savedState() hubapi.SavedState {
	h.Records().Flush()
	js := h.Records().State()
	return hubapi.SavedState{Spooled: js.Spooled, Unsaved: js.Unsaved, Problem: js.Problem()}
}

// Prepare checks a request and builds its prompt: the form or the URL
// check. A request that cannot be shown is refused with an error; the
// wrapper, which answers its server cancel then, records that (newRecord).
func (h *Hub) Prepare(req *bridge.Request) (*Item, error) {
	p, err := PromptFor(req)
	if err != nil {
		return nil, err
	}
	it := &Item{Prompt: p}
	it.Prompt.Mute = func() { h.Mute(req.Server, MuteFor) }
	h.OfferRemember(it)
	return it, nil
}

// PromptFor is the prompt of req, arrived now: its form parsed, or its URL
// checked. The window process builds its prompts from the requests the
// same way.
func PromptFor(req *bridge.Request) (Prompt, error) {
	p := Prompt{Request: req, Arrived: time.Now()}
	switch req.Mode {
	case "form", "":
		// The wrapper checks schemas first; one of another version may not.
		form, err := elicit.Parse(req.RequestedSchema)
		if err != nil {
			return p, err
		}
		p.Form = form
	case "url":
		check := elicit.CheckURL(req.URL)
		if check.Refused != nil {
			return p, check.Refused
		}
		p.URL = &check
	case bridge.ModeToolCall, bridge.ModeToolChange:
		// A guarded tools/call, or a tool's changed definition
		// (bridge/guard.go): nothing to fill in, only accept or decline.
	default:
		return p, fmt.Errorf("%s-mode elicitations are not supported", req.Mode)
	}
	return p, nil
}

// enqueue adds a prepared prompt to the queue, with its server's timeout
// (DESIGN.md). reply receives the decision once.
func (h *Hub) enqueue(it *Item, reply func(bridge.Result)) {
	it.reply = reply
	h.Mu.Lock()
	server := it.Prompt.Request.Server
	timeout := h.Config.Policy(server).Timeout
	if h.Timeout > 0 && h.Config.Servers[server].Timeout.Duration == 0 {
		timeout = h.Timeout
	}
	it.Prompt.Deadline = it.Prompt.Arrived.Add(timeout)
	h.Queue = slices.Insert(h.Queue, h.queuePlace(it), it)
	// Set under the lock that finish reads it under: the timer may fire
	// before AfterFunc has returned.
	it.timer = time.AfterFunc(time.Until(it.Prompt.Deadline), func() {
		reason := fmt.Sprintf("nobody answered within %v", timeout)
		h.Mu.Lock()
		if h.showing != it {
			// Still behind the prompt on screen: history says the person
			// never saw it, not that they let it be.
			reason += ": it waited behind other prompts and was never shown"
		}
		h.Mu.Unlock()
		h.finish(it, bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByTimeout, Reason: reason})
	})
	h.Mu.Unlock()
	h.changed()
}

// queuePlace is where it goes in the queue: after every prompt that came
// before it, by the time its wrapper took it from the server (Request.Time:
// each wrapper hands its prompts on in the order it read them,
// bridge/order.go, but the prompts of several wrappers reach the hub in any
// order), and never before the one on screen. A time after the prompt reached the hub (a wrapper's clock ahead)
// counts as that arrival: no prompt waits behind later ones for good.
// h.Mu is held.
func (h *Hub) queuePlace(it *Item) int {
	at := func(q *Item) time.Time {
		if t := q.Prompt.Request.Time; !t.IsZero() && t.Before(q.Prompt.Arrived) {
			return t
		}
		return q.Prompt.Arrived
	}
	i := len(h.Queue)
	for i > 0 && h.Queue[i-1] != h.showing && at(h.Queue[i-1]).After(at(it)) {
		i--
	}
	return i
}

// showNext shows the oldest waiting prompt when none is on screen: one
// window at a time, in arrival order (DESIGN.md).
func (h *Hub) showNext() {
	h.Mu.Lock()
	if h.showing != nil || len(h.Queue) == 0 {
		h.Mu.Unlock()
		return
	}
	it := h.Queue[0]
	h.showing = it
	h.Mu.Unlock()
	// The values last given as of now: an identical prompt answered while
	// this one waited gave them.
	h.RefreshPrefill(it)

	dismiss := h.Prompter.Show(&it.Prompt, func(res bridge.Result) {
		if res.DecidedBy != bridge.DecidedByError {
			res.DecidedBy = bridge.DecidedByUser
		}
		h.finish(it, res)
	})
	h.Mu.Lock()
	if h.showing == it {
		it.dismiss = dismiss
		dismiss = nil
	}
	h.Mu.Unlock()
	if dismiss != nil {
		// Decided while Show ran (a scripted Prompter answers at once).
		dismiss()
	}
}

// finish decides it once: it leaves the queue, its window closes, the
// decision is recorded and sent, and the next prompt is shown.
func (h *Hub) finish(it *Item, res bridge.Result) {
	it.once.Do(func() {
		h.Mu.Lock()
		if it.timer != nil {
			it.timer.Stop()
		}
		for i, q := range h.Queue {
			if q == it {
				h.Queue = append(h.Queue[:i], h.Queue[i+1:]...)
				break
			}
		}
		if res.DecidedBy == bridge.DecidedByUser {
			h.keptUp(it.Prompt.Request.Server)
		}
		settled := it.settled
		var dismiss func()
		if h.showing == it {
			h.showing = nil
			// A window the user answered closes itself; one answered
			// elsewhere (settled) or by no one is closed here.
			if res.DecidedBy != bridge.DecidedByUser || settled {
				dismiss = it.dismiss
			}
		}
		h.Mu.Unlock()
		if res.Action != bridge.ActionAccept {
			res.Content = nil // PROTOCOL.md §5: content only with accept
		}
		// Recorded before anything else moves: whoever sees the window
		// close or the answer arrive finds the decision in history.
		if !settled {
			h.recordDecision(it, &res)
		}
		if dismiss != nil {
			dismiss()
			if res.DecidedBy == bridge.DecidedByHostCancelled {
				h.toldHostCancelled(it.Prompt.Request)
			}
		}
		// Before the reply: the host may ask the same question again as
		// soon as the answer reaches it, and that prompt must open with
		// these values (the history record waits for the disk too).
		h.KeepLastValues(it, res)
		it.reply(res)
		h.changed()
		h.showNext()
	})
}

// toldHostCancelled says why a window the person was looking at closed by
// itself: the host stopped waiting for the call (its own timeout, or its
// user's cancel), so no answer could reach the server any more.
func (h *Hub) toldHostCancelled(req *bridge.Request) {
	call := lang.L("its tool call")
	if req.Tool != "" {
		call = req.Tool
	}
	d := map[string]any{"Server": req.Server, "Call": call}
	title := lang.L("{{.Server}}: the host cancelled {{.Call}}", d)
	body := lang.L("The host stopped waiting for {{.Call}} while its prompt was open, so the window closed and the server was told cancel. History has it.", d)
	h.logf("%s", title)
	if h.Notify != nil {
		h.Notify(title, body)
	}
}

// recordDecision keeps a prompt's decision, secrets redacted (DESIGN.md).
// A record only in memory (a full disk) goes with the decision to the
// wrapper too (item.unsaved).
func (h *Hub) recordDecision(it *Item, res *bridge.Result) {
	rec := journal.NewRecord(it.Prompt.Request, *res, it.Prompt.Form, history.SourceHub)
	if it.conn != nil {
		it.conn.await(rec)
	}
	if err := h.Keep(rec); err != nil {
		it.unsaved = &rec
	}
}

// ToolAccepted keeps rec, the user's acceptance of a tool's changed
// definition outside the window that tells of the change (Settings,
// `elicitray tools accept`: journal.ToolAccepted), and answers every window
// telling of a change to that tool, waiting or open, with it: the tool has
// the definition the user accepted, and what those windows ask is
// settled. They keep no record of their own, rec is the decision: of the
// change accepted, which may be newer than a window's (the server changed
// the tool again; that window's wrapper then accepts nothing, as
// bridge.ToolPins.Accept says), and under one key however often it comes
// (a command that gave up waiting for a busy hub spools it too). rec takes
// the server's serverInfo from such a window.
func (h *Hub) ToolAccepted(rec history.Record) error {
	h.Mu.Lock()
	var told []*Item
	var open *Item
	for _, it := range h.Queue {
		if r := it.Prompt.Request; r.Mode == bridge.ModeToolChange && r.Server == rec.Server && r.Tool == rec.Tool {
			it.settled = true
			if rec.ServerInfo == (history.ServerInfo{}) {
				rec.ServerInfo = history.ServerInfo(r.ServerInfo)
			}
			if h.showing == it {
				open = it
			} else {
				told = append(told, it)
			}
		}
	}
	h.Mu.Unlock()
	err := h.Keep(rec) // before the windows close: whoever sees them go finds it
	// The open one last: closing it shows the next waiting, which must
	// not be one of these.
	if open != nil {
		told = append(told, open)
	}
	for _, it := range told {
		h.finish(it, bridge.Result{Action: bridge.ActionAccept, DecidedBy: rec.DecidedBy, Reason: rec.Reason})
	}
	return err
}

// Keep puts rec in history, or in the spool, or in memory (journal.go); the
// error says when it is in memory only.
func (h *Hub) Keep(rec history.Record) error {
	err := h.Records().Keep(rec)
	if h.Recorded != nil {
		h.Recorded()
	}
	return err
}

// SetJournal gives the hub the journal that keeps its decisions; call it
// before Serve.
func (h *Hub) SetJournal(j *journal.Journal) {
	h.jrOnce.Do(func() { h.jr = j })
}

// Records returns the hub's journal: the one SetJournal gave, or one over
// Store.
func (h *Hub) Records() *journal.Journal {
	h.jrOnce.Do(func() {
		h.jr = journal.Over(h.Store, h.logf)
	})
	return h.jr
}

// store returns the open history, or nil while there is none.
func (h *Hub) store() *history.Store {
	st, _ := h.Records().Store()
	return st
}

func (h *Hub) changed() {
	if h.Changed == nil {
		return
	}
	h.Mu.Lock()
	n := len(h.Queue)
	h.Mu.Unlock()
	h.Changed(n)
}

// ErrRunning is returned by Listen when another hub holds the lock.
var ErrRunning = errors.New("an elicitray hub is already running for this user")

// Listen claims the single-hub lock and opens the hub's socket: exactly one
// hub per user, even when several wrappers start hubs at once (DESIGN.md).
func Listen(p paths.Paths) (net.Listener, *os.File, error) {
	lock, err := Lock(p)
	if err != nil {
		return nil, nil, err
	}
	ln, err := OpenSocket(p)
	if err != nil {
		lock.Close()
		return nil, nil, err
	}
	return ln, lock, nil
}

// Lock claims the single-hub lock: an flock (LockFileEx on Windows:
// platform.TryLock) on a file in the run directory, held for the process's life and holding its PID. It fails
// with ErrRunning when another hub holds it, and wrapping ErrUntrusted
// when the run directory is not a private directory of this user's.
func Lock(p paths.Paths) (*os.File, error) {
	if err := paths.MakePrivateDir("the hub's directory", p.RunDir); err != nil {
		return nil, err
	}
	// Never through a link (platform.OpenFile: O_NOFOLLOW on Unix): a link
	// planted in place of the lock is not written through.
	lock, err := platform.OpenFile(p.Lock, os.O_CREATE|os.O_RDWR, 0o600)
	if errors.Is(err, platform.ErrSymlink) {
		return nil, fmt.Errorf("the hub's lock %s is a symbolic link, which elicitray does not write through (remove it if you did not make it): %w", p.Lock, paths.ErrUntrusted)
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", p.Lock, err)
	}
	if err := platform.TryLock(lock); err != nil {
		lock.Close()
		if errors.Is(err, platform.ErrLocked) {
			return nil, ErrRunning
		}
		return nil, fmt.Errorf("locking %s: %w", p.Lock, err)
	}
	// The lock file names the running hub, for people and tests.
	if err := lock.Truncate(0); err == nil {
		_, _ = lock.WriteAt([]byte(fmt.Sprintf("%d\n", os.Getpid())), 0)
	}
	return lock, nil
}

// OpenSocket opens the hub's socket (0600, in the 0700 run directory; on
// Windows the directory's access list is the user's alone). The
// caller holds the lock: any socket file left is a dead hub's.
func OpenSocket(p paths.Paths) (net.Listener, error) {
	return platform.Listen(p.Socket)
}
