package bridge

// The host's messages to a remote server: requests sent through mcp-go and
// answered through the tap, notifications and responses posted as they
// are, resumption of a stream that broke off, and the server's messages
// taken from the tap (http.go has the Server and its state).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/elicitray/elicitray/chars"
)

// fromServer takes each message the tap read from the server; msg is its
// to keep, and free (when not nil) gives msg's memory back (msgBuf.take).
// It returns the stand-in mcp-go reads for it (tapTransport): for an
// answer to the request whose stream it came on (or on no request's
// stream), the answer with its id and an empty result or error; else nil.
func (s *httpServer) fromServer(msg []byte, free func(), stream *sseStream) []byte {
	if free != nil {
		defer func() {
			if free != nil {
				free() // dropped, or copied
			}
		}()
	}
	if msg == nil {
		s.noteStream(stream)
		return nil
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
		return nil
	}
	// In place: a message is held once. CR and LF are never part of a
	// longer UTF-8 sequence.
	for _, c := range []byte("\r\n") {
		for i := 0; ; {
			j := bytes.IndexByte(msg[i:], c)
			if j < 0 {
				break
			}
			i += j
			msg[i] = ' '
		}
	}
	held := msg
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
	var stand []byte
	if err == nil && env.isResponse() {
		key, _ := idKey(env.ID)
		s.mu.Lock()
		r := s.inflight[key]
		if r == nil && stream != nil && stream.key != "" {
			// An answer on a request's stream to a request never sent
			// (or long answered): the request's own answer may still
			// follow on the stream, which goes on.
			what := "request"
			if own := s.inflight[stream.key]; own != nil {
				what = own.method
			}
			s.mu.Unlock()
			s.log("%s sent, on the stream of the host's %s, an answer with id %s, which no request in flight has; it is dropped, and the stream read on", s.opts.URL, what, preview(env.ID))
			s.noteStream(stream)
			return nil
		}
		if r != nil {
			if r.answered {
				s.mu.Unlock()
				return nil // a replay after a resume: the host has it
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
		// An answer to nothing asked on no request's stream (a stray
		// reply on the GET stream, or in a body) goes on: the relay or
		// the host judges it.
		if v := protocolVersionOf(env.Result); initialize && v != "" {
			s.setVersion(v)
		}
		if initialize {
			s.initialized()
		}
		if stream == nil || stream.key == "" || stream.key == key {
			stand = standIn(env)
		}
	}
	if stream != nil {
		s.noteStream(stream)
	}
	// The line is the message and its newline, in the message's own
	// memory (which has room for it). A mapped message goes on in it only
	// as an answer, which the relay copies whatever of it it keeps; the
	// rest are few and small, and are copied here.
	var line []byte
	if free != nil && err == nil && env.isResponse() && len(msg) > 0 && &msg[0] == &held[0] {
		line = append(msg, '\n')
	} else if free != nil {
		line = append(append(make([]byte, 0, len(msg)+1), msg...), '\n')
	} else {
		line = append(msg, '\n')
	}
	out := outLine{line: line}
	if &line[0] == &held[0] {
		out.free, free = free, nil // Read gives it back
	}
	select {
	case s.out <- out:
	case <-s.done:
		if out.free != nil {
			out.free()
		}
	}
	s.withdraw(moot)
	return stand
}

// standIn is the answer mcp-go reads in the stead of the server's answer
// env: its id, and an empty result, or an error when it was one (mcp-go
// starts a session only on a result).
func standIn(env envelope) []byte {
	body := `,"result":{}}`
	if len(env.Error) > 0 {
		body = `,"error":{"code":-32603,"message":""}}`
	}
	return []byte(`{"jsonrpc":"2.0","id":` + string(env.ID) + body)
}

// tooLarge ends the request whose stream (or body) carried a message
// longer than the limit, with an error saying so; on the GET stream, it
// says so in the log (mcp-go opens the stream again).
func (s *httpServer) tooLarge(key string, err error) {
	var r *httpRequest
	if key != "" {
		s.mu.Lock()
		if r = s.inflight[key]; r != nil && !r.answered {
			r.answered = true
		} else {
			r = nil
		}
		s.mu.Unlock()
	}
	if r == nil {
		s.log("%s: %v", s.opts.URL, netSentence(err))
		return
	}
	s.answerError(r.id, err)
	r.cancel()
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
		case s.out <- outLine{line: line}:
		case <-s.done:
			return
		}
	}
}

// preview is the start of b for a log line: at most 60 bytes, quoted,
// never ending inside a character.
func preview(b []byte) string {
	if len(b) > 60 {
		return fmt.Sprintf("%q…", chars.Bytes(b, 60))
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
			// This request left inflight above, so loseSession does not
			// answer it: it is answered first, while Read still takes
			// answers (loseSession ends the session, and an answer after
			// that may be dropped: the host's call would see the wrapper
			// end without one).
			s.answerError(r.id, ErrSessionLost)
			s.loseSession()
			return
		case errors.Is(err, errUnauthorized), errors.Is(err, errAuthorization), errors.As(err, new(*url.Error)):
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
	resp, err := s.http.Do(req)
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
				return fmt.Errorf("%w: %w", errAuthorization, aerr)
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
	case s.out <- outLine{line: line}:
	case <-s.done:
	}
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
	resp, err := s.http.Do(req)
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
				s.fromServer(msg, nil, nil)
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
