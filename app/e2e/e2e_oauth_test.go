//go:build linux

package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/oauth"
	"github.com/elicitray/elicitray/app/oauth/oauthtest"
	"github.com/elicitray/elicitray/app/wrapper"
	"github.com/elicitray/elicitray/bridge"
)

// browserStandIn puts an xdg-open on the PATH of the processes d starts
// (setenv) that does what a browser does with the link: it notes it in
// dir/opened and follows it (curl -L) to the loopback redirect, keeping
// the last page in dir/page.
func (d *testDesktop) browserStandIn() (dir string) {
	t := d.t
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("curl stands in for the browser: %v", err)
	}
	dir = t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$1\" >> %s/opened\nexec curl -sS -L -o %s/page \"$1\"\n", dir, dir)
	if err := os.WriteFile(filepath.Join(dir, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	d.setenv("PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"))
	return dir
}

// browserPage is the last page the browser stand-in in dir showed, once
// it has shown one: the sign-in ends when the redirect reaches the
// loopback, a moment before curl has written the page it got back.
func browserPage(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "page")
	deadline := time.Now().Add(desktopWait)
	for {
		if page, err := os.ReadFile(path); err == nil && len(page) > 0 {
			return string(page)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the browser showed no page within %v", desktopWait)
		}
		time.Sleep(pollEvery)
	}
}

// startHubHere starts a hub with the test's environment (its PATH holds
// the browser stand-in) and waits until it answers.
func (d *testDesktop) startHubHere() {
	d.t.Helper()
	cmd := exec.Command(testkit.Binary(d.t), "hub")
	cmd.Env = d.env
	logf, err := os.Create(filepath.Join(d.t.TempDir(), "hub.out"))
	if err != nil {
		d.t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	go cmd.Wait()
	d.awaitHub(logOf(logf.Name()))
}

// remoteRun is one run of a wrapper of the protected server rs: the
// wrapper's hub client asks the consent, mcp-go's transport carries the
// tokens, and initialize and a tools/call are retried once after
// Authorize, as bridge/http.go does. It sends the tool's text, or the
// error, on the channel.
func (d *testDesktop) remoteRun(rs *oauthtest.ResourceServer, log *testkit.SyncBuf) <-chan string {
	out := make(chan string, 1)
	hc := &wrapper.Approver{Paths: d.paths, SayHub: true, Log: log}
	srv, err := wrapper.NewRemoteOAuth(d.paths, "remote", rs.URL, oauth.Registration{}, hc, func(f string, a ...any) { fmt.Fprintf(log, f+"\n", a...) })
	if err != nil {
		d.t.Fatal(err)
	}
	go func() {
		defer hc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), desktopWait)
		defer cancel()
		tr, err := transport.NewStreamableHTTP(rs.URL, transport.WithHTTPOAuth(*srv.Config()),
			transport.WithHTTPBasicClient(&http.Client{Transport: srv.RoundTripper(nil)}))
		if err != nil {
			out <- err.Error()
			return
		}
		c := client.NewClient(tr)
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
		if err := c.Start(ctx); err != nil {
			out <- err.Error()
			return
		}
		var text string
		err = retry(func() error {
			_, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: "2025-11-25",
				ClientInfo: mcp.Implementation{Name: "host", Version: "1"}}})
			return err
		})
		if err == nil {
			err = retry(func() error {
				res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "whoami"}})
				if err == nil {
					text = res.Content[0].(mcp.TextContent).Text
				}
				return err
			})
		}
		if err != nil {
			text = "error: " + err.Error()
		}
		out <- text
	}()
	return out
}

