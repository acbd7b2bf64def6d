package bridge

// The host's messages to a remote server: requests sent through mcp-go and
// answered through the tap, notifications and responses posted as they
// are, and resumption of a stream that broke off (http.go has the Server
// and its state, httprecv.go the server's messages taken from the tap).

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
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

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
		if s.listening == nil {
			// The transport's one GET stream: a second initialize on
			// it opens none of its own.
			s.listening = make(chan struct{})
		}
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
		} else {
			s.awaitListening(ctx)
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
			if tries > 0 && !pause(ctx, resumePause<<(tries-1)) {
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

// maxResumes bounds how often one request's stream is resumed. The
// first resume goes at once; each later one waits twice as long as the one
// before, from resumePause: a server that has not yet seen the old
// connection go answers 409 Conflict, as the go-sdk does, and the SSE
// standard has a client wait before it reconnects.
const (
	maxResumes  = 5
	resumePause = 250 * time.Millisecond
)

// pause waits d, and reports false if ctx ended first.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

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
	msg := fmt.Sprintf(noAnswerFrom+"%s: %v", s.opts.URL, netSentence(err))
	if !errors.Is(err, ErrSessionLost) { // loseSession said it once
		s.log("%s", msg)
	}
	line := append(encodeError(id, codeInternalError, msg), '\n')
	select {
	case s.out <- outLine{line: line}:
	case <-s.done:
	}
}

// noAnswerFrom starts the message of an error answerError makes.
const noAnswerFrom = "elicitray could not get an answer from "

// relayMade reports whether reply is an error answerError made: the
// request never got to the server, or its answer never came back.
func relayMade(reply []byte) bool {
	return strings.HasPrefix(errorMessage(reply), noAnswerFrom)
}

// errorMessage is the message of a JSON-RPC error reply, "" for others.
func errorMessage(reply []byte) string {
	raw, _ := getMember(reply, "error")
	msg, _ := getMember(raw, "message")
	var s string
	_ = json.Unmarshal(msg, &s)
	return s
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
