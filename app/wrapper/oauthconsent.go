package wrapper

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/elicitray/elicitray/app/oauth"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
)

// Signing in to a remote server (wrap --url) is asked like a URL-mode
// elicitation: the hub's URL consent window shows the full authorization
// URL with its real host, and the hub opens the system browser only when
// the user chooses to (PROTOCOL.md §12: "Opening the browser for
// authorization is the same act as opening a URL-mode link"). The decision
// goes to history like any other.

// NewRemoteOAuth returns the OAuth client of the remote server name at
// serverURL, its tokens kept in p.Auth (made private here: 0700, not a
// link, the user's own), asking the user through approver (the wrapper's
// hub client). logf writes to the host's log.
func NewRemoteOAuth(p paths.Paths, name, serverURL string, pre oauth.Registration, approver bridge.Approver, logf func(format string, args ...any)) (*oauth.Server, error) {
	if err := paths.MakePrivateDir("the token directory", p.Auth); err != nil {
		return nil, err
	}
	return oauth.New(oauth.Options{Name: name, URL: serverURL, Dir: p.Auth, Consent: signInConsent(name, approver), Logf: logf, Client: pre})
}

// WithRemoteOAuth turns on MCP authorization for the remote server of o
// (wrap --url): the server named name signs in when it answers 401, its
// tokens kept in p.Auth and the consent asked through approver (the
// wrapper's hub client). With an Authorization header of the user's own
// (--header) it does nothing: that token is the one sent. o.Client's
// transport gets the stored token added where mcp-go leaves it out (the
// DELETE that ends the session; oauth.Server.RoundTripper).
//
// pre is a client registered beforehand (--client-id); zero, elicitray
// registers itself where the authorization server allows it.
func WithRemoteOAuth(o *bridge.HTTPOptions, p paths.Paths, name string, pre oauth.Registration, approver bridge.Approver, logf func(format string, args ...any)) error {
	if o.Header.Get("Authorization") != "" {
		return nil
	}
	srv, err := NewRemoteOAuth(p, name, o.URL, pre, approver, logf)
	if err != nil {
		return err
	}
	o.OAuth, o.Authorize = srv.Config(), srv.Authorize
	client := &http.Client{}
	if o.Client != nil {
		*client = *o.Client
	}
	client.Transport = srv.RoundTripper(client.Transport)
	o.Client = client
	return nil
}

// signInConsent is the oauth.Consent of server name: a URL-mode request to
// approver. Only the user's own accept counts as consent (the hub opened
// the browser then); no rule ever opens a link (policy.go).
func signInConsent(name string, approver bridge.Approver) oauth.Consent {
	return func(ctx context.Context, authURL string) error {
		id := make([]byte, 6)
		_, _ = rand.Read(id)
		req := &bridge.Request{
			ID:     "elicitray-signin-" + hex.EncodeToString(id),
			Time:   time.Now(),
			Server: name,
			Mode:   "url",
			Message: fmt.Sprintf("%s needs you to sign in. elicitray will open the sign-in page of its authorization server in your browser; "+
				"tokens are kept for you alone, and `elicitray auth logout %s` forgets them.", name, name),
			URL: authURL,
		}
		res, err := approver.Approve(ctx, req)
		if err != nil {
			return fmt.Errorf("no one could be asked to sign in to %s: %w", name, err)
		}
		switch {
		case res.Action == bridge.ActionAccept && (res.DecidedBy == "" || res.DecidedBy == bridge.DecidedByUser):
			return nil
		case res.Action == bridge.ActionDecline:
			return fmt.Errorf("you declined signing in to %s", name)
		case res.Reason != "":
			return fmt.Errorf("the sign-in to %s was not opened: %s", name, res.Reason)
		default:
			return fmt.Errorf("the sign-in window for %s was closed", name)
		}
	}
}
