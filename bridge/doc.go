// Package bridge is the stdio relay between an MCP host and the server it
// wraps (PROTOCOL.md §7). It starts the server command, copies every message
// in both directions in order and byte for byte, and intercepts only what
// elicitray exists for:
//
//   - the host's initialize, into which it merges the elicitation capability
//     (PROTOCOL.md §3), so servers register their eliciting tools;
//   - the server's legacy elicitation/create requests (PROTOCOL.md §1), which
//     never reach the host: the relay parses the requestedSchema with
//     package elicit, asks its Approver, checks the answer and replies to the
//     server itself;
//   - the server's notifications/cancelled for such a request, which closes
//     the prompt and is answered by silence (PROTOCOL.md §7);
//   - the host's notifications/cancelled for a tools/call, which goes on to
//     the server and then closes the call's prompts, whose requests are
//     answered cancel (PROTOCOL.md §5, §7).
//
// Two things are not passed on as they came. A UTF-8 byte order mark at the
// start of a line is removed (no JSON-RPC text carries one, RFC 8259 §8.1),
// in both directions. An elicitation/create whose id is null, or that has
// none, is the relay's to answer like any other: -32600 under id null for
// the first, nothing at all for the second (a notification), each said on
// the log (PROTOCOL.md §7: ids are strings or integers).
//
// Goroutines: Run owns them all. One reads the host, one reads the server,
// one waits for the child process, and each pending elicitation has its own,
// so the relay keeps flowing while a person thinks. Everything stops when
// the server exits; Run returns the server's exit code.
//
// Nothing in this package writes to the process's stdout except through the
// host writer given to Run: stdout carries MCP messages only.
package bridge
