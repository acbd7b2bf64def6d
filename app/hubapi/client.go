package hubapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"path/filepath"
	"sync"
	"time"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
)

// How long each kind of call waits for the hub: the one timeout policy of
// the hub protocol. A prompt waits for a person (the hub's own timeout
// ends it); an export, a prune and the calls that open windows wait as
// long as the caller's context allows.
const (
	// AskWait bounds a command's question to a running hub (status,
	// pause, mute, unmute, history, get): a hub that is stopped
	// (kill -STOP) or hung must not hang the shell too.
	AskWait = 10 * time.Second
	// ProbeWait bounds a look at the hub that must not hold up what asks
	// (doctor, the demo server's check for a pause).
	ProbeWait = 5 * time.Second
	// KeepWait bounds how long a wrapper waits for the hub to keep a
	// record, or the word on a delivery, before it spools it itself.
	KeepWait = 2 * time.Second
)

// ErrHubGone is returned for a call whose hub stopped before answering;
// the relay answers such a prompt cancel (DESIGN.md).
var ErrHubGone = errors.New("the elicitray hub stopped before anyone answered")

// ErrNotRunning is returned when no hub listens and the client does not
// start one: no run directory, no socket, or a dead hub's socket.
var ErrNotRunning = errors.New("no elicitray hub is running")

// ErrNoHub is returned when no hub runs and none could be started.
var ErrNoHub = errors.New("no elicitray hub is running and none could be started")

// NoAnswerError is a call the hub did not answer within its wait.
type NoAnswerError struct{ Wait time.Duration }

func (e NoAnswerError) Error() string { return fmt.Sprintf("the hub did not answer within %v", e.Wait) }

// Unwrap makes a NoAnswerError a context.DeadlineExceeded.
func (e NoAnswerError) Unwrap() error { return context.DeadlineExceeded }

// UnknownServerError is the hub's answer to a mute or unmute of a server
// it does not know (a typo, most likely): its sentence, with the names it
// knows that come close.
type UnknownServerError struct{ Sentence string }

func (e UnknownServerError) Error() string { return e.Sentence }

// Client is one multiplexed connection to the user's hub, dialled on the
// first call through a verified run directory and peer (CheckHubPeer), and
// again after the hub went away. Calls carry ids; one goroutine reads the
// replies. The zero Client with Paths set never starts a hub.
type Client struct {
	Paths paths.Paths
	// Start, when set, starts a hub when none runs and returns a verified
	// connection to it (or to one that beat it to the lock) and its pid;
	// only the calls that need a hub use it (prompts, windows).
	Start func(ctx context.Context) (net.Conn, int, error)
	// Connected, when set, is called with each new connection and its
	// hub's pid before any call is sent on it. It runs under the client's
	// lock: it may write to conn, not call the client.
	Connected func(conn *Conn, pid int)
	// Dialer, when set, connects in place of Dial.
	Dialer func(ctx context.Context) (net.Conn, int, error)

	mu     sync.Mutex
	conn   *clientConn
	nextID uint64
}

// clientConn is one connection to the hub and the calls waiting on it.
type clientConn struct {
	raw     net.Conn
	conn    *Conn
	pid     int // the hub's, from its peer credentials
	mu      sync.Mutex
	waiting map[uint64]*pending
	dead    bool
}

// pending is a call waiting for its replies: one, or an export's stream
// until its last.
type pending struct {
	ch     chan Message
	stream bool
	gone   chan struct{} // closed when the caller stops listening
}

// readLoop delivers replies until the hub goes away, then fails every call
// still waiting.
func (cc *clientConn) readLoop(onDead func()) {
	for {
		var m Message
		err := cc.conn.Read(&m)
		if errors.As(err, new(BadLineError)) {
			continue
		}
		if err != nil {
			break
		}
		cc.mu.Lock()
		p := cc.waiting[m.ID]
		if p != nil && (!p.stream || m.Done || m.Error != "") {
			delete(cc.waiting, m.ID)
		}
		cc.mu.Unlock()
		if p != nil {
			select {
			case p.ch <- m:
			case <-p.gone:
			}
		}
	}
	// Forget this connection first, so that the call that follows the
	// failures below dials (and starts) a new hub (DESIGN.md).
	onDead()
	cc.mu.Lock()
	cc.dead = true
	for id, p := range cc.waiting {
		select {
		case p.ch <- Message{ID: id, Error: ErrHubGone.Error()}:
		case <-p.gone:
		}
		delete(cc.waiting, id)
	}
	cc.mu.Unlock()
	cc.raw.Close()
}

