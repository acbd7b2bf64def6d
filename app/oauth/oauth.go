package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// ErrDeclined is returned by Authorize when the user did not agree to open
// the authorization URL (the consent window's Decline or Cancel, or no one
// answered): nothing was opened and no token was asked for.
var ErrDeclined = errors.New("sign-in was not agreed to")

// errClientUnknown marks a refresh the authorization server refused for the
// client (invalid_client, unauthorized_client): it no longer knows
// elicitray's registration.
var errClientUnknown = errors.New("the authorization server no longer knows elicitray's registration")

// ErrRefreshRefused marks the authorization server's refusal of a stored
// refresh token (OAuth error invalid_grant: revoked, expired or used up).
// The token is forgotten and the user is asked to sign in again.
var ErrRefreshRefused = errors.New("the authorization server no longer accepts the stored refresh token")

// Consent asks the user whether to open authURL, the full authorization
// URL, in the system browser, and opens it when they agree. A nil error
// means they agreed and the browser was asked to open it; an error, that
// they did not or it could not be asked (PROTOCOL.md §12: opening the
// browser for authorization is the same act as opening a URL-mode link).
type Consent func(ctx context.Context, authURL string) error

// Options configure the authorization of one server.
type Options struct {
	// Name is the server's configured name (wrap --name): the key of its
	// token file and what windows and messages call it. Required.
	Name string
	// URL is the MCP endpoint (wrap --url), the resource tokens are for.
	// Required.
	URL string
	// Dir is the directory of token files. The caller verifies it is a
	// directory of the user's own, 0700 (app does, as for its other private
	// directories); files in it are checked here. Required.
	Dir string
	// Consent asks the user and opens the browser. Required.
	Consent Consent
	// Logf writes a sentence for people (the wrapper's stderr, the host's
	// log); nil discards.
	Logf func(format string, args ...any)
	// HTTPClient is used for metadata, registration and token requests;
	// nil is mcp-go's default (30 s timeout).
	HTTPClient *http.Client
	// Wait bounds how long Authorize waits for the browser to come back to
	// the loopback redirect after consent; zero is 10 minutes.
	Wait time.Duration
	// Client is a client registered with the authorization server
	// beforehand (its ClientID, and ClientSecret and AuthMethod if it has
	// them; RedirectURI unused), for authorization servers without dynamic
	// registration. Zero: elicitray registers itself (RFC 7591).
	Client Registration
}

// Server is the OAuth client of one MCP server: the transport.OAuthConfig
// its Streamable HTTP transport is given, and the Authorize function the
// transport calls when the server answers 401.
type Server struct {
	opts  Options
	store *tokenStore
	// redirect is the loopback redirect URI: the registered one, else one
	// on a port free when New ran, registered at the first Authorize.
	redirect string
	// mu guards running, the Authorize flow in progress, if any;
	// refresher, the handler GetToken refreshes with (its metadata
	// discovered once), made for the client id it holds; and issSent, the
	// issuers whose metadata says they send iss (metadataTap).
	mu        sync.Mutex
	running   *flowRun
	refresher *transport.OAuthHandler
	issSent   map[string]bool
	// stepUp are the scopes a 403 insufficient_scope named, until
	// Authorize asks for them (RoundTripper).
	stepUp []string
}

// sendsIss reports whether the metadata of the authorization server issuer
// said authorization_response_iss_parameter_supported (RFC 9207 §3), a
// field mcp-go's AuthServerMetadata does not have.
func (s *Server) sendsIss(issuer string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issSent[issuer]
}

// metadataTap notes, from the authorization server metadata mcp-go's
// handler reads through it, whether the server sends iss.
type metadataTap struct {
	base http.RoundTripper
	s    *Server
}

