// Package history is the hub's record of every decision on every
// elicitation: what was asked, by which server, and how it was answered.
//
// It owns one bbolt file (history.db), wraps bbolt completely and exposes
// Records only; callers never see a bucket, a key or a transaction
// (STYLE.md 9). Every exported method of Store is one bbolt View or Update
// transaction, so a Store is safe for use by many goroutines at once; the
// package starts no goroutines of its own.
//
// # File
//
// Open creates the file's directory with mode 0700 and the file with mode
// 0600, and forces 0600 on an existing file, because the history is private
// to the user (DESIGN.md, "Behaviour that users rely on"). bbolt admits one
// process at a time: Open waits at most Options.Timeout for the file lock and
// then fails with ErrLocked, which in practice means a hub already owns the
// file and the caller should ask it over the socket instead.
//
// # Buckets and keys
//
// All integers are big-endian, so that bbolt's byte order is numeric order.
//
//	meta      "version" → the schema version as decimal ASCII ("1")
//	records   key (16 bytes) → JSON of Record
//	ids       ID (8 bytes) → key (16 bytes)
//	servers   one nested bucket per Record.Server:
//	            key (16 bytes) → empty value
//
// A key is Record.Time in Unix nanoseconds (8 bytes) followed by Record.ID
// (8 bytes). Keys therefore sort by time, and records with the same time by
// ID; List walks them backwards for newest first. The ids bucket finds a
// record by ID for Get, Delete and paging; the per-server buckets index the
// keys of one server's records so that a query for one server does not read
// the others. IDs come from the records bucket's sequence and start at 1;
// they are never reused, even after Delete.
//
// The JSON value carries RequestedSchema exactly as the server sent it: it is
// spliced into the value rather than passed through encoding/json, which
// would compact it and escape '<', '>' and '&'.
//
// # Schema version
//
// The meta bucket holds the version of the layout above; this package writes
// version 1 (schemaVersion). Open upgrades an older file in place through
// migrate and refuses a newer one with ErrNewerVersion rather than risk
// damaging data it does not understand.
//
// # Caveats
//
//   - Record times must lie between 1970 and 2262, the range of Unix
//     nanoseconds in 64 bits; Add refuses others.
//   - History stores what it is given: redacting secret-looking fields is the
//     caller's job and must happen before Add.
//   - Content is JSON: numbers come back as float64, arrays as []any and
//     objects as map[string]any, whatever Go types were added.
package history
