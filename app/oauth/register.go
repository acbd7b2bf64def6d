package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
)

// register registers elicitray with the authorization server of md
// (RFC 7591 dynamic client registration) as a public native client: no
// secret, the loopback redirect, the authorization code and refresh token
// grants, and the scopes it will ask for. mcp-go's RegisterClient sends no
// application_type, which MCP authorization (2026-07-28, SEP-837) asks
// native clients to send as "native" (the authorization server may then
// allow loopback redirects on any port), and keeps the result in the
// handler alone; this returns it for the token file.
func (s *Server) register(ctx context.Context, md *transport.AuthServerMetadata, redirect string, scopes []string) (Registration, error) {
	body := map[string]any{
		"client_name":                "elicitray (" + s.opts.Name + ")",
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"application_type":           "native",
	}
	if len(scopes) > 0 {
		body["scope"] = strings.Join(scopes, " ")
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, bytes.NewReader(b))
	if err != nil {
		return Registration{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := s.httpClient().Do(req)
	if err != nil {
		return Registration{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Registration{}, err
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var oe transport.OAuthError
		if json.Unmarshal(data, &oe) == nil && oe.ErrorCode != "" {
			return Registration{}, fmt.Errorf("the authorization server refused the registration: %w", oe)
		}
		return Registration{}, fmt.Errorf("the authorization server answered the registration %s", resp.Status)
	}
	var got struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(data, &got); err != nil || got.ClientID == "" {
		return Registration{}, fmt.Errorf("the registration's answer holds no client id (%v)", err)
	}
	method := got.AuthMethod
	if method == "" {
		// RFC 7591 §2: the default is client_secret_basic, for a client
		// that was given a secret.
		method = "none"
		if got.ClientSecret != "" {
			method = "client_secret_basic"
		}
	}
	return Registration{ClientID: got.ClientID, ClientSecret: got.ClientSecret, AuthMethod: method, RedirectURI: redirect}, nil
}
