package wrapper

import (
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
	"github.com/elicitray/elicitray/app/journal"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/app/session"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
)

// New is the Approver of a wrapper that starts a hub (this very binary)
// when none runs, saying on log what it found and did, once.
func New(p paths.Paths, log io.Writer) (*Approver, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return &Approver{
		Paths: p,
		Log:   log,
		Start: func(s session.Desktop) (*os.Process, error) {
			return session.StartHub(session.Runnable(exe), p, s.Env(session.HubEnv(os.Environ())))
		},
		Sessions: session.NewFinder(exe).Each,
	}, nil
}

// Approver is the wrapper's bridge.Approver: it asks the user's hub over the
// socket (hubapi.Client), starting the hub when none runs, and starting a
// new one for the next prompt when the hub died; it keeps what the wrapper
// sent servers when no hub takes it.
type Approver struct {
	Paths paths.Paths
	// Start starts a hub process in a desktop session; nil means the
	// client never starts one.
	Start func(session.Desktop) (*os.Process, error)
	// Sessions offers the desktop sessions found to start a hub in
	// (session.Starter.Sessions).
	Sessions func(ctx context.Context, try func(session.Desktop) error) error
	// Log receives what the client found and did, for people (the
	// wrapper's stderr); nil discards.
	Log io.Writer
	// SayHub: the log is a host's, which says once which hub the
	// wrapper's prompts go to.
	SayHub bool
	// StartWait bounds how long a started hub may take to open its
	// socket; zero is session.StartWait.
	StartWait time.Duration
	// Hub is the connection to the hub; nil: one through Paths, made on
	// first use (API).
	Hub *hubapi.Client

	// said makes the sentence saying which hub prompts go to appear once.
	said sync.Once
	// lastWhy is the server and decider of the last prompt answered
	// without a person, said on the log (sayWhy).
	lastWhy string

	hubOnce sync.Once

	mu sync.Mutex
	// unsaved are records neither a hub nor the spool could take (a full
	// disk): they go to the next hub this client reaches.
	unsaved []history.Record
	// unsavedWhy is why the last of them could not be spooled.
	unsavedWhy error
	// spool keeps what the wrapper sent servers while no hub takes it.
	spool *journal.Spool
	// delivering counts the Delivered calls under way: close waits for
	// them, so that a wrapper ending with its server does not lose the
	// word on an answer that did not reach it (issue 25). A delivery may
	// begin while Close waits.
	delivering bridge.Busy
}

var _ bridge.InOrder = (*Approver)(nil)

// SubmitsInOrder: the hub's client says bridge.Submitted once the hub has
// a request, so requests reach the hub in the order they reached the relay.
func (c *Approver) SubmitsInOrder() {}

// sayWhy tells the host's log why a prompt was answered without a person
// (paused, muted, a rule, the rate limit, a timeout): the host itself only
// shows what the server makes of the answer ("User cancelled…"). A run of
// prompts decided the same way is said once.
func (c *Approver) sayWhy(server string, res *bridge.Result) {
	key := server + "\x00" + res.DecidedBy
	c.mu.Lock()
	said := key == c.lastWhy
	c.lastWhy = key
	person := bridge.ByPerson(res.DecidedBy)
	if person {
		c.lastWhy = "" // a person's answer ends the run
	}
	c.mu.Unlock()
	if said || person {
		return
	}
	c.logf("elicitray: %s: %s (`elicitray history list` has each one)", server, whySaid(res))
}

// whySaid is sayWhy's sentence for res, a decision no person made. A
// timeout may come with a window that was on screen the whole time, so it
// says the time ran out, not that there was no window; an error may end a
// window that was on screen (its process killed), so it says what the
// reason says.
func whySaid(res *bridge.Result) string {
	why := res.Reason
	if why == "" {
		why = "decided by " + res.DecidedBy
	}
	switch res.DecidedBy {
	case bridge.DecidedByTimeout:
		return fmt.Sprintf("answered %s when its time ran out: %s", res.Action, why)
	case bridge.DecidedByError:
		return fmt.Sprintf("answered %s, as nobody could answer: %s", res.Action, why)
	}
	return fmt.Sprintf("answered %s without a window: %s", res.Action, why)
}

func (c *Approver) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

