package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/chars"
)

// signIn runs the authorization code flow with PKCE (PROTOCOL.md §12) on
// h, made with cfg, registering the client first when none is known or
// reregister is set.
func (s *Server) signIn(ctx context.Context, h *transport.OAuthHandler, cfg transport.OAuthConfig, reregister bool) error {
	redirect := cfg.RedirectURI
	name := s.opts.Name
	md, err := h.GetServerMetadata(ctx)
	if r, ok := asRefusal(err); ok {
		return fmt.Errorf("elicitray does not sign in to %s: %w", name, r)
	}
	if err != nil {
		return fmt.Errorf("discovering the authorization server of %s: %w", name, err)
	}
	if err := s.usable(md); err != nil {
		return fmt.Errorf("elicitray does not sign in to %s: %w", name, err)
	}
	state, err := transport.GenerateState()
	if err != nil {
		return err
	}
	// The listener is up before the browser is sent (RFC 8252 §7.3), on
	// the registered port, and before a registration, which names it.
	pre := s.opts.Client
	turnedAway := func(format string, args ...any) { s.opts.Logf(name+": "+format, args...) }
	cb, err := listenLoopback(redirect, state, turnedAway)
	if platform.IsAddrInUse(err) && pre.ClientID == "" && md.RegistrationEndpoint != "" {
		// Another program took the port since it was chosen: a port of
		// the system's choosing now, and a registration that names it.
		cb, err = listenLoopback(redirectURI(0), state, turnedAway)
		if err == nil {
			s.opts.Logf("%s: the sign-in redirect's port %s was taken; elicitray registers again with port %d", name, portOf(redirect), cb.port)
			redirect, reregister = redirectURI(cb.port), true
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w; if another program keeps it, `elicitray auth logout %s` registers anew on another port", name, err, name)
	}
	defer cb.close()

	if pre.ClientID != "" {
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
		if r, ok := asRefusal(err); ok {
			return fmt.Errorf("elicitray does not sign in to %s: %w", name, r)
		}
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
		cfg.RedirectURI = redirect
		h = s.handler(cfg)
		if md, err = h.GetServerMetadata(ctx); err != nil {
			return fmt.Errorf("discovering the authorization server of %s: %w", name, err)
		}
	}

	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	authURL, err := h.GetAuthorizationURL(ctx, state, transport.GenerateCodeChallenge(verifier))
	if err != nil {
		return fmt.Errorf("building the authorization URL of %s: %w", name, err)
	}
	s.opts.Logf("%s: asking you to sign in at %s", name, hostOf(authURL))
	if err := s.opts.Consent(ctx, authURL); err != nil {
		return fmt.Errorf("%w: %w", ErrDeclined, err)
	}

	until := time.Now().Add(s.opts.Wait)
	wait, cancel := context.WithDeadline(ctx, until)
	defer cancel()
	// Answers that came back and were not used, for the log and, when no
	// good one follows, the error.
	var unused []string
	for {
		resp, err := cb.wait(wait)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				return timedOut(name, s.opts.Wait, unused)
			}
			return err
		}
		err = s.finish(ctx, h, md, resp, verifier)
		if err == nil {
			resp.done(true, "")
			s.opts.Logf("%s: signed in", name)
			return s.noteServer(md)
		}
		if r, ok := asRefusal(err); ok {
			// The token endpoint took the code and gave what elicitray
			// refuses: the sign-in is over.
			resp.done(false, "elicitray did not finish the sign-in: "+r.Error())
			return fmt.Errorf("signing in to %s: %w", name, r)
		}
		resp.done(false, fmt.Sprintf("elicitray did not use this answer: %v. It goes on waiting for the sign-in until %s.", err, until.Format("15:04")))
		s.opts.Logf("%s: an answer came back to the sign-in redirect and was not used (%v); waiting for the sign-in until %s", name, err, until.Format("15:04:05"))
		unused = append(unused, err.Error())
		// mcp-go forgets the state it checked; the real answer may follow.
		h.SetExpectedState(state)
	}
}

