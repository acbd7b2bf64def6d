// Package hubapi is the hub protocol: the messages wrappers, the command
// line and doctor exchange with the hub over its owner-only socket (one
// JSON object a line), and the check that the peer at either end runs as
// this user (DESIGN.md: "Nothing secret is sent before that check").
//
// Files: wire.go (the messages and operations), peer.go (who is at the
// other end).
package hubapi