func (cc *clientConn) isDead() bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.dead
}

// connect returns the live connection, dialling when there is none, and
// starting a hub when none runs only if start is set.
func (c *Client) connect(ctx context.Context, start bool) (*clientConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		if !c.conn.isDead() {
			return c.conn, nil
		}
		c.conn = nil
	}
	dial := c.Dial
	if c.Dialer != nil {
		dial = c.Dialer
	}
	raw, pid, err := dial(ctx)
	switch {
	case err == nil:
	case errors.Is(err, paths.ErrUntrusted):
		// Where the run directory cannot be trusted, no hub is started
		// either, by any client.
		err = fmt.Errorf("%w: %w", ErrNoHub, err)
	case start && c.Start != nil:
		raw, pid, err = c.Start(ctx)
	}
	if err != nil {
		return nil, err
	}
	cc := &clientConn{raw: raw, conn: NewConn(raw, 0), pid: pid, waiting: map[uint64]*pending{}}
	c.conn = cc
	go cc.readLoop(func() {
		c.mu.Lock()
		if c.conn == cc {
			c.conn = nil
		}
		c.mu.Unlock()
	})
	if c.Connected != nil {
		c.Connected(cc.conn, pid)
	}
	return cc, nil
}

// Dial connects to the hub's socket after checking its directory (and the
// other run directories the user's hub may be in), and checks who listens
// there before anything is sent (DESIGN.md). It returns the hub's pid.
func (c *Client) Dial(ctx context.Context) (net.Conn, int, error) {
	conn, pid, err := dialIn(ctx, c.Paths.RunDir)
	if err == nil || !errors.Is(err, ErrNotRunning) {
		return conn, pid, err
	}
	for _, dir := range c.Paths.OtherRunDirs {
		if conn, pid, oerr := dialIn(ctx, dir); oerr == nil {
			return conn, pid, nil
		}
	}
	return nil, 0, err
}

// dialIn connects to the hub socket in the run directory dir.
func dialIn(ctx context.Context, dir string) (net.Conn, int, error) {
	if err := paths.CheckRunDir(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, fmt.Errorf("%w: %w", ErrNotRunning, err)
		}
		return nil, 0, err
	}
	conn, err := platform.Dial(ctx, filepath.Join(dir, paths.SocketName))
	if err != nil {
		if ctx.Err() == nil {
			return nil, 0, fmt.Errorf("%w: %w", ErrNotRunning, err)
		}
		return nil, 0, err
	}
	pid, err := CheckHubPeer(conn)
	if err != nil {
		conn.Close()
		return nil, 0, err
	}
	return conn, pid, nil
}

// Connect makes sure the client is connected, starting a hub (Start) when
// none runs, and returns the hub's pid.
func (c *Client) Connect(ctx context.Context) (int, error) {
	cc, err := c.connect(ctx, true)
	if err != nil {
		return 0, err
	}
	return cc.pid, nil
}

// PID is the pid of the hub the client is connected to, or 0.
func (c *Client) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return 0
	}
	return c.conn.pid
}

// Close ends the client's connection, if it has one.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		c.conn.raw.Close()
	}
}

// SendLive sends m, which has no reply, on the live connection only, and
// returns the hub's pid; ErrNotRunning when the client has none.
func (c *Client) SendLive(m Message) (int, error) {
	c.mu.Lock()
	cc := c.conn
	c.mu.Unlock()
	if cc == nil || cc.isDead() {
		return 0, ErrNotRunning
	}
	return cc.pid, cc.conn.Write(m)
}

// send sends m, which has no reply, dialling (never starting a hub) when
// the client has no connection.
func (c *Client) send(ctx context.Context, m Message) error {
	cc, err := c.connect(ctx, false)
	if err != nil {
		return err
	}
	return cc.conn.Write(m)
}

