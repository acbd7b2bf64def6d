package oauth

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// RoundTripper returns base (nil: http.DefaultTransport) wrapped for
// requests to the server's origin; give the transport an HTTP client with
// it (transport.WithHTTPBasicClient, bridge.HTTPOptions.Client). It does
// two things mcp-go's transport leaves out:
//
//   - A request without an Authorization header gets the stored bearer
//     token: mcp-go sends the DELETE that ends a session without one,
//     which a protected server refuses. Tokens go in the header only,
//     never in the URL (PROTOCOL.md §12), and only to the server they were
//     issued for.
//   - A 403 with error="insufficient_scope" (RFC 6750 §3.1: the token
//     lacks scopes the request needs) is handed to the transport as a 401
//     with the same challenge, so that it reports authorization required
//     and Authorize runs; the scopes the challenge names are noted, and
//     Authorize asks for them with those already granted (step-up,
//     PROTOCOL.md §12). mcp-go reports a 403 as a plain error.
func (s *Server) RoundTripper(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	origin, _ := url.Parse(s.opts.URL)
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if origin == nil || req.URL.Scheme != origin.Scheme || req.URL.Host != origin.Host {
			return base.RoundTrip(req)
		}
		if req.Header.Get("Authorization") == "Bearer "+anonymousToken {
			req = req.Clone(req.Context())
			req.Header.Del("Authorization")
		}
		if req.Header.Get("Authorization") == "" {
			if rec, err := Load(s.opts.Dir, s.opts.Name); err == nil && rec != nil && rec.URL == s.opts.URL && rec.Token != nil && rec.Token.AccessToken != "" {
				req = req.Clone(req.Context())
				req.Header.Set("Authorization", "Bearer "+rec.Token.AccessToken)
			}
		}
		resp, err := base.RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusForbidden {
			return resp, err
		}
		for _, v := range resp.Header.Values("WWW-Authenticate") {
			if !insufficientScope.MatchString(v) {
				continue
			}
			scopes := challengeScopes(resp)
			s.mu.Lock()
			s.stepUp = scopes
			s.mu.Unlock()
			s.opts.Logf("%s: the server needs more of your permission (scope %q) for this request; asking you to sign in again", s.opts.Name, strings.Join(scopes, " "))
			resp.StatusCode, resp.Status = http.StatusUnauthorized, "401 Unauthorized"
			break
		}
		return resp, nil
	})
}

// insufficientScope is a challenge's error="insufficient_scope".
var insufficientScope = regexp.MustCompile(`(?i)(?:^|[\s,])error\s*=\s*"?insufficient_scope"?`)

// takeStepUp returns and forgets the scopes a 403 asked for, if any.
func (s *Server) takeStepUp() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	scopes := s.stepUp
	s.stepUp = nil
	return scopes
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
