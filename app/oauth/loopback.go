package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"time"
)

// callback is the loopback redirect's listener (RFC 8252 §7.3): it hands
// each authorization response the browser brings back to signIn, and shows
// the browser what became of it.
//
// The state is in the authorization URL, which other users of the machine
// can read on the browser's command line: a response with it may still be
// forged. So no response ends the wait by coming back, whatever it holds;
// signIn ends it only with a code the token endpoint accepts (PKCE keeps
// a forged code from getting a token), and turns the others away.
type callback struct {
	srv  *http.Server
	path string
	// state is the state parameter of the authorization request: a
	// response without it is not the one waited for (another page in the
	// browser, RFC 6749 §10.12) and is turned away here.
	state string
	// port is the port it listens on (the system's choice for port 0).
	port int
	got  chan *authResponse
	logf func(format string, args ...any)
}

// authResponse is an authorization response (RFC 6749 §4.1.2): a code and
// state, or an error. done shows the browser what became of it and must be
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
// responses to the authorization request with state. logf says on the log
// what it turned away.
func listenLoopback(redirect, state string, logf func(format string, args ...any)) (*callback, error) {
	u, err := url.Parse(redirect)
	if err != nil {
		return nil, fmt.Errorf("the redirect URI %q: %w", redirect, err)
	}
	l, err := net.Listen("tcp", u.Host)
	if err != nil {
		return nil, fmt.Errorf("listening for the sign-in redirect at %s: %w", u.Host, err)
	}
	cb := &callback{path: u.Path, state: state, port: l.Addr().(*net.TCPAddr).Port, got: make(chan *authResponse), logf: logf}
	cb.srv = &http.Server{Handler: http.HandlerFunc(cb.serve), ReadHeaderTimeout: 10 * time.Second}
	go cb.srv.Serve(l)
	return cb, nil
}

// serve answers the browser's request to the redirect URI; other paths
// (a favicon) are 404. A response with the sign-in's state is handed to
// wait, and the page waits for what became of it.
func (cb *callback) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != cb.path || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if q.Get("state") != cb.state {
		cb.logf("a request to the sign-in redirect without this sign-in's state was turned away (another page, or a forgery)")
		http.Error(w, "This is not the sign-in elicitray is waiting for.", http.StatusBadRequest)
		return
	}
	resp := &authResponse{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss"), hasIss: q.Has("iss")}
	if e := q.Get("error"); e != "" {
		resp.err = e
		if d := q.Get("error_description"); d != "" {
			resp.err += ": " + d
		}
	}
	outcome := make(chan string, 1)
	resp.done = func(ok bool, msg string) {
		if ok {
			msg = "Signed in. You can close this tab and go back to your MCP host."
		}
		outcome <- msg
	}
	select {
	case cb.got <- resp:
	case <-r.Context().Done():
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
