package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/elicitray/elicitray/app/platform"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/elicitray/elicitray/app/oauth"
	"github.com/elicitray/elicitray/app/oauth/oauthtest"
)

// user is the person at the desktop: each consent asked is recorded, and
// agreed to by a browser that follows the URL to the loopback redirect
// (the authorization server approves at once), unless refuse is set.
type user struct {
	mu     sync.Mutex
	asked  []string
	pages  chan string
	refuse error
	rogue  chan string
}

func newUser() *user { return &user{pages: make(chan string, 4)} }

func (u *user) consent(ctx context.Context, authURL string) error {
	u.mu.Lock()
	u.asked = append(u.asked, authURL)
	refuse := u.refuse
	u.mu.Unlock()
	if refuse != nil {
		return refuse
	}
	if u.rogue != nil {
		// Another page in the browser hits the loopback redirect first.
		au, _ := url.Parse(authURL)
		code, _, err := oauthtest.Browser(ctx, au.Query().Get("redirect_uri")+"?code=evil&state=guessed")
		u.rogue <- fmt.Sprint(code, err)
	}
	// The browser is opened and lives on its own, as xdg-open's does.
	go func() {
		code, page, err := oauthtest.Browser(context.WithoutCancel(ctx), authURL)
		if err != nil {
			page = err.Error()
		}
		u.pages <- fmt.Sprintf("%d %s", code, page)
	}()
	return nil
}

func (u *user) consents() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.asked...)
}

// world is an authorization server, a protected MCP server, a token
// directory and the user.
type world struct {
	as   *oauthtest.AuthServer
	rs   *oauthtest.ResourceServer
	dir  string
	user *user
	log  *logBuf
}

type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func newWorld(t *testing.T) *world {
	as := oauthtest.NewAuthServer(t, oauthtest.Options{})
	dir := filepath.Join(t.TempDir(), "auth")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return &world{as: as, rs: oauthtest.NewResourceServer(t, as), dir: dir, user: newUser(), log: &logBuf{}}
}

const name = "remote"

// run is one run of a wrapper: a new transport with the server's OAuth
// config, initialize and a tools/call, each retried once after Authorize
// when the server asks for authorization (the contract bridge/http.go
// keeps). It returns the tool's text.
//
// between, when given, run after the tools/call, each followed by
// another tools/call in the same session.
func (w *world) run(t *testing.T, between ...func()) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	srv, err := oauth.New(oauth.Options{Name: name, URL: w.rs.URL, Dir: w.dir, Consent: w.user.consent, Logf: w.log.logf})
	if err != nil {
		return "", err
	}
	tr, err := transport.NewStreamableHTTP(w.rs.URL, transport.WithHTTPOAuth(*srv.Config()),
		transport.WithHTTPBasicClient(&http.Client{Transport: srv.RoundTripper(nil)}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	retry := func(f func() error) error {
		err := f()
		var need *transport.OAuthAuthorizationRequiredError
		if errors.As(err, &need) {
			if err := srv.Authorize(ctx, need.Handler); err != nil {
				return err
			}
			return f()
		}
		return err
	}
	if err := retry(func() error {
		_, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: "2025-11-25",
			ClientInfo: mcp.Implementation{Name: "host", Version: "1"}}})
		return err
	}); err != nil {
		return "", err
	}
	var text string
	call := func() error {
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "whoami"}})
		if err != nil {
			return err
		}
		text = res.Content[0].(mcp.TextContent).Text
		return nil
	}
	err = retry(call)
	for _, f := range between {
		if err != nil {
			break
		}
		f()
		err = retry(call)
	}
	return text, err
}

func (w *world) record(t *testing.T) *oauth.Record {
	t.Helper()
	rec, err := oauth.Load(w.dir, name)
	if err != nil || rec == nil {
		t.Fatalf("the token file: %v %v", rec, err)
	}
	return rec
}

// signedIn runs the first sign-in and checks that it worked.
func (w *world) signedIn(t *testing.T) {
	t.Helper()
	got, err := w.run(t)
	if err != nil || got != "signed in" {
		t.Fatalf("first run: %q, %v\nlog:\n%s", got, err, w.log)
	}
	if page := <-w.user.pages; !strings.Contains(page, "200 ") || !strings.Contains(page, "Signed in") {
		t.Errorf("the browser showed %q", page)
	}
}