// Approve asks the hub to decide req (DESIGN.md data flow, step 4).
func (c *Approver) Approve(ctx context.Context, req *bridge.Request) (*bridge.Result, error) {
	r, err := c.API().Prompt(ctx, hubapi.PromptRequest{Request: req})
	if err != nil {
		if errors.Is(err, hubapi.ErrNoHub) {
			// The relay decides: to the host, or cancel; NoDesktop records.
			return nil, fmt.Errorf("%w: %w", bridge.ErrNoDesktop, err)
		}
		if errors.Is(err, hubapi.ErrHubGone) {
			if why := session.HubCrash(c.Paths.HubLog); why != "" {
				err = fmt.Errorf("%w; its log says: %s (%s)", err, why, c.Paths.HubLog)
			}
		}
		if ctx.Err() == nil {
			// No hub decided (it died, or refused the request): the relay
			// answers cancel, and history keeps that, before it is sent
			// (DESIGN.md: the history says why).
			c.keepSent(req, bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByError, Reason: err.Error()})
		}
		return nil, err
	}
	if r.Result == nil {
		err := errors.New("the hub sent no decision")
		c.keepSent(req, bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByError, Reason: err.Error()})
		return nil, err
	}
	if r.Record != nil {
		// The hub could not save it (a full disk): the wrapper keeps a
		// copy, so that the hub dying now loses nothing (journal.go).
		// In the wrapper's spool, or in memory, handed to the hub this
		// client next reaches and to the live hub when it stops (a replay
		// there adds nothing: records are keyed by the request).
		c.keepHere(*r.Record, "the hub could not save it")
	}
	c.sayWhy(req.Server, r.Result)
	return r.Result, nil
}

// Reject keeps an elicitation the relay refused (bridge.Options.Rejected).
func (c *Approver) Reject(req *bridge.Request, err error) {
	c.keepSent(req, bridge.Result{Action: journal.ActionError, DecidedBy: bridge.DecidedByError, Reason: err.Error()})
}

// NoDesktop keeps an elicitation no desktop could show
// (bridge.Options.NoDesktop): passed to the host, or answered cancel.
func (c *Approver) NoDesktop(req *bridge.Request, forwarded bool, err error) {
	res := bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByNoDesktop, Reason: err.Error()}
	if forwarded {
		res.Action = journal.ActionForwarded
		res.Reason = err.Error() + "; passed to the host, which declared it can show it"
	}
	c.keepSent(req, res)
}

// HostDecided keeps what was decided about a guarded call that was asked
// in the host because no desktop could show the window
// (bridge.Options.HostDecided).
func (c *Approver) HostDecided(req *bridge.Request, res bridge.Result) {
	c.keepSent(req, res)
}

// Overruled keeps the cancel the relay sent in place of the hub's decision
// (bridge.Options.Overruled).
func (c *Approver) Overruled(req *bridge.Request, sent bridge.Result) {
	c.keepSent(req, sent)
}

// Delivered tells the hub whether req's answer reached its server
// (bridge.Options.Delivered): history keeps the decision as sent, not yet
// delivered, until then. With no hub to tell, the word goes where the
// record went when no hub took it: the wrapper's spool.
func (c *Approver) Delivered(req *bridge.Request, err error) {
	if !req.ReportsDelivery {
		return
	}
	defer c.delivering.Start()()
	word := hubapi.DeliveredRequest{Key: req.ID}
	if err != nil {
		word.Error = err.Error()
		c.logf("elicitray: %s: the answer to %q did not reach the server: %v", req.Server, req.Message, err)
	}
	if c.API().Delivered(context.Background(), word) == nil {
		return
	}
	c.keepHere(journal.DeliveryWord(req.Server, req.ID, word.Error), "no hub took it")
}

// keepSent keeps what the wrapper sent req's server when that was not the
// hub's decision (history.SourceWrapper): through the running hub, which
// puts it in history or its spool, else in the wrapper's own spool. It
// returns once the record is on disk, or when nothing could write it, after
// saying so on the host's log; such records are handed to the next hub
// this wrapper reaches.
func (c *Approver) keepSent(req *bridge.Request, res bridge.Result) {
	rec := journal.NewRecord(req, res, nil, history.SourceWrapper)
	if c.API().Record(context.Background(), hubapi.RecordRequest{Record: &rec}) == nil {
		return
	}
	c.keepHere(rec, "no hub took it")
}

// keepHere keeps rec in the wrapper's spool, or when even that fails in
// memory (unsaved), saying so on the host's log now and then; why says why
// the wrapper keeps it at all.
func (c *Approver) keepHere(rec history.Record, why string) {
	err := c.wrapperSpool().Add(rec)
	if err == nil {
		return
	}
	c.mu.Lock()
	c.unsaved = append(c.unsaved, rec)
	c.unsavedWhy = err
	n := journal.DecisionsIn(c.unsaved)
	c.mu.Unlock()
	if rec.Source != history.SourceDelivery && (n == 1 || n%100 == 0) {
		c.logf("elicitray: %s: %s could not be saved (%s; %s); this wrapper keeps them until a hub takes them", rec.Server, journal.Decisions(n), why, journal.StorageSentence(err))
	}
}

