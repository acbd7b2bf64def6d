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
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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
	as := &AuthServer{store: &clientStore{MemoryStore: storage.NewMemoryStore(), clients: map[string]fosite.Client{}}}
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
	as.provider.WriteAccessResponse(ctx, w, req, resp)
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

// ResourceOptions change a ResourceServer.
type ResourceOptions struct {
	// MetadataPath, when set, is the only place of its protected resource
	// metadata: then only its 401's WWW-Authenticate tells where.
	MetadataPath string
	// Scopes, when set, are the scopes a token must have been granted;
	// its 401 names them in WWW-Authenticate (scope=, RFC 6750 §3) unless
	// ScopesInMetadataOnly, when only its metadata's scopes_supported does.
	Scopes               []string
	ScopesInMetadataOnly bool
	// ToolScopes, when set, are the scopes tools/call needs besides
	// Scopes: a token without them gets 403 insufficient_scope naming all
	// it needs (RFC 6750 §3.1), the case for step-up authorization.
	ToolScopes []string
	// Open lets every request through, token or not: a server that needs
	// no authorization. Requests without a token are still counted
	// (Anonymous).
	Open bool
}

// ResourceServer is a running protected MCP server.
type ResourceServer struct {
	// URL is the MCP endpoint: http://127.0.0.1:PORT/mcp.
	URL string
	srv *httptest.Server
	as  *AuthServer
	// metadataPath is where its protected resource metadata is, named in
	// its WWW-Authenticate.
	metadataPath string
	opts         ResourceOptions

	mu        sync.Mutex
	refused   int
	anonymous []string
	tokens    []string
}

// NewResourceServer starts a protected MCP server whose tokens as issues.
// Its one tool, whoami, answers "signed in".
// Its protected resource metadata is at both well-known URLs (RFC 9728
// §3.1, with and without the endpoint's path) unless opts says otherwise.
func NewResourceServer(t interface {
	Cleanup(func())
}, as *AuthServer, opts ...ResourceOptions) *ResourceServer {
	var o ResourceOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	rs := &ResourceServer{as: as, metadataPath: "/.well-known/oauth-protected-resource/mcp", opts: o}
	mcpSrv := server.NewMCPServer("protected", "1.0.0")
	mcpSrv.AddTool(mcp.NewTool("whoami", mcp.WithDescription("Says who is signed in")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("signed in"), nil
		})
	streamable := server.NewStreamableHTTPServer(mcpSrv, server.WithEndpointPath("/mcp"))
	mux := http.NewServeMux()
	if o.MetadataPath != "" {
		rs.metadataPath = o.MetadataPath
		mux.HandleFunc("GET "+rs.metadataPath, rs.metadata)
	} else {
		mux.HandleFunc("GET /.well-known/oauth-protected-resource", rs.metadata)
		mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", rs.metadata)
	}
	mux.Handle("/mcp", rs.guard(streamable))
	rs.srv = httptest.NewServer(mux)
	rs.URL = rs.srv.URL + "/mcp"
	t.Cleanup(rs.srv.Close)
	return rs
}

// metadata is RFC 9728 protected resource metadata.
func (rs *ResourceServer) metadata(w http.ResponseWriter, r *http.Request) {
	md := map[string]any{
		"resource":                 rs.URL,
		"authorization_servers":    []string{rs.as.URL},
		"bearer_methods_supported": []string{"header"},
	}
	if len(rs.opts.Scopes) > 0 {
		md["scopes_supported"] = rs.opts.Scopes
	}
	writeJSON(w, http.StatusOK, md)
}

// guard lets requests with an active access token through and answers
// the others 401 naming the protected resource metadata (RFC 9728 §5.1).
func (rs *ResourceServer) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if rs.opts.Open {
			if !ok {
				rs.mu.Lock()
				rs.anonymous = append(rs.anonymous, r.Method)
				rs.mu.Unlock()
			}
			next.ServeHTTP(w, r)
			return
		}
		if !ok || !rs.as.Valid(r.Context(), tok, rs.opts.Scopes...) {
			rs.mu.Lock()
			if ok {
				rs.refused++
			} else {
				rs.anonymous = append(rs.anonymous, r.Method)
			}
			rs.mu.Unlock()
			challenge := `Bearer resource_metadata="` + rs.srv.URL + rs.metadataPath + `"`
			if len(rs.opts.Scopes) > 0 && !rs.opts.ScopesInMetadataOnly {
				challenge += `, scope="` + strings.Join(rs.opts.Scopes, " ") + `"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
			return
		}
		if len(rs.opts.ToolScopes) > 0 && rs.isToolCall(r) && !rs.as.Valid(r.Context(), tok, append(rs.opts.Scopes, rs.opts.ToolScopes...)...) {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+
				strings.Join(append(append([]string(nil), rs.opts.Scopes...), rs.opts.ToolScopes...), " ")+
				`", resource_metadata="`+rs.srv.URL+rs.metadataPath+`"`)
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope"})
			return
		}
		rs.mu.Lock()
		if len(rs.tokens) == 0 || rs.tokens[len(rs.tokens)-1] != tok {
			rs.tokens = append(rs.tokens, tok)
		}
		rs.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// isToolCall reports whether r posts a tools/call, leaving its body to be
// read again.
func (rs *ResourceServer) isToolCall(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
	}
	return err == nil && json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call"
}

// Refused returns how many requests with a bearer token were answered 401.
func (rs *ResourceServer) Refused() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.refused
}

// Anonymous returns the methods of the requests that came without a
// bearer token (and were answered 401, unless the server is Open), in
// order.
func (rs *ResourceServer) Anonymous() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.anonymous...)
}

// Tokens returns the distinct access tokens accepted, in order of first use.
func (rs *ResourceServer) Tokens() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.tokens...)
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
