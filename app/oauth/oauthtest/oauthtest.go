// Package oauthtest runs, for tests, the two parties of MCP authorization
// (PROTOCOL.md §12) on loopback ports: an OAuth 2.1 authorization server
// built on github.com/ory/fosite (authorization code with PKCE S256 only,
// refresh tokens rotated on use, RFC 7009 revocation, and a small RFC 7591
// registration endpoint of its own, which fosite does not have), and a
// protected MCP server (mcp-go's Streamable HTTP server) that checks bearer
// tokens with the authorization server, serves RFC 9728 protected resource
// metadata and answers 401 with WWW-Authenticate.
//
// The authorization server approves every authorization request at once,
// as a user who is signed in and clicks Allow would; Browser follows an
// authorization URL to the loopback redirect as a browser does. What each
// party saw is counted so that tests can assert it.
package oauthtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/storage"
	"golang.org/x/crypto/bcrypt"
)

// AuthServer is a running authorization server.
type AuthServer struct {
	// URL is its issuer, e.g. http://127.0.0.1:PORT.
	URL      string
	srv      *httptest.Server
	provider fosite.OAuth2Provider
	strategy *oauth2.HMACSHAStrategy
	// noRegistration: no registration endpoint (Options.NoRegistration).
	noRegistration bool
	opts           Options
	store          *clientStore

	mu sync.Mutex
	// Seen are the requests it answered, in order: "register",
	// "authorize", "token:authorization_code", "token:refresh_token",
	// "revoke", each with the error it answered if any (": invalid_grant").
	seen []string
	// Authorizations are the query parameters of each authorization request.
	authorizations []url.Values
	// tokenForms are the form parameters of each token request.
	tokenForms []url.Values
}

// clientStore is fosite's memory store with clients that registration adds
// while fosite reads them (the memory store's map has no lock for that).
type clientStore struct {
	*storage.MemoryStore
	mu      sync.Mutex
	clients map[string]fosite.Client
}

func (s *clientStore) GetClient(_ context.Context, id string) (fosite.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[id]; ok {
		return c, nil
	}
	return nil, fosite.ErrNotFound
}

// Options change an AuthServer's lifetimes; zero values are fosite's
// defaults (an hour for access tokens).
type Options struct {
	AccessTokenLifespan time.Duration
	// NoRegistration leaves dynamic client registration out: clients are
	// registered beforehand (AddClient).
	NoRegistration bool
	// Metadata, when set, changes the metadata document before it is
	// served: a hostile or careless authorization server's.
	Metadata func(md map[string]any)
	// Token, when set, changes each token response fosite made before it
	// is sent.
	Token func(resp map[string]any)
	// TokenBody, when set, replaces each token response's bytes (after
	// Token) before they are sent: one that is not JSON.
	TokenBody func(body []byte) []byte
	// Authorize, when set, is called with each authorization request's
	// query before it is approved; it may visit the redirect URI first, as
	// someone who read the request's state would.
	Authorize func(q url.Values)
}

// NewAuthServer starts an authorization server; it stops when the test ends.
func NewAuthServer(t interface {
	Cleanup(func())
}, opts Options) *AuthServer {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	cfg := &fosite.Config{
		GlobalSecret:                   secret,
		AccessTokenLifespan:            opts.AccessTokenLifespan,
		EnforcePKCE:                    true,
		EnablePKCEPlainChallengeMethod: false,
		RefreshTokenScopes:             []string{}, // every code exchange gets a refresh token
		SendDebugMessagesToClients:     true,
	}
	as := &AuthServer{opts: opts, store: &clientStore{MemoryStore: storage.NewMemoryStore(), clients: map[string]fosite.Client{}}}
	as.strategy = compose.NewOAuth2HMACStrategy(cfg)
	as.provider = compose.Compose(cfg, as.store, as.strategy,
		compose.OAuth2AuthorizeExplicitFactory, compose.OAuth2PKCEFactory,
		compose.OAuth2RefreshTokenGrantFactory, compose.OAuth2TokenRevocationFactory,
		compose.OAuth2TokenIntrospectionFactory)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", as.metadata)
	if !opts.NoRegistration {
		mux.HandleFunc("POST /register", as.register)
	}
	as.noRegistration = opts.NoRegistration
	mux.HandleFunc("GET /authorize", as.authorize)
	mux.HandleFunc("POST /token", as.token)
	mux.HandleFunc("POST /revoke", as.revoke)
	as.srv = httptest.NewServer(mux)
	as.URL = as.srv.URL
	t.Cleanup(as.srv.Close)
	return as
}

