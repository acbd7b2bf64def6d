package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/elicitray/elicitray/app/session"

	"github.com/elicitray/elicitray/app/hubapi"

	"github.com/elicitray/elicitray/app/journal"

	"github.com/dustin/go-humanize"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
)

// ErrHubGone is returned for a prompt whose hub stopped before answering;
// the relay answers such a prompt cancel (DESIGN.md).
var ErrHubGone = errors.New("the elicitray hub stopped before anyone answered")

// ErrNotRunning is returned by a client that does not start hubs when no
// hub listens: no run directory, no socket, or a dead hub's socket.
var ErrNotRunning = errors.New("no elicitray hub is running")

// ErrNoHub is returned when no hub runs and none could be started.
var ErrNoHub = errors.New("no elicitray hub is running and none could be started")

// hubClient is the wrapper's Approver: it asks the user's hub over the
// socket, starting the hub when none runs, and starting a new one for the
// next prompt when the hub died.
type hubClient struct {
	paths paths.Paths
	// start starts a hub process in a desktop session; nil means the
	// client never starts one (the history CLI).
	start func(session.Desktop) (*os.Process, error)
	// sessions offers the desktop sessions found to start a hub in, best
	// first, to try until one is taken (sessionFinder.each): a hub started
	// in one whose display does not open says so (session.ExitNoDisplay), and
	// the next is tried.
	sessions func(ctx context.Context, try func(session.Desktop) error) error
	// log receives what the client found and did, for people (the
	// wrapper's stderr); nil discards.
	log io.Writer
	// said makes the sentence saying which hub prompts go to appear once.
	said sync.Once
	// wrapper: the client is a wrapper's, whose log (the host's) says once
	// which hub its prompts go to.
	wrapper bool
	// lastWhy is the server and decider of the last prompt answered
	// without a person, said on the log (sayWhy).
	lastWhy string
	// startWait bounds how long a started hub may take to open its socket.
	startWait time.Duration

	mu     sync.Mutex
	conn   *hubConn
	nextID uint64
	// unsaved are records neither a hub nor the spool could take (a full
	// disk): they go to the next hub this client reaches.
	unsaved []history.Record
	// spool keeps what the wrapper sent servers while no hub takes it.
	spool *journal.Spool
	// delivering counts the Delivered calls under way: close waits for
	// them, so that a wrapper ending with its server does not lose the
	// word on an answer that did not reach it (issue 25).
	delivering sync.WaitGroup
}

var _ bridge.Approver = (*hubClient)(nil)

// sayWhy tells the host's log why a prompt was answered without a person
// (paused, muted, a rule, the rate limit, a timeout): the host itself only
// shows what the server makes of the answer ("User cancelled…"). A run of
// prompts decided the same way is said once.
func (c *hubClient) sayWhy(server string, res *bridge.Result) {
	key := server + "\x00" + res.DecidedBy
	c.mu.Lock()
	said := key == c.lastWhy
	c.lastWhy = key
	if res.DecidedBy == bridge.DecidedByUser {
		c.lastWhy = "" // a person's answer ends the run
	}
	c.mu.Unlock()
	if said || res.DecidedBy == bridge.DecidedByUser {
		return
	}
	c.logf("elicitray: %s: %s (`elicitray history list` has each one)", server, whySaid(res))
}

// whySaid is sayWhy's sentence for res, a decision no person made. A
// timeout may come with a window that was on screen the whole time, so it
// says the time ran out, not that there was no window.
func whySaid(res *bridge.Result) string {
	why := res.Reason
	if why == "" {
		why = "decided by " + res.DecidedBy
	}
	if res.DecidedBy == bridge.DecidedByTimeout {
		return fmt.Sprintf("answered %s when its time ran out: %s", res.Action, why)
	}
	return fmt.Sprintf("answered %s without a window: %s", res.Action, why)
}

func (c *hubClient) logf(format string, args ...any) {
	if c.log != nil {
		fmt.Fprintf(c.log, format+"\n", args...)
	}
}

// hubConn is one connection to the hub and the calls waiting on it.
type hubConn struct {
	c       net.Conn
	pid     int // the hub's, from its peer credentials
	wmu     sync.Mutex
	enc     *json.Encoder
	mu      sync.Mutex
	waiting map[uint64]chan hubapi.Message
	dead    bool
}