// wrapperSpool returns the wrapper's spool, made on first use.
func (c *Approver) wrapperSpool() *journal.Spool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spool == nil {
		c.spool = &journal.Spool{Dir: journal.SpoolDir(c.Paths), Role: "wrapper"}
	}
	return c.spool
}

// API is the approver's client of the hub, made on first use: one that
// starts a hub when none runs if Start is set.
func (c *Approver) API() *hubapi.Client {
	c.hubOnce.Do(func() {
		if c.Hub == nil {
			c.Hub = &hubapi.Client{Paths: c.Paths}
		}
		c.Hub.Connected = c.connected
		if c.Start != nil {
			st := &session.Starter{Paths: c.Paths, Start: c.Start, Sessions: c.Sessions, Dial: c.Hub.Dial, Wait: c.StartWait}
			c.Hub.Start = func(ctx context.Context) (net.Conn, int, error) { return c.startHub(ctx, st) }
		}
	})
	return c.Hub
}

// connected hands a new connection the records nothing could write; the
// hub acks none of them (id 0), and keeps them as it keeps its own. The
// wrapper keeps its copies until it stops (close): the hub may die before
// it can save them, and a replay adds nothing.
func (c *Approver) connected(conn *hubapi.Conn, pid int) {
	if c.SayHub {
		c.said.Do(func() {
			c.logf("elicitray: prompts go to your hub (pid %d) at %s", pid, platform.Endpoint(c.Paths.Socket))
		})
	}
	c.mu.Lock()
	unsaved := slices.Clone(c.unsaved)
	c.mu.Unlock()
	for _, rec := range unsaved {
		_ = conn.Write(hubapi.RecordRequest{Record: &rec}.Message())
	}
}

// startHub starts a hub in the user's desktop session, found as a host
// that stripped the environment gives none (session.go), and says so once.
func (c *Approver) startHub(ctx context.Context, st *session.Starter) (net.Conn, int, error) {
	conn, pid, started, err := st.StartAndDial(ctx)
	if err != nil {
		if ctx.Err() == nil {
			err = fmt.Errorf("%w: %w", hubapi.ErrNoHub, err)
		}
		return nil, 0, err
	}
	c.said.Do(func() {
		if started.Ours {
			c.logf("elicitray: no hub was running; started one (pid %d) on display %s, found in %s", pid, started.Session.Display(), started.Session.From)
		} else {
			c.logf("elicitray: no hub was running; the one another wrapper started at the same time (pid %d) answers", pid)
		}
	})
	return conn, pid, nil
}

// hubPID is the pid of the hub the client is connected to, or 0.
func (c *Approver) HubPID() int { return c.API().PID() }

// close ends the client's connection to the hub, if it has one, once the
// words on deliveries under way are with the hub or in the spool: each
// takes about hubapi.KeepWait at most, but a hub that stopped reading
// holds one up, so close waits no longer than that.
func (c *Approver) Close() {
	select {
	case <-c.delivering.Idle():
	case <-time.After(hubapi.KeepWait):
	}
	c.mu.Lock()
	if len(c.unsaved) > 0 {
		// What the wrapper kept goes to disk if there is room by now (a
		// replay of what a hub saved since adds nothing)…
		if c.spool == nil {
			c.spool = &journal.Spool{Dir: journal.SpoolDir(c.Paths), Role: "wrapper"}
		}
		c.unsaved = slices.DeleteFunc(c.unsaved, func(rec history.Record) bool { return c.spool.Add(rec) == nil })
	}
	unsaved := slices.Clone(c.unsaved)
	c.mu.Unlock()
	if len(unsaved) > 0 {
		// …else to the live hub, which keeps them with its own.
		sent, pid := true, 0
		for _, rec := range unsaved {
			var err error
			pid, err = c.API().SendLive(hubapi.RecordRequest{Record: &rec}.Message())
			sent = sent && err == nil
		}
		if sent {
			c.logf("elicitray: stopping; %s that could not be saved yet went to the hub (pid %d), which keeps them until the disk has room", journal.Decisions(journal.DecisionsIn(unsaved)), pid)
			unsaved = nil
		}
	}
	c.API().Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spool != nil {
		c.spool.Close()
	}
	if n := journal.DecisionsIn(unsaved); n > 0 {
		c.logf("elicitray: stopping with %s that could not be saved anywhere: %s", journal.Decisions(n), journal.StorageSentence(c.unsavedWhy))
	} else if len(unsaved) > 0 {
		c.logf("elicitray: stopping; the word on %d answers' delivery could not be saved anywhere (%s): history shows them not confirmed delivered", len(unsaved), journal.StorageSentence(c.unsavedWhy))
	}
}
