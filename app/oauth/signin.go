package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/elicitray/elicitray/app/platform"
)

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
	state, err := transport.GenerateState()
	if err != nil {
		return err
	}
	// The listener is up before the browser is sent (RFC 8252 §7.3), on
	// the registered port, and before a registration, which names it.
	pre := s.opts.Client
	cb, err := listenLoopback(redirect, state)
	if platform.IsAddrInUse(err) && pre.ClientID == "" && md.RegistrationEndpoint != "" {
		// Another program took the port since it was chosen: a port of
		// the system's choosing now, and a registration that names it.
		cb, err = listenLoopback(redirectURI(0), state)
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
