package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// callback is the loopback redirect's listener (RFC 8252 §7.3): it takes
// the one authorization response the browser brings back and shows the
// user how the sign-in ended.
type callback struct {
	srv  *http.Server
	path string
	// state is the state parameter of the authorization request: a
	// response without it is not the one waited for (another page in the
	// browser, RFC 6749 §10.12) and is turned away without ending the wait.
	state string
	// port is the port it listens on (the system's choice for port 0).
	port int
	got  chan *authResponse
	once sync.Once
}

// authResponse is the authorization response (RFC 6749 §4.1.2): a code and
// state, or an error. done shows the browser the outcome and must be
// called once.
type authResponse struct {
	code, state, err string
	// iss is the authorization response's iss parameter (RFC 9207), and
	// hasIss whether there was one.
	iss    string
	hasIss bool
	done   func(ok bool, msg string)
}

// listenLoopback listens at redirect's host and port, 127.0.0.1 only, for
// the response to the authorization request with state.
func listenLoopback(redirect, state string) (*callback, error) {
	u, err := url.Parse(redirect)
	if err != nil {
		return nil, fmt.Errorf("the redirect URI %q: %w", redirect, err)
	}
	l, err := net.Listen("tcp", u.Host)
	if err != nil {
		return nil, fmt.Errorf("listening for the sign-in redirect at %s: %w", u.Host, err)
	}
	cb := &callback{path: u.Path, state: state, port: l.Addr().(*net.TCPAddr).Port, got: make(chan *authResponse)}
	cb.srv = &http.Server{Handler: http.HandlerFunc(cb.serve), ReadHeaderTimeout: 10 * time.Second}
	go cb.srv.Serve(l)
	return cb, nil
}

// serve answers the browser's request to the redirect URI; other paths
// (a favicon) are 404. The first authorization response is handed to wait,
// and the page waits for its outcome.
func (cb *callback) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != cb.path || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if q.Get("state") != cb.state {
		http.Error(w, "This is not the sign-in elicitray is waiting for.", http.StatusBadRequest)
		return
	}
	resp := &authResponse{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss"), hasIss: q.Has("iss")}
	if e := q.Get("error"); e != "" {
		resp.err = e
		if d := q.Get("error_description"); d != "" {
			resp.err += ": " + d
		}
	} else if resp.code == "" {
		http.Error(w, "This is elicitray's sign-in redirect; it expected an authorization code.", http.StatusBadRequest)
		return
	}
	outcome := make(chan string, 1)
	resp.done = func(ok bool, msg string) {
		if ok {
			msg = "Signed in. You can close this tab and go back to your MCP host."
		}
		outcome <- msg
	}
	taken := false
	cb.once.Do(func() {
		select {
		case cb.got <- resp:
			taken = true
		case <-r.Context().Done():
		}
	})
	if !taken {
		http.Error(w, "This sign-in has already been answered.", http.StatusConflict)
		return
	}
	var msg string
	select {
	case msg = <-outcome:
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>elicitray</title><p>%s</p>\n", html.EscapeString(msg))
}

// wait returns the authorization response, or ctx's error.
func (cb *callback) wait(ctx context.Context) (*authResponse, error) {
	select {
	case r := <-cb.got:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// close stops listening; a page still waiting for its outcome is ended.
func (cb *callback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := cb.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		cb.srv.Close()
	}
}