func (hc *hubConn) send(m hubapi.Message) error {
	hc.wmu.Lock()
	defer hc.wmu.Unlock()
	return hc.enc.Encode(m)
}

// readLoop delivers replies until the hub goes away, then fails every call
// still waiting.
func (hc *hubConn) readLoop(onDead func()) {
	br := bufio.NewReader(hc.c)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var m hubapi.Message
			if hubapi.Decode(line, &m) == nil {
				hc.mu.Lock()
				ch := hc.waiting[m.ID]
				delete(hc.waiting, m.ID)
				hc.mu.Unlock()
				if ch != nil {
					ch <- m
				}
			}
		}
		if err != nil {
			break
		}
	}
	// Forget this connection first, so that the prompt that follows the
	// failures below dials (and starts) a new hub (DESIGN.md).
	onDead()
	hc.mu.Lock()
	hc.dead = true
	for id, ch := range hc.waiting {
		ch <- hubapi.Message{ID: id, Error: ErrHubGone.Error()}
		delete(hc.waiting, id)
	}
	hc.mu.Unlock()
	hc.c.Close()
}

// call sends m and waits for its reply or ctx. On ctx, cancel (if set) is
// sent to the hub so it closes the window.
func (c *hubClient) call(ctx context.Context, m hubapi.Message, cancel *hubapi.Message) (hubapi.Message, error) {
	hc, err := c.connect(ctx)
	if err != nil {
		return hubapi.Message{}, err
	}
	return c.callOn(ctx, hc, m, cancel)
}

// callOn is call on the connection hc.
func (c *hubClient) callOn(ctx context.Context, hc *hubConn, m hubapi.Message, cancel *hubapi.Message) (hubapi.Message, error) {
	c.mu.Lock()
	c.nextID++
	m.ID = c.nextID
	c.mu.Unlock()
	ch := make(chan hubapi.Message, 1)
	hc.mu.Lock()
	if hc.dead {
		hc.mu.Unlock()
		return hubapi.Message{}, ErrHubGone
	}
	hc.waiting[m.ID] = ch
	hc.mu.Unlock()
	if err := hc.send(m); err != nil {
		return hubapi.Message{}, fmt.Errorf("%w: %v", ErrHubGone, err)
	}
	select {
	case r := <-ch:
		if r.Error == ErrHubGone.Error() {
			return r, ErrHubGone
		}
		if r.Error != "" {
			return r, errors.New(r.Error)
		}
		return r, nil
	case <-ctx.Done():
		hc.mu.Lock()
		delete(hc.waiting, m.ID)
		hc.mu.Unlock()
		if cancel != nil {
			cancel.ID = m.ID
			cancel.Result = cancelResult(context.Cause(ctx))
			_ = hc.send(*cancel)
		}
		return hubapi.Message{}, ctx.Err()
	}
}

// cancelResult says who ended a prompt, from the cause the relay gave.
func cancelResult(cause error) *bridge.Result {
	res := &bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByError, Reason: "the wrapper stopped"}
	switch {
	case errors.Is(cause, bridge.ErrServerCancelled), errors.Is(cause, bridge.ErrCallEnded):
		res.DecidedBy = bridge.DecidedByServerCancelled
	case errors.Is(cause, bridge.ErrHostCancelled):
		res.DecidedBy = bridge.DecidedByHostCancelled
	}
	if cause != nil {
		res.Reason = cause.Error()
	}
	return res
}

