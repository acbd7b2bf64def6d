// Package hosts reads and edits the MCP configuration files of the hosts
// elicitray knows (Claude Desktop, Claude Code, VS Code, Cursor, Windsurf,
// Zed, Codex CLI, Gemini CLI), so that `elicitray hosts` can list their
// server entries and put `elicitray wrap` in front of them, or take it out
// again. It has no Fyne, no hub and no flags: app/hostscmd.go is the command,
// and `elicitray doctor` calls Survey.
//
// What it owns:
//
//   - known.go: where each host keeps its config on Linux, macOS and Windows
//     (Location), which key holds the server entries, and Survey, the one
//     call that reports every host, file and entry.
//   - entry.go: what an entry is (Entry, State), Read, and recognising a
//     wrapped one.
//   - splice.go: Wrap and Unwrap, as byte splices shared by both formats.
//   - remote.go: remote entries (a URL the host connects to): each host's
//     remote form, which headers are secret, and the `elicitray wrap --url`
//     entry Wrap writes for one; members.go: an entry's members, and new
//     ones written in the style of those around them.
//   - restore.go: an entry's bytes from before Wrap, out of its file's
//     backups, for the one shape Unwrap cannot tell alone (below).
//   - backup.go: the backups' names, listing them newest first, and
//     reading them back for Unwrap.
//   - jsonc.go: JSON and JSON with comments (VS Code, Zed), parsed with
//     github.com/tailscale/hujson for its byte offsets; a leading byte order
//     mark and a // comment ending the file without a newline are read as
//     VS Code reads them, and arrays and objects nested more than 1000 deep
//     are refused before hujson, which recurses, could overflow the stack.
//   - toml.go: Codex's config.toml, parsed with go-toml's unstable parser
//     for the same reason; tomldefs.go refuses, as Codex does, a file that
//     defines a key or a table twice, which that parser lets through.
//   - file.go: reading a config (ReadConfig: only a regular file, refused
//     before a byte is read otherwise, so a named pipe cannot hang list or
//     doctor) and writing it back: a timestamped 0600 backup beside it, a
//     temporary file in the same directory swapped in for it, the file's mode
//     and owner kept, the newest 5 backups kept and older ones deleted; a
//     read-only file, another user's file (unless root) and symbolic links
//     that are not the user's own refused; on a failed write (ENOSPC) the
//     temporary file and the backup removed.
//   - swap.go: the swap, which never deletes a version the host wrote
//     meanwhile (on Linux, renameat2 with RENAME_EXCHANGE, then a look at
//     what was replaced, and the host's version put back), and EditFile,
//     which makes the edit again on that version.
//   - suggest.go: "did you mean" for host and server names.
//
// The rule every edit keeps: only the bytes of the values that change are
// touched. Wrap replaces the command's string token with this binary's path
// and inserts `"wrap", "--name", KEY, "--", ORIGINAL_COMMAND` at the front of
// args, in the array's own separator style (or adds an args member right
// after the command when there is none); Unwrap removes exactly those bytes
// and moves the original command token back. So comments, key order,
// indentation and unknown keys stay as they were, a second Wrap changes
// nothing, and Unwrap after Wrap gives back the original file byte for byte.
//
// Remote entries are wrapped by members: the ones that make the entry
// remote (type, url, serverUrl, httpUrl, headers; Codex's url,
// bearer_token_env_var, http_headers, env_http_headers) give way to
// command, args and env (Codex: env_vars) where the first of them was, and
// every other member (timeout, trust, disabled, comments around them)
// stays byte for byte. What each host's form maps to, and where secrets go,
// is in remote.go. Unwrap cannot read the removed bytes back from the
// wrapped entry (a comment inside headers, the headers' layout, a TOML
// sub-table, `"type": "sse"` against "http"), so it takes the entry's
// region (its whole object, or its TOML table's lines) from the newest
// backup whose entry, wrapped, reads byte for byte as this one does, as
// for the empty args below; with no such backup it writes the host's remote
// form from the flags and env, in the entry's layout, which is byte for
// byte what the host wrote for the usual shapes (TestHostsGolden's lossy
// says which are not) and tells an SSE endpoint by a path ending in /sse.
//
// One shape the wrapped bytes cannot tell: an entry with an empty
// `"args": []` (TOML `args = []`) right after its command, which Claude Code
// writes for a server without arguments, wraps to exactly the bytes of an
// entry that had no args, for which Wrap added the member there. (An empty
// array with anything inside, `[ ]` or `[ /* none */ ]`, keeps that inside
// after its new elements, so it is told apart and keeps it.) For that shape
// Unwrap looks in the file's backups (UnwrapOptions.Earlier; restore.go),
// newest first, for one whose entry of the same key is not wrapped and,
// wrapped with the entry's binary, reads byte for byte as the entry does
// now; it puts that entry's own bytes back, from the command to the end of
// its args. Only the entry's bytes are compared, so a host that rewrote the
// rest of the file since does not matter, and a backup holding the wrapped
// entry (made by an earlier unwrap) is passed over. When no backup shows it
// (only the newest 5 are kept), the args member is taken out, which hosts
// read the same as an empty one. This is the robust way: any mark Wrap
// could leave in the file to tell the two apart (a space, a comment) is
// lost when a host rewrites the file, and the backup is there anyway.
//
// Reading and editing are linear in the size of the file: entries are found
// through a map by key, and all of an edit's splices are made in one pass
// over the bytes. Wrapping every entry of a 16k-entry config (3 MB of JSON)
// takes 13 to 15 times as long as for 1k entries, 0.3 s on two cores
// (BenchmarkWrap; before, 1k entries took 0.6 s and 16k several minutes).
//
// Caveats: a host may rewrite its file while elicitray edits it (Claude Code
// rewrites ~/.claude.json often). On Linux no version of the host's is
// lost: each is in place or in a backup, and the edit is made again on it
// (swap.go says how, and what a host reading the file in the microseconds
// of a swap back sees). Elsewhere the file is compared with what was read
// just before the rename, so the window for a lost version is the rename
// itself.
package hosts
