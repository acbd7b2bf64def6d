package bridge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// HTTPOptions configure a remote server reached over Streamable HTTP
// (PROTOCOL.md §11), or over the older HTTP+SSE transport when that is all
// the server has.
type HTTPOptions struct {
	// URL is the server's MCP endpoint, e.g. https://example.com/mcp.
	URL string
	// Header holds headers sent with every request (--header), e.g. an
	// Authorization header with a token. Nil sends none of its own.
	Header http.Header
	// OAuth, when set, turns on the MCP authorization flow (PROTOCOL.md
	// §12) through mcp-go's OAuth handler: tokens come from its TokenStore
	// and a 401 calls Authorize. Nil: a server that answers 401 gets the
	// host an error saying it needs authorization.
	OAuth *transport.OAuthConfig
	// Authorize runs the authorization flow (the user's consent, the
	// browser, the redirect, the code exchange) when the server answered
	// 401 and OAuth is set. When it returns nil the request is sent again,
	// once; its error goes to the host in the request's error. Nil with
	// OAuth set: the 401 is reported.
	Authorize func(ctx context.Context, h *transport.OAuthHandler) error
	// Client is the HTTP client under the transport (its Transport is
	// wrapped by the tap). Nil means a client with the default transport
	// and no overall timeout: a tool call may wait for a person.
	Client *http.Client
	// Grace is how long shutdown waits for requests still in flight once
	// the host has gone, before it ends the session. Zero means 2 seconds.
	Grace time.Duration
	// MaxMessage is the most bytes one message from the server may have:
	// a message is held whole before it goes to the host, and a stream
	// that sends a longer one is ended, the request it answers answered
	// with an error saying so. Zero means DefaultMaxMessage.
	MaxMessage int
}

// DefaultMaxMessage is HTTPOptions.MaxMessage's default: 64 MiB, the
// largest line the stdio relay is measured with (bench/README.md).
const DefaultMaxMessage = 64 << 20

// HTTP returns the Server at opts.URL. Nothing is sent before Start.
func HTTP(opts HTTPOptions) Server {
	if opts.Grace <= 0 {
		opts.Grace = 2 * time.Second
	}
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	return &httpServer{opts: opts, done: make(chan struct{})}
}

// ErrSessionLost is the end of a remote server whose session is gone: it
// answered 404 for the session it gave (it restarted, or expired the
// session; PROTOCOL.md §11). The requests in flight are answered with an
// error saying so, and the wrapper exits, so that the host reconnects.
var ErrSessionLost = errors.New("the server no longer knows this session (it restarted or ended the session)")

// httpServer is a remote MCP server as a Server, and its Conn once started.
//
// Goroutines: one per request in flight (mcp-go's SendRequest blocks until
// the response), mcp-go's own for the GET stream and SSE readers, and one
// that ends the session after CloseWrite.
type httpServer struct {
	opts     HTTPOptions
	endpoint *url.URL
	// http is the tapped client every request goes through (client).
	http *http.Client
	log  func(format string, args ...any)
	ctx  context.Context
	stop context.CancelFunc

	// out queues the server's messages for Read.
	out chan outLine
	// cur is the message Read last returned, given back at the next Read.
	cur outLine

	// mu guards the fields below it.
	mu sync.Mutex
	// t is the mcp-go transport in use: Streamable HTTP, or HTTP+SSE after
	// the fallback.
	t transport.Interface
	// sse is set once the fallback to HTTP+SSE happened.
	sse bool
	// version is the protocol version in effect: the initialize reply's,
	// or a modern request's (PROTOCOL.md §2), sent as MCP-Protocol-Version.
	version string
	// params mirrors tool arguments into headers (SEP-2243); it has a
	// lock of its own.
	params paramHeaders
	// initKey is the id key of the host's initialize while it is in
	// flight: its result names the agreed version. initDone is closed once
	// that result has been read (or the initialize failed): mcp-go opens
	// the GET stream as soon as the reply's headers are in, and the stream
	// must still carry the version (prepare waits for it).
	initKey  string
	initDone chan struct{}
	// listening is made by the connection's first initialize and closed
	// once mcp-go's GET stream has its answer's headers, or failed
	// (listened), or the wait for it was given up (awaitListening): until
	// then a server that sends a request on that stream, not on a POST's,
	// loses it (servers on the TypeScript SDK drop what they send while no
	// GET stream is open), so the host's requests wait for it. noGET is set
	// once the server refused the stream (405).
	listening chan struct{}
	noGET     bool
	// inflight maps the id keys of requests sent to the server and not yet
	// answered to their state.
	inflight map[string]*httpRequest
	// asking maps the id keys of the server's requests that came on a
	// host request's stream, and are not answered yet, to that request's.
	asking map[string]string
	// closing is set by CloseWrite; lost by a lost session (ErrSessionLost).
	closing bool
	lost    error
	wg      sync.WaitGroup

	// postLimit, when set, replaces postTimeout (tests); listenLimit
	// replaces listenWait.
	postLimit, listenLimit time.Duration

	done     chan struct{}
	doneOnce sync.Once
	exitCode int
}

