package oauth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// sendsIss reports whether the metadata of the authorization server issuer
// said authorization_response_iss_parameter_supported (RFC 9207 §3), a
// field mcp-go's AuthServerMetadata does not have.
func (s *Server) sendsIss(issuer string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issSent[issuer]
}

// probe sends the server one request without a token and returns its 401
// (body closed, headers kept), or nil when it answered otherwise. Its
// WWW-Authenticate names the protected resource metadata (RFC 9728 §5.1)
// and the scopes to ask for: with no token stored, mcp-go sends nothing,
// and looks for the metadata only at the well-known URL with the
// endpoint's path.
func (s *Server) probe(ctx context.Context) *http.Response {
	ping := `{"jsonrpc":"2.0","id":"elicitray-authorization-probe","method":"ping"}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.opts.URL, strings.NewReader(ping))
	if err != nil {
		return nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	// The server's own URL, which the wrapper talks to anyway: not the
	// guard's to refuse.
	resp, err := s.client(nil).Do(req)
	if err != nil {
		return nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return nil
	}
	return resp
}

// httpClient is the client of the sign-in's requests: Options.HTTPClient
// (nil: a 30 s timeout) through the guard.
func (s *Server) httpClient() *http.Client {
	return s.client(func(base http.RoundTripper) http.RoundTripper { return &guard{base: base, s: s} })
}

// client is Options.HTTPClient, or one with a 30 s timeout, its transport
// wrapped by wrap unless nil.
func (s *Server) client(wrap func(http.RoundTripper) http.RoundTripper) *http.Client {
	c := &http.Client{Timeout: 30 * time.Second}
	if s.opts.HTTPClient != nil {
		*c = *s.opts.HTTPClient
	}
	if wrap != nil {
		c.Transport = wrap(c.Transport)
	}
	return c
}

// challengeScopes are the scopes a 401's challenge names (scope=, RFC 6750
// §3), or nil. MCP authorization (2025-11-25) chooses scopes so: the
// challenge's, else the metadata's scopes_supported, else none (the
// authorization server's default).
func challengeScopes(challenge *http.Response) []string {
	if challenge == nil {
		return nil
	}
	for _, v := range challenge.Header.Values("WWW-Authenticate") {
		if m := scopeParam.FindStringSubmatch(v); m != nil {
			return strings.Fields(m[1] + m[2])
		}
	}
	return nil
}

// scopeParam is the scope auth-param of a WWW-Authenticate challenge
// (RFC 6750 §3), quoted or not.
var scopeParam = regexp.MustCompile(`(?i)(?:^|[\s,])scope\s*=\s*(?:"([^"]*)"|([^\s,"]+))`)

// resourceMetadata finds the server's protected resource metadata (RFC
// 9728): at the URL its 401 names (same origin only), else at the
// well-known URL with the endpoint's path, else at the one without (RFC
// 9728 §3.1; mcp-go tries only the first of the two).
func (s *Server) resourceMetadata(ctx context.Context, challenge *http.Response) foundMetadata {
	endpoint, err := url.Parse(s.opts.URL)
	if err != nil {
		return foundMetadata{}
	}
	if u := s.challengeMetadata(challenge); u != "" {
		scopes, ok := s.fetchMetadata(ctx, u)
		return foundMetadata{found: ok, advertised: u, scopes: scopes}
	}
	root := endpoint.Scheme + "://" + endpoint.Host + "/.well-known/oauth-protected-resource"
	if path := strings.TrimSuffix(endpoint.EscapedPath(), "/"); path != "" {
		if scopes, ok := s.fetchMetadata(ctx, root+path); ok {
			return foundMetadata{found: true, scopes: scopes}
		}
	}
	scopes, ok := s.fetchMetadata(ctx, root)
	return foundMetadata{found: ok, atRoot: ok && strings.TrimSuffix(endpoint.EscapedPath(), "/") != "", scopes: scopes}
}

// foundMetadata is where the server's protected resource metadata was.
type foundMetadata struct {
	found bool
	// advertised is the URL its 401 named; atRoot says it was at the
	// origin's well-known URL, the endpoint having a path.
	advertised string
	atRoot     bool
	scopes     []string // its scopes_supported
}

// fetchMetadata reads protected resource metadata at u: its
// scopes_supported, and whether it was there (200, JSON naming
// authorization servers).
func (s *Server) fetchMetadata(ctx context.Context, u string) ([]string, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.httpClient().Do(req)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&prm) != nil || len(prm.AuthorizationServers) == 0 {
		return nil, false
	}
	return prm.ScopesSupported, true
}

// challengeMetadata is the protected resource metadata URL a 401 names,
// when it has the server's origin (RFC 9728 §3.2: a server serves its own
// metadata), else "".
func (s *Server) challengeMetadata(challenge *http.Response) string {
	if challenge == nil {
		return ""
	}
	endpoint, err := url.Parse(s.opts.URL)
	if err != nil {
		return ""
	}
	for _, v := range challenge.Header.Values("WWW-Authenticate") {
		if m := metadataParam.FindStringSubmatch(v); m != nil {
			if u, err := url.Parse(m[1]); err == nil && strings.EqualFold(u.Scheme, endpoint.Scheme) && strings.EqualFold(u.Host, endpoint.Host) {
				return u.String()
			}
		}
	}
	return ""
}

// metadataParam is the resource_metadata auth-param (RFC 9728 §5.1).
var metadataParam = regexp.MustCompile(`(?i)(?:^|[\s,])resource_metadata\s*=\s*"([^"]*)"`)