func (m *metadataTap) RoundTrip(req *http.Request) (*http.Response, error) {
	base := m.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || !strings.Contains(req.URL.Path, "/.well-known/") {
		return resp, err
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return resp, nil
	}
	var md struct {
		Issuer                string `json:"issuer"`
		AuthorizationEndpoint string `json:"authorization_endpoint"`
		IssSupported          bool   `json:"authorization_response_iss_parameter_supported"`
	}
	if json.Unmarshal(body, &md) == nil && md.Issuer != "" && md.AuthorizationEndpoint != "" {
		m.s.mu.Lock()
		if m.s.issSent == nil {
			m.s.issSent = map[string]bool{}
		}
		m.s.issSent[md.Issuer] = md.IssSupported
		m.s.mu.Unlock()
	}
	return resp, nil
}

// handler is an OAuth handler of the server's with cfg. Its base URL, from
// which mcp-go builds the well-known metadata URL and which the metadata's
// resource must bind to, is the endpoint, or its origin when the server's
// metadata is at the origin's well-known URL only (RFC 9728 §3.1), which
// mcp-go does not look at.
func (s *Server) handler(cfg transport.OAuthConfig) *transport.OAuthHandler {
	client := &http.Client{Timeout: 30 * time.Second}
	if cfg.HTTPClient != nil {
		*client = *cfg.HTTPClient
	}
	client.Transport = &metadataTap{base: client.Transport, s: s}
	cfg.HTTPClient = client
	h := transport.NewOAuthHandler(cfg)
	base := s.opts.URL
	if rec, err := Load(s.opts.Dir, s.opts.Name); err == nil && rec != nil && rec.URL == s.opts.URL && rec.MetadataAtRoot && rec.ResourceMetadata == "" {
		if u, err := url.Parse(s.opts.URL); err == nil {
			base = u.Scheme + "://" + u.Host
		}
	}
	h.SetBaseURL(base)
	return h
}

// refreshStored refreshes with refreshToken on a handler made from the
// stored registration, and saves the new token (tokenStore.refresh).
func (s *Server) refreshStored(ctx context.Context, refreshToken string) error {
	cfg := s.Config()
	s.mu.Lock()
	h := s.refresher
	if h == nil || h.GetClientID() != cfg.ClientID {
		h = s.handler(*cfg)
		s.refresher = h
	}
	s.mu.Unlock()
	_, err := h.RefreshToken(ctx, refreshToken)
	return err
}

