package oauth_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/elicitray/elicitray/app/oauth"
	"github.com/elicitray/elicitray/app/oauth/oauthtest"
)

// A forged answer with the sign-in's state, and no real one after it (the
// user closed the tab): the sign-in waits its whole time, and its error
// then says what came back and why it was not used, not only that the
// browser did not come back.
func TestForgedAnswerAloneTimesOut(t *testing.T) {
	w := newWorld(t)
	pages := make(chan string, 1)
	consent := func(ctx context.Context, authURL string) error {
		au, _ := url.Parse(authURL)
		q := au.Query()
		go func() {
			v := url.Values{"state": {q.Get("state")}, "code": {"forged"}}
			resp, err := http.Get(q.Get("redirect_uri") + "?" + v.Encode())
			if err != nil {
				pages <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			pages <- string(b)
		}()
		return nil
	}
	const wait = 2 * time.Second
	srv, err := oauth.New(oauth.Options{Name: name, URL: w.rs.URL, Dir: w.dir, Consent: consent, Logf: w.log.logf, Wait: wait})
	if err != nil {
		t.Fatal(err)
	}
	h := transport.NewOAuthHandler(*srv.Config())
	h.SetBaseURL(w.rs.URL)
	err = srv.Authorize(t.Context(), h)
	want := "no usable answer came back from signing in to remote within 2s; the sign-in redirect turned away 1: the token endpoint refused its code (OAuth error: invalid_grant"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Authorize: %v\nwant %q", err, want)
	}
	if page := <-pages; !strings.Contains(page, "elicitray did not use this answer") || !strings.Contains(page, "It goes on waiting for the sign-in until") {
		t.Errorf("the forged answer's page: %q", page)
	}
	if rec, _ := oauth.Load(w.dir, name); rec != nil && rec.Token != nil {
		t.Errorf("a token was stored")
	}
}

// A token_type is compared without case (RFC 6749 §5.1), and the token is
// sent as Bearer.
func TestLowercaseBearer(t *testing.T) {
	w := newWorld(t)
	w.as = oauthtest.NewAuthServer(t, oauthtest.Options{Token: func(r map[string]any) { r["token_type"] = "bEaReR" }})
	w.rs = oauthtest.NewResourceServer(t, w.as)
	w.signedIn(t)
	if rec := w.record(t); rec.Token.TokenType != "Bearer" {
		t.Errorf("stored token_type %q, want Bearer", rec.Token.TokenType)
	}
}

// The token file's writer refuses what its reader would: a record past the
// bound is not written, and says so, and the one before it stays.
func TestTokenFileBoundShared(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	rec := &oauth.Record{Name: name, URL: "https://example.com/mcp", Token: &transport.Token{AccessToken: "small", TokenType: "Bearer"}}
	if err := oauth.Save(dir, rec); err != nil {
		t.Fatal(err)
	}
	big := *rec
	big.Token = &transport.Token{AccessToken: strings.Repeat("a", 1<<20), TokenType: "Bearer"}
	err := oauth.Save(dir, &big)
	if err == nil || !strings.Contains(err.Error(), "more than the 1024 KiB a token file may hold; elicitray did not keep it") {
		t.Errorf("Save of a record past the bound: %v", err)
	}
	got, err := oauth.Load(dir, name)
	if err != nil || got == nil || got.Token.AccessToken != "small" {
		t.Errorf("the token file after the refusal: %v, %v", got, err)
	}
	// A file past the bound (written by an older elicitray) says what to do.
	if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(strings.Repeat(" ", 1<<20+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := oauth.Load(dir, name); err == nil || !strings.Contains(err.Error(), "`elicitray auth logout remote` removes it") {
		t.Errorf("Load of a file past the bound: %v", err)
	}
}

// Authorization server metadata past the bound on answers is refused with
// a sentence naming it, not read whole, and nothing is opened.
func TestMetadataTooLarge(t *testing.T) {
	w := newWorld(t)
	w.as = oauthtest.NewAuthServer(t, oauthtest.Options{Metadata: func(md map[string]any) { md["op_policy_uri"] = w.as.URL + "/" + strings.Repeat("p", 1<<20) }})
	w.rs = oauthtest.NewResourceServer(t, w.as)
	_, err := w.run(t)
	want := "elicitray does not sign in to remote: the answer of the authorization server metadata " + w.as.URL + "/.well-known/oauth-authorization-server is larger than 128 KiB"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("run: %v\nwant %q", err, want)
	}
	if n := len(w.user.consents()); n != 0 {
		t.Errorf("the user was asked %d times", n)
	}
}

// A token response the token endpoint sent for the real code that elicitray
// cannot use ends the sign-in at once with a sentence naming the endpoint:
// the code is used, so no later answer to the redirect could finish it.
// The user's browser is told so, and no token is kept.
func TestMalformedTokenResponseEndsSignIn(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts oauthtest.Options
		want string
	}{
		{"token_type a number", oauthtest.Options{Token: func(r map[string]any) { r["token_type"] = 1 }},
			"/token took the code and answered with a token response elicitray cannot read (json: cannot unmarshal number"},
		{"not JSON", oauthtest.Options{TokenBody: func([]byte) []byte { return []byte("<html>Signed in!</html>") }},
			"/token took the code and answered with a token response elicitray cannot read (invalid character '<'"},
		{"no access_token", oauthtest.Options{Token: func(r map[string]any) { delete(r, "access_token") }},
			"signing in to remote: the token endpoint gave a token response without an access_token, so elicitray has no token to keep"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.as = oauthtest.NewAuthServer(t, tt.opts)
			w.rs = oauthtest.NewResourceServer(t, w.as)
			const wait = 10 * time.Second
			srv, err := oauth.New(oauth.Options{Name: name, URL: w.rs.URL, Dir: w.dir, Consent: w.user.consent, Logf: w.log.logf, Wait: wait})
			if err != nil {
				t.Fatal(err)
			}
			h := transport.NewOAuthHandler(*srv.Config())
			h.SetBaseURL(w.rs.URL)
			start := time.Now()
			err = srv.Authorize(t.Context(), h)
			if took := time.Since(start); took >= wait {
				t.Errorf("Authorize took %v, the sign-in's whole wait", took)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Authorize: %v\nwant %q", err, tt.want)
			}
			if page := <-w.user.pages; !strings.Contains(page, "elicitray did not finish the sign-in") {
				t.Errorf("the browser showed %q", page)
			}
			if rec, _ := oauth.Load(w.dir, name); rec != nil && rec.Token != nil {
				t.Errorf("a token was stored: %+v", rec.Token)
			}
		})
	}
}
