//go:build linux

package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/wrapper"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/elicitray/elicitray/app/oauth"
	"github.com/elicitray/elicitray/app/oauth/oauthtest"
	"github.com/elicitray/elicitray/app/paths"
)

func TestAuthListLogout(t *testing.T) {
	testkit.Home(t)
	p := paths.FromEnv(os.Getenv)
	if err := paths.MakePrivateDir("the token directory", p.Auth); err != nil {
		t.Fatal(err)
	}
	secrets := []string{"ACCESS-abc", "REFRESH-def", "CLIENT-SECRET-ghi", "client-id-jkl"}
	for _, r := range []*oauth.Record{
		{Name: "linear", URL: "https://mcp.linear.app/mcp", AuthServer: "https://auth.linear.app\x1b]0;pwned\a",
			Client: oauth.Registration{ClientID: secrets[3], ClientSecret: secrets[2], RedirectURI: "http://127.0.0.1:41234/callback"},
			Token:  &transport.Token{AccessToken: secrets[0], RefreshToken: secrets[1], ExpiresAt: time.Now().Add(time.Hour)}},
		{Name: "notion", URL: "https://mcp.notion.com/mcp", AuthServer: "https://api.notion.com"},
	} {
		if err := oauth.Save(p.Auth, r); err != nil {
			t.Fatal(err)
		}
	}
	out := cli(t, "auth", "list")
	for _, want := range []string{"SERVER", "AUTHORIZATION SERVER", "linear", "https://mcp.linear.app/mcp", "https://auth.linear.app",
		"expires ", "refreshed without asking", "notion", "none: signs in at the next request"} {
		if !strings.Contains(out, want) {
			t.Errorf("auth list lacks %q:\n%s", want, out)
		}
	}
	for _, s := range append(secrets, "\x1b", "\a") {
		if strings.Contains(out, s) {
			t.Errorf("auth list printed %q:\n%s", s, out)
		}
	}

	if out := cli(t, "auth", "logout", "linear"); !strings.Contains(out, "forgot the sign-in of linear") {
		t.Errorf("logout said %q", out)
	}
	if _, err := os.Lstat(filepath.Join(p.Auth, "linear.json")); !os.IsNotExist(err) {
		t.Errorf("the token file of linear is still there (%v)", err)
	}
	if out := cli(t, "auth", "list"); strings.Contains(out, "linear") || !strings.Contains(out, "notion") {
		t.Errorf("auth list after logout:\n%s", out)
	}
	var o, e bytes.Buffer
	if code := Main(context.Background(), []string{"auth", "logout", "linear"}, nil, &o, &e); code != exitError ||
		!strings.Contains(e.String(), "no sign-in is stored for linear") {
		t.Errorf("second logout: exit %d, stderr %q", code, e.String())
	}

	// A link planted in place of a token file is named, not followed.
	if err := os.Symlink("/etc/passwd", filepath.Join(p.Auth, "planted.json")); err != nil {
		t.Fatal(err)
	}
	o.Reset()
	e.Reset()
	if code := Main(context.Background(), []string{"auth", "list"}, nil, &o, &e); code != 0 ||
		!strings.Contains(e.String(), "planted.json is a symbolic link (to /etc/passwd)") || !strings.Contains(o.String(), "notion") {
		t.Errorf("list with a planted link: exit %d, stdout %q, stderr %q", code, o.String(), e.String())
	}
}

func TestAuthRefusesPlantedDirectory(t *testing.T) {
	home := testkit.Home(t)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(home, "auth")); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	if code := Main(context.Background(), []string{"auth", "list"}, nil, &o, &e); code != exitError ||
		!strings.Contains(e.String(), "the token directory "+filepath.Join(home, "auth")+" is a symbolic link") {
		t.Errorf("auth list with a planted directory: exit %d, stderr %q", code, e.String())
	}
	if _, err := wrapper.NewRemoteOAuth(paths.FromEnv(os.Getenv), "remote", "https://example.com/mcp", oauth.Registration{}, nil, nil); err == nil ||
		!strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a wrapper took the planted token directory: %v", err)
	}
}

// logout revokes the tokens at the authorization server before it forgets
// them: the refresh token is no longer good there.
func TestAuthLogoutRevokes(t *testing.T) {
	testkit.Home(t)
	p := paths.FromEnv(os.Getenv)
	as := oauthtest.NewAuthServer(t, oauthtest.Options{})
	rs := oauthtest.NewResourceServer(t, as)
	pages := make(chan string, 1)
	if err := paths.MakePrivateDir("the token directory", p.Auth); err != nil {
		t.Fatal(err)
	}
	srv, err := oauth.New(oauth.Options{Name: "remote", URL: rs.URL, Dir: p.Auth, Consent: oauthtest.Agree(pages)})
	if err != nil {
		t.Fatal(err)
	}
	h := transport.NewOAuthHandler(*srv.Config())
	h.SetBaseURL(rs.URL)
	if err := srv.Authorize(t.Context(), h); err != nil {
		t.Fatalf("signing in: %v", err)
	}
	<-pages
	rec, _ := oauth.Load(p.Auth, "remote")
	if rec == nil || rec.Token == nil || rec.RevocationEndpoint != as.URL+"/revoke" {
		t.Fatalf("the sign-in stored %+v", rec)
	}
	if !as.Valid(t.Context(), rec.Token.AccessToken) {
		t.Fatal("the access token is not valid before logout")
	}
	if out := cli(t, "auth", "logout", "remote"); !strings.Contains(out, "forgot the sign-in of remote: its tokens and client registration, revoked at its authorization server") {
		t.Errorf("logout said %q", out)
	}
	if seen := as.Seen(); seen[len(seen)-1] != "revoke" {
		t.Errorf("the authorization server saw %v, want a revocation last", seen)
	}
	if as.Valid(t.Context(), rec.Token.AccessToken) {
		t.Errorf("the access token is still valid after logout")
	}
	// The client as registered, asking for a refresh.
	client := transport.NewOAuthHandler(transport.OAuthConfig{ClientID: rec.Client.ClientID, RedirectURI: rec.Client.RedirectURI, PKCEEnabled: true})
	client.SetBaseURL(rs.URL)
	if _, err := client.RefreshToken(t.Context(), rec.Token.RefreshToken); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Errorf("the refresh token after logout: %v, want invalid_grant", err)
	}
}