// httpRequest is a request the host (or the relay) sent the server.
type httpRequest struct {
	id       json.RawMessage
	method   string
	cancel   context.CancelFunc
	answered bool
	// stream is the SSE response stream it is answered on, once one
	// opened, for resuming it (PROTOCOL.md §11).
	stream *sseStream
	// reply is what the server answered its POST with, as the tap saw it:
	// what the host is told when no answer came of it.
	reply *httpReply
	// asked are the ids of the server's requests (elicitation/create) that
	// came on its stream, and so belong to it (PROTOCOL.md §11).
	asked []json.RawMessage
}

// httpReply is the HTTP response to a host request's POST.
type httpReply struct {
	status      int
	contentType string
	retryAfter  string
	// body is the start of a refusal's body (a status other than 200).
	body []byte
}

func (s *httpServer) Start(ctx context.Context, log func(format string, args ...any)) (Conn, error) {
	u, err := url.Parse(s.opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: %q is not an http or https URL", ErrStart, s.opts.URL)
	}
	s.endpoint, s.log = u, log
	s.http = s.client()
	s.ctx, s.stop = context.WithCancel(context.WithoutCancel(ctx))
	s.out = make(chan outLine, 64)
	s.inflight = map[string]*httpRequest{}
	s.asking = map[string]string{}
	t, err := s.streamable()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	s.t = t
	go func() {
		select {
		case <-ctx.Done():
			_ = s.CloseWrite()
		case <-s.done:
		}
	}()
	return s, nil
}

// client makes the HTTP client mcp-go (and elicitray's own requests) run
// over, its transport tapped; Start makes it once (s.http).
func (s *httpServer) client() *http.Client {
	var c http.Client
	if s.opts.Client != nil {
		c = *s.opts.Client
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &tapTransport{base: base, limit: s.opts.MaxMessage, budget: &msgBudget{max: 2 * s.opts.MaxMessage}, deliver: s.fromServer, tooLarge: s.tooLarge, endpoint: s.isEndpoint, reply: s.sawReply, ending: s.endSession, prepare: s.prepare, listened: s.listened}
	follow := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		// The headers given with --header (a token, an API key) are for
		// the server named by --url. net/http drops only Authorization
		// and cookies on the way to another host, and keeps them for
		// another port of the same one; elicitray follows a redirect
		// only within the origin the user named.
		if !sameOrigin(req.URL, s.endpoint) {
			return fmt.Errorf("the server redirected elicitray to %s, another site than --url names; elicitray does not follow it with your headers (if the server has moved, give the new address with --url)", redactURL(req.URL))
		}
		if follow != nil {
			return follow(req, via)
		}
		if len(via) >= 10 {
			return errors.New("the server redirected elicitray 10 times in a row")
		}
		return nil
	}
	return &c
}

// sameOrigin reports whether a and b have one scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

// redactURL is u without its query and user info, which may carry
// credentials, for the log.
func redactURL(u *url.URL) string {
	r := *u
	r.User, r.RawQuery, r.Fragment = nil, "", ""
	return r.String()
}

// sawReply records the response the tap saw to a host request's POST.
func (s *httpServer) sawReply(key string, resp *http.Response, body []byte) {
	rep := &httpReply{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"),
		retryAfter: resp.Header.Get("Retry-After"), body: body}
	s.mu.Lock()
	if r := s.inflight[key]; r != nil {
		r.reply = rep
	}
	s.mu.Unlock()
}

// isEndpoint reports whether req goes to the MCP endpoint: the server URL,
// or under HTTP+SSE the message URL the server named (same origin).
func (s *httpServer) isEndpoint(req *http.Request) bool {
	// A redirect (same origin only, client) goes where the request it
	// follows went: /mcp to /mcp/ is the endpoint, a metadata document
	// that moved is not.
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	u := first.URL
	if !sameOrigin(u, s.endpoint) || !sameOrigin(req.URL, s.endpoint) {
		return false
	}
	if u.Path == s.endpoint.Path {
		return true
	}
	s.mu.Lock()
	t, sse := s.t, s.sse
	s.mu.Unlock()
	if st, ok := t.(*transport.SSE); ok && sse {
		// The message endpoint the server named: its replies are 202s,
		// but a refusal's body may be an answer. Authorization metadata
		// and tokens on the same origin are not messages.
		if ep := st.GetEndpoint(); ep != nil {
			return u.Path == ep.Path
		}
	}
	return false
}