func (as *AuthServer) note(what string) {
	as.mu.Lock()
	as.seen = append(as.seen, what)
	as.mu.Unlock()
}

// Seen returns the requests the server answered so far, in order.
func (as *AuthServer) Seen() []string {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]string(nil), as.seen...)
}

// Authorizations returns the query of each authorization request so far.
func (as *AuthServer) Authorizations() []url.Values {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]url.Values(nil), as.authorizations...)
}

// TokenForms returns the form of each token request so far.
func (as *AuthServer) TokenForms() []url.Values {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]url.Values(nil), as.tokenForms...)
}

// ForgetClients forgets every registered client, as an authorization
// server that lost its registrations (or expired them) does.
func (as *AuthServer) ForgetClients() {
	as.store.mu.Lock()
	defer as.store.mu.Unlock()
	clear(as.store.clients)
}

// Clients returns how many clients registered.
func (as *AuthServer) Clients() int {
	as.store.mu.Lock()
	defer as.store.mu.Unlock()
	return len(as.store.clients)
}

// metadata is RFC 8414 authorization server metadata.
func (as *AuthServer) metadata(w http.ResponseWriter, r *http.Request) {
	md := map[string]any{
		"issuer":                                as.URL,
		"authorization_endpoint":                as.URL + "/authorize",
		"token_endpoint":                        as.URL + "/token",
		"registration_endpoint":                 as.URL + "/register",
		"revocation_endpoint":                   as.URL + "/revoke",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic"},
	}
	if as.noRegistration {
		delete(md, "registration_endpoint")
	}
	if as.opts.Metadata != nil {
		as.opts.Metadata(md)
	}
	writeJSON(w, http.StatusOK, md)
}

// AddClient registers a confidential client beforehand, as an
// administrator does at an authorization server without dynamic
// registration: it authenticates with HTTP Basic, and its redirect URI is
// the loopback one on any port (RFC 8252 §7.3).
func (as *AuthServer) AddClient(id, secret string) error {
	hash, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.MinCost)
	if err != nil {
		return err
	}
	c := &fosite.DefaultClient{
		ID:            id,
		Secret:        hash,
		RedirectURIs:  []string{"http://127.0.0.1/callback"},
		GrantTypes:    []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"},
	}
	as.store.mu.Lock()
	as.store.clients[id] = c
	as.store.mu.Unlock()
	return nil
}

