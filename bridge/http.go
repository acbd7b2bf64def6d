package bridge

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

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
}

// HTTP returns the Server at opts.URL. Nothing is sent before Start.
func HTTP(opts HTTPOptions) Server {
	if opts.Grace <= 0 {
		opts.Grace = 2 * time.Second
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
	log      func(format string, args ...any)
	ctx      context.Context
	stop     context.CancelFunc

	// out queues the server's messages for Read; closed once done is.
	out chan []byte
	// cur is the message Read last returned.
	cur []byte

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

	// postLimit, when set, replaces postTimeout (tests).
	postLimit time.Duration

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
	s.ctx, s.stop = context.WithCancel(context.WithoutCancel(ctx))
	s.out = make(chan []byte, 64)
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

// client is the HTTP client mcp-go runs over, its transport tapped.
func (s *httpServer) client() *http.Client {
	var c http.Client
	if s.opts.Client != nil {
		c = *s.opts.Client
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &tapTransport{base: base, deliver: s.fromServer, endpoint: s.isEndpoint, reply: s.sawReply, ending: s.endSession, prepare: s.prepare}
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

// endSession sends mcp-go's DELETE that ends the session (PROTOCOL.md
// §11) with what mcp-go leaves out of it: the user's headers and the
// authorization, without which a server that wants a token refuses it and
// keeps the session. The wait for its answer is bounded by Grace, as a
// child process's exit is: the host is gone and waits for the wrapper.
func (s *httpServer) endSession(req *http.Request, base http.RoundTripper) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), s.opts.Grace)
	req = req.Clone(ctx)
	for k, v := range s.opts.Header {
		if req.Header.Get(k) == "" {
			req.Header[k] = v
		}
	}
	if s.opts.OAuth != nil && req.Header.Get("Authorization") == "" {
		s.mu.Lock()
		t := s.t
		s.mu.Unlock()
		if h := oauthHandlerOf(t); h != nil {
			if auth, err := h.GetAuthorizationHeader(ctx); err == nil {
				req.Header.Set("Authorization", auth)
			}
		}
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		cancel()
		why := netSentence(&url.Error{Op: "Delete", URL: s.opts.URL, Err: err})
		if errors.Is(err, context.DeadlineExceeded) {
			why = fmt.Errorf("it did not answer within %v, and the session may live on there until it expires", s.opts.Grace)
		}
		s.log("%s did not end the session: %v", s.opts.URL, why)
		return nil, err
	}
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusMethodNotAllowed {
		// 405: the server does not let clients end sessions (it may).
		s.log("%s answered %s to ending the session", s.opts.URL, resp.Status)
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelBody ends a request's context when its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
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
		transport.WithHTTPBasicClient(s.client()),
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
		transport.WithHTTPClient(s.client()),
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

// fromServer takes each message the tap read from the server.
func (s *httpServer) fromServer(msg []byte, stream *sseStream) {
	if msg == nil {
		s.noteStream(stream)
		return
	}
	// The host reads one JSON-RPC message per line (PROTOCOL.md §7).
	// Over HTTP a message may span lines (an event's data lines, a
	// pretty-printed body); outside strings, where alone valid JSON has
	// line breaks, they are whitespace, and become spaces. What is not
	// JSON at all never reaches the host's stdout: the host is told of
	// the request it should have answered instead.
	if !json.Valid(msg) {
		s.log("%s sent something that is not JSON (%s); it does not go to the host", s.opts.URL, preview(msg))
		if stream != nil {
			s.noteStream(stream)
		}
		return
	}
	if bytes.ContainsAny(msg, "\r\n") {
		msg = bytes.Map(func(r rune) rune {
			if r == '\r' || r == '\n' {
				return ' '
			}
			return r
		}, msg)
	}
	env, err := scanEnvelope(msg)
	if err == nil && env.isRequest() && stream != nil && stream.key != "" {
		if sk, ok := idKey(env.ID); ok {
			s.mu.Lock()
			if r := s.inflight[stream.key]; r != nil && !r.answered {
				r.asked = append(r.asked, append(json.RawMessage(nil), env.ID...))
				s.asking[sk] = stream.key
			}
			s.mu.Unlock()
		}
	}
	if err == nil && env.isNotification() && env.Method == "notifications/cancelled" {
		if k, ok := cancelledID(env.Params); ok {
			s.mu.Lock()
			delete(s.asking, k) // withdrawn by the server itself
			s.mu.Unlock()
		}
	}
	// moot are the server's requests still unanswered when the request
	// whose stream they came on has its answer: see withdraw.
	var moot []json.RawMessage
	if err == nil && env.isResponse() {
		key, _ := idKey(env.ID)
		s.mu.Lock()
		r := s.inflight[key]
		if r != nil {
			if r.answered {
				s.mu.Unlock()
				return // a replay after a resume: the host has it
			}
			r.answered = true
			for _, id := range r.asked {
				if k, _ := idKey(id); s.asking[k] == key {
					delete(s.asking, k)
					moot = append(moot, id)
				}
			}
		}
		initialize := key == s.initKey
		listing := r != nil && r.method == "tools/list" && mcp.IsModernProtocol(s.version)
		s.mu.Unlock()
		if listing {
			var dropped []string
			if msg, dropped = s.params.listed(msg, env.Result); len(dropped) > 0 {
				s.log("left out of the tools the server listed, as a Streamable HTTP client must (SEP-2243), for invalid x-mcp-header annotations: %s", strings.Join(dropped, "; "))
			}
		}
		// An answer to nothing asked (a stray reply) goes on: the relay
		// or the host judges it.
		if v := protocolVersionOf(env.Result); initialize && v != "" {
			s.setVersion(v)
		}
		if initialize {
			s.initialized()
		}
	}
	if stream != nil {
		s.noteStream(stream)
	}
	line := make([]byte, len(msg)+1)
	copy(line, msg)
	line[len(msg)] = '\n'
	select {
	case s.out <- line:
	case <-s.done:
	}
	s.withdraw(moot)
}

// withdraw hands the relay a notifications/cancelled for each server
// request whose own request has been answered while it was still open.
// A server request on a request's stream belongs to that request
// (PROTOCOL.md §11); once it is answered nobody waits for the answer. A
// server that gives up on its elicitation says so, but go-sdk sends that
// notice from a goroutine after the tool returns, when the stream has
// closed, and it is lost: the prompt stayed open for a call long over.
func (s *httpServer) withdraw(ids []json.RawMessage) {
	for _, id := range ids {
		line := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) +
			`,"reason":"the request it was part of has been answered"}}` + "\n")
		select {
		case s.out <- line:
		case <-s.done:
			return
		}
	}
}

// preview is the start of b for a log line: at most 60 bytes, quoted.
func preview(b []byte) string {
	if len(b) > 60 {
		return fmt.Sprintf("%q…", b[:60])
	}
	return fmt.Sprintf("%q", b)
}

// noteStream records the SSE stream a request is answered on (its POST's,
// or a resumed GET's), for resuming it.
func (s *httpServer) noteStream(st *sseStream) {
	if key := st.key; key != "" {
		s.mu.Lock()
		if r := s.inflight[key]; r != nil {
			r.stream = st
		}
		s.mu.Unlock()
	}
}

// headerRequestKey is never sent: it names, in the request mcp-go hands
// the tap, which host request a POST carries. The tap removes it.
const headerRequestKey = "X-Elicitray-Request"

// initialized closes initDone, once.
func (s *httpServer) initialized() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initDone != nil {
		select {
		case <-s.initDone:
		default:
			close(s.initDone)
		}
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

func (s *httpServer) Read() ([]byte, error) {
	select {
	case line := <-s.out:
		s.cur = line
		return line, nil
	case <-s.done:
		select {
		case line := <-s.out:
			s.cur = line
			return line, nil
		default:
		}
		s.mu.Lock()
		err := s.lost
		s.mu.Unlock()
		if err == nil {
			err = io.EOF
		}
		return nil, err
	}
}

func (s *httpServer) Buffered() bool { return len(s.out) > 0 }

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

// send starts a request: mcp-go's SendRequest posts it and reads its
// answer, which the tap hands to the relay.
func (s *httpServer) send(env envelope, msg []byte) {
	key, _ := idKey(env.ID)
	ctx, cancel := context.WithCancel(s.ctx)
	r := &httpRequest{id: append(json.RawMessage(nil), env.ID...), method: env.Method, cancel: cancel}
	s.mu.Lock()
	s.inflight[key] = r
	if env.Method == "initialize" {
		s.initKey = key
		s.initDone = make(chan struct{})
	}
	s.wg.Add(1)
	version := s.version
	s.mu.Unlock()
	req := transport.JSONRPCRequest{
		JSONRPC: "2.0",
		ID:      requestID(env.ID),
		Method:  env.Method,
		Params:  json.RawMessage(append([]byte(nil), env.Params...)),
		Header:  http.Header{headerRequestKey: {key}},
	}
	if len(env.Params) == 0 {
		req.Params = nil
	}
	for k, v := range mcp.StandardHeaders(version, mcp.MCPMethod(env.Method), env.Params) {
		req.Header.Set(k, v)
	}
	if env.Method == "tools/call" && mcp.IsModernProtocol(version) {
		for k, v := range s.params.headers(env.Params) {
			req.Header.Set(k, v)
		}
	}
	go func() {
		defer s.wg.Done()
		defer cancel()
		if env.Method == "initialize" {
			defer s.initialized() // answered or failed: the GET waits no more
		}
		err := s.roundTrip(ctx, req)
		// A stream that broke off before the answer is resumed from its
		// last event (PROTOCOL.md §11); mcp-go resumes only a stream the
		// server ended on purpose.
		for tries := 0; err != nil && tries < maxResumes && ctx.Err() == nil; tries++ {
			s.mu.Lock()
			answered, last := r.answered, r.stream.lastEventID()
			s.mu.Unlock()
			if answered || last == "" || errors.Is(err, transport.ErrSessionTerminated) {
				break
			}
			s.log("the server's stream answering a %s broke off; resuming it from event %s", env.Method, last)
			err = s.resume(ctx, key, r, last)
		}
		s.mu.Lock()
		delete(s.inflight, key)
		answered, reply := r.answered, r.reply
		s.mu.Unlock()
		if answered || ctx.Err() != nil {
			// Answered through the tap, or cancelled by the host (no
			// answer is due, PROTOCOL.md §7), or shut down.
			return
		}
		switch {
		case errors.Is(err, transport.ErrSessionTerminated), s.sessionRefused(reply):
			s.loseSession()
			err = ErrSessionLost
		case errors.Is(err, errUnauthorized), errors.As(err, new(*url.Error)):
			// Said by netSentence: the connection, TLS, a redirect
			// refused.
		default:
			// mcp-go returns no error for a reply with another id, or
			// for any JSON object under an error status; the host must
			// still get one answer for its id.
			if why := reply.sentence(s.endpoint); why != nil {
				err = why
			} else if err == nil {
				err = errors.New("the server's reply answered another request than this one")
			}
		}
		s.answerError(r.id, err)
	}()
}

// sessionRefused reports whether a reply is a server's way of saying it no
// longer knows the session: PROTOCOL.md §11 says 404, but servers on the
// TypeScript SDK (server-everything among them) answer a session they do
// not know with 400 "Bad Request: No valid session ID provided", which is
// what a restarted one says.
func (s *httpServer) sessionRefused(reply *httpReply) bool {
	if reply == nil || reply.status != http.StatusBadRequest {
		return false
	}
	s.mu.Lock()
	t, version := s.t, s.version
	s.mu.Unlock()
	if t.GetSessionId() == "" || mcp.IsModernProtocol(version) {
		return false
	}
	return bytes.Contains(bytes.ToLower(reply.body), []byte("session"))
}

// maxResumes bounds how often one request's stream is resumed.
const maxResumes = 5

// resume reopens the SSE stream a request was being answered on, with a
// GET carrying Last-Event-ID, so that the server replays what followed
// (PROTOCOL.md §11), and reads it until the answer has come (the tap
// hands it on) or the stream ends.
func (s *httpServer) resume(ctx context.Context, key string, r *httpRequest, last string) error {
	s.mu.Lock()
	t, version := s.t, s.version
	s.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.opts.URL, nil)
	if err != nil {
		return err
	}
	s.setHeaders(ctx, req, t, version)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", last)
	req.Header.Set(headerRequestKey, key)
	resp, err := s.client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return transport.ErrSessionTerminated
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("the server answered %s to resuming the stream", resp.Status)
	}
	buf := make([]byte, 32<<10)
	for {
		_, rerr := resp.Body.Read(buf)
		s.mu.Lock()
		answered := r.answered
		s.mu.Unlock()
		if answered {
			return nil
		}
		if rerr != nil {
			if rerr == io.EOF {
				return errors.New("the resumed stream ended before the answer")
			}
			return rerr
		}
	}
}

