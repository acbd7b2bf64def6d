package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// Options configure a Relay. A nil *Options means all defaults.
type Options struct {
	// Server is the name the user configured for the server (--name): the
	// identity prompts show first. Empty means "server".
	Server string
	// Approver decides elicitations. Nil answers every elicitation cancel,
	// which is what a request no person saw must get (DESIGN.md).
	Approver Approver
	// Rejected, when set, is told about each elicitation the relay answers
	// with an error without asking the Approver (an unrenderable schema), so
	// that history can keep it, before the error is written. It runs on the
	// relay's goroutines: while it runs, that server's messages wait.
	Rejected func(req *Request, err error)
	// NoDesktop, when set, is told about each elicitation the Approver had
	// no desktop for (ErrNoDesktop), and whether it went to the host
	// instead of being answered cancel, so that history can keep it. It
	// runs on the relay's goroutines and must not block for long.
	NoDesktop func(req *Request, forwarded bool, err error)
	// Overruled, when set, is told when the relay sends the server something
	// else than the Approver decided (an accept whose content does not fit
	// the schema is answered cancel; the host cancelled the call while the
	// prompt was open, so the server gets cancel whatever a person chose),
	// with what it sends, before it sends it: history then keeps what the
	// server received. It runs on the relay's goroutines and must not block
	// for long.
	Overruled func(req *Request, sent Result)
	// Log receives sentences for people (the host's log). Nil discards.
	// The child's stderr goes to the command's own Stderr; see NewRelay.
	Log io.Writer
}

// A Relay runs one wrapped server between a host and the server.
type Relay struct {
	srv  Server
	opts Options
	log  *logger

	mu      sync.Mutex
	info    ServerInfo
	version string
	// initID is the id of the host's initialize request until its reply
	// passes (PROTOCOL.md §2: the reply names the agreed version).
	initID string
	// calls maps pending tools/call ids to tool names, so a prompt can name
	// the call in flight.
	calls map[string]string
	// lastTool and lastCall are the name and id key of the most recent
	// pending tools/call: the call a server's elicitation belongs to.
	lastTool, lastCall string
	// pending maps the ids of intercepted elicitation/create requests to
	// their prompts.
	pending map[string]*pendingElicitation
	// urlIDs maps the elicitationIds of URL elicitations the relay took to
	// their request's id key, or to "" once answered: their completion
	// notices are the relay's, not the host's.
	urlIDs map[string]string
	// urlWaits closes the window of a -32042 link still open when the
	// server reports it complete, by elicitationId.
	urlWaits map[string]context.CancelCauseFunc

	// The input_required loop (mrtr.go), under mu. loops maps the id keys
	// of host calls the relay may have to finish; retries maps the id keys
	// of the relay's own retries in flight; forwarded holds rounds handed
	// to the host. Retry ids are idPrefix (set by NewRelay, then only read,
	// without the lock) plus retrySeq.
	loops     map[string]*hostCall
	retries   map[string]*hostCall
	forwarded []*forwardedRound
	idPrefix  string
	retrySeq  uint64
	// reqSeq numbers the Requests made (Request.ID is idPrefix and it).
	reqSeq uint64

	// hostElicitation is the elicitation capability the host declared in
	// its initialize (before the relay added its own), or nil.
	hostElicitation json.RawMessage
	// noDesktopSaid makes the no-desktop sentence appear once.
	noDesktopSaid sync.Once

	// Set by Run before any message moves.
	ctx      context.Context
	toHost   *lineConn
	toServer Conn
}

// pendingElicitation is an intercepted elicitation waiting for its answer.
type pendingElicitation struct {
	call          string // id key of the tools/call in flight when it came, or ""
	elicitationID string // URL mode: the server's elicitationId, or ""
	cancel        context.CancelCauseFunc
}