func TestFirstSignInThenReuse(t *testing.T) {
	w := newWorld(t)
	w.signedIn(t)

	want := []string{"register", "authorize", "token:authorization_code"}
	if diff := cmp.Diff(want, w.as.Seen()); diff != "" {
		t.Errorf("authorization server requests mismatch (-want +got):\n%s", diff)
	}
	asked := w.user.consents()
	if len(asked) != 1 || !strings.HasPrefix(asked[0], w.as.URL+"/authorize?") {
		t.Fatalf("consent asked for %q, want the full authorization URL once", asked)
	}
	q := w.as.Authorizations()[0]
	u, _ := url.Parse(asked[0])
	if diff := cmp.Diff(u.Query(), q); diff != "" {
		t.Errorf("the URL the user agreed to is not the one the browser took (-consent +server):\n%s", diff)
	}
	redirect, _ := url.Parse(q.Get("redirect_uri"))
	for k, ok := range map[string]bool{
		"code_challenge_method=S256": q.Get("code_challenge_method") == "S256",
		"a code_challenge":           len(q.Get("code_challenge")) == 43,
		"resource=" + w.rs.URL:       q.Get("resource") == w.rs.URL,
		"a loopback redirect":        redirect.Scheme == "http" && redirect.Hostname() == "127.0.0.1" && redirect.Port() != "",
		"response_type=code":         q.Get("response_type") == "code",
	} {
		if !ok {
			t.Errorf("the authorization request lacks %s: %v", k, q)
		}
	}
	form := w.as.TokenForms()[0]
	if form.Get("code_verifier") == "" || form.Get("resource") != w.rs.URL {
		t.Errorf("the code exchange lacks the PKCE verifier or the resource: %v", form)
	}

	rec := w.record(t)
	if rec.Client.ClientID == "" || rec.Client.RedirectURI != q.Get("redirect_uri") || rec.AuthServer != w.as.URL || rec.URL != w.rs.URL {
		t.Errorf("the token file keeps %+v", rec)
	}
	if rec.Token == nil || rec.Token.AccessToken == "" || rec.Token.RefreshToken == "" || rec.Token.ExpiresAt.IsZero() {
		t.Errorf("the token file has no usable token: %+v", rec.Token)
	}
	fi, err := os.Lstat(filepath.Join(w.dir, name+".json"))
	if err != nil || runtime.GOOS != "windows" && fi.Mode() != 0o600 { // Windows: the directory's access list
		t.Errorf("token file mode %v (%v), want -rw-------", fi.Mode(), err)
	}

	// The next run (a new wrapper) uses the stored token: no browser, no
	// request to the authorization server.
	got, err := w.run(t)
	if err != nil || got != "signed in" {
		t.Fatalf("second run: %q, %v", got, err)
	}
	if n := len(w.user.consents()); n != 1 {
		t.Errorf("the second run asked the user again (%d consents)", n)
	}
	if diff := cmp.Diff(want, w.as.Seen()); diff != "" {
		t.Errorf("the second run went to the authorization server (-want +got):\n%s", diff)
	}
	if n := len(w.rs.Tokens()); n != 1 {
		t.Errorf("the MCP server saw %d access tokens, want the one", n)
	}
	// Two requests went without a token: the first initialize (until one
	// is stored, the server is asked without) and the probe for the
	// server's WWW-Authenticate; the DELETEs that ended both sessions
	// carried it (RoundTripper).
	if diff := cmp.Diff([]string{"POST", "POST"}, w.rs.Anonymous()); diff != "" {
		t.Errorf("requests without a bearer token mismatch (-want +got):\n%s", diff)
	}
}

// setExpiry moves the stored token's expiry, as time passing would.
func (w *world) setExpiry(t *testing.T, at time.Time) {
	t.Helper()
	rec := w.record(t)
	rec.Token.ExpiresAt = at
	if err := oauth.Save(w.dir, rec); err != nil {
		t.Fatal(err)
	}
}

