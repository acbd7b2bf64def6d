package oauthtest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

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
	// AuthorizationServer, when set, is the issuer its metadata names in
	// place of the AuthServer's.
	AuthorizationServer string
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
		"authorization_servers":    []string{cmp.Or(rs.opts.AuthorizationServer, rs.as.URL)},
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
