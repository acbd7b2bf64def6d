package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
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
	// Delivered, when set, is told once, for each elicitation the server
	// pushed (elicitation/create) or asked in an input_required round
	// whose Request has ReportsDelivery set, whether its answer reached the
	// server: nil once the line (the answer, or the round's retry) was
	// written to the server's input (stdio), or its POST was accepted
	// (HTTP: 2xx for an answer, the server's reply for a retry),
	// or when nothing was owed (the server withdrew it, the host answers
	// it); otherwise why not, a sentence (the server's input was closed,
	// the POST was refused, the relay stopped first). It runs on the
	// elicitation's goroutine after the write, and must not block for long.
	Delivered func(req *Request, err error)
	// KeepAlive is how often the host gets notifications/progress for a
	// call's progressToken while a prompt of that call is open, so that a
	// host that resets its timeout on progress keeps waiting for the
	// person (PROTOCOL.md §10; keepalive.go). Zero sends none.
	KeepAlive time.Duration
	// Guard lists patterns of tool names (path.Match syntax: "delete_*",
	// "deploy") whose tools/calls wait for the user's approval before they
	// reach the server (guard.go, issue 14). Nil guards none.
	Guard []string
	// GuardDestructive guards, besides, every tool the server's tools/list
	// annotated destructiveHint: true. False guards only Guard's.
	GuardDestructive bool
	// Pins, when set, keeps the tool definitions the user has seen
	// (app/toolpins): each tools/list result passes through it, and the
	// calls of a tool whose definition changed since are guarded, their
	// window showing the change, until the user accepts it (guard.go).
	Pins ToolPins
	// PromptTimeout is how long a guarded call asked in the host (no
	// desktop could show the window, guardhost.go) waits for the host's
	// answer; then the host's prompt is withdrawn and the call denied, as
	// the hub's timeout does with a window. Zero waits until the host
	// answers or cancels its call.
	PromptTimeout time.Duration
	// HostDecided, when set, is told what was decided about each guarded
	// call asked in the host (DecidedBy DecidedByHost when the user
	// answered there; timeout, host-cancelled or error otherwise), once,
	// before the call or its denial is written, so that history keeps it.
	// It runs on the call's own goroutine.
	HostDecided func(req *Request, res Result)
	// Log receives sentences for people (the host's log). Nil discards.
	// A child's stderr goes to the command's own Stderr; see Command.
	Log io.Writer
}

// A Relay runs one wrapped server between a host and the server. It holds
// no state of its own beyond its two connections: each protocol feature
// keeps its own, under its own lock, and the relay routes each message to
// the feature it belongs to (see the package doc for the map).
type Relay struct {
	srv  Server
	opts Options
	w    *wires

	session *session
	calls   *calls
	decide  *decider
	legacy  *legacy
	url     *urlMode
	loop    *loop
	forward *forwards
	keep    *keepAlive
	guard   *guard
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
	// ErrCallEnded: the tool call a legacy elicitation belongs to got its
	// reply (or, from a remote server, an error saying it could not be
	// reached) while the prompt was open. An answer would go to a call
	// that is over, so the window closes and the server is answered
	// cancel; history says why.
	ErrCallEnded = errors.New("the tool call ended before the answer")
	// ErrServerUnreachable: the call's reply is the relay's own, saying
	// the remote server could not be reached (answerError): the call is
	// over, as with ErrCallEnded, but it was not the server's doing.
	ErrServerUnreachable = errors.New("the server could not be reached, so the tool call ended before anyone answered")
	// ErrElicitationComplete: the server sent notifications/elicitation/
	// complete for a URL elicitation whose window was still open
	// (PROTOCOL.md §6). The server is answered cancel.
	ErrElicitationComplete = errors.New("the server completed the URL elicitation without an answer")
	// ErrRelayStopped: the host or the server went away.
	ErrRelayStopped = errors.New("the host or the server stopped")
	// ErrServerGone: the server exited on its own (Wait returned before
	// the host went away) while prompts were open. It is an
	// ErrRelayStopped; history says the server, not the wrapper, ended
	// them, and that no answer was owed it.
	ErrServerGone error = serverGone{}
)

// serverGone is ErrServerGone.
type serverGone struct{}

func (serverGone) Error() string        { return "the server exited before anyone answered" }
func (serverGone) Is(target error) bool { return target == ErrRelayStopped }

