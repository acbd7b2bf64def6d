package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// What every request of the sign-in goes through (PROTOCOL.md §12): OAuth
// 2.1 §1.5 and MCP authorization require https for every endpoint of the
// authorization server and for the metadata that names them, http only to
// this machine; and an authorization server's answer is a small JSON
// document, read only as far as maxResponse. The guard checks both on the
// wire, for requests mcp-go's handler makes as well as this package's;
// signIn checks the endpoints the metadata names before anything is sent
// or opened, so that its sentence can name the endpoint.

// maxResponse bounds every answer of an authorization server or metadata
// document read here: tokens, registrations and metadata take a few
// kilobytes. It is an eighth of maxRecordSize, the token file's bound, so
// that a token response taken (its JSON escapes at most six bytes a byte)
// always fits in the file its reader accepts.
const maxResponse = maxRecordSize / 8

// refusal is a sentence for the user saying why elicitray refused what an
// authorization server gave or named. It ends a sign-in at once: the
// server itself said it, and waiting would not change it.
type refusal struct{ sentence string }

func (r *refusal) Error() string { return r.sentence }

// refused makes a refusal of the formatted sentence.
func refused(format string, args ...any) error {
	return &refusal{fmt.Sprintf(format, args...)}
}

// asRefusal returns the refusal err holds, if any: mcp-go wraps the
// guard's errors in its own words ("failed to read token response body").
func asRefusal(err error) (error, bool) {
	var r *refusal
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

// checkEndpoint refuses an endpoint the sign-in must not send to or open:
// one that is not https, unless it is http to this machine (a loopback
// host: 127.0.0.0/8, ::1, localhost). which names it for the user ("the
// token endpoint"); "" is refused as missing when required.
func checkEndpoint(which, raw string, required bool) error {
	if raw == "" {
		if required {
			return refused("the authorization server names no %s", which)
		}
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return refused("%s %q is not a web address (%v)", which, raw, err)
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme != "https" && scheme != "http":
		return refused("%s %q is not a web address (its scheme is %q); elicitray signs in only at https addresses, or http ones on this machine", which, raw, u.Scheme)
	case u.Host == "":
		return refused("%s %q names no host", which, raw)
	case scheme == "http" && !loopback(u.Hostname()):
		return refused("%s %s is plain http to another machine; OAuth 2.1 and MCP authorization require https (http only on this machine), so elicitray sent nothing there and opened nothing", which, raw)
	}
	return nil
}

// loopback reports whether host is this machine by name or address.
func loopback(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkMetadata checks the endpoints an authorization server's metadata
// names (RFC 8414 §2) before any of them is used.
func checkMetadata(issuer, authorization, token, registration, revocation string) error {
	for _, e := range []struct {
		which, url string
		required   bool
	}{
		{"the authorization server's issuer", issuer, true},
		{"the authorization endpoint", authorization, true},
		{"the token endpoint", token, true},
		{"the registration endpoint", registration, false},
		{"the revocation endpoint", revocation, false},
	} {
		if err := checkEndpoint(e.which, e.url, e.required); err != nil {
			return err
		}
	}
	return nil
}

// guard is the transport of every request the sign-in makes: metadata,
// registration, token, refresh, revocation. It refuses a request to an
// endpoint checkEndpoint refuses before dialing; bounds the answer to
// maxResponse; and reads the authorization server metadata passing
// through for what mcp-go's AuthServerMetadata leaves out (whether the
// server sends iss) and for endpoints it must not use. s nil (Revoke)
// notes nothing.
type guard struct {
	base http.RoundTripper
	s    *Server
}

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	which := g.name(req.URL)
	if err := checkEndpoint(which, req.URL.String(), true); err != nil {
		g.note(err)
		return nil, err
	}
	base := g.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	resp.Body = &cappedBody{r: resp.Body, left: maxResponse, which: which, url: req.URL.String(), note: g.note}
	if req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || !strings.Contains(req.URL.Path, "/.well-known/") {
		return resp, nil
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return nil, rerr
	}
	g.tap(req.URL.String(), body)
	return resp, nil
}

// name is what a request of the sign-in is to the user: an endpoint the
// metadata named, or the metadata.
func (g *guard) name(u *url.URL) string {
	if g.s != nil {
		g.s.mu.Lock()
		which := g.s.endpoints[u.Scheme+"://"+u.Host+u.Path]
		g.s.mu.Unlock()
		if which != "" {
			return which
		}
	}
	switch p := u.Path; {
	case strings.Contains(p, "/.well-known/oauth-protected-resource"):
		return "the protected resource metadata"
	case strings.Contains(p, "/.well-known/"):
		return "the authorization server metadata"
	}
	return "the authorization server's address"
}

// tap notes, from authorization server metadata, whether the server sends
// iss, and refuses endpoints it names that the sign-in must not use: mcp-go
// refuses a javascript: endpoint itself, then guesses endpoints, and the
// refusal would be lost.
func (g *guard) tap(from string, body []byte) {
	var md struct {
		Issuer                string `json:"issuer"`
		AuthorizationEndpoint string `json:"authorization_endpoint"`
		TokenEndpoint         string `json:"token_endpoint"`
		RegistrationEndpoint  string `json:"registration_endpoint"`
		RevocationEndpoint    string `json:"revocation_endpoint"`
		IssSupported          bool   `json:"authorization_response_iss_parameter_supported"`
	}
	if g.s == nil || json.Unmarshal(body, &md) != nil || md.Issuer == "" || md.AuthorizationEndpoint == "" {
		return
	}
	if err := checkMetadata(md.Issuer, md.AuthorizationEndpoint, md.TokenEndpoint, md.RegistrationEndpoint, md.RevocationEndpoint); err != nil {
		// Not noted as read: the endpoints mcp-go may guess in its place
		// are not this server's word.
		g.note(refused("%v (in the authorization server metadata at %s)", err, from))
		return
	}
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	if g.s.issSent == nil {
		g.s.issSent = map[string]bool{}
	}
	g.s.issSent[md.Issuer] = md.IssSupported
	if g.s.endpoints == nil {
		g.s.endpoints = map[string]string{}
	}
	for which, raw := range map[string]string{"the token endpoint": md.TokenEndpoint, "the registration endpoint": md.RegistrationEndpoint, "the revocation endpoint": md.RevocationEndpoint} {
		if u, err := url.Parse(raw); err == nil && raw != "" {
			g.s.endpoints[u.Scheme+"://"+u.Host+u.Path] = which
		}
	}
}

// note keeps the first refusal of the flow running, for signIn to tell:
// mcp-go drops the errors of metadata it could not use and goes on with
// endpoints it guesses.
func (g *guard) note(err error) {
	if g.s == nil {
		return
	}
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	if g.s.refusal == nil {
		g.s.refusal = err
	}
}

// cappedBody reads an answer up to left bytes and refuses the rest.
type cappedBody struct {
	r          io.ReadCloser
	left       int64
	which, url string
	note       func(error)
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte past the bound tells a body that ends there from one
		// that goes on.
		var one [1]byte
		if _, err := io.ReadFull(c.r, one[:]); err != nil {
			return 0, err
		}
		err := refused("the answer of %s %s is larger than %d KiB, more than any metadata, registration or token needs; elicitray did not read or keep it", c.which, c.url, maxResponse>>10)
		c.note(err)
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

func (c *cappedBody) Close() error { return c.r.Close() }