func (s *httpServer) headerMap() map[string]string {
	m := map[string]string{}
	for k, v := range s.opts.Header {
		if len(v) > 0 {
			m[k] = strings.Join(v, ", ")
		}
	}
	return m
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// streamable returns mcp-go's Streamable HTTP transport for the server,
// listening on the GET stream for server requests (PROTOCOL.md §11).
func (s *httpServer) streamable() (transport.Interface, error) {
	opts := []transport.StreamableHTTPCOption{
		transport.WithHTTPBasicClient(s.http),
		transport.WithHTTPHeaders(s.headerMap()),
		transport.WithContinuousListening(),
		transport.WithHTTPLogger(quiet()),
	}
	if s.opts.OAuth != nil {
		opts = append(opts, transport.WithHTTPOAuth(*s.opts.OAuth))
	}
	t, err := transport.NewStreamableHTTP(s.opts.URL, opts...)
	if err != nil {
		return nil, err
	}
	// The tap has each server request already; answering here would send
	// a second reply (and mcp-go's default is -32601).
	t.SetRequestHandler(func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		return nil, nil
	})
	t.SetNotificationHandler(func(mcp.JSONRPCNotification) {})
	if err := t.Start(s.ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// fallBack switches to the HTTP+SSE transport of 2024-11-05, for a server
// that refused the initialize POST with a 4xx (PROTOCOL.md §11).
func (s *httpServer) fallBack(ctx context.Context) (transport.Interface, error) {
	s.mu.Lock()
	old := s.t
	s.sse = true
	s.mu.Unlock()
	_ = old.Close()
	opts := []transport.ClientOption{
		transport.WithHTTPClient(s.http),
		transport.WithHeaders(s.headerMap()),
		transport.WithSSELogger(quiet()),
		// A tool call may wait for a person: the host keeps its own clock.
		transport.WithResponseTimeout(24 * time.Hour),
	}
	if s.opts.OAuth != nil {
		opts = append(opts, transport.WithOAuth(*s.opts.OAuth))
	}
	t, err := transport.NewSSE(s.opts.URL, opts...)
	if err != nil {
		return nil, err
	}
	t.SetNotificationHandler(func(mcp.JSONRPCNotification) {})
	// Under HTTP+SSE the stream is the session: the answers to the
	// requests in flight would have come on it, and the server forgets
	// the session once it is gone (mcp-go does not reconnect).
	t.SetConnectionLostHandler(func(err error) {
		if s.ctx.Err() != nil {
			return // shut down
		}
		s.log("%s: the HTTP+SSE stream, on which the session lives, broke off", s.opts.URL)
		s.loseSession()
	})
	if err := t.Start(s.ctx); err != nil {
		return nil, fmt.Errorf("the server refused Streamable HTTP, and its HTTP+SSE stream failed: %w", err)
	}
	s.mu.Lock()
	s.t = t
	s.mu.Unlock()
	s.log("%s answers only the older HTTP+SSE transport (2024-11-05); elicitray uses that", s.opts.URL)
	return t, nil
}

// headerRequestKey is never sent: it names, in the request mcp-go hands
// the tap, which host request a POST carries. The tap removes it.
const headerRequestKey = "X-Elicitray-Request"

// initialized closes initDone, once.
func (s *httpServer) initialized() {
	s.mu.Lock()
	defer s.mu.Unlock()
	closeOnce(s.initDone)
}

// closeOnce closes ch unless it is nil or closed already, and reports
// whether it closed it. Its owner's lock is held.
func closeOnce(ch chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return false
	default:
		close(ch)
		return true
	}
}

// listenWait bounds how long the host's requests wait for the GET stream
// to open (awaitListening), once per session: a server that sends no
// headers until it has an event to send would otherwise hold them for
// good.
const listenWait = 5 * time.Second

// listened notes the GET stream's answer, status (0 when it failed).
func (s *httpServer) listened(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if status == http.StatusMethodNotAllowed {
		s.noGET = true
	}
	closeOnce(s.listening)
}

// awaitListening holds a host request, on a Streamable HTTP session of the
// versions with a GET stream (PROTOCOL.md §11), until that stream opened
// (listened), for at most listenWait: a server may send the elicitation
// the request leads to on that stream, and one sent before it is open is
// lost, leaving the host's call waiting for an answer that never comes.
func (s *httpServer) awaitListening(ctx context.Context) {
	s.mu.Lock()
	wait := s.listening
	if s.sse || s.noGET || s.version == "" || mcp.IsModernProtocol(s.version) {
		wait = nil
	}
	s.mu.Unlock()
	if wait == nil {
		return
	}
	limit := cmp.Or(s.listenLimit, listenWait)
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-wait:
	case <-timer.C:
		// Given up for the session: no later request waits again.
		s.mu.Lock()
		gaveUp := closeOnce(wait)
		s.mu.Unlock()
		if gaveUp {
			s.log("%s: the server's GET stream did not open within %v; requests go on without waiting for it (a question it sends there before it opens may be lost)", s.opts.URL, limit)
		}
	case <-ctx.Done():
	}
}