// NewRelay returns a Relay for srv, which Run starts: a child process
// (Command) or a remote server.
func NewRelay(srv Server, opts *Options) *Relay {
	r := &Relay{srv: srv}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.Server == "" {
		r.opts.Server = "server"
	}
	// prefix starts the ids the relay makes, of Requests and of its own
	// retries: random per process, so they never collide with a host's
	// ids (PROTOCOL.md §7) nor with another relay's Requests.
	prefix := newIDPrefix()
	r.w = &wires{log: &logger{w: r.opts.Log}, serverName: r.opts.Server}
	r.session = &session{w: r.w}
	r.calls = &calls{tools: map[string]string{}}
	r.decide = &decider{w: r.w, opts: &r.opts, session: r.session, prefix: prefix}
	r.url = &urlMode{ids: map[string]context.CancelCauseFunc{}, waits: map[string]context.CancelCauseFunc{}, d: r.decide}
	r.legacy = &legacy{pending: map[string]*pendingElicitation{}, w: r.w, d: r.decide, session: r.session, calls: r.calls, url: r.url}
	r.keep = newKeepAlive(r.w, r.opts.KeepAlive)
	r.legacy.keep = r.keep
	r.forward = &forwards{w: r.w, keep: r.keep}
	r.loop = &loop{loops: map[string]*hostCall{}, retries: map[string]*hostCall{}, prefix: prefix, ownKey: "s:" + prefix,
		w: r.w, d: r.decide, session: r.session, calls: r.calls, url: r.url, forward: r.forward, keep: r.keep}
	r.guard = newGuard(r)
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
//
// Shutdown order: the server is gone (Wait returned), then its last
// messages are relayed (the server pump ends), then pending prompts end
// (ErrRelayStopped: nobody is left to answer; ErrServerGone when the
// server went first), and the Approver is told, then the host's last
// bytes are flushed.
func (r *Relay) Run(ctx context.Context, hostIn io.Reader, hostOut io.Writer) (int, error) {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(ErrRelayStopped)
	server, err := r.srv.Start(ctx, func(format string, args ...any) {
		r.w.log.printf("%s: "+format, append([]any{r.opts.Server}, args...)...)
	})
	if err != nil {
		code := 1
		var ec interface{ ExitCode() int }
		if errors.As(err, &ec) {
			code = ec.ExitCode()
		}
		return code, err
	}
	// A host's blocking pipes are read and written through Go's poller,
	// opened again for it (pollable, pipe_linux.go).
	inDone, outDone := func() {}, func() {}
	if f, ok := hostIn.(*os.File); ok {
		if pf, done := pollable(f); pf != nil {
			hostIn, inDone = pf, done
		}
	}
	if f, ok := hostOut.(*os.File); ok {
		if pf, done := pollable(f); pf != nil {
			hostOut, outDone = pf, done
		}
	}
	defer outDone()
	host := newLineConn(hostIn, hostOut)
	host.r.onBOM = func() {
		r.w.log.printf("a message from the host began with a UTF-8 byte order mark, which JSON-RPC text must not carry; elicitray removes such marks before passing messages on")
	}
	hin, _ := hostIn.(*os.File)
	if sc, ok := server.(*lineConn); ok {
		// Both sides are streams of lines: each direction runs the
		// framer's pump, spliced where the kernel can (frame.go).
		host.r.pipe = newPipeIn(hin, sc.w.file)
		sc.r.pipe = newPipeIn(sc.r.file(), host.w.file)
		sc.r.strict = true // the server's long lines (oneline.go)
		sc.sink.Store(host.w)
	} else {
		growPipe(hin)
		growPipe(host.w.file)
	}
	r.w.ctx, r.w.host, r.w.server = ctx, host, server

	hostDone := make(chan struct{})
	go func() {
		defer close(hostDone)
		defer inDone()
		r.pumpHost()
	}()
	gone, closerDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(closerDone)
		// The host went away, or the caller gave up: no more messages
		// for the server, which then shuts down (PROTOCOL.md §7).
		select {
		case <-hostDone:
		case <-ctx.Done():
		case <-gone:
			return
		}
		if err := server.CloseWrite(); err != nil {
			r.w.log.printf("closing the server's input: %v", err)
		}
	}()
	serverDone := make(chan struct{})
	go func() {
		defer close(serverDone)
		r.pumpServer()
	}()

	code := r.srv.Wait()
	ended := ErrServerGone
	select {
	case <-hostDone:
		ended = ErrRelayStopped // the server followed its host
	case <-ctx.Done():
		ended = ErrRelayStopped
	default:
	}
	close(gone)
	<-closerDone
	grace := time.After(graceOf(r.srv))
	select {
	case <-serverDone:
	case <-host.w.gone:
		// The host stopped reading and its writes were given up (stdio.go).
		// On a pipe or a socket the write waiting fails at once, and the
		// server's pump says what was dropped (hostWriteFailed) before the
		// wrapper ends; on a file that takes no deadline it may stay
		// blocked, and the same grace bounds the wait: the server is gone.
		select {
		case <-serverDone:
		case <-grace:
		}
	case <-grace:
		// The server is gone, and a host that stopped reading holds its
		// last messages (a remote server's: stdio.go gives up on its
		// own): they are given up, so that the wrapper ends.
		host.w.abandon()
	}
	// The host's pump may wait on for a host that outlives the server; the
	// fast path's files go now (reads carry on without them).
	host.r.pipe.close()
	stop(ended)
	// The open prompts end now: the Approver hears why before the
	// wrapper exits, or the hub would blame a crashed wrapper.
	r.decide.wait(graceOf(r.srv))
	select {
	case <-host.w.gone:
	default:
		host.flush()
	}
	return code, nil
}

