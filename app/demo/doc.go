// Package demo is elicitray's built-in demonstration: an MCP server whose
// tools elicit every kind of form field (PROTOCOL.md §4), and an MCP host that
// calls those tools one after the other.
//
// `elicitray demo-server` runs [Server] on stdin and stdout; `make demo` runs
// [Host] with `elicitray wrap --name demo -- elicitray demo-server` as its
// command, so each tool's form appears as a native dialog and the host prints
// what the server received.
//
// The server's tools are written in the multi round-trip style (SEP-2322,
// PROTOCOL.md §1): the first call returns an elicitation/create input request
// and the retry carries the ElicitResult. The go-sdk turns that into a legacy
// elicitation/create push for hosts on 2025-11-25 and older, and into an
// input_required result for 2026-07-28 hosts, so the demo works in both eras.
// (ServerSession.Elicit would not: the go-sdk refuses it on a 2026-07-28
// request.)
//
// Goroutines: none of its own. The go-sdk runs one per connection and one per
// incoming request; [Server] and [Host] return when their peer hangs up or
// their context is done.
package demo
