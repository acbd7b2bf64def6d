//go:build linux

package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/oauth"
	"github.com/elicitray/elicitray/app/oauth/oauthtest"
)

// elsewhere stands for every machine but this one: the wrapper's
// HTTP_PROXY (vars), so that a request to a host that is not loopback (Go
// sends loopback requests direct) reaches it instead of the network, and
// is counted. It answers 502.
type elsewhere struct {
	mu   sync.Mutex
	seen []string
	url  string
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.seen = append(e.seen, r.Method+" "+r.Host+r.URL.Path)
		e.mu.Unlock()
		http.Error(w, "no other machine here", http.StatusBadGateway)
	}))
	t.Cleanup(srv.Close)
	e.url = srv.URL
	return e
}

// vars are the environment entries that make e the proxy of a process.
func (e *elsewhere) vars() []string {
	return []string{"HTTP_PROXY=" + e.url, "HTTPS_PROXY=" + e.url, "NO_PROXY="}
}

func (e *elsewhere) requests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.seen...)
}

// declineUntilDone waits for the host's connection w to be made or fail,
// declining each prompt window shown meanwhile, and returns how many.
func (d *testDesktop) declineUntilDone(w *wrapURL) (windows int) {
	d.t.Helper()
	deadline := time.Now().Add(desktopWait)
	for {
		select {
		case <-w.done:
			return windows
		default:
		}
		if pid := d.hubPID(); pid > 0 {
			if ids := d.visibleWindows(strconv.Itoa(pid)); len(ids) == 1 {
				d.unmaps.mark(ids[0])
				d.answer(ids[0], "alt+d")
				windows++
				deadline = time.Now().Add(desktopWait)
			}
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("initialize did not end within %v\nwrapper log:\n%s%s", desktopWait, w.log(), d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
}

// An authorization server whose metadata names an endpoint elicitray must
// not use: plain http to another machine, or no web address at all. The
// sign-in is refused before anything is sent or opened (no consent window,
// no browser, no request leaves the machine), and the host is told which
// endpoint, with its URL.
func TestWrapURLRefusesUnsafeEndpoints(t *testing.T) {
	d := newParallelDesktop(t)
	browser := d.browserStandIn()
	d.startHubHere()
	away := newElsewhere(t)
	d.setenv(away.vars()...)
	for _, tt := range []struct {
		name string
		// field of the metadata and its value, or the issuer the
		// protected resource metadata names.
		field, value, issuer string
		want                 string
	}{
		{name: "http token endpoint", field: "token_endpoint", value: "http://example.invalid/token",
			want: "the token endpoint http://example.invalid/token is plain http to another machine"},
		{name: "http authorization endpoint", field: "authorization_endpoint", value: "http://example.invalid/authorize",
			want: "the authorization endpoint http://example.invalid/authorize is plain http to another machine"},
		{name: "http registration endpoint", field: "registration_endpoint", value: "http://example.invalid/register",
			want: "the registration endpoint http://example.invalid/register is plain http to another machine"},
		{name: "http revocation endpoint", field: "revocation_endpoint", value: "http://example.invalid/revoke",
			want: "the revocation endpoint http://example.invalid/revoke is plain http to another machine"},
		{name: "http issuer", issuer: "http://example.invalid",
			want: "the authorization server metadata http://example.invalid/.well-known/oauth-authorization-server is plain http to another machine"},
		{name: "javascript authorization endpoint", field: "authorization_endpoint", value: "javascript:alert(document.cookie)",
			want: `the authorization endpoint "javascript:alert(document.cookie)" is not a web address (its scheme is "javascript")`},
		{name: "file authorization endpoint", field: "authorization_endpoint", value: "file:///etc/passwd",
			want: `the authorization endpoint "file:///etc/passwd" is not a web address (its scheme is "file")`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := d.with(t)
			as := oauthtest.NewAuthServer(t, oauthtest.Options{Metadata: func(md map[string]any) {
				if tt.field != "" {
					md[tt.field] = tt.value
				}
			}})
			rs := oauthtest.NewResourceServer(t, as, oauthtest.ResourceOptions{AuthorizationServer: tt.issuer})
			left := len(away.requests())
			w := d.connectURL("remote", rs.URL)
			if n := d.declineUntilDone(w); n != 0 {
				t.Errorf("the user was asked %d times", n)
			}
			if w.err == nil || !strings.Contains(w.err.Error(), "elicitray does not sign in to remote: "+tt.want) {
				t.Errorf("initialize: %v\nwant the sentence %q", w.err, tt.want)
			}
			if got := away.requests()[left:]; len(got) != 0 {
				t.Errorf("requests left the machine: %q", got)
			}
			if _, err := os.Stat(filepath.Join(browser, "opened")); err == nil {
				t.Errorf("the browser was opened")
			}
			for _, seen := range as.Seen() {
				if seen != "register" {
					t.Errorf("the authorization server saw %q", seen)
				}
			}
		})
	}
}

// An authorization server whose token response elicitray must not keep: a
// token of another type than Bearer (every request would be refused), or
// one larger than any token (it would be written, then refused by the
// token file's reader on every later start); or one it cannot read or
// that has no access_token, after which the used code cannot sign in. The
// sign-in ends at once with the sentence, nothing is stored, and `auth
// list` reads the token directory as before.
func TestWrapURLRefusesTokenResponses(t *testing.T) {
	d := newParallelDesktop(t)
	browser := d.browserStandIn()
	d.startHubHere()
	for _, tt := range []struct {
		name   string
		change func(map[string]any)
		want   string
		body   func([]byte) []byte
	}{
		{"mac token", func(r map[string]any) { r["token_type"] = "mac" },
			`signing in to remote: the authorization server gave a token of type "mac"; MCP authorization uses Bearer tokens only, so elicitray did not keep it`, nil},
		{"20 MB token", func(r map[string]any) { r["access_token"] = strings.Repeat("a", 20<<20) },
			"signing in to remote: the answer of the token endpoint " /* URL */, nil},
		{"token_type number", func(r map[string]any) { r["token_type"] = 1 },
			"/token took the code and answered with a token response elicitray cannot read (json: cannot unmarshal number", nil},
		{"not JSON", nil, "/token took the code and answered with a token response elicitray cannot read (invalid character '<'",
			func([]byte) []byte { return []byte("<html>Signed in!</html>") }},
		{"no access_token", func(r map[string]any) { delete(r, "access_token") },
			"signing in to remote: the token endpoint gave a token response without an access_token, so elicitray has no token to keep", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := d.with(t)
			as := oauthtest.NewAuthServer(t, oauthtest.Options{Token: tt.change, TokenBody: tt.body})
			rs := oauthtest.NewResourceServer(t, as)
			w := d.connectURL("remote", rs.URL)
			d.openSignIn()
			if n := d.declineUntilDone(w); n != 0 {
				t.Errorf("the user was asked %d more times", n)
			}
			if w.err == nil || !strings.Contains(w.err.Error(), tt.want) {
				t.Errorf("initialize: %v\nwant the sentence %q", w.err, tt.want)
			}
			if tt.name == "20 MB token" && (w.err == nil || !strings.Contains(w.err.Error(), as.URL+"/token is larger than 128 KiB")) {
				t.Errorf("initialize: %v\nwant it to name the token endpoint and the bound", w.err)
			}
			if page := browserPage(t, browser); !strings.Contains(page, "elicitray did not finish the sign-in") {
				t.Errorf("the browser's last page: %q", page)
			}
			os.Remove(filepath.Join(browser, "page"))
			if rec, err := oauth.Load(d.paths.Auth, "remote"); err != nil || (rec != nil && rec.Token != nil) {
				t.Errorf("the token file after the refusal: %v, %v; want no token", rec, err)
			}
			list := exec.Command(testkit.Binary(t), "auth", "list")
			list.Env = d.env
			if out, err := list.CombinedOutput(); err != nil || strings.Contains(string(out), "token file") {
				t.Errorf("auth list: %v\n%s", err, out)
			}
			d.elicitray("auth", "logout", "remote")
		})
	}
}

// Someone who read the authorization request's state (another user of the
// machine can read the browser's command line) sends the loopback
// redirect forged answers before the real one: a code of their own, an
// error, no code, and another state. None ends the sign-in; each is
// turned away and said on the wrapper's log, and the real answer, which
// follows, signs in.
func TestWrapURLForgedRedirect(t *testing.T) {
	d := newParallelDesktop(t)
	d.browserStandIn()
	d.startHubHere()
	type visit struct {
		status int
		page   string
	}
	var forged []visit
	as := oauthtest.NewAuthServer(t, oauthtest.Options{Authorize: func(q url.Values) {
		state := q.Get("state")
		for _, v := range []url.Values{
			{"state": {state}, "code": {"forged"}},
			{"state": {state}, "error": {"access_denied"}},
			{"state": {state}},
			{"state": {"stolen-elsewhere"}, "code": {"forged"}},
		} {
			resp, err := http.Get(q.Get("redirect_uri") + "?" + v.Encode())
			if err != nil {
				forged = append(forged, visit{0, err.Error()})
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			forged = append(forged, visit{resp.StatusCode, string(b)})
		}
	}})
	rs := oauthtest.NewResourceServer(t, as)
	w := d.connectURL("remote", rs.URL)
	d.openSignIn()
	if got := w.whoami(); got != "signed in" {
		t.Errorf("whoami through the wrapper: %q", got)
	}
	wantPages := []string{
		"elicitray did not use this answer: the token endpoint refused its code (OAuth error: invalid_grant",
		"elicitray did not use this answer: it says the authorization server refused the sign-in: &#34;access_denied&#34;",
		"elicitray did not use this answer: it carries no authorization code",
		"This is not the sign-in elicitray is waiting for.",
	}
	if len(forged) != len(wantPages) {
		t.Fatalf("the forged answers got %v", forged)
	}
	for i, want := range wantPages {
		if !strings.Contains(forged[i].page, want) {
			t.Errorf("forged answer %d got %d %q, want a page saying %q", i, forged[i].status, forged[i].page, want)
		}
	}
	log := w.log()
	if n := strings.Count(log, "an answer came back to the sign-in redirect and was not used"); n != 3 {
		t.Errorf("the wrapper's log says %d answers were not used, want 3:\n%s", n, log)
	}
	if !strings.Contains(log, "remote: a request to the sign-in redirect without this sign-in's state was turned away") || !strings.Contains(log, "remote: signed in") {
		t.Errorf("the wrapper's log does not say what happened:\n%s", log)
	}
}