// pumpHost relays host → server until the host's stdin ends.
func (r *Relay) pumpHost() {
	host, server := r.w.host, r.w.server
	if sc, ok := server.(*lineConn); ok {
		defer host.r.pipe.close()
		err := host.r.pump(sc.w, r.hostRoute, func(string) {}, r.handleHost, func(err error) {
			r.w.serverWriteFailed(err)
		}, func() {
			r.w.log.printf("the host sent a message longer than 1 MiB with a second \"method\", or one after its result: the server would read it as a request or notification elicitray did not see, so it was cut off there and its rest not passed on")
		})
		if !errors.Is(err, io.EOF) {
			r.w.log.printf("reading from the host: %v", err)
		}
		return
	}
	for {
		line, err := host.Read()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.w.log.printf("reading from the host: %v", err)
			}
			return
		}
		if out := r.fromHost(line); out != nil {
			if werr := server.Write(out, !host.Buffered()); werr != nil {
				r.w.serverWriteFailed(werr)
			}
		}
	}
}

// handleHost sends the server what the full path makes of a host line.
func (r *Relay) handleHost(line []byte, more bool) {
	if out := r.fromHost(line); out != nil {
		if werr := r.w.server.Write(out, !more); werr != nil {
			r.w.serverWriteFailed(werr)
		}
	}
}

// pumpServer relays server → host until the server's messages end.
func (r *Relay) pumpServer() {
	host, server := r.w.host, r.w.server
	if sc, ok := server.(*lineConn); ok {
		defer sc.r.pipe.close()
		_ = sc.r.pump(host.w, r.serverRoute, r.callReplied, r.handleServer, func(err error) {
			r.hostWriteFailed(err)
		}, func() {
			r.w.log.printf("%s: the server sent a line longer than 1 MiB with a \"method\" the host could read as a request elicitray did not see (a second one, one after its result or in another case, or one outside the message; an elicitation must not pass): the line was cut off there and its rest not passed on", r.opts.Server)
		})
		sc.ended()
		host.flush()
		return
	}
	for {
		line, err := server.Read()
		if err != nil {
			host.flush()
			return
		}
		if r.fromServer(line) {
			if werr := host.Write(line, !server.Buffered()); werr != nil {
				r.hostWriteFailed(werr)
			}
		} else if !server.Buffered() {
			// An intercepted line ends the burst: what came before it
			// must not wait for the server's next message.
			host.flush()
		}
	}
}

// hostWriteFailed says why a server message did not reach the host.
func (r *Relay) hostWriteFailed(err error) { r.w.hostWriteFailed(err) }

// hostWriteFailed says why a message did not reach the host: every write
// to the host that fails is said here, so that one given up
// (lineWriter.abandon; on a socket its writing side is shut, and a write
// racing that fails with EPIPE) is said as such, whichever path wrote.
func (w *wires) hostWriteFailed(err error) {
	if errors.Is(err, os.ErrDeadlineExceeded) || w.host.w.abandoned() {
		w.log.printf("the host read nothing more of elicitray's output after the server ended: the server's last messages were dropped, so that elicitray could end")
		return
	}
	w.log.printf("writing to the host: %v", err)
}

// handleServer sends the host a server line the full path passes on.
func (r *Relay) handleServer(line []byte, more bool) {
	if r.fromServer(line) {
		if werr := r.w.host.Write(line, !more); werr != nil {
			r.hostWriteFailed(werr)
		}
	} else if !more {
		// An intercepted line ends the burst: what came before it
		// must not wait for the server's next message.
		r.w.host.flush()
	}
}

