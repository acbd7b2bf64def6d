// Package demo is elicitray's built-in demonstration: an MCP server whose
// tools elicit every kind of form field (PROTOCOL.md §4) and run a
// three-round change-approval guard, and an MCP host that calls those tools
// one after the other, in either protocol era.
//
// `elicitray demo-server [--audit FILE]` runs [Server] on stdin and stdout;
// `elicitray demo` (what `make demo` runs) starts the hub and runs [Tour]
// with `elicitray wrap --name demo -- elicitray demo-server` as its command:
// [Host] at 2026-07-28 calling every tool, then again at 2025-11-25 calling
// request_change, so each form appears as a native dialog and the host
// prints what the server answered. `--protocol` runs one era only and
// `--tool` chooses the tools ([HostOptions]).
//
// Both are built on mcp-go, the project's MCP library. The server's tools
// are written in the multi round-trip style (SEP-2322, PROTOCOL.md §1): a
// call returns an elicitation/create input request and the retry carries
// the ElicitResult. mcp-go turns that into a legacy elicitation/create push
// for hosts on 2025-11-25 and older (re-invoking the handler with the answer
// and the requestState), and into an input_required result for 2026-07-28
// hosts (whose retry brings both back), so the demo works in both eras. The
// tests talk to it with the official go-sdk and with mcp-go as hosts, and
// through the real relay of package bridge.
//
// # The change-approval guard
//
// request_change (change.go) is one tool call of up to three rounds, each
// one elicitation under its own input key:
//
//  1. "approval": the change summary (the optional summary argument) with
//     no fields, so the window offers Submit, which approves, Decline and
//     Cancel.
//  2. "change": the change request: service and reason (required),
//     environment (dev, staging or prod; dev by default) and
//     rollback_on_failure (true by default).
//  3. "production", only when the environment is prod: one yes/no box,
//     unticked by default.
//
// How each answer ends the call:
//
//	round            accept                   decline    cancel
//	1 approval       go to round 2            declined   aborted
//	2 change         prod: round 3, else      declined   aborted
//	                 executed
//	3 production     ticked: executed,        blocked    aborted
//	                 unticked: blocked
//
// An answer that cannot be used (content outside the form, an unknown
// action, a requestState this process did not issue or of a call that has
// ended) ends the call aborted too, as an error result that says why.
// "Executed" makes no change anywhere: it is a demo.
//
// Each round's requestState carries the call's id, the round it asks, the
// summary and, from round 3, the change request: so round 2 knows round 1
// was approved and round 3 knows what to confirm. It passes through the
// host, so it is signed (HMAC-SHA256, with a key made when the server
// starts): a host cannot skip the approval by editing it, nor replay the
// state of a call that already ended.
//
// # The audit log
//
// Every outcome is one JSON line appended to the file [Options].AuditLog
// (demo-server's --audit; by default demo-audit.jsonl next to hub.log, in
// ELICITRAY_HOME when that is set), synced to disk before the result leaves;
// an executed change whose line cannot be written is reported as not made.
// A line holds time (UTC), tool, call (16 hex digits, the same for every
// round of a call), protocol, outcome, round and step (the round that ended
// it), answer (that round's action), summary, change (once round 2 was
// answered: service, reason, environment, rollback_on_failure) and problem
// (why an answer could not be used). The tool result says
// "OUTCOME at round N (STEP): … Audit log: PATH (call ID)."
//
// The file is created 0600 in a 0700 directory, opened with O_NOFOLLOW (a
// planted symbolic link is refused, its target untouched) and O_NONBLOCK (a
// planted FIFO cannot hang the server); a file that is not this user's
// regular file is refused, and one others could read is made 0600.
//
// Caveat: the server learns of an outcome only from an answer. A host that
// abandons a call between rounds (its notifications/cancelled, a host that
// never retries an input_required result, or one that answers a legacy push
// with a JSON-RPC error instead of an ElicitResult) leaves no line.
//
// # The conformance host
//
// [Conformance] (conformance.go) is the client command `make conformance`
// gives the official MCP conformance suite: `elicitray conformance-host URL`
// hosts `elicitray wrap --url URL` and does what the scenario named in the
// suite's environment needs, at the protocol version it names. Like [Host]
// it declares and answers no elicitation, so what the suite checks is
// elicitray's answer.
//
// Goroutines: none of its own. mcp-go runs a reader, workers for tool calls
// and one per request; [Server], [Host] and [Conformance] return when their
// peer hangs up or their context is done.
package demo
