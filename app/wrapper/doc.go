// Package wrapper is the wrapper's side of the hub: the bridge.Approver
// (Approver) that asks the user's hub over its socket through
// hubapi.Client, starting a hub when none runs (session.Starter) and a new
// one for the next prompt when the hub died; it keeps what the wrapper
// sent servers that was not the hub's decision (rejected requests, no
// desktop, overruled answers, deliveries), through the hub or, when no hub
// takes it, in the wrapper's own spool, and says on the host's log why a
// prompt was answered without a person. A running wrapper follows the
// guard and keep-alive config.toml sets for its server (WatchGuard).
//
// Goroutines: hubapi.Client's reader; Delivered may be called from the
// relay's goroutines, and Close waits for those under way; WatchGuard
// runs on the goroutine it is called on until its context ends.
//
// A remote server's sign-in (wrap --url) asks the user's consent through
// the same Approver (NewRemoteOAuth, WithRemoteOAuth).
//
// Files: approver.go (the Approver), guard.go (following config.toml),
// pins.go (the relay's pinned tools, app/toolpins), oauthconsent.go
// (sign-in asked like a URL-mode elicitation).
package wrapper