// Signing in to a remote server goes through the hub's URL consent window:
// the full authorization URL is shown, and the browser opens only after the
// user chooses Open; Decline opens nothing.
func TestSignInThroughHub(t *testing.T) {
	d := newParallelDesktop(t)
	browser := d.browserStandIn()
	d.startHubHere()
	as := oauthtest.NewAuthServer(t, oauthtest.Options{})
	rs := oauthtest.NewResourceServer(t, as)

	t.Run("Open", func(t *testing.T) {
		d := d.with(t)
		log := &testkit.SyncBuf{}
		run := d.remoteRun(rs, log)
		win, _ := d.window()
		if got := d.title(win); !strings.Contains(got, "remote") {
			t.Errorf("the consent window's title %q does not name the server", got)
		}
		if _, err := os.Stat(filepath.Join(browser, "opened")); err == nil {
			t.Fatalf("the browser opened before the user agreed")
		}
		// Focus moves at once (Tab is not guarded): Cancel → Decline → Open.
		d.xdo("key", "--window", win, "Tab")
		d.xdo("key", "--window", win, "Tab")
		d.answer(win, "Return")
		if got := <-run; got != "signed in" {
			t.Fatalf("the run ended with %q\nwrapper log:\n%s%s", got, log, d.diagnostics())
		}
		opened, _ := os.ReadFile(filepath.Join(browser, "opened"))
		links := strings.Fields(string(opened))
		if len(links) != 1 || !strings.HasPrefix(links[0], as.URL+"/authorize?") {
			t.Fatalf("the browser opened %q, want the authorization URL once", links)
		}
		u, _ := url.Parse(links[0])
		if u.Query().Get("resource") != rs.URL || u.Query().Get("code_challenge_method") != "S256" {
			t.Errorf("the authorization URL lacks the resource or PKCE: %s", links[0])
		}
		if page := browserPage(t, browser); !strings.Contains(page, "Signed in") {
			t.Errorf("the browser's last page: %q", page)
		}
		rec := d.history()[0]
		if rec.Server != "remote" || rec.Mode != "url" || rec.URL != bridge.RedactURL(links[0]) || rec.Action != "accept" || rec.DecidedBy != "user" {
			t.Errorf("history keeps %+v, want remote's sign-in URL (without its tokens) accepted by the user", decisionOf(rec))
		}
		if r, err := oauth.Load(d.paths.Auth, "remote"); err != nil || r == nil || r.Token == nil {
			t.Errorf("no token stored: %v %v", r, err)
		}
		if fi, err := os.Lstat(d.paths.Auth); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("the token directory: %v %v, want 0700", fi.Mode(), err)
		}
	})

	t.Run("Decline", func(t *testing.T) {
		d := d.with(t)
		if out := d.elicitray("auth", "logout", "remote"); !strings.Contains(out, "forgot the sign-in of remote") {
			t.Fatalf("logout: %q", out)
		}
		before := len(as.Authorizations())
		log := &testkit.SyncBuf{}
		run := d.remoteRun(rs, log)
		win, _ := d.window()
		d.answer(win, "alt+d")
		got := <-run
		if !strings.Contains(got, "you declined signing in to remote") {
			t.Errorf("the run ended with %q, want it to say the sign-in was declined", got)
		}
		if n := len(as.Authorizations()); n != before {
			t.Errorf("the authorization server was visited after Decline")
		}
		if opened, _ := os.ReadFile(filepath.Join(browser, "opened")); len(strings.Fields(string(opened))) != 1 {
			t.Errorf("the browser opened after Decline: %q", opened)
		}
	})
}

// wrapURL is a host's connection to `elicitray wrap --url`, being made in
// the background: initialize waits while the user signs in.
type wrapURL struct {
	d       *testDesktop
	done    chan struct{}
	cs      *sdkmcp.ClientSession
	err     error
	logPath string
}

// connectURL starts `elicitray wrap --name name --url u` as the official Go
// SDK's host would, and connects in the background.
func (d *testDesktop) connectURL(name, u string, extra ...string) *wrapURL {
	d.t.Helper()
	w := &wrapURL{d: d, done: make(chan struct{}), logPath: filepath.Join(d.t.TempDir(), "wrapper-"+name+".log")}
	logf, err := os.Create(w.logPath)
	if err != nil {
		d.t.Fatal(err)
	}
	d.logs = append(d.logs, w.logPath)
	cmd := exec.Command(testkit.Binary(d.t), append([]string{"wrap", "--name", name, "--url", u}, extra...)...)
	cmd.Env = d.env
	cmd.Stderr = logf
	host := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "elicitray-e2e-host", Version: "1.0.0"}, nil)
	go func() {
		defer close(w.done)
		w.cs, w.err = host.Connect(context.WithoutCancel(d.t.Context()), &sdkmcp.CommandTransport{Command: cmd},
			&sdkmcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	}()
	d.t.Cleanup(func() {
		<-w.done
		if w.cs != nil {
			w.cs.Close()
		}
		logf.Close()
	})
	return w
}

