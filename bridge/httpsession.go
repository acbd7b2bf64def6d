package bridge

// The end of a remote session: lost (the server forgot it), or ended when
// the host goes (DELETE, PROTOCOL.md §11).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

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

func (s *httpServer) graceTime() time.Duration { return s.opts.Grace }

func (s *httpServer) Wait() int {
	<-s.done
	return s.exitCode
}
