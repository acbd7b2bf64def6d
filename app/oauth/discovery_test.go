package oauth_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/oauth/oauthtest"
)

// An authorization server that lost elicitray's registration refuses the
// refresh for the client: elicitray registers again and asks the user.
func TestForgottenRegistration(t *testing.T) {
	w := newWorld(t)
	w.signedIn(t)
	old := w.record(t).Client.ClientID
	w.as.ForgetClients()
	w.setExpiry(t, time.Now().Add(-time.Hour))

	got, err := w.run(t)
	if err != nil || got != "signed in" {
		t.Fatalf("run after the registration was lost: %q, %v\nlog:\n%s", got, err, w.log)
	}
	<-w.user.pages
	if !strings.Contains(w.log.String(), "remote: the authorization server no longer knows elicitray's registration") {
		t.Errorf("the log does not say why the user is asked again:\n%s", w.log)
	}
	if n := strings.Count(strings.Join(w.as.Seen(), " "), "register"); n != 2 || len(w.user.consents()) != 2 {
		t.Errorf("want a second registration and sign-in; got %v, %d consents", w.as.Seen(), len(w.user.consents()))
	}
	if now := w.record(t).Client.ClientID; now == old || now == "" {
		t.Errorf("the new registration was not stored (client id %q, was %q)", now, old)
	}
}

// A request to the loopback redirect that does not carry the state of the
// authorization request is turned away, and the sign-in goes on.
func TestLoopbackTurnsAwayOtherPages(t *testing.T) {
	w := newWorld(t)
	w.user.rogue = make(chan string, 1)
	w.signedIn(t)
	if got := <-w.user.rogue; got != "400 <nil>" {
		t.Errorf("a response with another state was answered %s, want 400", got)
	}
	if seen := w.as.Seen(); seen[len(seen)-1] != "token:authorization_code" {
		t.Errorf("the sign-in did not finish after the other page: %v", seen)
	}
}

// A server whose protected resource metadata is found only through its
// 401 (not at a well-known URL): elicitray reads the WWW-Authenticate of a
// request without a token before discovery.
func TestMetadataNamedOnlyIn401(t *testing.T) {
	w := newWorld(t)
	w.rs = oauthtest.NewResourceServer(t, w.as, oauthtest.ResourceOptions{MetadataPath: "/meta/prm"})
	w.signedIn(t)
	if q := w.as.Authorizations()[0]; q.Get("resource") != w.rs.URL {
		t.Errorf("the authorization request's resource %q, want %q", q.Get("resource"), w.rs.URL)
	}
	// A later run refreshes before any 401 tells where the metadata is:
	// the token file keeps it.
	w.setExpiry(t, time.Now().Add(-time.Minute))
	if got, err := w.run(t); err != nil || got != "signed in" || len(w.user.consents()) != 1 {
		t.Errorf("the run after expiry: %q, %v, %d consents\nlog:\n%s", got, err, len(w.user.consents()), w.log)
	}
	if seen := w.as.Seen(); seen[len(seen)-1] != "token:refresh_token" {
		t.Errorf("the authorization server saw %v, want a refresh last", seen)
	}
}

// The scopes a server needs are asked for (MCP authorization's scope
// selection): those its 401 names, else its metadata's scopes_supported;
// registration asks for them too, so that the authorization server lets
// the client have them.
func TestScopes(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts oauthtest.ResourceOptions
	}{
		{"named in the 401", oauthtest.ResourceOptions{Scopes: []string{"mcp:read", "mcp:write"}}},
		{"in the metadata only", oauthtest.ResourceOptions{Scopes: []string{"mcp:read", "mcp:write"}, ScopesInMetadataOnly: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.rs = oauthtest.NewResourceServer(t, w.as, tt.opts)
			w.signedIn(t)
			if q := w.as.Authorizations()[0]; q.Get("scope") != "mcp:read mcp:write" {
				t.Errorf("the authorization request asked for scope %q, want %q", q.Get("scope"), "mcp:read mcp:write")
			}
			if got := w.record(t).Token.Scope; got != "mcp:read mcp:write" {
				t.Errorf("the token was granted %q", got)
			}
		})
	}
}

// A tool that needs more than the token was granted: the server answers
// 403 insufficient_scope, elicitray asks the user to sign in again for the
// scopes granted and those the tool needs, and the call goes through.
func TestStepUp(t *testing.T) {
	w := newWorld(t)
	w.rs = oauthtest.NewResourceServer(t, w.as, oauthtest.ResourceOptions{Scopes: []string{"mcp:read"}, ToolScopes: []string{"mcp:write"}})
	got, err := w.run(t)
	if err != nil || got != "signed in" {
		t.Fatalf("the tools/call that needed more scopes: %q, %v\nlog:\n%s", got, err, w.log)
	}
	<-w.user.pages
	<-w.user.pages
	auths := w.as.Authorizations()
	if len(auths) != 2 || auths[0].Get("scope") != "mcp:read" || auths[1].Get("scope") != "mcp:read mcp:write" {
		t.Errorf("want a sign-in for mcp:read, then one for mcp:read mcp:write; got %v", auths)
	}
	if len(w.user.consents()) != 2 || !strings.Contains(w.log.String(), `remote: the server needs more of your permission (scope "mcp:read mcp:write")`) {
		t.Errorf("%d consents; the log does not say why the user was asked again:\n%s", len(w.user.consents()), w.log)
	}
	if tok := w.record(t).Token; tok == nil || tok.Scope != "mcp:read mcp:write" {
		t.Errorf("the stored token: %+v", tok)
	}
}

// A server that needs no authorization is reached with OAuth configured:
// no sign-in, no request to any authorization server, no token file.
func TestServerWithoutAuthorization(t *testing.T) {
	w := newWorld(t)
	w.rs = oauthtest.NewResourceServer(t, w.as, oauthtest.ResourceOptions{Open: true})
	got, err := w.run(t)
	if err != nil || got != "signed in" {
		t.Fatalf("a run against a server without authorization: %q, %v\nlog:\n%s", got, err, w.log)
	}
	if len(w.user.consents()) != 0 || len(w.as.Seen()) != 0 {
		t.Errorf("the user was asked (%d) or the authorization server visited (%v)", len(w.user.consents()), w.as.Seen())
	}
	if n := len(w.rs.Anonymous()); n == 0 {
		t.Errorf("the open server saw no request without a token")
	}
	if _, err := os.Lstat(filepath.Join(w.dir, name+".json")); !os.IsNotExist(err) {
		t.Errorf("a token file was written for a server without authorization (%v)", err)
	}
}