// fromHost routes one host line and returns what to send to the server
// (nil when it sent the line itself).
func (r *Relay) fromHost(line []byte) []byte {
	env, err := scanEnvelope(line)
	if err == nil && env.isNotification() && env.Method == "notifications/cancelled" {
		if key, ok := cancelledID(env.Params); ok && r.guard.hostCancelled(key) {
			return nil // guard.go: the server never saw the call
		}
		// The server must hear of it too, and before the cancel answers
		// of the call's elicitations that this sets off (legacy.go): so
		// it goes out here, ahead of them.
		if werr := r.w.server.Write(line, !r.w.host.Buffered()); werr != nil {
			r.w.serverWriteFailed(werr)
		}
		r.hostCancelled(env.Params)
		return nil
	}
	if r.guard.dropsUnclear(line, &env, err) {
		return nil // guard.go: a line a server may read a guarded call in
	}
	if err == nil && env.isResponse() && r.guard.host.fromHost(&env) {
		return nil // guardhost.go: the host's answer to the relay's own question
	}
	if err != nil || !env.isRequest() {
		if err == nil && r.guard.dropsUnanswerable(&env) {
			return nil // guard.go: a guarded call no one could approve
		}
		// Not ours to judge: the server answers a malformed line -32700,
		// and a "request" whose id is null -32600 (PROTOCOL.md §7: ids are
		// never null), so such a line passes as the host wrote it.
		return line
	}
	line, version, hostCaps, ok := r.session.fromHost(&env, line)
	if ok {
		r.guard.noteRequest(&env)
	}
	if !ok || !loopMethods[env.Method] {
		return line
	}
	key, _ := idKey(env.ID)
	if r.guard.holds(key, &env, line, version, hostCaps) {
		return nil // guard.go: sent once the user approves it
	}
	return r.followCall(key, &env, line, version, hostCaps)
}

// followCall follows a host request of a loop method, with id key: a call
// whose reply may ask for input (PROTOCOL.md §1, §6), and the call a
// legacy elicitation may belong to. It returns the line to send.
func (r *Relay) followCall(key string, env *envelope, line []byte, version string, hostCaps json.RawMessage) []byte {
	r.keep.noteCall(key, env.Params)
	return r.trackCall(key, env, line, version, hostCaps)
}

// trackCall is followCall but for the keep-alive: the guard's approved
// calls (guard.go), whose keep-alive has followed them since they were
// held (noting them again would forget the progress the host already got
// for the token).
func (r *Relay) trackCall(key string, env *envelope, line []byte, version string, hostCaps json.RawMessage) []byte {
	call := callName(env.Method, env.Params) // what prompts name the call
	r.calls.note(key, env.Method, call)
	return r.loop.fromHost(key, env, line, version, hostCaps, call)
}

// hostCancelled spreads a host's notifications/cancelled for one of its
// calls (PROTOCOL.md §7): the call's loop stops and its retry in flight is
// cancelled, the call is no longer the one in flight, and the legacy
// prompts of the call (or of its retry) close, their requests answered
// cancel.
func (r *Relay) hostCancelled(params []byte) {
	key, ok := cancelledID(params)
	if !ok {
		return
	}
	r.session.hostCancelled(key)
	keys := r.loop.hostCancelled(key)
	r.calls.end(key)
	r.keep.end(key)
	r.legacy.hostCancelled(keys)
}