// roundTrip sends req, falling back to HTTP+SSE for a server that has only
// that, and running the authorization flow once for a 401.
func (s *httpServer) roundTrip(ctx context.Context, req transport.JSONRPCRequest) error {
	authorized := false
	for {
		s.mu.Lock()
		t := s.t
		s.mu.Unlock()
		_, err := t.SendRequest(ctx, req)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, transport.ErrLegacySSEServer):
			if _, ferr := s.fallBack(ctx); ferr != nil {
				return ferr
			}
			continue
		}
		var oauthErr *transport.OAuthAuthorizationRequiredError
		if errors.As(err, &oauthErr) && s.opts.Authorize != nil && !authorized {
			authorized = true
			if aerr := s.opts.Authorize(ctx, oauthErr.Handler); aerr != nil {
				return fmt.Errorf("authorization failed: %w", aerr)
			}
			continue
		}
		var authErr *transport.AuthorizationRequiredError
		if errors.As(err, &authErr) || errors.As(err, &oauthErr) {
			return errUnauthorized
		}
		return err
	}
}

// sentence says why a reply answered nothing, or nil when its status and
// content type were as they should be (the fault lay elsewhere).
func (r *httpReply) sentence(endpoint *url.URL) error {
	if r == nil {
		return nil
	}
	media, _, _ := mime.ParseMediaType(r.contentType)
	switch {
	case r.status == http.StatusOK && media == "text/event-stream":
		return errors.New("the server's event stream ended before it answered")
	case r.status == http.StatusOK && media == "application/json":
		return errors.New("the server's reply is not a JSON-RPC answer to this request")
	case r.status == http.StatusOK:
		return fmt.Errorf("the server answered with %s, not JSON or an event stream (is %s its MCP endpoint?)", orNothing(media), redactURL(endpoint))
	}
	msg := fmt.Sprintf("the server answered %d %s", r.status, http.StatusText(r.status))
	if r.retryAfter != "" && (r.status == http.StatusTooManyRequests || r.status == http.StatusServiceUnavailable) {
		if secs, err := strconv.Atoi(strings.TrimSpace(r.retryAfter)); err == nil {
			msg += fmt.Sprintf(" and asks to wait %d seconds before trying again", secs)
		} else {
			msg += fmt.Sprintf(" and asks to wait until %s before trying again", r.retryAfter)
		}
	}
	if text := bodyText(media, r.body); text != "" {
		msg += ": " + text
	}
	return errors.New(msg)
}

