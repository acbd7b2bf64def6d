// Package journal keeps decisions durable: the history record of each one
// (NewRecord, with secrets redacted), the journal that puts it in history
// when the file takes it and in the spool when it does not, and the spool
// itself, a directory of append-only files the next hub (or `history`)
// moves into history (DESIGN.md: "A decision is durable before its answer
// leaves, or the user is told").
//
// Files: record.go (one record builder), journal.go (history, else the
// spool, else memory, and the retry), spool.go (the spool's files),
// historyopen.go and locks_*.go (why history cannot be opened, and who
// holds it).
package journal