// fromServer routes one server line; it reports whether the line goes on
// to the host.
func (r *Relay) fromServer(line []byte) bool {
	env, err := scanEnvelope(line)
	if err != nil || env.Methods > 1 || env.FoldedMethod {
		// Not one message that hosts read one way (oneline.go).
		return r.unclearFromServer(line, err == nil)
	}
	switch {
	case env.Method == "elicitation/create" && len(env.ID) > 0:
		// Every id, null included, is the relay's to answer: the host
		// never sees the server's elicitations (legacy.go).
		r.legacy.fromServer(line, env.ID, env.Params)
		return false
	case env.Method == "elicitation/create":
		// JSON-RPC: a request without an id is a notification, and a
		// notification gets no reply, not even an error. Nobody can answer
		// it, the host no more than the relay, so it stops here, said.
		r.w.log.printf("%s: ignored an elicitation/create without an id: without one it cannot be answered (PROTOCOL.md §7: request ids are strings or integers)", r.opts.Server)
		return false
	case env.isNotification() && env.Method == "notifications/elicitation/complete":
		// PROTOCOL.md §6: close a URL window still waiting; an id the host
		// never saw (every elicitation the relay answered) stays here.
		return !r.url.complete(env.Params)
	case env.isNotification() && env.Method == "notifications/cancelled":
		// PROTOCOL.md §7: a server may cancel its own elicitation/create;
		// the host never saw that id, so the notice stops here.
		return !r.legacy.serverCancelled(env.Params)
	case env.isNotification() && env.Method == "notifications/progress":
		// PROTOCOL.md §10: for a token the relay sends progress for too,
		// keepAlive writes it, still increasing.
		return !r.keep.fromServer(line, env.Params)
	case env.isResponse():
		// The hot path: most lines are replies nobody waits for. Their
		// id key is made only when some feature may want it.
		if !r.session.awaitsInit() && !r.calls.any() && !r.loop.any() && !r.loop.mayOwn(env.ID) && !r.guard.awaitsList() {
			return true
		}
		// Before idKey: a host may take a reply whose id it spells
		// otherwise (1.0, "1") as its list's (guard.listOf).
		r.guard.fromServer(env.ID, env.Result)
		if key, ok := idKey(env.ID); ok {
			if !r.session.fromServer(key, env.Result) {
				if r.calls.end(key) {
					cause := ErrCallEnded
					if _, stdio := r.w.server.(*lineConn); !stdio && relayMade(line) {
						cause = ErrServerUnreachable
					}
					r.legacy.callEnded(key, cause)
				}
			}
			if !r.loop.fromServer(key, &env, line) {
				return false
			}
			// The host's call ends with this reply: no progress after it
			// (PROTOCOL.md §10).
			r.keep.end(key)
			return true
		}
	}
	return true
}

// wires are what every feature writes through: the relay's two
// connections and the log. Set by Run before any message moves, then only
// read.
type wires struct {
	ctx    context.Context // the relay's: done when it stops (ErrRelayStopped)
	host   *lineConn
	server Conn
	log    *logger
	// serverName is Options.Server, for the log.
	serverName string
}

// serverWriteFailed says why a message did not reach the server. Its
// input closed is said in words: the relay closes it when the host has
// gone (its stdin ended), or the server has stopped, and what comes after
// that (a cancel, an answer) has nobody to read it.
func serverWriteFailed(err error) string {
	if errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
		return "a message for the server was not sent: its input was already closed (the host has gone, or the server stopped)"
	}
	if strings.HasPrefix(err.Error(), "sending the server a ") {
		// A remote server's: its sentence says where already (httpsend.go).
		return err.Error()
	}
	return fmt.Sprintf("writing to the server: %v", err)
}

// serverWriteFailed puts on the log why a message did not reach the
// server (serverWriteFailed).
func (w *wires) serverWriteFailed(err error) { w.log.printf("%s", serverWriteFailed(err)) }

// toHost writes one whole message to the host and flushes it.
func (w *wires) toHost(line []byte) {
	if err := w.host.Write(line, true); err != nil {
		w.hostWriteFailed(err)
	}
}

// toServer writes one whole message to the server and flushes it.
func (w *wires) toServer(line []byte) {
	if err := w.server.Write(line, true); err != nil {
		w.serverWriteFailed(err)
	}
}

// ErrNotWritten is wrapped by what deliver returns for an answer that the
// relay stopped before writing.
var ErrNotWritten = errors.New("the wrapper stopped before the answer was written to the server")

// deliver writes one whole message to the server, as toServer does, and
// returns once it left: on stdio, once the write of its bytes returned
// (also when a long message of the host's was being streamed, which it
// waits behind); over HTTP, once the POST was accepted. The error says why
// it did not reach the server, in words.
func (w *wires) deliver(line []byte) error {
	var err error
	if lc, ok := w.server.(*lineConn); ok {
		err = lc.w.writeWait(w.ctx, line)
	} else {
		err = w.server.Write(line, true)
	}
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNotWritten) {
		return err
	}
	w.serverWriteFailed(err)
	return errors.New(serverWriteFailed(err))
}

// withNewline returns b ending in exactly one newline (PROTOCOL.md §7: one
// message per line).
func withNewline(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return b
	}
	return append(b[:len(b):len(b)], '\n') // never into a reader's buffer
}

// hasStringPrefix reports whether the JSON value raw may be a string that
// starts with prefix: spelt plainly, or with escapes that only decoding can
// tell.
func hasStringPrefix(raw []byte, prefix string) bool {
	if len(raw) == 0 || raw[0] != '"' {
		return false
	}
	return bytes.IndexByte(raw, '\\') >= 0 || bytes.HasPrefix(raw[1:], []byte(prefix))
}

// logger writes sentences for people, prefixed so they stand out in a
// host's combined log.
type logger struct {
	mu sync.Mutex // guards w: one sentence at a time
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