// Approve asks the hub to decide req (DESIGN.md data flow, step 4).
func (c *hubClient) Approve(ctx context.Context, req *bridge.Request) (*bridge.Result, error) {
	r, err := c.call(ctx, hubapi.Message{Op: hubapi.OpPrompt, Request: req}, &hubapi.Message{Op: hubapi.OpCancel})
	if err != nil {
		if errors.Is(err, ErrNoHub) {
			// The relay decides: to the host, or cancel; NoDesktop records.
			return nil, fmt.Errorf("%w: %w", bridge.ErrNoDesktop, err)
		}
		if errors.Is(err, ErrHubGone) {
			if why := hubCrash(c.paths.HubLog); why != "" {
				err = fmt.Errorf("%w; its log says: %s (%s)", err, why, c.paths.HubLog)
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
func (c *hubClient) Reject(req *bridge.Request, err error) {
	c.keepSent(req, bridge.Result{Action: journal.ActionError, DecidedBy: bridge.DecidedByError, Reason: err.Error()})
}

// NoDesktop keeps an elicitation no desktop could show
// (bridge.Options.NoDesktop): passed to the host, or answered cancel.
func (c *hubClient) NoDesktop(req *bridge.Request, forwarded bool, err error) {
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
func (c *hubClient) HostDecided(req *bridge.Request, res bridge.Result) {
	c.keepSent(req, res)
}

// Overruled keeps the cancel the relay sent in place of the hub's decision
// (bridge.Options.Overruled).
func (c *hubClient) Overruled(req *bridge.Request, sent bridge.Result) {
	c.keepSent(req, sent)
}

// Delivered tells the hub whether req's answer reached its server
// (bridge.Options.Delivered): history keeps the decision as sent, not yet
// delivered, until then. With no hub to tell, the word goes where the
// record went when no hub took it: the wrapper's spool.
func (c *hubClient) Delivered(req *bridge.Request, err error) {
	if !req.ReportsDelivery {
		return
	}
	c.delivering.Add(1)
	defer c.delivering.Done()
	m := hubapi.Message{Op: hubapi.OpDelivered, Key: req.ID}
	if err != nil {
		m.Error = err.Error()
		c.logf("elicitray: %s: the answer to %q did not reach the server: %v", req.Server, req.Message, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordWait)
	defer cancel()
	if hc, cerr := c.connectTo(ctx, false); cerr == nil && hc.send(m) == nil {
		return
	}
	c.keepHere(journal.DeliveryWord(req.Server, req.ID, m.Error), "no hub took it")
}

// recordWait bounds how long the wrapper waits for the hub to keep a
// record before it spools the record itself.
const recordWait = 2 * time.Second

// keepSent keeps what the wrapper sent req's server when that was not the
// hub's decision (history.SourceWrapper): through the running hub, which
// puts it in history or its spool, else in the wrapper's own spool. It
// returns once the record is on disk, or when nothing could write it, after
// saying so on the host's log; such records are handed to the next hub
// this wrapper reaches.
func (c *hubClient) keepSent(req *bridge.Request, res bridge.Result) {
	rec := journal.NewRecord(req, res, nil, history.SourceWrapper)
	ctx, cancel := context.WithTimeout(context.Background(), recordWait)
	defer cancel()
	if hc, err := c.connectTo(ctx, false); err == nil {
		if _, err := c.callOn(ctx, hc, hubapi.Message{Op: hubapi.OpRecord, Record: &rec}, nil); err == nil {
			return
		}
	}
	c.keepHere(rec, "no hub took it")
}

// keepHere keeps rec in the wrapper's spool, or when even that fails in
// memory (unsaved), saying so on the host's log now and then; why says why
// the wrapper keeps it at all.
func (c *hubClient) keepHere(rec history.Record, why string) {
	err := c.wrapperSpool().Add(rec)
	if err == nil {
		return
	}
	c.mu.Lock()
	c.unsaved = append(c.unsaved, rec)
	n := len(c.unsaved)
	c.mu.Unlock()
	if n == 1 || n%100 == 0 {
		c.logf("elicitray: %s: %s could not be saved (%s; %s); this wrapper keeps them until a hub takes them", rec.Server, journal.Decisions(n), why, journal.StorageSentence(err))
	}
}

// wrapperSpool returns the wrapper's spool, made on first use.
func (c *hubClient) wrapperSpool() *journal.Spool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spool == nil {
		c.spool = &journal.Spool{Dir: journal.SpoolDir(c.paths), Role: "wrapper"}
	}
	return c.spool
}

// connect returns the live connection, dialling (and starting a hub) when
// there is none.
func (c *hubClient) connect(ctx context.Context) (*hubConn, error) {
	return c.connectTo(ctx, true)
}

// connectTo returns the live connection, dialling when there is none, and
// starting a hub when none runs only if start is set.
func (c *hubClient) connectTo(ctx context.Context, start bool) (*hubConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		c.conn.mu.Lock()
		dead := c.conn.dead
		c.conn.mu.Unlock()
		if !dead {
			return c.conn, nil
		}
		c.conn = nil
	}
	var conn net.Conn
	var pid int
	var err error
	if start {
		conn, pid, err = c.dial(ctx)
	} else {
		conn, pid, err = c.dialVerified(ctx)
	}
	if err != nil {
		return nil, err
	}
	hc := &hubConn{c: conn, pid: pid, enc: json.NewEncoder(conn), waiting: map[uint64]chan hubapi.Message{}}
	c.conn = hc
	go hc.readLoop(func() {
		c.mu.Lock()
		if c.conn == hc {
			c.conn = nil
		}
		c.mu.Unlock()
	})
	// Records nothing could write go to this hub now; it acks none of them
	// (id 0), and keeps them as it keeps its own. The wrapper keeps its
	// copies until it stops (close): the hub may die before it can save
	// them, and a replay adds nothing.
	for _, rec := range c.unsaved {
		rec := rec
		_ = hc.send(hubapi.Message{Op: hubapi.OpRecord, Record: &rec})
	}
	return hc, nil
}

// dial connects to the user's hub, starting one when none runs. A hub is
// only reached through a verified run directory and peer (trust.go); where
// the run directory cannot be trusted, no hub is started either.
func (c *hubClient) dial(ctx context.Context) (net.Conn, int, error) {
	conn, pid, err := c.dialVerified(ctx)
	if err == nil {
		if c.wrapper {
			c.said.Do(func() { c.logf("elicitray: prompts go to your hub (pid %d) at %s", pid, c.paths.Socket) })
		}
		return conn, pid, nil
	}
	if errors.Is(err, paths.ErrUntrusted) {
		return nil, 0, fmt.Errorf("%w: %w", ErrNoHub, err)
	}
	if c.start == nil {
		return nil, 0, err
	}
	// No hub runs: start one in the user's desktop session, found as a
	// host that stripped the environment gives none (session.go); the
	// hub checks the session's display itself.
	var ours bool
	var sess session.Desktop
	err = c.sessions(ctx, func(s session.Desktop) error {
		sess = s
		// A hub that fails to start is tried once more: a display can
		// refuse a connection for a moment.
		var err error
		conn, pid, ours, err = c.startAndDial(ctx, s)
		if errors.Is(err, errHubFailed) {
			conn, pid, ours, err = c.startAndDial(ctx, s)
		}
		return err
	})
	if errors.Is(err, session.ErrNoSession) {
		err = fmt.Errorf("%w: %w", ErrNoHub, err) // no session, or none whose display opened
	}
	if err == nil {
		c.said.Do(func() {
			if ours {
				c.logf("elicitray: no hub was running; started one (pid %d) on display %s, found in %s", pid, sess.Display(), sess.From)
			} else {
				c.logf("elicitray: no hub was running; the one another wrapper started at the same time (pid %d) answers", pid)
			}
		})
	}
	return conn, pid, err
}

// dialVerified connects to the hub's socket after checking its directory,
// and checks who listens there before anything is sent (DESIGN.md).
func (c *hubClient) dialVerified(ctx context.Context) (net.Conn, int, error) {
	conn, pid, err := c.dialIn(ctx, c.paths.RunDir)
	if err == nil || !errors.Is(err, ErrNotRunning) {
		return conn, pid, err
	}
	for _, dir := range c.paths.OtherRunDirs {
		if conn, pid, oerr := c.dialIn(ctx, dir); oerr == nil {
			return conn, pid, nil
		}
	}
	return nil, 0, err
}

// dialIn connects to the hub socket in the run directory dir.
func (c *hubClient) dialIn(ctx context.Context, dir string) (net.Conn, int, error) {
	if err := paths.CheckRunDir(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, fmt.Errorf("%w: %w", ErrNotRunning, err)
		}
		return nil, 0, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", filepath.Join(dir, paths.SocketName))
	if err != nil {
		if ctx.Err() == nil {
			return nil, 0, fmt.Errorf("%w: %w", ErrNotRunning, err)
		}
		return nil, 0, err
	}
	pid, err := hubapi.CheckHubPeer(conn)
	if err != nil {
		conn.Close()
		return nil, 0, err
	}
	return conn, pid, nil
}

// errHubFailed marks a started hub that exited with an error.
var errHubFailed = errors.New("the hub exited")

// startAndDial starts a hub in sess and waits for a verified socket: the
// hub it started (ours), or one that beat it to the lock.
func (c *hubClient) startAndDial(ctx context.Context, sess session.Desktop) (_ net.Conn, pid int, ours bool, _ error) {
	logStart := fileSize(c.paths.HubLog)
	proc, err := c.start(sess)
	if err != nil {
		return nil, 0, false, fmt.Errorf("%w: %v", ErrNoHub, err)
	}
	exited := make(chan *os.ProcessState, 1)
	go func() {
		st, _ := proc.Wait()
		exited <- st
	}()
	// Wait for a socket: the hub we started, or the one that beat it to
	// the lock (two wrappers starting at once end with one hub).
	deadline := time.NewTimer(c.startWait)
	defer deadline.Stop()
	// Asked often: a cold prompt waits for this socket, and what a tick
	// costs (a dial that finds no socket) is far less than the wait it
	// saves; it lasts only while a hub starts (issue 12: 25 ms ticks cost
	// a cold window 12 ms on average).
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, pid, err := c.dialVerified(ctx)
		if err == nil {
			return conn, pid, pid == proc.Pid, nil
		}
		if errors.Is(err, paths.ErrUntrusted) {
			return nil, 0, false, fmt.Errorf("%w: %w", ErrNoHub, err)
		}
		select {
		case <-ctx.Done():
			return nil, 0, false, ctx.Err()
		case <-deadline.C:
			return nil, 0, false, fmt.Errorf("%w: the hub did not open its socket within %v (see %s)", ErrNoHub, c.startWait, c.paths.HubLog)
		case st := <-exited:
			if st != nil && st.ExitCode() == session.ExitNoDisplay {
				why := hubFailure(c.paths.HubLog, logStart)
				if why == "" {
					why = fmt.Sprintf("the hub exited (%v)%s", st, c.silentFailure())
				}
				return nil, 0, false, session.DisplayFailed{Err: errors.New(why)}
			}
			if st == nil || !st.Success() {
				if why := hubFailure(c.paths.HubLog, logStart); why != "" {
					return nil, 0, false, fmt.Errorf("%w: the hub could not start: %s", ErrNoHub, why)
				}
				return nil, 0, false, fmt.Errorf("%w: %w (%v)%s", ErrNoHub, errHubFailed, st, c.silentFailure())
			}
			// It lost the race to another hub: that one is opening its socket.
			exited = nil
		case <-tick.C:
		}
	}
}

// hubStartWait bounds how long a started hub may take to open its socket
// (a first start on a slow machine loads OpenGL and fonts).
const hubStartWait = 20 * time.Second

// startingClient is a hub client that starts a hub (this very binary) when
// none runs: the wrapper's, and the commands that open windows. It says on
// log what it found and did, once.
func startingClient(p paths.Paths, log io.Writer) (*hubClient, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	finder := session.NewFinder(exe)
	return &hubClient{
		paths: p,
		log:   log,
		start: func(s session.Desktop) (*os.Process, error) {
			return startHub(session.Runnable(exe), p, s.Env(session.HubEnv(os.Environ())))
		},
		sessions:  finder.Each,
		startWait: hubStartWait,
	}, nil
}

// startHub starts `elicitray hub` detached from the wrapper, with env: its
// own session, so the host stopping the wrapper does not stop the hub, and
// its output in the hub log, never on the wrapper's stdout.
func startHub(exe string, p paths.Paths, env []string) (*os.Process, error) {
	if err := os.MkdirAll(dirOf(p.HubLog), 0o700); err != nil {
		return nil, fmt.Errorf("could not make elicitray's directory %s (HOME is %q): %w", dirOf(p.HubLog), os.Getenv("HOME"), err)
	}
	logf, err := openHubLog(p.HubLog)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(exe, "hub")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := platform.StartDetached(cmd); err != nil {
		return nil, fmt.Errorf("starting %s hub: %w", exe, err)
	}
	return cmd.Process, nil
}

// openHubLog opens the hub log for appending, not through a link, and only
// a file of the user's own: in a shared ELICITRAY_HOME another user could
// plant one to read what the hub logs. Such a file is removed and made
// anew when the directory allows; else the hub starts with no log.
func openHubLog(path string) (*os.File, error) {
	for range 2 {
		f, err := platform.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		if o, ok := platform.OwnerOf(f); !ok || o.IsMe() {
			return f, nil
		}
		f.Close()
		if os.Remove(path) != nil {
			break
		}
	}
	return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
}

// hubLogTail is what the hub log holds of the last hub: its lines after
// byte offset from and after the last "listening on" line, read from the
// end of the log (its last 64 KiB: the log only grows).
func hubLogTail(logPath string, from int64) []string {
	f, err := os.Open(logPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	const tailSize = 64 << 10
	if fi, err := f.Stat(); err == nil {
		from = max(from, fi.Size()-tailSize)
	}
	if _, err := f.Seek(max(from, 0), io.SeekStart); err != nil {
		return nil
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], session.HubStartedLine) {
			return lines[i+1:]
		}
	}
	return lines
}

// hubFailure is the sentence the last hub that could not start wrote to its
// log after byte offset from, or "" (also when a hub started after it).
func hubFailure(logPath string, from int64) string {
	lines := hubLogTail(logPath, from)
	for i := len(lines) - 1; i >= 0; i-- {
		if _, rest, ok := strings.Cut(lines[i], session.HubFailPrefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// hubCrash is what the hub log says of why the last hub stopped: a panic,
// a fatal error or a Fyne error written after it last started, with the
// line that gives its cause; "" when it says nothing (a hub killed).
func hubCrash(logPath string) string {
	lines := hubLogTail(logPath, 0)
	for i := len(lines) - 1; i >= 0; i-- {
		for _, mark := range []string{"panic: ", "fatal error: ", "unexpected signal", "Fyne error: "} {
			j := strings.Index(lines[i], mark)
			if j < 0 {
				continue
			}
			why := strings.Join(strings.Fields(lines[i][j:]), " ")
			if i+1 < len(lines) {
				if _, cause, ok := strings.Cut(lines[i+1], "Cause:"); ok {
					why += " (" + strings.TrimSpace(cause) + ")"
				}
			}
			return why
		}
	}
	return ""
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// silentFailure says what is known of a hub that exited without its
// sentence: the last line of its log, or, when it wrote none, that its log
// could not be written — a full disk, most often.
func (c *hubClient) silentFailure() string {
	if lines := hubLogTail(c.paths.HubLog, 0); len(lines) > 0 {
		if l := strings.TrimSpace(lines[len(lines)-1]); l != "" && l != "." {
			return ": " + l
		}
	}
	msg := fmt.Sprintf(" and wrote nothing in its log %s", c.paths.HubLog)
	if free, ok := journal.FreeSpace(c.paths.HubLog); ok && free < journal.MinFree {
		msg += fmt.Sprintf("; the disk it is on is full (%s free)", humanize.IBytes(uint64(free)))
	}
	return msg
}

// hubPID is the pid of the hub the client is connected to, or 0.
func (c *hubClient) hubPID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return 0
	}
	return c.conn.pid
}

// close ends the client's connection to the hub, if it has one, once the
// words on deliveries under way are with the hub or in the spool: each
// takes about recordWait at most, but a hub that stopped reading holds
// one up, so close waits no longer than that.
func (c *hubClient) close() {
	done := make(chan struct{})
	go func() {
		c.delivering.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(recordWait):
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.unsaved) > 0 {
		// What the wrapper kept goes to disk if there is room by now (a
		// replay of what a hub saved since adds nothing)…
		if c.spool == nil {
			c.spool = &journal.Spool{Dir: journal.SpoolDir(c.paths), Role: "wrapper"}
		}
		c.unsaved = slices.DeleteFunc(c.unsaved, func(rec history.Record) bool { return c.spool.Add(rec) == nil })
	}
	if c.conn != nil {
		// …else to the live hub, which keeps them with its own.
		c.conn.mu.Lock()
		dead := c.conn.dead
		c.conn.mu.Unlock()
		if !dead && len(c.unsaved) > 0 {
			sent := true
			for _, rec := range c.unsaved {
				rec := rec
				sent = sent && c.conn.send(hubapi.Message{Op: hubapi.OpRecord, Record: &rec}) == nil
			}
			if sent {
				c.logf("elicitray: stopping; %s that could not be saved yet went to the hub (pid %d), which keeps them until the disk has room", journal.Decisions(len(c.unsaved)), c.conn.pid)
				c.unsaved = nil
			}
		}
		c.conn.c.Close()
	}
	if c.spool != nil {
		c.spool.Close()
	}
	if n := len(c.unsaved); n > 0 {
		c.logf("elicitray: stopping with %s that could not be saved anywhere (the disk is full?)", journal.Decisions(n))
	}
}
