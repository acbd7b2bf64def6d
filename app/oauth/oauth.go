package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
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
	// HTTPClient is used for metadata, registration and token requests,
	// through the guard (guard.go: https, bounded answers); nil is one
	// with a 30 s timeout.
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
	// discovered once), made for the client id it holds; issSent, the
	// issuers whose metadata was read and whether it says they send iss;
	// endpoints, the token, registration and revocation endpoints it named,
	// by URL without query, and what each is (guard); and refusal, the
	// first the guard made in the flow running.
	mu        sync.Mutex
	running   *flowRun
	refresher *transport.OAuthHandler
	issSent   map[string]bool
	endpoints map[string]string
	refusal   error
	// stepUp are the scopes a 403 insufficient_scope named, until
	// Authorize asks for them (RoundTripper).
	stepUp []string
}

// handler is an OAuth handler of the server's with cfg. Its base URL, from
// which mcp-go builds the well-known metadata URL and which the metadata's
// resource must bind to, is the endpoint, or its origin when the server's
// metadata is at the origin's well-known URL only (RFC 9728 §3.1), which
// mcp-go does not look at.
func (s *Server) handler(cfg transport.OAuthConfig) *transport.OAuthHandler {
	cfg.HTTPClient = s.httpClient()
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
		// The transport's handler discovers and refreshes on its own:
		// through the guard too.
		HTTPClient: s.httpClient(),
	}
	// The record as stored now, read once: another wrapper of the server
	// may have registered since New, with a port of its own.
	rec, err := Load(s.opts.Dir, s.opts.Name)
	if err != nil || (rec != nil && rec.URL != s.opts.URL) {
		rec = nil
	}
	if pre := s.opts.Client; pre.ClientID != "" {
		cfg.ClientID, cfg.ClientSecret, cfg.TokenEndpointAuthMethod = pre.ClientID, pre.ClientSecret, pre.AuthMethod
	} else if rec != nil && rec.Client.ClientID != "" {
		cfg.ClientID = rec.Client.ClientID
		cfg.ClientSecret = rec.Client.ClientSecret
		cfg.TokenEndpointAuthMethod = rec.Client.AuthMethod
	}
	if rec != nil {
		if rec.Client.RedirectURI != "" && (s.opts.Client.ClientID != "" || rec.Client.ClientID != "") {
			cfg.RedirectURI = rec.Client.RedirectURI
		}
		// Where the server said its metadata is (its 401), for discovery
		// before any 401 of this run.
		cfg.ProtectedResourceMetadataURL = rec.ResourceMetadata
	}
	return cfg
}

// Authorize gets the server a token after it answered 401: with the stored
// refresh token when there is one (PROTOCOL.md §12: "after expiry a
// refresh, then the flow again"), else by the authorization flow —
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
	// What the guard learns is this flow's: its handler reads the
	// metadata afresh.
	s.mu.Lock()
	s.refusal, s.issSent = nil, nil
	s.mu.Unlock()
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
	if r, ok := asRefusal(err); ok {
		err = r
	}
	return fmt.Errorf("refreshing the token of %s: %w", s.opts.Name, err)
}