// finish takes one authorization response with the sign-in's state: its
// code is exchanged for a token, which is stored. An error says why the
// response was not used; a refusal, that the token endpoint answered with
// something elicitray does not keep.
func (s *Server) finish(ctx context.Context, h *transport.OAuthHandler, md *transport.AuthServerMetadata, resp *authResponse, verifier string) error {
	// RFC 9207 (MCP authorization 2026-07-28, SEP-2468): a response whose
	// iss is not the issuer this flow began with, byte for byte, is
	// another server's (a mix-up attack); so is one without iss from a
	// server that says it sends it. mcp-go does not look.
	switch {
	case resp.hasIss && resp.iss != md.Issuer:
		return fmt.Errorf("it names the authorization server %q, not %q, which the sign-in went to", resp.iss, md.Issuer)
	case !resp.hasIss && s.sendsIss(md.Issuer):
		return fmt.Errorf("it does not name its authorization server (iss), which %s says it does", md.Issuer)
	case resp.err != "":
		// Anyone's words: quoted, so that they cannot pass for the log's.
		return fmt.Errorf("it says the authorization server refused the sign-in: %q", chars.Cut(resp.err, 200))
	case resp.code == "":
		return errors.New("it carries no authorization code")
	}
	if err := h.ProcessAuthorizationResponse(ctx, resp.code, resp.state, verifier); err != nil {
		if r, ok := asRefusal(err); ok {
			return r
		}
		var oe transport.OAuthError
		if errors.As(err, &oe) {
			return fmt.Errorf("the token endpoint refused its code (%s)", oe.Error())
		}
		// A 2xx answer the code was taken for: a forged code is refused,
		// so this was the real one, and no later answer can be used.
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		if errors.As(err, &se) || errors.As(err, &te) {
			return refused("the token endpoint %s took the code and answered with a token response elicitray cannot read (%v); the code is used, so the sign-in cannot finish", md.TokenEndpoint, errors.Unwrap(err))
		}
		return fmt.Errorf("its code could not be exchanged for a token: %w", err)
	}
	return nil
}

// timedOut is the error of a sign-in no usable answer came back to within
// wait, naming those that came back and were not used.
func timedOut(name string, wait time.Duration, unused []string) error {
	if len(unused) == 0 {
		return fmt.Errorf("the browser did not come back from signing in to %s within %v", name, wait)
	}
	const shown = 3
	said := strings.Join(unused[:min(len(unused), shown)], "; ")
	if len(unused) > shown {
		said += fmt.Sprintf("; and %d more", len(unused)-shown)
	}
	return fmt.Errorf("no usable answer came back from signing in to %s within %v; the sign-in redirect turned away %d: %s", name, wait, len(unused), said)
}

// usable checks the authorization server metadata md before the sign-in
// uses it: every endpoint https (or http on this machine), and PKCE with
// S256, which MCP authorization requires a client to insist on (mcp-go
// sends S256 without looking).
func (s *Server) usable(md *transport.AuthServerMetadata) error {
	s.mu.Lock()
	_, read := s.issSent[md.Issuer]
	first := s.refusal
	s.mu.Unlock()
	if !read {
		// mcp-go found no metadata it could use and guessed endpoints
		// from the issuer's address: say why, when the guard knows.
		if first != nil {
			return first
		}
		return refused("no authorization server metadata (RFC 8414) was found at %s, so elicitray cannot know that it offers PKCE with S256, which MCP authorization requires", md.Issuer)
	}
	if err := checkMetadata(md.Issuer, md.AuthorizationEndpoint, md.TokenEndpoint, md.RegistrationEndpoint, md.RevocationEndpoint); err != nil {
		return err
	}
	if !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		return refused("its authorization server %s does not offer PKCE with S256, which MCP authorization requires", md.Issuer)
	}
	return nil
}

// portOf is the port of a redirect URI, for a log line.
func portOf(redirect string) string {
	if u, err := url.Parse(redirect); err == nil {
		return u.Port()
	}
	return redirect
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
