// Package oauth is elicitray's client side of MCP authorization
// (PROTOCOL.md §12) for a wrapper of a remote Streamable HTTP server
// (`elicitray wrap --url`). For one server — its configured name and URL —
// a Server gives the transport.OAuthConfig that mcp-go's Streamable HTTP
// transport takes (transport.WithHTTPOAuth) and the Authorize function the
// wrapper calls when the transport reports
// *transport.OAuthAuthorizationRequiredError (the server answered 401, or
// no token is stored).
//
// Authorize first spends the stored refresh token; when there is none, or
// the authorization server refuses it (invalid_grant: revoked, expired), it
// runs the flow: the authorization server found through the server's
// protected resource metadata (RFC 9728, named by WWW-Authenticate) and
// the authorization server's metadata (RFC 8414); dynamic client
// registration (RFC 7591) when no client is stored; PKCE with S256; the
// resource parameter (RFC 8707); the user's consent to the full
// authorization URL (the Consent function: app shows the same window as a
// URL-mode elicitation, and the hub opens the system browser only after
// the user agrees); the loopback redirect (RFC 8252 §7.3, 127.0.0.1 on a
// port of its own); and the code exchange.
//
// Files: oauth.go (Server, Config, Authorize and its flow), discovery.go
// (the probe, protected resource and authorization server metadata,
// scopes), signin.go (the authorization code flow), register.go (dynamic
// registration), loopback.go (the redirect listener), roundtrip.go (what
// requests to the server get on the way), guard.go (what every request of
// the sign-in goes through: https, bounded answers), store.go (the token
// file, its lock, the TokenStore), revoke.go (logout's revocation).
//
// # What is stored, and where
//
// One JSON file per server, NAME.json, in a directory the caller has
// verified as private (app: the "auth" directory beside history.db, 0700).
// It holds the server's URL, the authorization server's issuer, the
// registration (client id, secret if any, auth method, redirect URI) and
// the last token response. Files are 0600, written to a fresh name
// (O_EXCL|O_NOFOLLOW) and renamed into place; they are read with
// O_NOFOLLOW and checked on the open file: a link, a file of another user
// or one open to others is refused (ErrUntrusted), never read or replaced.
// The token file is read on every request, not cached, so that wrappers of
// the same server share a refresh (refresh tokens rotate). Authorize holds
// NAME.lock (flock) while it runs, so that wrappers of the same server in
// other processes take turns, and the one that waited uses the token the
// other got: one consent window, one registration. Tokens stored
// for another URL are not sent.
//
// Revoke (for `elicitray auth logout`) revokes a record's refresh token at
// the revocation endpoint (RFC 7009) noted at sign-in; mcp-go has no
// revocation.
//
// # The loopback port
//
// The redirect URI is fixed when the client registers, and kept with the
// registration: RFC 8252 §7.3 says authorization servers must accept any
// port on a loopback IP redirect, but not all do, so the port a client was
// registered with is the one it listens on later. New picks a port that is
// free then (and opens nothing); Authorize listens on it only for the
// sign-in, from before the browser is sent until the redirect arrives.
// When another program holds the port the error says so, and
// `elicitray auth logout NAME` registers anew on another port.
//
// # Where mcp-go v1.2.1 falls short, and what this package does about it
//
//   - Discovery without a 401: with no token stored, the transport sends
//     no request, so the server's WWW-Authenticate (which names its
//     protected resource metadata, RFC 9728 §5.1) is never read, and the
//     handler looks only at the well-known URL with the endpoint's path,
//     then guesses endpoints on the server's own origin. Authorize first
//     sends one request without a token and hands its 401 to
//     HandleUnauthorizedResponse (probe); the URL it names is kept in the
//     token file and given to later runs' handlers
//     (ProtectedResourceMetadataURL). Without one, the metadata is looked
//     for at the well-known URL with the endpoint's path and then at the
//     origin's (RFC 9728 §3.1; mcp-go tries the first only); found at the
//     origin's, the handlers get the origin as their base URL, so that
//     mcp-go looks there and binds the metadata's resource to it.
//
// TestConformanceAuth runs the official MCP conformance suite's
// authorization scenarios (2025-11-25) against this package over
// bridge.HTTP (oauthtest/confclient); testdata/conformance-auth-baseline.yml
// lists the ones not passed yet.
//   - Scopes: the handler asks for the scopes it was made with, and reads
//     none from the server's 401 (scope=, RFC 6750 §3) or its metadata's
//     scopes_supported; the transport's handler is made before the server
//     has said anything. Authorize chooses them as MCP authorization
//     (2025-11-25) says — the challenge's, else scopes_supported, else
//     none — and runs the flow on a handler of its own made with them
//     (and the stored registration); the token store carries the tokens
//     to the transport's handler. (That handler has no client id in the
//     session that registered; the token store's refresh, below, uses the
//     stored registration.)
//   - Refresh before expiry, and across processes: the handler refreshes
//     only a token whose ExpiresAt has passed, and shares a refresh only
//     among its own callers, while wrappers of the same server in other
//     processes share the token file and its rotating refresh token (a
//     server that sees one reused may revoke them all). The token store
//     refreshes a token itself a minute before it expires (half its
//     lifetime for short-lived ones; refreshAhead), holding NAME.lock and
//     reading the file again under it, on a handler made from the stored
//     registration; it reports expiries that much early, so that the
//     handler's own refresh runs only when that one failed.
//   - A 401 for a token the clock still calls valid: the transport reports
//     authorization required without trying the refresh token; Authorize
//     tries it first (PROTOCOL.md §12: after expiry a refresh, then the
//     flow again).
//   - A refused refresh token: the handler swallows the refresh error and
//     reports only that authorization is required; Authorize refreshes
//     itself to learn why, forgets the token on invalid_grant and says so
//     on the log before asking the user again (ErrRefreshRefused).
//   - Registration: RegisterClient sends no application_type, which MCP
//     authorization (2026-07-28, SEP-837) asks native clients to send as
//     "native", and keeps the result in the handler's memory only
//     (TokenStore stores only the token). Authorize registers itself
//     (register.go), saves the registration in the token file, and runs
//     the flow on a handler made with it; Config gives it to later runs.
//   - The authorization response's iss (RFC 9207; 2026-07-28, SEP-2468):
//     the handler checks only state. Authorize turns away a response whose
//     iss is not, byte for byte, the issuer the flow went to, and one
//     without iss from a server whose metadata says it sends it (a field
//     mcp-go's AuthServerMetadata lacks: the guard reads it as the handler
//     fetches the metadata).
//   - Forged answers: the handler takes the first response with the
//     state, and the state is on the browser's command line, which other
//     users can read. The loopback listener hands signIn every response
//     with the state; only one whose code the token endpoint accepts ends
//     the sign-in, the others are turned away (the page and the log say
//     so) until Options.Wait is up, and the error then names them. A
//     2xx token answer accepted the code, so one elicitray cannot use (not
//     JSON, a member of the wrong type, no access_token) ends it at once.
//   - https and bounds: mcp-go refuses only metadata endpoints that are not
//     http(s), then guesses endpoints, which hides why; it sends codes and
//     tokens over plain http to any host, reads token and registration
//     answers whole, and keeps any token_type. The guard (guard.go) refuses
//     a request to a non-loopback http endpoint before dialing and reads at
//     most maxResponse of an answer; signIn refuses the metadata's
//     endpoints, naming the one, before anything is sent or opened; the
//     token store keeps Bearer tokens only, and never writes a file its
//     reader would refuse.
//   - A moved authorization server (2026-07-28, SEP-2352): a stored client
//     would be sent to whatever server the metadata now names. Authorize
//     compares the issuer with the one recorded, and registers anew at a
//     new one without showing it the old client id or tokens.
//   - The authorization flow itself: the handler builds the URL and
//     exchanges the code, but has no redirect listener and no browser;
//     Authorize adds both, and the consent before the browser opens.
//   - S256: the handler sends code_challenge_method=S256 without checking
//     the authorization server's code_challenge_methods_supported; MCP
//     authorization requires refusing a server that does not list it, and
//     Authorize does.
//   - A lost registration: a refresh refused for the client
//     (invalid_client) means the authorization server forgot elicitray's
//     registration; Authorize registers again (RegisterClient replaces the
//     handler's client) before asking the user.
//   - Concurrency and host timeouts: each request that gets 401 would
//     start its own flow, and a flow would end with the request (a host
//     that times out its initialize after 60 s would take the sign-in with
//     it). Authorize runs one flow at a time, which callers share, on a
//     context of its own: a request that ends returns at once, and the
//     host's next request joins the flow or finds its token.
//   - Step-up (403 insufficient_scope, PROTOCOL.md §12): the transport
//     reports a 403 as a plain error. RoundTripper hands it on as a 401
//     with the same challenge and notes its scopes; Authorize then signs in
//     again for those and the ones granted (registering again with them,
//     for a client of its own), where a refresh could not widen the grant.
//   - Servers that need no authorization: with OAuth configured and no
//     token stored, the handler sends nothing and reports authorization
//     required, so such a server would never be reached, and every
//     wrapper of a remote server would run the flow. Until a token is
//     stored the token store hands out a stand-in (anonymousToken) that
//     RoundTripper takes off again: the request goes without a token, and
//     only a real 401 starts the sign-in.
//   - Session end: the transport's DELETE that ends a session carries no
//     Authorization header, so a protected server refuses it (401) and the
//     session lingers. RoundTripper adds the stored bearer token to
//     requests to the server that lack one.
//
// Not done here: client ID metadata documents (2025-11-25; elicitray
// cannot publish one) and the OS keyring. Authorization servers without dynamic registration take
// a client registered beforehand (Options.Client: wrap --client-id).
//
// Goroutines: Authorize runs its flow on a goroutine of its own, bounded
// by twice Options.Wait, and serves the loopback redirect on another while
// it waits; both end with the flow.
package oauth
