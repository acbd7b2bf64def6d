package oauth_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/elicitray/elicitray/app/oauth"
)

// Requests that get 401 together share one sign-in: one consent, one
// listener on the registered port.
func TestConcurrentAuthorize(t *testing.T) {
	w := newWorld(t)
	srv, err := oauth.New(oauth.Options{Name: name, URL: w.rs.URL, Dir: w.dir, Consent: w.user.consent, Logf: w.log.logf})
	if err != nil {
		t.Fatal(err)
	}
	h := transport.NewOAuthHandler(*srv.Config())
	h.SetBaseURL(w.rs.URL)
	errs := make(chan error, 3)
	for range 3 {
		go func() { errs <- srv.Authorize(t.Context(), h) }()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("Authorize: %v", err)
		}
	}
	if n := len(w.user.consents()); n != 1 {
		t.Errorf("%d consents for requests that got 401 together, want one", n)
	}
	if got, err := w.run(t); err != nil || got != "signed in" || len(w.user.consents()) != 1 {
		t.Errorf("the shared sign-in's token did not serve the next run: %q, %v", got, err)
	}
}

// A host that gives up on its request while the user signs in (hosts time
// requests out) does not end the sign-in: its next request joins it and
// gets the token, with no second consent.
func TestSignInOutlivesTheRequest(t *testing.T) {
	w := newWorld(t)
	first, cancelFirst := context.WithCancel(t.Context())
	firstReturned := make(chan error, 1)
	var once sync.Once
	consent := func(ctx context.Context, authURL string) error {
		once.Do(func() {
			cancelFirst()   // the host gives up while the window is open
			<-firstReturned // and its request has been answered
		})
		return w.user.consent(ctx, authURL)
	}
	srv, err := oauth.New(oauth.Options{Name: name, URL: w.rs.URL, Dir: w.dir, Consent: consent, Logf: w.log.logf})
	if err != nil {
		t.Fatal(err)
	}
	h := transport.NewOAuthHandler(*srv.Config())
	h.SetBaseURL(w.rs.URL)
	go func() { firstReturned <- srv.Authorize(first, h) }()
	// The host's next request, after its first gave up.
	second := make(chan error, 1)
	go func() {
		<-first.Done()
		second <- srv.Authorize(t.Context(), h)
	}()
	if err := <-second; err != nil {
		t.Fatalf("the next request's Authorize: %v\nlog:\n%s", err, w.log)
	}
	if !strings.Contains(w.log.String(), "the sign-in goes on") {
		t.Errorf("the log does not say the sign-in goes on:\n%s", w.log)
	}
	if n := len(w.user.consents()); n != 1 {
		t.Errorf("%d consents, want the one", n)
	}
	if rec := w.record(t); rec.Token == nil {
		t.Errorf("no token stored")
	}
}

// Two wrappers of the same server (two hosts, say: two processes, each its
// own Server) that need a sign-in at once share it: one consent, and the
// other finds the token.
func TestTwoWrappersSignInOnce(t *testing.T) {
	w := newWorld(t)
	errs := make(chan error, 2)
	for range 2 {
		srv, err := oauth.New(oauth.Options{Name: name, URL: w.rs.URL, Dir: w.dir, Consent: w.user.consent, Logf: w.log.logf})
		if err != nil {
			t.Fatal(err)
		}
		h := transport.NewOAuthHandler(*srv.Config())
		h.SetBaseURL(w.rs.URL)
		go func() { errs <- srv.Authorize(t.Context(), h) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("Authorize: %v\nlog:\n%s", err, w.log)
		}
	}
	if n := len(w.user.consents()); n != 1 {
		t.Errorf("%d consents for two wrappers, want one", n)
	}
	if n := w.as.Clients(); n != 1 {
		t.Errorf("%d clients registered, want one", n)
	}
}

// Wrappers of the same server in two processes that find the token due at
// once refresh it once: the refresh token rotates, and sending it twice
// would get the second refused (or both, on a server that revokes a
// reused token's family, as fosite does).
func TestTwoWrappersRefreshOnce(t *testing.T) {
	w := newWorld(t)
	w.signedIn(t)
	w.setExpiry(t, time.Now().Add(20*time.Second))
	var stores []transport.TokenStore
	for range 2 {
		srv, err := oauth.New(oauth.Options{Name: name, URL: w.rs.URL, Dir: w.dir, Consent: w.user.consent, Logf: w.log.logf})
		if err != nil {
			t.Fatal(err)
		}
		stores = append(stores, srv.Config().TokenStore)
	}
	toks := make(chan *transport.Token, 2)
	for _, st := range stores {
		go func() {
			tok, err := st.GetToken(t.Context())
			if err != nil {
				t.Errorf("GetToken: %v", err)
			}
			toks <- tok
		}()
	}
	a, b := <-toks, <-toks
	if a == nil || b == nil || a.AccessToken != b.AccessToken || a.IsExpired() {
		t.Fatalf("the two wrappers got different or expired tokens")
	}
	want := []string{"register", "authorize", "token:authorization_code", "token:refresh_token"}
	if diff := cmp.Diff(want, w.as.Seen()); diff != "" {
		t.Errorf("authorization server requests mismatch (-want +got):\n%s", diff)
	}
	if !w.as.Valid(t.Context(), a.AccessToken) {
		t.Errorf("the refreshed token is not valid")
	}
}