// Causes that end a prompt before anyone answered it; the Approver reads
// them with context.Cause to say why in history.
var (
	// ErrServerCancelled: the server sent notifications/cancelled for its
	// elicitation (PROTOCOL.md §7). No reply is sent.
	ErrServerCancelled = errors.New("the server cancelled the request")
	// ErrHostCancelled: the host cancelled the tools/call the elicitation
	// belongs to (PROTOCOL.md §7). The window closes, and once the server
	// has been told of the cancellation, its elicitation is answered cancel
	// (unless the server withdrew it first): a server that does not cancel
	// its own request would otherwise wait for an answer forever.
	ErrHostCancelled = errors.New("the host cancelled the tool call")
	// ErrElicitationComplete: the server sent notifications/elicitation/
	// complete for a URL elicitation whose window was still open
	// (PROTOCOL.md §6). The server is answered cancel.
	ErrElicitationComplete = errors.New("the server completed the URL elicitation without an answer")
	// ErrRelayStopped: the host or the server went away.
	ErrRelayStopped = errors.New("the host or the server stopped")
)

// NewRelay returns a Relay for srv, which Run starts: a child process
// (Command) or a remote server.
func NewRelay(srv Server, opts *Options) *Relay {
	r := &Relay{srv: srv, calls: map[string]string{}, pending: map[string]*pendingElicitation{},
		urlIDs: map[string]string{}, urlWaits: map[string]context.CancelCauseFunc{},
		loops: map[string]*hostCall{}, retries: map[string]*hostCall{}, idPrefix: newIDPrefix()}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.Server == "" {
		r.opts.Server = "server"
	}
	r.log = &logger{w: r.opts.Log}
	return r
}

// ErrStart is returned by Run when the server could not be started.
var ErrStart = errors.New("server command could not be started")

// Run starts the server and relays until it is gone, then returns the code
// the wrapper exits with (Server.Wait). When hostIn reaches EOF or ctx is
// done, the server is told no more messages come (Conn.CloseWrite), and it
// shuts down its own way: a child's stdin is closed, then after its grace
// period it gets SIGTERM, and after another SIGKILL (PROTOCOL.md §7; see
// Command). When the server cannot start, Run returns the error, wrapping
// ErrStart, and the code its ExitCode method names (127 for a command that
// cannot run), or 1.
func (r *Relay) Run(ctx context.Context, hostIn io.Reader, hostOut io.Writer) (int, error) {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(ErrRelayStopped)
	server, err := r.srv.Start(ctx, func(format string, args ...any) {
		r.log.printf("%s: "+format, append([]any{r.opts.Server}, args...)...)
	})
	if err != nil {
		code := 1
		var ec interface{ ExitCode() int }
		if errors.As(err, &ec) {
			code = ec.ExitCode()
		}
		return code, err
	}
	host := newLineConn(hostIn, hostOut)
	host.r.onBOM = func() {
		r.log.printf("a message from the host began with a UTF-8 byte order mark, which JSON-RPC text must not carry; elicitray removes such marks before passing messages on")
	}
	r.ctx, r.toHost, r.toServer = ctx, host, server

	hostDone := make(chan struct{})
	go func() {
		defer close(hostDone)
		r.pumpHost()
	}()
	gone := make(chan struct{})
	go func() {
		// The host went away, or the caller gave up: no more messages
		// for the server, which then shuts down (PROTOCOL.md §7).
		select {
		case <-hostDone:
		case <-ctx.Done():
		case <-gone:
			return
		}
		if err := server.CloseWrite(); err != nil {
			r.log.printf("closing the server's input: %v", err)
		}
	}()
	serverDone := make(chan struct{})
	go func() {
		defer close(serverDone)
		r.pumpServer()
	}()

	code := r.srv.Wait()
	close(gone)
	<-serverDone
	stop(ErrRelayStopped) // ends pending prompts: nobody is left to answer
	host.flush()
	return code, nil
}

// pumpHost relays host → server until the host's stdin ends.
func (r *Relay) pumpHost() {
	for {
		line, err := r.toHost.Read()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.log.printf("reading from the host: %v", err)
			}
			return
		}
		if out := r.fromHost(line); out != nil {
			if werr := r.toServer.Write(out, !r.toHost.Buffered()); werr != nil {
				r.log.printf("writing to the server: %v", werr)
			}
		}
	}
}