// call sends m and waits for its reply, wait at most (0: as long as ctx
// allows); start says whether a hub is started when none runs. On ctx,
// onCancel (if set) gives the message that tells the hub the call ended.
// A stream's replies go to each until it says done or fails (nil: one
// reply, returned); a reply with an error ends the call with it.
func (c *Client) call(ctx context.Context, wait time.Duration, start bool, m Message, onCancel func(id uint64, cause error) Message, each func(Message) (done bool, err error)) (Message, error) {
	if wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, wait, NoAnswerError{wait})
		defer cancel()
	}
	r, err := c.callOn(ctx, start, m, onCancel, each)
	if err != nil && ctx.Err() != nil {
		if na := (NoAnswerError{}); errors.As(context.Cause(ctx), &na) {
			return r, na
		}
	}
	return r, err
}

func (c *Client) callOn(ctx context.Context, start bool, m Message, onCancel func(id uint64, cause error) Message, each func(Message) (bool, error)) (Message, error) {
	cc, err := c.connect(ctx, start)
	if err != nil {
		return Message{}, err
	}
	c.mu.Lock()
	c.nextID++
	m.ID = c.nextID
	c.mu.Unlock()
	p := &pending{ch: make(chan Message, 1), stream: each != nil, gone: make(chan struct{})}
	defer close(p.gone)
	cc.mu.Lock()
	if cc.dead {
		cc.mu.Unlock()
		return Message{}, ErrHubGone
	}
	cc.waiting[m.ID] = p
	cc.mu.Unlock()
	if err := cc.conn.Write(m); err != nil {
		return Message{}, fmt.Errorf("%w: %v", ErrHubGone, err)
	}
	bridge.Submitted(ctx) // the hub has it: the relay's next request may follow
	forget := func() {
		cc.mu.Lock()
		delete(cc.waiting, m.ID)
		cc.mu.Unlock()
	}
	for {
		select {
		case r := <-p.ch:
			switch {
			case r.Error == ErrHubGone.Error():
				return r, ErrHubGone
			case r.Unknown:
				return r, UnknownServerError{r.Error}
			case r.Error != "":
				return r, history.Said(r.Error, r.Kind)
			case each == nil:
				return r, nil
			}
			if done, err := each(r); err != nil {
				forget()
				return r, err
			} else if !done {
				continue
			}
			return r, nil
		case <-ctx.Done():
			forget()
			if onCancel != nil {
				_ = cc.conn.Write(onCancel(m.ID, context.Cause(ctx)))
			}
			return Message{}, ctx.Err()
		}
	}
}

// Prompt asks the hub to decide req, starting a hub when none runs
// (DESIGN.md data flow, step 4). When ctx ends first the hub is told
// (OpCancel) who ended the prompt and why, from ctx's cause.
func (c *Client) Prompt(ctx context.Context, req PromptRequest) (PromptReply, error) {
	r, err := c.call(ctx, 0, true, req.Message(), func(id uint64, cause error) Message {
		return CancelRequest{ID: id, Result: CancelResult(cause)}.Message()
	}, nil)
	return promptReplyOf(r), err
}