// bodyText is the first line of a plain-text or JSON refusal's body, at most
// 200 characters; nothing for an HTML page or binary.
func bodyText(media string, body []byte) string {
	if media != "text/plain" && media != "application/json" {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
	line = strings.TrimSpace(line)
	if !utf8.ValidString(line) {
		return ""
	}
	if r := []rune(line); len(r) > 200 {
		line = string(r[:200]) + "…"
	}
	return line
}

func orNothing(media string) string {
	if media == "" {
		return "no content type"
	}
	return media
}

var errUnauthorized = errors.New("the server answered 401: it needs authorization (give a token with --header or --bearer-env, or sign in when elicitray asks)")

// requestID is a JSON-RPC id as mcp-go's RequestId, spelt as the host spelt
// it: a string, or the number's own digits (PROTOCOL.md §7).
func requestID(raw json.RawMessage) mcp.RequestId {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return mcp.NewRequestId(s)
	}
	return mcp.NewRequestId(json.Number(bytes.TrimSpace(raw)))
}

// answerError answers the host's request id with the error that kept it
// from the server, in a sentence (PROTOCOL.md §8: -32603).
func (s *httpServer) answerError(id json.RawMessage, err error) {
	msg := fmt.Sprintf("elicitray could not get an answer from %s: %v", s.opts.URL, netSentence(err))
	if !errors.Is(err, ErrSessionLost) { // loseSession said it once
		s.log("%s", msg)
	}
	line := append(encodeError(id, codeInternalError, msg), '\n')
	select {
	case s.out <- line:
	case <-s.done:
	}
}