func TestRefresh(t *testing.T) {
	for _, tt := range []struct {
		name string
		left time.Duration
	}{
		{"expired", -time.Hour},
		// mcp-go refreshes only expired tokens; elicitray a minute ahead.
		{"expires in 30 seconds", 30 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.signedIn(t)
			before := w.record(t).Token
			w.setExpiry(t, time.Now().Add(tt.left))

			got, err := w.run(t)
			if err != nil || got != "signed in" {
				t.Fatalf("run after expiry: %q, %v\nlog:\n%s", got, err, w.log)
			}
			want := []string{"register", "authorize", "token:authorization_code", "token:refresh_token"}
			if diff := cmp.Diff(want, w.as.Seen()); diff != "" {
				t.Errorf("authorization server requests mismatch (-want +got):\n%s", diff)
			}
			if n := len(w.user.consents()); n != 1 {
				t.Errorf("refreshing asked the user (%d consents)", n)
			}
			after := w.record(t).Token
			if after.AccessToken == before.AccessToken || after.RefreshToken == before.RefreshToken || !after.ExpiresAt.After(time.Now().Add(30*time.Minute)) {
				t.Errorf("the refreshed token was not stored (rotated refresh token, new expiry): %+v", after)
			}
			if toks := w.rs.Tokens(); len(toks) != 2 || toks[1] != after.AccessToken {
				t.Errorf("the MCP server did not get the refreshed token")
			}
		})
	}
}

// A 401 for a token that has not expired by the clock (the authorization
// server ended it early) is answered with the refresh token first, without
// the user.
func TestUnauthorizedBeforeExpiryRefreshes(t *testing.T) {
	w := newWorld(t)
	w.signedIn(t)
	rec := w.record(t)
	before := w.rs.Refused()
	if err := w.as.EndAccessToken(t.Context(), rec.Token.AccessToken); err != nil {
		t.Fatal(err)
	}
	got, err := w.run(t)
	if err != nil || got != "signed in" {
		t.Fatalf("run after the access token ended: %q, %v\nlog:\n%s", got, err, w.log)
	}
	if n := w.rs.Refused() - before; n != 1 {
		t.Errorf("the MCP server refused %d tokens, want one (the ended token)", n)
	}
	want := []string{"register", "authorize", "token:authorization_code", "token:refresh_token"}
	if diff := cmp.Diff(want, w.as.Seen()); diff != "" {
		t.Errorf("authorization server requests mismatch (-want +got):\n%s", diff)
	}
	if n := len(w.user.consents()); n != 1 {
		t.Errorf("the user was asked again (%d consents)", n)
	}
}

// A revoked refresh token: the authorization server refuses it, the user
// is told why and asked to sign in again, with the same registration.
func TestRevokedRefreshToken(t *testing.T) {
	w := newWorld(t)
	w.signedIn(t)
	rec := w.record(t)
	if err := w.as.Revoke(rec.Client.ClientID, rec.Token.RefreshToken); err != nil {
		t.Fatal(err)
	}
	w.setExpiry(t, time.Now().Add(-time.Hour))

	got, err := w.run(t)
	if err != nil || got != "signed in" {
		t.Fatalf("run after revocation: %q, %v\nlog:\n%s", got, err, w.log)
	}
	<-w.user.pages
	if n := len(w.user.consents()); n != 2 {
		t.Errorf("the user was asked %d times, want twice (first sign-in, then again)", n)
	}
	if !strings.Contains(w.log.String(), "remote: the authorization server no longer accepts the stored refresh token (OAuth error: invalid_grant") ||
		!strings.Contains(w.log.String(), "asking you to sign in again") {
		t.Errorf("the log does not say why the user is asked again:\n%s", w.log)
	}
	seen := w.as.Seen()
	if slices.Index(seen, "token:refresh_token: invalid_grant") < 0 || seen[len(seen)-1] != "token:authorization_code" || w.as.Clients() != 1 {
		t.Errorf("want a refused refresh, then a new sign-in with the same client; got %v (%d clients)", seen, w.as.Clients())
	}
	if after := w.record(t); after.Token == nil || after.Token.RefreshToken == rec.Token.RefreshToken {
		t.Errorf("the new sign-in's token was not stored: %+v", after.Token)
	}
}

func TestDeclinedSignIn(t *testing.T) {
	w := newWorld(t)
	w.user.refuse = errors.New("the user chose Decline")
	_, err := w.run(t)
	if !errors.Is(err, oauth.ErrDeclined) || !strings.Contains(err.Error(), "the user chose Decline") {
		t.Fatalf("run with sign-in declined: %v, want ErrDeclined saying why", err)
	}
	if seen := w.as.Seen(); slices.Contains(seen, "authorize") {
		t.Errorf("the authorization server was visited without consent: %v", seen)
	}
	if rec, _ := oauth.Load(w.dir, name); rec != nil && rec.Token != nil {
		t.Errorf("a token was stored without consent: %+v", rec.Token)
	}
}

