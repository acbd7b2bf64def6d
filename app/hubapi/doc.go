// Package hubapi is the hub protocol: the messages wrappers, the command
// line and doctor exchange with the hub over its owner-only socket (one
// JSON object a line), one request and one reply type per operation, the
// framed connection every reader of the socket uses (Conn), the typed
// Client they call the hub through, and the check that the peer at either
// end runs as this user (DESIGN.md: "Nothing secret is sent before that
// check").
//
// The Client holds one connection, dialled on the first call through a
// verified run directory and peer, and one goroutine that reads its
// replies; how long each kind of call waits is said once (AskWait,
// ProbeWait, KeepWait). Starting a hub when none runs is the caller's
// (Client.Start: session.Starter), so that this package knows no desktop.
//
// Files: wire.go (the message and operations), ops.go (each operation's
// request and reply), conn.go (one line, one message), client.go (the
// Client), peer.go (who is at the other end).
package hubapi
