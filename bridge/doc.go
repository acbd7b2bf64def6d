// Package bridge is the relay between an MCP host and the server it wraps
// (PROTOCOL.md §7). It starts the server, copies every message in both
// directions in order and byte for byte, and intercepts only what
// elicitray exists for:
//
//   - the host's initialize, into which it merges the elicitation capability
//     (PROTOCOL.md §3), so servers register their eliciting tools, and the
//     _meta client capabilities of every 2026-07-28 request (§2);
//   - the server's legacy elicitation/create requests (PROTOCOL.md §1), which
//     never reach the host: the relay parses the requestedSchema with
//     package elicit, asks its Approver, checks the answer and replies to the
//     server itself;
//   - the server's input_required results and -32042 errors (PROTOCOL.md §1,
//     §6), whose elicitations the relay answers and whose call it retries,
//     so that the host gets one final reply under its own id;
//   - the server's notifications/cancelled for such a request, which closes
//     the prompt and is answered by silence (PROTOCOL.md §7);
//   - the host's notifications/cancelled for a tools/call, which goes on to
//     the server and then closes the call's prompts, whose requests are
//     answered cancel (PROTOCOL.md §5, §7).
//
// What the features keep for a call, a request, a progress token or an
// elicitation lives as long as it does: until its reply, the host's cancel
// (the server may never answer a cancelled request) or the server's end.
// Relay.tracked counts it for tests; the only memory of ended requests is
// recentKeys, the last few whose late notice is still recognised.
//
// Three things are not passed on as they came. A UTF-8 byte order mark at the
// start of a line is removed (no JSON-RPC text carries one, RFC 8259 §8.1),
// in both directions. An elicitation/create whose id is null, or that has
// none, is the relay's to answer like any other: -32600 under id null for
// the first, nothing at all for the second (a notification), each said on
// the log (PROTOCOL.md §7: ids are strings or integers). A server line
// that names a method but is not one message that every host reads the
// same way (two messages on a line, a batch, a message over two lines, a
// member "Method") is dropped, said on the log, and its requests answered
// -32600: some host's parser would find a request in it the relay did not
// see (oneline.go).
//
// # Shape
//
// The relay does not care which side is a pipe. The server is a Server
// (transport.go) whose Conn is a stream of messages: a child process
// (stdio.go, Command) or a remote one over Streamable HTTP (http.go). The
// host is the process's stdin and stdout, read and written with the same
// line framing as a child's (lineConn). The protocol work is written once,
// over those two streams:
//
//	relay.go     the two streams, the pumps, routing each message to the
//	             feature it belongs to, the shutdown order; no feature state
//	transport.go Conn and Server
//	stdio.go     the child process: its process group, its pipes, shutdown
//	             (stdin closed, SIGTERM, SIGKILL after grace), exit code
//	frame.go     line framing (no line cap, BOM dropping) and the pump of a
//	             stdio direction: runs of passing lines written straight
//	             from the read buffer, long lines streamed or gathered
//	quick.go     routing a message from its first members, for the pump
//	oneline.go   server lines hosts read in different ways (two messages,
//	             a batch, a "Method"): dropped, their requests answered
//	pipe_linux.go
//	             tee(2) and splice(2) between pipes: passing bytes are
//	             moved by the kernel, read once to be searched
//	http.go      a remote server (HTTP): Streamable HTTP over mcp-go's
//	             transport, HTTP+SSE when the server has only that; the
//	             Server, its state and the Conn it is
//	httptap.go   the round tripper under mcp-go that reads every message off
//	             the wire byte for byte (mcp-go decodes them, and drops or
//	             times out server requests) and hands mcp-go only ids,
//	             bounded by HTTPOptions.MaxMessage
//	sse.go       the SSE parser, which holds one event and skips the rest
//	msgbuf.go    one message held once, in a mapping of its own when big
//	httprecv.go  the server's messages taken from the tap: stand-ins for
//	             mcp-go, stray answers dropped, Read
//	httpsend.go  requests sent and answered, notifications and responses
//	             posted, a broken-off stream resumed (Last-Event-ID)
//	httpsession.go, httperrors.go, httpheaders.go
//	             the session lost or ended (DELETE); refusals said in
//	             sentences; SEP-2243 headers and tools left out
//	session.go   serverInfo, the agreed version, the host's elicitation
//	             capability; initialize and _meta injection
//	calls.go     the tools/calls in flight: which one a legacy prompt names
//	decide.go    the one decision path: params → Request → check, then the
//	             Approver → the answer checked → no desktop: to the host or
//	             cancel. The only caller of the Approver and of the Rejected,
//	             NoDesktop and Overruled hooks for elicitations
//	guard.go     the tool-call guard: a guarded tools/call held until the
//	             Approver approves it (written then) or not (the host gets
//	             a tool error result); the tools learned from tools/list;
//	             what is guarded swapped while the relay runs (SetGuard)
//	guardhost.go with no desktop, a guarded call asked in a host that shows
//	             elicitations: the relay's own elicitation/create, its
//	             answer kept from the server, the HostDecided hook
//	legacy.go    the server's elicitation/create and its cancellation
//	order.go     requests reach the Approver in the order they arrived
//	loop.go      the input_required loop: host calls followed, retries
//	round.go     one input_required round: entries checked and decided
//	forward.go   rounds handed to the host (sampling, roots), and the
//	             relay's answers added to the host's retry
//	urlmode.go   elicitationIds the relay took, their completion notices,
//	             the links of a -32042 error
//	scan.go, jsonedit.go, jsonrpc.go
//	             the envelope scan, member splicing, id keys and encoders
//
// Each feature keeps its own state in its own struct, under its own lock,
// whose comment says what it guards; no feature takes another's lock
// while it holds its own. A message the features do not claim passes
// untouched.
//
// # Speed
//
// A wrapper sits on every message all day, so passing one costs as little
// as the stream allows (frame.go, quick.go; bench/README.md has the
// numbers): each byte is searched once, for its line's newline; a message
// is decided from its first members ("method", or "id" and "result") and
// its rest is not scanned again; runs of passing lines go out in one write
// from the buffer they were read into; a line longer than the 1 MiB buffer
// streams on in pieces when it passes, and only one the relay must act on
// is held whole. On Linux, between pipes, passing bytes are not copied out
// at all (tee, splice), and pipes are grown to 1 MiB; the host's blocking
// pipes are opened a second time, non-blocking, for Go's poller, leaving
// the host's own open file as it was (pollable). Passing lines allocate
// nothing (TestPassingLinesAllocateNothing).
//
// # Goroutines
//
// Run owns them all. One reads the host, one reads the server, one tells
// the server when the host is gone; a child process has one waiting for it,
// one shutting it down and one cutting its stdout off after grace when a
// grandchild holds it; a remote server has one per request in flight (and
// mcp-go's own for its streams). Each pending elicitation and each running
// input_required loop has its own, so the relay keeps flowing while a
// person thinks. Everything stops when the server is gone; Run returns its
// exit code. A host that stopped reading cannot hold that: grace after the
// server exited, the host's writes are given up (lineConn.cutOff).
//
// Nothing in this package writes to the process's stdout except through the
// host writer given to Run: stdout carries MCP messages only.
package bridge