// New returns the OAuth client of the server opts names. It reads the
// server's token file (refusing one that is not the user's own) and picks
// the loopback redirect URI; it opens no connection and starts no
// listener: that happens in Authorize, only when the server asks for
// authorization.
func New(opts Options) (*Server, error) {
	if opts.Name == "" || opts.URL == "" || opts.Dir == "" || opts.Consent == nil {
		return nil, errors.New("oauth: Name, URL, Dir and Consent are required")
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Wait == 0 {
		opts.Wait = 10 * time.Minute
	}
	s := &Server{opts: opts}
	s.store = &tokenStore{dir: opts.Dir, name: opts.Name, url: opts.URL, now: time.Now, refresh: s.refreshStored, logf: opts.Logf, anonymous: true}
	rec, err := Load(opts.Dir, opts.Name)
	if err != nil {
		return nil, err
	}
	if rec != nil && rec.URL == opts.URL && rec.Client.RedirectURI != "" {
		s.redirect = rec.Client.RedirectURI
		return s, nil
	}
	if rec != nil && rec.URL != opts.URL {
		opts.Logf("%s: the stored sign-in is for %s, not %s; you will be asked to sign in again", opts.Name, rec.URL, opts.URL)
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("finding a port for the sign-in redirect: %w", err)
	}
	s.redirect = redirectURI(port)
	return s, nil
}

// redirectURI is the loopback redirect on port: an IP literal, not
// "localhost" (RFC 8252 §7.3, §8.3), over http.
func redirectURI(port int) string {
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/callback"
}

// freePort returns a loopback port no one listens on now. It is only a
// choice: Authorize listens on it when it needs to, and keeps it for the
// registration's life.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Config returns the configuration for transport.WithHTTPOAuth: the
// server's token store, the loopback redirect, PKCE, and the registered
// client when there is one. The transport's HTTP client must go through
// RoundTripper: until a token is stored, the store hands mcp-go a
// stand-in (so that a server that needs no authorization is reached at
// all), which RoundTripper removes.
func (s *Server) Config() *transport.OAuthConfig {
	cfg := &transport.OAuthConfig{
		RedirectURI: s.redirect,
		TokenStore:  s.store,
		PKCEEnabled: true,
		HTTPClient:  s.opts.HTTPClient,
	}
	if pre := s.opts.Client; pre.ClientID != "" {
		cfg.ClientID, cfg.ClientSecret, cfg.TokenEndpointAuthMethod = pre.ClientID, pre.ClientSecret, pre.AuthMethod
		if rec, err := Load(s.opts.Dir, s.opts.Name); err == nil && rec != nil && rec.URL == s.opts.URL && rec.Client.RedirectURI != "" {
			cfg.RedirectURI = rec.Client.RedirectURI
		}
	} else if rec, err := Load(s.opts.Dir, s.opts.Name); err == nil && rec != nil && rec.URL == s.opts.URL && rec.Client.ClientID != "" {
		// The registration as stored now: another wrapper of the server
		// may have registered since New, with a port of its own.
		cfg.ClientID = rec.Client.ClientID
		cfg.ClientSecret = rec.Client.ClientSecret
		cfg.TokenEndpointAuthMethod = rec.Client.AuthMethod
		if rec.Client.RedirectURI != "" {
			cfg.RedirectURI = rec.Client.RedirectURI
		}
	}
	if rec, err := Load(s.opts.Dir, s.opts.Name); err == nil && rec != nil && rec.URL == s.opts.URL {
		// Where the server said its metadata is (its 401), for discovery
		// before any 401 of this run.
		cfg.ProtectedResourceMetadataURL = rec.ResourceMetadata
	}
	return cfg
}

// Authorize gets the server a token after it answered 401: with the stored
// refresh token when there is one (PROTOCOL.md §12: "A 401 after expiry →
// refresh token, then the flow again"), else by the authorization flow —
// client registration when none is stored, PKCE (S256), the user's consent
// to the full authorization URL, the browser, the loopback redirect and
// the code exchange. When it returns nil a token is stored and the request
// can be retried.
//
// One flow runs at a time: calls made while it runs share it (one consent
// window, one listener on the port). The flow does not end with ctx: a
// host that gives up on its request (hosts time requests out, often after
// 60 s, and signing in may take longer) gets ctx's error, while the user
// goes on signing in, and the host's next request finds the token, or
// joins the flow still running. It ends on its own when the user declines,
// or after twice Options.Wait.
func (s *Server) Authorize(ctx context.Context, h *transport.OAuthHandler) error {
	s.mu.Lock()
	run := s.running
	if run == nil {
		run = &flowRun{done: make(chan struct{})}
		s.running = run
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*s.opts.Wait)
		go func() {
			defer cancel()
			run.err = s.authorize(fctx, h)
			s.mu.Lock()
			s.running = nil
			s.mu.Unlock()
			close(run.done)
		}()
	}
	s.mu.Unlock()
	select {
	case <-run.done:
		return run.err
	case <-ctx.Done():
		s.opts.Logf("%s: the request that needed signing in ended; the sign-in goes on, and the next request uses its token", s.opts.Name)
		return ctx.Err()
	}
}

// flowRun is an Authorize flow that callers share.
type flowRun struct {
	done chan struct{}
	err  error // set before done is closed
}