// prepare gives a GET of mcp-go's that went out before the initialize
// result was read the protocol version all requests after initialize carry
// (PROTOCOL.md §11), waiting for that result if it must.
func (s *httpServer) prepare(req *http.Request) *http.Request {
	if req.Method != http.MethodGet || req.Header.Get(transport.HeaderKeyProtocolVersion) != "" {
		return req
	}
	s.mu.Lock()
	done := s.initDone
	if s.sse {
		// HTTP+SSE opens its stream before initialize can be sent.
		done = nil
	}
	s.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-req.Context().Done():
			return req
		}
	}
	s.mu.Lock()
	version := s.version
	s.mu.Unlock()
	if version == "" || mcp.IsModernProtocol(version) {
		return req
	}
	req = req.Clone(req.Context())
	req.Header.Set(transport.HeaderKeyProtocolVersion, version)
	return req
}

// protocolVersionOf is the protocolVersion of an initialize result, or "".
func protocolVersionOf(result json.RawMessage) string {
	if len(result) == 0 {
		return ""
	}
	raw, ok := getMember(result, "protocolVersion")
	if !ok {
		return ""
	}
	var v string
	_ = json.Unmarshal(raw, &v)
	return v
}

func (s *httpServer) setVersion(v string) {
	s.mu.Lock()
	changed := s.version != v
	s.version = v
	t := s.t
	s.mu.Unlock()
	if hc, ok := t.(transport.HTTPConnection); ok && changed {
		hc.SetProtocolVersion(v)
	}
}

// Write sends one message to the server: a request as a POST whose answer
// comes back through the tap; a notification or a response as a POST of
// its own (PROTOCOL.md §11: answered 202).
func (s *httpServer) Write(msg []byte, _ bool) error {
	msg = bytes.TrimRight(msg, "\r\n")
	if len(bytes.TrimSpace(msg)) == 0 {
		return nil
	}
	env, err := scanEnvelope(msg)
	if err != nil {
		// Not a JSON-RPC message: the server judges it, as over stdio.
		return s.post(s.ctx, msg, "")
	}
	s.mu.Lock()
	if s.closing && env.isRequest() {
		s.mu.Unlock()
		return errors.New("the host has gone")
	}
	if s.lost != nil {
		err := s.lost
		s.mu.Unlock()
		if env.isRequest() {
			s.answerError(env.ID, err)
			return nil
		}
		if env.isResponse() {
			// An answer that cannot go: its writer says so (history
			// keeps it as not delivered).
			return err
		}
		return nil
	}
	if env.isResponse() {
		if k, ok := idKey(env.ID); ok {
			delete(s.asking, k)
		}
	}
	s.mu.Unlock()
	switch {
	case env.isRequest():
		if v := modernVersion(env.Params); v != "" {
			s.setVersion(v)
		} else if env.Method == "initialize" {
			// A host that tried 2026-07-28 first (server/discover) and
			// falls back: the version is the reply's (PROTOCOL.md §2),
			// and no version header goes with initialize itself.
			s.setVersion("")
		}
		s.send(env, msg)
		return nil
	case env.isNotification() && env.Method == "notifications/cancelled":
		s.cancelled(env.Params)
		s.mu.Lock()
		modern := mcp.IsModernProtocol(s.version)
		s.mu.Unlock()
		if modern {
			return nil // closing the request's stream was the cancellation
		}
		return s.post(s.ctx, msg, env.Method)
	default:
		return s.post(s.ctx, msg, env.Method)
	}
}

// postTimeout bounds a POST of a notification or a response.
const postTimeout = 10 * time.Second