// fromHost inspects one host line and returns what to send to the server
// (nil when it sent the line itself).
func (r *Relay) fromHost(line []byte) []byte {
	env, err := scanEnvelope(line)
	if err == nil && env.isNotification() && env.Method == "notifications/cancelled" {
		// The server must hear of it too, and before the cancel answers
		// of the call's elicitations that this sets off (startElicitation):
		// so it goes out here, ahead of them.
		if werr := r.toServer.Write(line, !r.toHost.Buffered()); werr != nil {
			r.log.printf("writing to the server: %v", werr)
		}
		r.hostCancelled(env.Params)
		return nil
	}
	if err != nil || !env.isRequest() {
		// Not ours to judge: the server answers a malformed line -32700,
		// and a "request" whose id is null -32600 (PROTOCOL.md §7: ids are
		// never null), so such a line passes as the host wrote it.
		return line
	}
	key, _ := idKey(env.ID)
	if version := modernVersion(env.Params); version != "" {
		// PROTOCOL.md §2, §3: a modern request declares the client's
		// capabilities itself, every time.
		out, hostCaps, err := injectMeta(line)
		if err != nil {
			r.log.printf("could not add the elicitation capability to %s: %v", env.Method, err)
			return line
		}
		line = withNewline(out)
		if loopMethods[env.Method] {
			r.noteCall(key, env.Method, env.Params)
			return r.trackCall(key, &env, line, version, hostCaps)
		}
		return line
	}
	if loopMethods[env.Method] {
		// A legacy call: its reply may still be a -32042 (PROTOCOL.md §6).
		r.noteCall(key, env.Method, env.Params)
		return r.trackCall(key, &env, line, "", nil)
	}
	switch env.Method {
	case "initialize":
		params, _ := getMember(line, "params")
		caps, _ := getMember(params, "capabilities")
		el, _ := getMember(caps, "elicitation")
		r.mu.Lock()
		r.initID = key
		r.hostElicitation = append(json.RawMessage(nil), el...)
		r.mu.Unlock()
		out, err := injectInitialize(line)
		if err != nil {
			r.log.printf("could not add the elicitation capability to initialize: %v", err)
			return line
		}
		return withNewline(out)
	}
	return line
}

// noteCall remembers a pending tools/call, so that a legacy elicitation
// can name the call in flight.
func (r *Relay) noteCall(key, method string, params json.RawMessage) {
	if method != "tools/call" {
		return
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(params, &p)
	r.mu.Lock()
	r.calls[key] = p.Name
	r.lastTool, r.lastCall = p.Name, key
	r.mu.Unlock()
}

// pumpServer relays server → host until the server's messages end.
func (r *Relay) pumpServer() {
	for {
		line, err := r.toServer.Read()
		if err != nil {
			r.toHost.flush()
			return
		}
		if r.fromServer(r.ctx, line, r.toServer) {
			if werr := r.toHost.Write(line, !r.toServer.Buffered()); werr != nil {
				r.log.printf("writing to the host: %v", werr)
			}
		} else if !r.toServer.Buffered() {
			// An intercepted line ends the burst: what came before it
			// must not wait for the server's next message.
			r.toHost.flush()
		}
	}
}

// fromServer inspects one server line; it reports whether the line goes on
// to the host.
func (r *Relay) fromServer(ctx context.Context, line []byte, toServer Conn) bool {
	env, err := scanEnvelope(line)
	if err != nil {
		return true
	}
	switch {
	case env.Method == "elicitation/create" && len(env.ID) > 0:
		// Every id, null included, is the relay's to answer: the host
		// never sees the server's elicitations (startElicitation).
		r.startElicitation(ctx, line, env.ID, env.Params, toServer)
		return false
	case env.Method == "elicitation/create":
		// JSON-RPC: a request without an id is a notification, and a
		// notification gets no reply, not even an error. Nobody can answer
		// it, the host no more than the relay, so it stops here, said.
		r.log.printf("%s: ignored an elicitation/create without an id: without one it cannot be answered (PROTOCOL.md §7: request ids are strings or integers)", r.opts.Server)
		return false
	case env.isNotification() && env.Method == "notifications/elicitation/complete":
		// PROTOCOL.md §6: close a URL window still waiting; an id the host
		// never saw (every elicitation the relay answered) stays here.
		return !r.completeURL(env.Params)
	case env.isNotification() && env.Method == "notifications/cancelled":
		// PROTOCOL.md §7: a server may cancel its own elicitation/create;
		// the host never saw that id, so the notice stops here.
		return !r.cancelPending(env.Params)
	case env.isResponse():
		if key, ok := idKey(env.ID); ok {
			r.noteResponse(key, &env)
			return r.takeReply(key, &env, line)
		}
	}
	return true
}

// noteResponse keeps the relay's view of pending host requests current:
// the initialize reply gives serverInfo and the agreed protocol version, and
// a tools/call reply ends that call.
func (r *Relay) noteResponse(key string, env *envelope) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if key == r.initID {
		r.initID = ""
		var init struct {
			ProtocolVersion string     `json:"protocolVersion"`
			ServerInfo      ServerInfo `json:"serverInfo"`
		}
		if json.Unmarshal(env.Result, &init) == nil {
			r.info, r.version = init.ServerInfo, init.ProtocolVersion
		}
		return
	}
	r.endCall(key)
}