// CancelResult says who ended a prompt, from the cause the relay gave.
func CancelResult(cause error) *bridge.Result {
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

// Delivered tells a running hub whether an answer reached its server; it
// waits KeepWait at most for a connection.
func (c *Client) Delivered(ctx context.Context, req DeliveredRequest) error {
	ctx, cancel := context.WithTimeout(ctx, KeepWait)
	defer cancel()
	return c.send(ctx, req.Message())
}

// Record asks a running hub to keep rec, and waits KeepWait at most for it
// to say the record is on disk.
func (c *Client) Record(ctx context.Context, req RecordRequest) error {
	_, err := c.call(ctx, KeepWait, false, req.Message(), nil, nil)
	return err
}

// ToolAccepted tells a running hub of an acceptance (ToolAcceptedRequest),
// and waits KeepWait at most for it to say it is on disk.
func (c *Client) ToolAccepted(ctx context.Context, req ToolAcceptedRequest) error {
	_, err := c.call(ctx, KeepWait, false, req.Message(), nil, nil)
	return err
}

// History lists the running hub's history.
func (c *Client) History(ctx context.Context, req HistoryRequest) (HistoryReply, error) {
	r, err := c.call(ctx, AskWait, false, req.Message(), nil, nil)
	return historyReplyOf(r), err
}

// Get returns one record of the running hub's history.
func (c *Client) Get(ctx context.Context, req GetRequest) (HistoryReply, error) {
	r, err := c.call(ctx, AskWait, false, req.Message(), nil, nil)
	return historyReplyOf(r), err
}

// Export writes the running hub's history to w as it comes; a failed
// write ends it.
func (c *Client) Export(ctx context.Context, req ExportRequest, w io.Writer) (CountReply, error) {
	r, err := c.call(ctx, 0, false, req.Message(), nil, func(m Message) (bool, error) {
		if m.Done {
			return true, nil
		}
		_, err := w.Write(m.Data)
		return false, err
	})
	return CountReply{Count: r.Count}, err
}

// Prune applies retention in the running hub.
func (c *Client) Prune(ctx context.Context, req PruneRequest) (CountReply, error) {
	r, err := c.call(ctx, 0, false, req.Message(), nil, nil)
	return CountReply{Count: r.Count}, err
}

// Verify checks the chain of the running hub's history.
func (c *Client) Verify(ctx context.Context, req VerifyRequest) (history.Verification, error) {
	r, err := c.call(ctx, 0, false, req.Message(), nil, nil)
	if err == nil && r.Verification == nil {
		err = errors.New("the hub sent no verification")
	}
	if err != nil {
		return history.Verification{}, err
	}
	return *r.Verification, nil
}

// Pause pauses or resumes every prompt in the running hub.
func (c *Client) Pause(ctx context.Context, req PauseRequest) error {
	_, err := c.call(ctx, AskWait, false, req.Message(), nil, nil)
	return err
}

// Mute mutes a server in the running hub; UnknownServerError when the hub
// does not know it and req.Force is not set.
func (c *Client) Mute(ctx context.Context, req MuteRequest) (MuteReply, error) {
	r, err := c.call(ctx, AskWait, false, req.Message(), nil, nil)
	return MuteReply{Until: r.Until}, err
}

// Unmute lifts a server's mute in the running hub; UnknownServerError when
// the hub does not know it.
func (c *Client) Unmute(ctx context.Context, req UnmuteRequest) (MuteReply, error) {
	r, err := c.call(ctx, AskWait, false, req.Message(), nil, nil)
	return MuteReply{Until: r.Until}, err
}

// Status is the running hub's state.
func (c *Client) Status(ctx context.Context) (StatusReply, error) {
	r, err := c.call(ctx, AskWait, false, Message{Op: OpStatus}, nil, nil)
	return statusReplyOf(r), err
}

// Probe is Status within ProbeWait.
func (c *Client) Probe(ctx context.Context) (StatusReply, error) {
	r, err := c.call(ctx, ProbeWait, false, Message{Op: OpStatus}, nil, nil)
	return statusReplyOf(r), err
}

// Quit stops the running hub, and says what it could not save.
func (c *Client) Quit(ctx context.Context) (SavedState, error) {
	// Unbounded: the hub answers once it stopped, after it saved what it
	// holds, however long the disk takes.
	r, err := c.call(ctx, 0, false, Message{Op: OpQuit}, nil, nil)
	return savedStateOf(r), err
}

// ShowHistory opens the history window, starting a hub when none runs.
func (c *Client) ShowHistory(ctx context.Context) error { return c.open(ctx, OpWindow) }

// Settings opens the Settings window, starting a hub when none runs.
func (c *Client) Settings(ctx context.Context) error { return c.open(ctx, OpSettings) }

// Menu opens the menu window, starting a hub when none runs.
func (c *Client) Menu(ctx context.Context) error { return c.open(ctx, OpMenu) }

func (c *Client) open(ctx context.Context, op string) error {
	_, err := c.call(ctx, 0, true, Message{Op: op}, nil, nil)
	return err
}