// authorize is one Authorize flow. It runs on a handler of its own, made
// from the stored registration and the scopes the server asks for (mcp-go
// fixes a handler's scopes when it is made, and the transport's was made
// before the server said which); tokens reach the transport through the
// token store both share.
func (s *Server) authorize(ctx context.Context, th *transport.OAuthHandler) error {
	// Wrappers of the same server in other processes (two hosts, say)
	// take turns: the one that waited finds the other's token.
	before := s.accessToken()
	unlock, err := lockServer(s.opts.Dir, s.opts.Name)
	if err != nil {
		return err
	}
	defer unlock()
	if now := s.accessToken(); now != "" && now != before {
		return nil
	}
	challenge := s.probe(ctx)
	meta := s.resourceMetadata(ctx, challenge)
	if meta.found {
		if err := s.update(func(rec *Record) {
			rec.ResourceMetadata, rec.MetadataAtRoot = meta.advertised, meta.atRoot
		}); err != nil {
			return err
		}
	}
	if challenge != nil {
		th.HandleUnauthorizedResponse(challenge) // origin-checked there
	}
	cfg := *s.Config()
	cfg.Scopes = challengeScopes(challenge)
	if cfg.Scopes == nil {
		cfg.Scopes = meta.scopes
	}
	stepUp := s.takeStepUp()
	if stepUp != nil {
		// The scopes already granted, and those the request needs: a
		// refresh cannot widen a grant, so this is a new sign-in.
		if rec, _ := Load(s.opts.Dir, s.opts.Name); rec != nil && rec.Token != nil {
			cfg.Scopes = append(strings.Fields(rec.Token.Scope), cfg.Scopes...)
		}
		cfg.Scopes = append(cfg.Scopes, stepUp...)
		slices.Sort(cfg.Scopes)
		cfg.Scopes = slices.Compact(cfg.Scopes)
	}
	h := s.handler(cfg)
	// A server that moved to another authorization server (its metadata
	// names a new one) gets a new registration there: a client id and
	// tokens are the old server's, and are not shown to the new one
	// (MCP authorization 2026-07-28, SEP-2352).
	if md, derr := h.GetServerMetadata(ctx); derr == nil {
		if rec, _ := Load(s.opts.Dir, s.opts.Name); s.opts.Client.ClientID == "" && rec != nil && rec.URL == s.opts.URL && rec.AuthServer != "" && rec.AuthServer != md.Issuer && rec.Client.ClientID != "" {
			s.opts.Logf("%s: its authorization server is now %s (it was %s); registering there and asking you to sign in", s.opts.Name, md.Issuer, rec.AuthServer)
			if err := s.update(func(rec *Record) { rec.Client, rec.Token = Registration{RedirectURI: rec.Client.RedirectURI}, nil }); err != nil {
				return err
			}
			scopes := cfg.Scopes
			cfg = *s.Config()
			cfg.Scopes = scopes
			h = s.handler(cfg)
		}
	}
	reregister := false
	if stepUp != nil {
		// A client registered by elicitray registers again with the wider
		// scopes, which an authorization server may hold it to.
		return s.signIn(ctx, h, cfg, s.opts.Client.ClientID == "")
	}
	err = s.refresh(ctx, h)
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, ErrRefreshRefused):
		s.opts.Logf("%s: %v; asking you to sign in again", s.opts.Name, err)
	case errors.Is(err, errClientUnknown):
		s.opts.Logf("%s: %v; registering again and asking you to sign in", s.opts.Name, err)
		reregister = true
	case !errors.Is(err, transport.ErrNoToken):
		return err
	}
	return s.signIn(ctx, h, cfg, reregister)
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
	resp, err := s.httpClient().Do(req)
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