// netSentence is err said for people: a failed connection by its cause
// ("connection refused", "no such host"), without the layers of "failed to
// send request" and the POST line that mcp-go and net/http wrap it in.
func netSentence(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	var dns *net.DNSError
	switch {
	case errors.As(ue.Err, &dns) && dns.IsNotFound:
		return fmt.Errorf("the host name %q could not be found", dns.Name)
	case errors.Is(ue.Err, syscall.ECONNREFUSED):
		return errors.New("nothing is listening there (connection refused)")
	case errors.Is(ue.Err, syscall.ECONNRESET):
		return errors.New("the connection was reset")
	case errors.Is(ue.Err, io.EOF), errors.Is(ue.Err, io.ErrUnexpectedEOF):
		return errors.New("the server closed the connection without answering")
	}
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(ue.Err, &unknown):
		return errors.New("its TLS certificate is not signed by an authority this machine trusts (a self-signed certificate?); add its CA to the system's certificates, or point SSL_CERT_FILE at it in the server's env")
	case errors.As(ue.Err, &hostname):
		return fmt.Errorf("its TLS certificate is for %s, not for %s", certNames(hostname.Certificate), hostname.Host)
	case errors.As(ue.Err, &invalid):
		return fmt.Errorf("its TLS certificate is not valid: %v", invalid.Error())
	}
	var op *net.OpError
	if errors.As(ue.Err, &op) {
		return op.Err
	}
	return ue.Err
}

