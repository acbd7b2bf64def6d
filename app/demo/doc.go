// Package demo is elicitray's built-in demonstration: an MCP server whose
// tools elicit every kind of form field (PROTOCOL.md §4), and an MCP host that
// calls those tools one after the other.
//
// `elicitray demo-server` runs [Server] on stdin and stdout; `make demo` runs
// [Host] with `elicitray wrap --name demo -- elicitray demo-server` as its
// command, so each tool's form appears as a native dialog and the host prints
// what the server received.
//
// Both are built on mcp-go, the project's MCP library. The server's tools
// are written in the multi round-trip style (SEP-2322, PROTOCOL.md §1): the
// first call returns an elicitation/create input request and the retry
// carries the ElicitResult. mcp-go turns that into a legacy
// elicitation/create push for hosts on 2025-11-25 and older, and into an
// input_required result for 2026-07-28 hosts, so the demo works in both eras.
// The tests talk to it with the official go-sdk and with mcp-go as hosts.
//
// Goroutines: none of its own. mcp-go runs a reader, workers for tool calls
// and one per request; [Server] and [Host] return when their peer hangs up
// or their context is done.
package demo