// endCall forgets the tools/call with id key, if pending; r.mu is held.
func (r *Relay) endCall(key string) {
	if _, ok := r.calls[key]; ok {
		delete(r.calls, key)
		r.lastTool, r.lastCall = "", ""
		for k, name := range r.calls {
			r.lastTool, r.lastCall = name, k
		}
	}
}

// cancelledID is the requestId of a notifications/cancelled, as an id key.
func cancelledID(params json.RawMessage) (string, bool) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	return idKey(p.RequestID)
}

// cancelPending closes the prompt of a pending elicitation named by the
// server's notifications/cancelled; it reports whether there was one.
func (r *Relay) cancelPending(params json.RawMessage) bool {
	key, ok := cancelledID(params)
	if !ok {
		return false
	}
	r.mu.Lock()
	p, ok := r.pending[key]
	delete(r.pending, key)
	r.mu.Unlock()
	if ok {
		p.cancel(ErrServerCancelled)
	}
	return ok
}

// completeURL handles notifications/elicitation/complete: it closes the
// window of a URL elicitation still waiting, and reports whether the
// elicitationId is one the relay took (so the host never saw it).
func (r *Relay) completeURL(params json.RawMessage) bool {
	var p struct {
		ElicitationID string `json:"elicitationId"`
	}
	if json.Unmarshal(params, &p) != nil || p.ElicitationID == "" {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if cancel, ok := r.urlWaits[p.ElicitationID]; ok {
		cancel(ErrElicitationComplete)
		return true
	}
	key, ok := r.urlIDs[p.ElicitationID]
	if !ok {
		return false
	}
	delete(r.urlIDs, p.ElicitationID)
	if pe := r.pending[key]; key != "" && pe != nil && pe.elicitationID == p.ElicitationID {
		pe.cancel(ErrElicitationComplete)
	}
	return true
}

// hostCancelled closes the prompts of a tools/call the host cancelled
// (PROTOCOL.md §7); their server requests are answered cancel, by the
// goroutine of each (startElicitation), once its Approver has let go.
func (r *Relay) hostCancelled(params json.RawMessage) {
	key, ok := cancelledID(params)
	if !ok {
		return
	}
	keys := r.cancelCall(key)
	r.mu.Lock()
	defer r.mu.Unlock()
	// The host gave up on the call: it is no longer the one in flight.
	r.endCall(key)
	for _, p := range r.pending {
		if slices.Contains(keys, p.call) {
			p.cancel(ErrHostCancelled)
		}
	}
}

// withNewline returns b ending in exactly one newline (PROTOCOL.md §7: one
// message per line).
func withNewline(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return b
	}
	return append(b[:len(b):len(b)], '\n') // never into a reader's buffer
}

// logger writes sentences for people, prefixed so they stand out in a
// host's combined log.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) printf(format string, args ...any) {
	if l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "elicitray: "+format+"\n", args...)
}