// certNames lists the names a certificate is for.
func certNames(c *x509.Certificate) string {
	names := c.DNSNames
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		return c.Subject.CommonName
	}
	return strings.Join(names, ", ")
}

// cancelled ends the POST of a request the host cancelled: on 2026-07-28
// closing its stream is the cancellation (PROTOCOL.md §11), and before
// that the notification, posted as well, says it.
func (s *httpServer) cancelled(params json.RawMessage) {
	key, ok := cancelledID(params)
	if !ok {
		return
	}
	s.mu.Lock()
	r := s.inflight[key]
	s.mu.Unlock()
	if r != nil {
		r.cancel()
	}
}

// post sends a notification or a response (or a line that is neither) in
// a POST of its own. mcp-go has no way to send a message as it is, so the
// headers it would send are set here: the session, the protocol version,
// the user's headers and the authorization.
func (s *httpServer) post(ctx context.Context, msg []byte, method string) error {
	// The host's messages go out one after another (the order matters:
	// notifications/initialized before the next request), so a server
	// that never answers a POST that needs no more than a 202 would hold
	// up all of them, cancellations too.
	limit := s.postLimit
	if limit == 0 {
		limit = postTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	s.mu.Lock()
	t, version, sse := s.t, s.version, s.sse
	s.mu.Unlock()
	target := s.opts.URL
	if st, ok := t.(*transport.SSE); ok && sse {
		ep := st.GetEndpoint()
		if ep == nil {
			return errors.New("the server has not named its message endpoint yet")
		}
		target = ep.String()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	s.setHeaders(ctx, req, t, version)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method != "" {
		for k, v := range mcp.StandardHeaders(version, mcp.MCPMethod(method), nil) {
			req.Header.Set(k, v)
		}
	}
	resp, err := s.client().Do(req)
	if err != nil {
		why := netSentence(err)
		if errors.Is(err, context.DeadlineExceeded) {
			why = fmt.Errorf("it did not take it within %v (it should answer 202 Accepted at once)", limit)
		}
		return fmt.Errorf("sending the server a %s: %w", describe(msg, method), why)
	}
	var body []byte
	if resp.StatusCode >= 300 {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound && !sse && t.GetSessionId() != "":
		s.loseSession()
		return ErrSessionLost
	case resp.StatusCode >= 300:
		// Over stdio the server's answer to a line it cannot take (a
		// parse error, a batch it does not do) reaches the host; over
		// HTTP it is the refusal's body, which the tap does not read.
		if msg := bytes.TrimSpace(body); len(msg) > 0 {
			if env, err := scanEnvelope(msg); err == nil && env.isResponse() {
				s.fromServer(msg, nil)
				return nil
			}
		}
		why := (&httpReply{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"),
			retryAfter: resp.Header.Get("Retry-After"), body: body}).sentence(s.endpoint)
		// The requests of a batch wait for answers that will not come.
		for _, id := range batchIDs(msg) {
			s.answerError(id, fmt.Errorf("the server refused the batch it came in: %w", why))
		}
		return fmt.Errorf("sending the server a %s: %w", describe(msg, method), why)
	}
	return nil
}

// postTimeout bounds a POST of a notification or a response.
const postTimeout = 10 * time.Second

// batchIDs are the ids of the requests in a JSON-RPC batch (an array of
// messages, which 2025-03-26 allowed), or none for any other line.
func batchIDs(line []byte) []json.RawMessage {
	var batch []json.RawMessage
	if t := bytes.TrimSpace(line); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &batch) != nil {
		return nil
	}
	var ids []json.RawMessage
	for _, m := range batch {
		if env, err := scanEnvelope(m); err == nil && env.isRequest() {
			ids = append(ids, env.ID)
		}
	}
	return ids
}

// setHeaders sets on a request of elicitray's own the headers mcp-go would
// send: the user's, the session, the protocol version, the authorization.
func (s *httpServer) setHeaders(ctx context.Context, req *http.Request, t transport.Interface, version string) {
	for k, v := range s.opts.Header {
		req.Header[k] = v
	}
	if id := t.GetSessionId(); id != "" && !mcp.IsModernProtocol(version) {
		req.Header.Set(transport.HeaderKeySessionID, id)
	}
	if version != "" {
		req.Header.Set(transport.HeaderKeyProtocolVersion, version)
	}
	if s.opts.OAuth != nil {
		if h := oauthHandlerOf(t); h != nil {
			if auth, err := h.GetAuthorizationHeader(ctx); err == nil {
				req.Header.Set("Authorization", auth)
			}
		}
	}
}

// describe names a message the host (or the relay) sent, for the log.
func describe(msg []byte, method string) string {
	switch env, err := scanEnvelope(msg); {
	case method != "":
		return method
	case batchIDs(msg) != nil:
		return "batch"
	case err == nil && env.isResponse():
		return "response"
	}
	return "message that is not JSON-RPC"
}

func oauthHandlerOf(t transport.Interface) *transport.OAuthHandler {
	switch t := t.(type) {
	case *transport.StreamableHTTP:
		return t.GetOAuthHandler()
	case *transport.SSE:
		return t.GetOAuthHandler()
	}
	return nil
}

// loseSession ends the connection after the server forgot its session:
// the requests still waiting are answered with ErrSessionLost, and Read
// ends with it, so the wrapper exits (PROTOCOL.md §11).
func (s *httpServer) loseSession() {
	s.mu.Lock()
	if s.lost != nil {
		s.mu.Unlock()
		return
	}
	s.lost = ErrSessionLost
	waiting := make([]*httpRequest, 0, len(s.inflight))
	for _, r := range s.inflight {
		if !r.answered {
			r.answered = true
			waiting = append(waiting, r)
		}
	}
	s.mu.Unlock()
	s.log("%s: %v; restart the server in your host to connect again", s.opts.URL, ErrSessionLost)
	for _, r := range waiting {
		s.answerError(r.id, ErrSessionLost)
		r.cancel()
	}
	s.exitCode = 1
	go s.finish()
}

// CloseWrite: the host is gone. Requests still in flight get Grace to be
// answered; then the session ends (DELETE, PROTOCOL.md §11) and Read ends.
func (s *httpServer) CloseWrite() error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return nil
	}
	s.closing = true
	s.mu.Unlock()
	go func() {
		idle := make(chan struct{})
		go func() { s.wg.Wait(); close(idle) }()
		select {
		case <-idle:
		case <-time.After(s.opts.Grace):
		}
		s.finish()
	}()
	return nil
}