func TestTokenFileTrust(t *testing.T) {
	for _, tt := range []struct {
		name  string
		plant func(t *testing.T, path string)
	}{
		{"symbolic link", func(t *testing.T, path string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere.json"), path); err != nil {
				t.Fatal(err)
			}
		}},
		{"readable by others", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(`{"name":"remote"}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"another user's", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(`{"name":"remote"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if os.Getuid() != 0 {
				t.Skip("making another user's file needs root")
			}
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if platform.UnderWine() {
				t.Skip("Wine 8 makes os.Symlink a Unix symbolic link that Go's Windows build opens as the file, and keeps no access lists")
			}
			if runtime.GOOS == "windows" && tt.name == "readable by others" {
				t.Skip("Windows keeps no file modes: the access list decides (platform.FileOpenToOthers)")
			}
			w := newWorld(t)
			path := filepath.Join(w.dir, name+".json")
			tt.plant(t, path)
			_, err := w.run(t)
			if !errors.Is(err, oauth.ErrUntrusted) || !strings.Contains(err.Error(), path) {
				t.Fatalf("run with a planted token file: %v, want it refused by name", err)
			}
			if err := oauth.Save(w.dir, &oauth.Record{Name: name, URL: w.rs.URL}); !errors.Is(err, oauth.ErrUntrusted) {
				t.Errorf("Save over a planted token file: %v, want it refused", err)
			}
			if len(w.user.consents()) != 0 || len(w.as.Seen()) != 0 {
				t.Errorf("the flow ran with a planted token file")
			}
			if link, err := os.Readlink(path); err == nil {
				if _, err := os.Lstat(link); err == nil {
					t.Errorf("the link's target %s was written", link)
				}
			}
		})
	}
}

// A token that expires during the session it was first got in is
// refreshed without the user, once: the transport's handler, made before
// the registration, has no client id to refresh with, and the token store
// refreshes on the stored registration before it would try.
func TestRefreshInTheFirstSession(t *testing.T) {
	w := newWorld(t)
	got, err := w.run(t, func() {
		<-w.user.pages
		w.setExpiry(t, time.Now().Add(-time.Minute))
	})
	if err != nil || got != "signed in" {
		t.Fatalf("the call after expiry: %q, %v\nlog:\n%s", got, err, w.log)
	}
	if n := len(w.user.consents()); n != 1 {
		t.Errorf("%d consents, want the first one only", n)
	}
	if toks := w.rs.Tokens(); len(toks) != 2 {
		t.Errorf("the MCP server saw %d access tokens, want the first and the refreshed one", len(toks))
	}
	want := []string{"register", "authorize", "token:authorization_code", "token:refresh_token"}
	if diff := cmp.Diff(want, w.as.Seen()); diff != "" {
		t.Errorf("authorization server requests mismatch (-want +got):\n%s", diff)
	}
}

// TestRedirectPortTaken: another program listens on the port the stored
// registration's redirect names. The sign-in does not fail: it listens on a
// port of the system's choosing, registers again naming it, says so, and
// the user signs in.
func TestRedirectPortTaken(t *testing.T) {
	w := newWorld(t)
	w.signedIn(t)
	rec := w.record(t)
	u, err := url.Parse(rec.Client.RedirectURI)
	if err != nil {
		t.Fatal(err)
	}
	squatter, err := net.Listen("tcp", u.Host)
	if err != nil {
		t.Fatalf("taking the redirect's port: %v", err)
	}
	defer squatter.Close()
	rec.Token = nil // signed out: the next run must sign in
	if err := oauth.Save(w.dir, rec); err != nil {
		t.Fatal(err)
	}

	got, err := w.run(t)
	if err != nil || got != "signed in" {
		t.Fatalf("run with the port taken: %q, %v\nlog:\n%s", got, err, w.log)
	}
	<-w.user.pages
	after := w.record(t)
	if after.Client.RedirectURI == rec.Client.RedirectURI || after.Client.ClientID == rec.Client.ClientID {
		t.Errorf("want a new registration on another port; redirect %s → %s, client %s → %s",
			rec.Client.RedirectURI, after.Client.RedirectURI, rec.Client.ClientID, after.Client.ClientID)
	}
	if !strings.Contains(w.log.String(), "was taken; elicitray registers again with port") {
		t.Errorf("the log does not say why it registered again:\n%s", w.log)
	}
}