// register is RFC 7591 dynamic client registration of public clients.
func (as *AuthServer) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		Scope        string   `json:"scope"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		as.note("register: invalid_client_metadata")
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	c := &fosite.DefaultClient{
		ID:            hex.EncodeToString(id),
		Public:        true,
		RedirectURIs:  req.RedirectURIs,
		GrantTypes:    []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"},
		// RFC 7591 §2: the scopes the client may ask for.
		Scopes: strings.Fields(req.Scope),
	}
	as.store.mu.Lock()
	as.store.clients[c.ID] = c
	as.store.mu.Unlock()
	as.note("register")
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  c.ID,
		"client_name":                req.ClientName,
		"redirect_uris":              c.RedirectURIs,
		"token_endpoint_auth_method": "none",
		"grant_types":                c.GrantTypes,
		"response_types":             c.ResponseTypes,
	})
}

// authorize approves every valid authorization request at once.
func (as *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	as.mu.Lock()
	as.authorizations = append(as.authorizations, r.URL.Query())
	as.mu.Unlock()
	if as.opts.Authorize != nil {
		as.opts.Authorize(r.URL.Query())
	}
	// (fosite refuses scopes the client did not register.)
	ctx := r.Context()
	ar, err := as.provider.NewAuthorizeRequest(ctx, r)
	if err != nil {
		as.note("authorize: " + fosite.ErrorToRFC6749Error(err).ErrorField)
		as.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	for _, s := range ar.GetRequestedScopes() {
		ar.GrantScope(s)
	}
	resp, err := as.provider.NewAuthorizeResponse(ctx, ar, &fosite.DefaultSession{Subject: "user"})
	if err != nil {
		as.note("authorize: " + fosite.ErrorToRFC6749Error(err).ErrorField)
		as.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	as.note("authorize")
	as.provider.WriteAuthorizeResponse(ctx, w, ar, resp)
}

func (as *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	_ = r.ParseForm()
	as.mu.Lock()
	as.tokenForms = append(as.tokenForms, r.PostForm)
	as.mu.Unlock()
	what := "token:" + r.PostForm.Get("grant_type")
	req, err := as.provider.NewAccessRequest(ctx, r, &fosite.DefaultSession{})
	if err != nil {
		as.note(what + ": " + fosite.ErrorToRFC6749Error(err).ErrorField)
		as.provider.WriteAccessError(ctx, w, req, err)
		return
	}
	resp, err := as.provider.NewAccessResponse(ctx, req)
	if err != nil {
		as.note(what + ": " + fosite.ErrorToRFC6749Error(err).ErrorField)
		as.provider.WriteAccessError(ctx, w, req, err)
		return
	}
	as.note(what)
	if as.opts.Token == nil && as.opts.TokenBody == nil {
		as.provider.WriteAccessResponse(ctx, w, req, resp)
		return
	}
	rec := httptest.NewRecorder()
	as.provider.WriteAccessResponse(ctx, rec, req, resp)
	body := rec.Body.Bytes()
	if as.opts.Token != nil {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
			return
		}
		as.opts.Token(m)
		body, _ = json.Marshal(m)
	}
	if as.opts.TokenBody != nil {
		body = as.opts.TokenBody(body)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

func (as *AuthServer) revoke(w http.ResponseWriter, r *http.Request) {
	err := as.provider.NewRevocationRequest(r.Context(), r)
	if err != nil {
		as.note("revoke: " + fosite.ErrorToRFC6749Error(err).ErrorField)
	} else {
		as.note("revoke")
	}
	as.provider.WriteRevocationResponse(r.Context(), w, err)
}

// Revoke revokes token (a refresh or access token of clientID) at the
// revocation endpoint, as a user revoking elicitray's access would.
func (as *AuthServer) Revoke(clientID, token string) error {
	resp, err := http.PostForm(as.URL+"/revoke", url.Values{"token": {token}, "client_id": {clientID}})
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("revocation answered %s", resp.Status)
	}
	return nil
}

// EndAccessToken ends an access token's life at the authorization server
// before the expiry it was issued with, leaving its refresh token good: a
// server that shortened its lifetimes, or lost its access token sessions.
// (Revoking the access token would not do: fosite revokes its refresh
// token with it.)
func (as *AuthServer) EndAccessToken(ctx context.Context, token string) error {
	return as.store.DeleteAccessTokenSession(ctx, as.strategy.AccessTokenSignature(ctx, token))
}

// Valid reports whether token is an active access token granted scopes.
func (as *AuthServer) Valid(ctx context.Context, token string, scopes ...string) bool {
	_, _, err := as.provider.IntrospectToken(ctx, token, fosite.AccessToken, &fosite.DefaultSession{}, scopes...)
	return err == nil
}

// Browser follows authURL as a browser does: GET, the redirects (the
// authorization server's approval, to the loopback redirect), and returns
// the last page's status and text.
func Browser(ctx context.Context, authURL string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil || b.Len() > 1<<16 {
			break
		}
	}
	return resp.StatusCode, b.String(), nil
}

// Agree is a consent that agrees at once and opens the browser (Browser,
// on a goroutine of its own as a real browser runs apart); the last page
// it showed goes to pages, which should have room.
func Agree(pages chan<- string) func(ctx context.Context, authURL string) error {
	return func(ctx context.Context, authURL string) error {
		go func() {
			code, page, err := Browser(context.WithoutCancel(ctx), authURL)
			if err != nil {
				page = err.Error()
			}
			pages <- fmt.Sprintf("%d %s", code, page)
		}()
		return nil
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
