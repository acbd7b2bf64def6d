package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// ErrNoRevocation is returned by Revoke for an authorization server that
// named no revocation endpoint: the tokens stay valid there until they
// expire.
var ErrNoRevocation = errors.New("the authorization server offers no token revocation")

// Revoke asks the authorization server to revoke rec's refresh token (and
// with it, RFC 7009 §2.1, the access tokens it issued), else its access
// token, at the revocation endpoint recorded at sign-in. client nil is
// http.DefaultClient; ctx bounds the request. A record with no token has
// nothing to revoke (nil).
func Revoke(ctx context.Context, client *http.Client, rec *Record) error {
	if rec.Token == nil || (rec.Token.RefreshToken == "" && rec.Token.AccessToken == "") {
		return nil
	}
	if rec.RevocationEndpoint == "" {
		return ErrNoRevocation
	}
	if err := checkEndpoint("the revocation endpoint", rec.RevocationEndpoint, true); err != nil {
		return fmt.Errorf("revoking the tokens of %s: %w", rec.Name, err)
	}
	c := &http.Client{}
	if client != nil {
		*c = *client
	}
	c.Transport = &guard{base: c.Transport}
	client = c
	form := url.Values{"token": {rec.Token.RefreshToken}, "token_type_hint": {"refresh_token"}}
	if rec.Token.RefreshToken == "" {
		form = url.Values{"token": {rec.Token.AccessToken}, "token_type_hint": {"access_token"}}
	}
	basic := rec.Client.AuthMethod == "client_secret_basic" && rec.Client.ClientSecret != ""
	if !basic {
		form.Set("client_id", rec.Client.ClientID)
		if rec.Client.ClientSecret != "" {
			form.Set("client_secret", rec.Client.ClientSecret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.RevocationEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("revoking the tokens of %s: %w", rec.Name, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basic {
		// RFC 6749 §2.3.1: form-encoded before they are the Basic credentials.
		req.SetBasicAuth(url.QueryEscape(rec.Client.ClientID), url.QueryEscape(rec.Client.ClientSecret))
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("revoking the tokens of %s: %w", rec.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("revoking the tokens of %s: the authorization server answered %s: %s", rec.Name, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