// finish ends the session and the connection, once.
func (s *httpServer) finish() {
	s.doneOnce.Do(func() {
		s.cancelInFlight()
		s.stop()
		s.mu.Lock()
		t := s.t
		s.mu.Unlock()
		_ = t.Close()
		close(s.done)
	})
}

// cancelInFlight tells the server, before the session ends, of each
// request of a host that has gone and is still unanswered (PROTOCOL.md §7).
// A child process is stopped for that; a remote server would go on with
// the work, and go-sdk holds the DELETE until its handlers return. On
// 2026-07-28, closing the requests' streams (stop) is the cancellation.
func (s *httpServer) cancelInFlight() {
	s.mu.Lock()
	modern, lost := mcp.IsModernProtocol(s.version), s.lost
	var ids []json.RawMessage
	for _, r := range s.inflight {
		if !r.answered {
			ids = append(ids, r.id)
		}
	}
	s.mu.Unlock()
	if modern || lost != nil || len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.Grace)
	defer cancel()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			msg := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) + `,"reason":"the host has gone"}}`
			if err := s.post(ctx, []byte(msg), "notifications/cancelled"); err != nil {
				s.log("%v", err)
			}
		})
	}
	wg.Wait()
}

func (s *httpServer) Wait() int {
	<-s.done
	return s.exitCode
}