func (s *Server) httpClient() *http.Client {
	if s.opts.HTTPClient != nil {
		return s.opts.HTTPClient
	}
	return &http.Client{Timeout: 30 * time.Second}
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

// update changes the server's record (made if missing) and saves it.
func (s *Server) update(change func(*Record)) error {
	rec, err := Load(s.opts.Dir, s.opts.Name)
	if err != nil {
		return err
	}
	if rec == nil || rec.URL != s.opts.URL {
		rec = &Record{Name: s.opts.Name, URL: s.opts.URL}
	}
	change(rec)
	return Save(s.opts.Dir, rec)
}

// metadataParam is the resource_metadata auth-param (RFC 9728 §5.1).
var metadataParam = regexp.MustCompile(`(?i)(?:^|[\s,])resource_metadata\s*=\s*"([^"]*)"`)

// accessToken is the stored access token, "" when there is none.
func (s *Server) accessToken() string {
	rec, err := Load(s.opts.Dir, s.opts.Name)
	if err != nil || rec == nil || rec.URL != s.opts.URL || rec.Token == nil {
		return ""
	}
	return rec.Token.AccessToken
}

// refresh trades the stored refresh token for a new token. With no refresh
// token it returns transport.ErrNoToken; a refusal (invalid_grant) forgets
// the token and wraps ErrRefreshRefused.
func (s *Server) refresh(ctx context.Context, h *transport.OAuthHandler) error {
	rec, err := Load(s.opts.Dir, s.opts.Name)
	if err != nil {
		return err
	}
	if rec == nil || rec.URL != s.opts.URL || rec.Token == nil || rec.Token.RefreshToken == "" {
		return transport.ErrNoToken
	}
	_, err = h.RefreshToken(ctx, rec.Token.RefreshToken)
	if err == nil {
		return nil
	}
	var oe transport.OAuthError
	if errors.As(err, &oe) && (oe.ErrorCode == "invalid_grant" || oe.ErrorCode == "invalid_token") {
		if cerr := s.store.clearToken(); cerr != nil {
			return cerr
		}
		return fmt.Errorf("%w (%s)", ErrRefreshRefused, oe.Error())
	}
	if errors.As(err, &oe) && (oe.ErrorCode == "invalid_client" || oe.ErrorCode == "unauthorized_client") {
		if cerr := s.store.clearToken(); cerr != nil {
			return cerr
		}
		return fmt.Errorf("%w (%s)", errClientUnknown, oe.Error())
	}
	return fmt.Errorf("refreshing the token of %s: %w", s.opts.Name, err)
}

// signIn runs the authorization code flow with PKCE (PROTOCOL.md §12) on
// h, made with cfg, registering the client first when none is known or
// reregister is set.
func (s *Server) signIn(ctx context.Context, h *transport.OAuthHandler, cfg transport.OAuthConfig, reregister bool) error {
	redirect := cfg.RedirectURI
	name := s.opts.Name
	md, err := h.GetServerMetadata(ctx)
	if err != nil {
		return fmt.Errorf("discovering the authorization server of %s: %w", name, err)
	}
	// MCP authorization: a client must refuse an authorization server
	// that does not say it supports S256 (mcp-go sends S256 without
	// looking).
	if !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		return fmt.Errorf("the authorization server of %s (%s) does not offer PKCE with S256, which MCP authorization requires; elicitray does not sign in there", name, md.Issuer)
	}
	if pre := s.opts.Client; pre.ClientID != "" {
		if reregister {
			return fmt.Errorf("the authorization server of %s (%s) does not know the client id %s given with --client-id", name, md.Issuer, pre.ClientID)
		}
		// The port is kept, as for a registration of elicitray's own: the
		// client's redirect URI may have been registered with it.
		if err := s.update(func(rec *Record) { rec.AuthServer, rec.Client.RedirectURI = md.Issuer, redirect }); err != nil {
			return err
		}
	} else if h.GetClientID() == "" || reregister {
		if md.RegistrationEndpoint == "" {
			return fmt.Errorf("the authorization server of %s (%s) offers no dynamic client registration: register a client there and give its id with --client-id (and its secret with --client-secret-env)", name, md.Issuer)
		}
		reg, err := s.register(ctx, md, redirect, cfg.Scopes)
		if err != nil {
			return fmt.Errorf("registering elicitray with the authorization server of %s: %w", name, err)
		}
		if err := s.update(func(rec *Record) {
			rec.AuthServer, rec.Client, rec.Token = md.Issuer, reg, nil
		}); err != nil {
			return err
		}
		// The flow goes on with a handler that has the new client.
		cfg.ClientID, cfg.ClientSecret, cfg.TokenEndpointAuthMethod = reg.ClientID, reg.ClientSecret, reg.AuthMethod
		h = s.handler(cfg)
		if md, err = h.GetServerMetadata(ctx); err != nil {
			return fmt.Errorf("discovering the authorization server of %s: %w", name, err)
		}
	}

	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return err
	}
	// The listener is up before the browser is sent (RFC 8252 §7.3), on
	// the registered port.
	cb, err := listenLoopback(redirect, state)
	if err != nil {
		return fmt.Errorf("%s: %w; if another program keeps it, `elicitray auth logout %s` registers anew on another port", name, err, name)
	}
	defer cb.close()
	authURL, err := h.GetAuthorizationURL(ctx, state, transport.GenerateCodeChallenge(verifier))
	if err != nil {
		return fmt.Errorf("building the authorization URL of %s: %w", name, err)
	}
	s.opts.Logf("%s: asking you to sign in at %s", name, hostOf(authURL))
	if err := s.opts.Consent(ctx, authURL); err != nil {
		return fmt.Errorf("%w: %w", ErrDeclined, err)
	}

	wait, cancel := context.WithTimeout(ctx, s.opts.Wait)
	defer cancel()
	resp, err := cb.wait(wait)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return fmt.Errorf("the browser did not come back from signing in to %s within %v", name, s.opts.Wait)
		}
		return err
	}
	// RFC 9207 (MCP authorization 2026-07-28, SEP-2468): a response whose
	// iss is not the issuer this flow began with, byte for byte, is
	// another server's (a mix-up attack); so is one without iss from a
	// server that says it sends it. mcp-go does not look.
	if resp.hasIss && resp.iss != md.Issuer {
		resp.done(false, "This answer names another authorization server; elicitray did not use it.")
		return fmt.Errorf("the sign-in answer for %s names the authorization server %q, not %q, which the sign-in went to; it was not used", name, resp.iss, md.Issuer)
	}
	if !resp.hasIss && s.sendsIss(md.Issuer) {
		resp.done(false, "This answer does not name its authorization server; elicitray did not use it.")
		return fmt.Errorf("the sign-in answer for %s does not name its authorization server (iss), which %s says it does; it was not used", name, md.Issuer)
	}
	if resp.err != "" {
		resp.done(false, "The authorization server said: "+resp.err)
		return fmt.Errorf("the authorization server of %s refused the sign-in: %s", name, resp.err)
	}
	if err := h.ProcessAuthorizationResponse(ctx, resp.code, resp.state, verifier); err != nil {
		resp.done(false, "elicitray could not finish the sign-in: "+err.Error())
		return fmt.Errorf("finishing the sign-in to %s: %w", name, err)
	}
	resp.done(true, "")
	s.opts.Logf("%s: signed in", name)
	return s.noteServer(md)
}

// noteServer records the authorization server's issuer (for `elicitray
// auth list`) and revocation endpoint (for logout) beside the new token.
func (s *Server) noteServer(md *transport.AuthServerMetadata) error {
	rec, err := Load(s.opts.Dir, s.opts.Name)
	if err != nil || rec == nil || (rec.AuthServer == md.Issuer && rec.RevocationEndpoint == md.RevocationEndpoint) {
		return err
	}
	rec.AuthServer, rec.RevocationEndpoint = md.Issuer, md.RevocationEndpoint
	return Save(s.opts.Dir, rec)
}

// hostOf is the host of a URL for a log line, or the URL when it has none.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host
	}
	return raw
}

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