// log is what the wrapper wrote for people so far.
func (w *wrapURL) log() string {
	b, _ := os.ReadFile(w.logPath)
	return string(b)
}

// whoami waits for the session and calls the protected server's tool
// through the wrapper, then ends the session (the wrapper exits).
func (w *wrapURL) whoami() string {
	d := w.d
	d.t.Helper()
	select {
	case <-w.done:
	case <-time.After(desktopWait):
		d.t.Fatalf("initialize through elicitray wrap --url did not finish within %v\nwrapper log:\n%s%s", desktopWait, w.log(), d.diagnostics())
	}
	if w.err != nil {
		d.t.Fatalf("connecting to elicitray wrap --url: %v\nwrapper log:\n%s%s", w.err, w.log(), d.diagnostics())
	}
	res, err := w.cs.CallTool(d.t.Context(), &sdkmcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil {
		d.t.Fatalf("tools/call whoami: %v\nwrapper log:\n%s", err, w.log())
	}
	w.cs.Close()
	w.cs = nil
	return res.Content[0].(*sdkmcp.TextContent).Text
}

// openSignIn answers the sign-in consent window with Open in browser.
func (d *testDesktop) openSignIn() {
	d.t.Helper()
	win, _ := d.window()
	if got := d.title(win); !strings.Contains(got, "remote") {
		d.t.Errorf("the consent window's title %q does not name the server", got)
	}
	// Focus moves at once (Tab is not guarded): Cancel → Decline → Open.
	d.xdo("key", "--window", win, "Tab")
	d.xdo("key", "--window", win, "Tab")
	d.answer(win, "Return")
}

// The whole of it through the real wrapper binary: a host starts `elicitray
// wrap --url` for a protected server; the first run asks the user to sign
// in (the hub's window, then the browser); the next run uses the stored
// token without asking; a revoked refresh token brings the window back,
// and the wrapper's log says why; auth list and logout see the sign-in.
func TestWrapURLSignIn(t *testing.T) {
	d := newParallelDesktop(t)
	browser := d.browserStandIn()
	d.startHubHere()
	as := oauthtest.NewAuthServer(t, oauthtest.Options{})
	rs := oauthtest.NewResourceServer(t, as)
	opened := func() int {
		b, _ := os.ReadFile(filepath.Join(browser, "opened"))
		return len(strings.Fields(string(b)))
	}

	t.Run("first run signs in", func(t *testing.T) {
		d := d.with(t)
		w := d.connectURL("remote", rs.URL)
		d.openSignIn()
		if got := w.whoami(); got != "signed in" {
			t.Errorf("whoami through the wrapper: %q", got)
		}
		if opened() != 1 {
			t.Errorf("the browser opened %d links, want the authorization URL once", opened())
		}
		if log := w.log(); !strings.Contains(log, "elicitray: remote: asking you to sign in at "+as.URL) || !strings.Contains(log, "elicitray: remote: signed in") {
			t.Errorf("the wrapper's log does not say it signed in:\n%s", log)
		}
		if fi, err := os.Lstat(filepath.Join(d.paths.Auth, "remote.json")); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("the token file: %v, %v; want mode 0600", fi, err)
		}
	})

	t.Run("next run uses the token", func(t *testing.T) {
		d := d.with(t)
		before := len(d.history())
		// No one answers any window here: initialize gets through only
		// because none is shown.
		if got := d.connectURL("remote", rs.URL).whoami(); got != "signed in" {
			t.Errorf("whoami through the wrapper: %q", got)
		}
		if n := len(d.history()); n != before || opened() != 1 {
			t.Errorf("the second run asked the user (%d new decisions, %d links opened)", n-before, opened())
		}
	})

	t.Run("revoked refresh token", func(t *testing.T) {
		d := d.with(t)
		rec, err := oauth.Load(d.paths.Auth, "remote")
		if err != nil || rec == nil || rec.Token == nil {
			t.Fatalf("the stored sign-in: %v, %v", rec, err)
		}
		if err := as.Revoke(rec.Client.ClientID, rec.Token.RefreshToken); err != nil {
			t.Fatal(err)
		}
		w := d.connectURL("remote", rs.URL)
		d.openSignIn()
		if got := w.whoami(); got != "signed in" {
			t.Errorf("whoami through the wrapper: %q", got)
		}
		if log := w.log(); !strings.Contains(log, "elicitray: remote: the authorization server no longer accepts the stored refresh token (OAuth error: invalid_grant") {
			t.Errorf("the wrapper's log does not say why it asked again:\n%s", log)
		}
		if opened() != 2 {
			t.Errorf("the browser opened %d links, want a second sign-in", opened())
		}
	})

	t.Run("auth list and logout", func(t *testing.T) {
		d := d.with(t)
		list := exec.Command(testkit.Binary(t), "auth", "list")
		list.Env = d.env
		out, err := list.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "remote") || !strings.Contains(string(out), rs.URL) || !strings.Contains(string(out), as.URL) {
			t.Errorf("auth list: %v\n%s", err, out)
		}
		rec, _ := oauth.Load(d.paths.Auth, "remote")
		if rec != nil && rec.Token != nil && strings.Contains(string(out), rec.Token.AccessToken) {
			t.Errorf("auth list printed the access token")
		}
		logout := exec.Command(testkit.Binary(t), "auth", "logout", "remote")
		logout.Env = d.env
		if out, err := logout.CombinedOutput(); err != nil || !strings.Contains(string(out), "revoked at its authorization server") {
			t.Errorf("auth logout: %v\n%s", err, out)
		}
		if rec != nil && rec.Token != nil && as.Valid(t.Context(), rec.Token.AccessToken) {
			t.Errorf("the access token is still good after logout")
		}
	})
}

// An authorization server without dynamic registration: the user gives the
// client they registered there with --client-id, its secret in the
// environment variable --client-secret-env names; elicitray signs in as
// that client (HTTP Basic at the token endpoint), registers nothing, and
// never writes the secret to its log or the token file.
func TestWrapURLPreRegistered(t *testing.T) {
	d := newParallelDesktop(t)
	d.browserStandIn()
	d.startHubHere()
	as := oauthtest.NewAuthServer(t, oauthtest.Options{NoRegistration: true})
	rs := oauthtest.NewResourceServer(t, as)
	const secret = "s3cret-of-the-registered-client"
	if err := as.AddClient("elicitray-desktop", secret); err != nil {
		t.Fatal(err)
	}
	d.setenv("REMOTE_CLIENT_SECRET=" + secret)

	w := d.connectURL("remote", rs.URL, "--client-id", "elicitray-desktop", "--client-secret-env", "REMOTE_CLIENT_SECRET")
	d.openSignIn()
	if got := w.whoami(); got != "signed in" {
		t.Errorf("whoami through the wrapper: %q", got)
	}
	want := []string{"authorize", "token:authorization_code"}
	if diff := cmp.Diff(want, as.Seen()); diff != "" {
		t.Errorf("authorization server requests mismatch (-want +got):\n%s", diff)
	}
	if q := as.Authorizations()[0]; q.Get("client_id") != "elicitray-desktop" {
		t.Errorf("signed in as client %q", q.Get("client_id"))
	}
	if strings.Contains(w.log(), secret) {
		t.Errorf("the wrapper's log holds the client secret")
	}
	if b, err := os.ReadFile(filepath.Join(d.paths.Auth, "remote.json")); err != nil || strings.Contains(string(b), secret) {
		t.Errorf("the token file holds the client secret (or is missing: %v)", err)
	}

	// The next run signs in with the stored token; no window.
	if got := d.connectURL("remote", rs.URL, "--client-id", "elicitray-desktop", "--client-secret-env", "REMOTE_CLIENT_SECRET").whoami(); got != "signed in" {
		t.Errorf("whoami in the second run: %q", got)
	}
}

// Without a client id for an authorization server that has no dynamic
// registration, the host's request gets a sentence saying what to give.
func TestWrapURLNeedsClientID(t *testing.T) {
	d := newParallelDesktop(t)
	d.browserStandIn()
	d.startHubHere()
	as := oauthtest.NewAuthServer(t, oauthtest.Options{NoRegistration: true})
	rs := oauthtest.NewResourceServer(t, as)
	w := d.connectURL("remote", rs.URL)
	<-w.done
	if w.err == nil || !strings.Contains(w.err.Error(), "offers no dynamic client registration: register a client there and give its id with --client-id") {
		t.Errorf("initialize: %v, want the sentence saying to give --client-id", w.err)
	}
}
