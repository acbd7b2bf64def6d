// Package history is the hub's record of every decision on every
// elicitation: what was asked, by which server, and how it was answered.
//
// It owns one bbolt file (history.db), wraps bbolt completely and exposes
// Records only; callers never see a bucket, a key or a transaction
// (STYLE.md §9). Every exported method of Store is one bbolt View or Update
// transaction, except where its doc says it works in steps (Prune, Export,
// the upgrade in Open) because one transaction over a million records would
// hold hundreds of megabytes. A Store is safe for use by many goroutines at
// once; the package starts no goroutines of its own.
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
// A file that is not a readable history fails Open with ErrCorrupt;
// OpenOrRecover moves it aside and starts a new one. Deleted records leave
// free pages that new records reuse; Compact gives them back to the file
// system.
//
// # Buckets and keys (schema version 8)
//
// All integers in keys are big-endian, so that bbolt's byte order is numeric
// order.
//
//	meta        "version" → the schema version as decimal ASCII ("7")
//	            "chain-head" → the seal of the newest record ever added
//	            (see "The chain")
//	records     key (16 bytes) → record value (below)
//	            sequence: the last ID given
//	ids         ID (8 bytes) → the record's time (8 bytes), the first
//	            half of its key, which the ID completes
//	            sequence: the number of records
//	servers     one nested bucket per Record.Server:
//	              key (16 bytes) → empty value
//	              sequence: the number of the server's records
//	schemas     reference (8 bytes) → a requestedSchema as sent
//	schemarefs  reference (8 bytes) → the number of records that refer to
//	            it (8 bytes); at zero the schema and its count go
//	requests    Record.Key → ID (8 bytes): one record per elicitation
//	search      key (16 bytes) → a block: the number of its records
//	            (4 bytes), a filter of their text (1,280 bytes); see
//	            "Searching"
//	removed     ID (8 bytes) of the record after records removed → their
//	            gap: the first removed ID (8 bytes), the seal before it
//	            and the seal of the last (16 bytes each); see "The chain"
//	checkpoints number (8 bytes, from the bucket's sequence) → the
//	            checkpoint's seal (16 bytes) and the JSON its seal covers
//
// A key is Record.Time in Unix nanoseconds (8 bytes) followed by Record.ID
// (8 bytes). Keys therefore sort by time, and records with the same time by
// ID; List walks them backwards for newest first. The ids bucket finds a
// record by ID for Get, Delete and paging; the per-server buckets index the
// keys of one server's records so that a query for one server does not read
// the others. IDs come from the records bucket's sequence and start at 1;
// they are never reused, even after Delete or Clear. Files of version 4
// and older hold the whole key (16 bytes) as the value in the ids and the
// requests buckets; both lengths are read.
//
// # Counts
//
// Count and CountQuery for one server read counters, so that they take the
// same time for ten records or ten million: bucket sequences, which bbolt
// stores in the bucket's header and which change in the same transaction as
// the records they count. A server's index goes with its last record.
//
// # Record values
//
// Most of a record is its requestedSchema (0.5 to 3 kB), and a server sends
// the same few schemas again and again; the rest is short text. So a schema
// is stored once, in the schemas bucket under the first 8 bytes of its
// SHA-256, and the record keeps that reference; Get, List and Export put the
// schema back, byte for byte as the server sent it (minus surrounding
// whitespace, and with any invalid UTF-8 as U+FFFD, as in every text of a
// record: JSON out of the history is always valid). Should another schema already hold the reference, the record
// keeps its schema inline. A record's value is binary, since JSON would
// repeat the field names in every record and take longer to read:
//
//	0x06                       the encoding (below for older ones)
//	16 bytes                   the record's seal (see "The chain")
//	varint                     seconds east of UTC of Record.Time's zone
//	5 × (uvarint n, n bytes)   Server, ServerInfo.Name, .Title, .Version,
//	                           Tool
//	word                       Mode
//	2 × (uvarint n, n bytes)   Message, URL
//	2 × word                   Action, DecidedBy
//	uvarint n, n bytes         Reason
//	varint                     Elapsed in nanoseconds
//	0 | 1 ref(8) | 2 uvarint n, n bytes
//	                           no schema | a reference | the schema inline
//	uvarint n, n bytes         Content as JSON; n = 0 for none
//	2 × (uvarint n, n bytes)   Key, Source
//	uvarint n, n bytes         Delivery: only in 0x07 values, which are
//	                           0x06 values of records that have one
//
// A word is one byte for the texts nearly every record has there: 1 to 9
// for "form", "url", "accept", "decline", "cancel", "error", "user",
// "timeout" and "server-cancelled" (codec.go's words, which only grow at
// the end), or 0 followed by uvarint n and n bytes for any other text. It
// saves 15 of a record's 300 bytes. Values of older versions are read as
// they are: 0x04 and 0x05 values (schema versions 5 and 6) are 0x06 and
// 0x07 values without the seal, 0x03 values (schema versions 3 and 4) have each word as
// (uvarint n, n bytes), 0x02 values (version 2) end before Key too, and
// version 1 values are JSON and start with '{'.
//
// Time and ID are in the key. The zone offset gives the time back in the
// location a version 1 file gave it when parsing it from RFC 3339: UTC for
// offset zero, the local zone when it has that offset, else a fixed zone.
//
// At a million records of realistic size (messages of 50 to 300
// characters, 5 schemas) the file takes about 442 bytes per record (466 in
// version 4): 346 in the records bucket, 32 each in the ids bucket and the
// servers' indexes, 11 in the search blocks, and up to 17 of the room
// (16 MiB) bbolt grows the file by ahead of need. The benchmarks in
// bench_test.go (`make bench-history`) measure it.
//
// Reading a page costs one allocation per record besides its content: the
// record's texts are substrings of one string, the Records of one call
// share the bytes of each requestedSchema they hold (read-only, see
// Record.RequestedSchema), the page is made at its size, and a server's
// records are found with one cursor. At a million records the first page
// takes about 0.26 ms and a server's 0.36 to 0.46 ms (2 cores); at 25
// allocations a record, the collections they set off had made them 0.5 to
// 1.3 ms (TestListAllocatesLittle keeps it so).
//
// # One record per elicitation
//
// Under faults one decision can reach Add more than once: a spooled record
// taken in again after a crash, or the hub's record and then the wrapper's
// account of what the server really received. Records carry Record.Key, the
// elicitation's identity, and the requests bucket keeps one record per key:
// a second record with the key is a replay and changes nothing, except that
// a SourceWrapper record replaces a hub record's decision (the wrapper knows
// what the server got), and a SourceDelivery record settles the Delivery
// of a record still DeliveryPending: the server got the answer (""), or
// why it did not. A settled delivery stays. The record keeps its ID and
// Time.
//
// # The chain
//
// Every record is sealed when it is stored: its seal is the first 16
// bytes of the SHA-256 of its line in a JSON Lines export without the
// member "hash" (sealedForm: the record as encoding/json writes it, as
// Get returns it, followed by "prev", the seal before it in hexadecimal).
// The seal before record ID n is record n-1's, 16 zero bytes before the
// first, or, when n-1 was removed, the one its gap keeps. An auditor checks an export with nothing but
// its bytes and SHA-256 (docs/history.md has the recipe).
//
// Records are chained in ID order, the order they were first stored in,
// not by time: a record kept late joins the end. The meta key
// "chain-head" holds the seal of the newest ID given, which the next Add
// names, so that Add reads no other record.
//
// Delete, Prune and Clear leave a gap under the ID of the record after
// those they removed (one past the last ID when they were the newest):
// the first ID removed, the seal before it and the seal of the last
// removed, which the record after names. Gaps next to each other merge.
// Each removal also adds a checkpoint, a sealed statement of which IDs
// went (runs of them), when and why ("pruned", "deleted", "cleared"):
// checkpoints are numbered from 1 and chained among themselves, each form
// naming the seal of the one before ({"checkpoint":{…},"prev":…}), so a
// checkpoint changed or taken out shows, and so do records removed with
// no checkpoint to say so. A record that changes in place (a delivery
// settled, a wrapper's account, see "One record per elicitation") is
// sealed again, and so are the records after it up to the next gap, which
// takes the new seal before it: nearly always none, the change coming
// moments after the record. A record after it whose seal no longer held
// is left as it is (reseal), so that elicitray's own writes never seal a
// change made by others.
//
// Verify checks the checkpoints' chain, then walks the IDs from 1 to the
// last given, recomputing each seal and crossing the gaps; it names a
// record whose seal does not match (changed by hand), IDs that are
// neither records nor in a gap, or in a gap no checkpoint names (deleted
// by hand), gaps that do not follow the seal before them, and
// checkpoints changed, out of order or taken out.
//
// Seals cost 16 bytes a record (about 3.5% of the file) and an
// encoding/json pass and a SHA-256 over its line when it is stored (each
// schema written once: schemaFacts). Only the last bytes of a line, the
// seal before it, depend on the chain: an adder (add.go) hashes the rest
// on other goroutines while it encodes the records after it, so that a
// batch of records goes in at the speed it did before seals, with the
// second core doing the sealing. They show text changed in
// the file by other means than elicitray, and records or checkpoints
// taken out. They are not signed with a key: whoever edits the file and
// knows how seals are made can drop the newest records and set the head
// back, or add a checkpoint of their own at the end of the checkpoints'
// chain; heads kept elsewhere show that.
//
// # Schema version
//
// The meta bucket holds the version of the layout above; this package
// writes version 8 (schemaVersion). Upgrading any older file copies it
// first, byte for byte, to history.db.v<version>.bak (kept if an earlier
// upgrade left one; one an earlier attempt made of these very bytes is
// not made again, and one an upgrade that changed nothing made is removed
// when it fails: a disk the copy filled stays full otherwise). Version 7 folded the searched text by case alone:
// upgrading it (or a file of version 4 to 6) makes the filters of the
// search blocks again from every record, in one transaction, as searchText
// folds text now (without the invisible characters people do not type,
// and with the letters and digits Arabic and Persian keyboards type
// differently as one).
// Version 7's values carry seals: upgrading a file of version 6 or older
// then seals every record in ID order, 5,000 per transaction, rewriting its
// value as 0x06 or 0x07 with its schema reference unchanged, and writes a
// gap for each run of IDs deleted before (both its seals the seal before
// it: no seal of theirs was ever made) and one checkpoint naming them all,
// why: "removed before the history was sealed". A record it cannot read
// stays unsealed, for Verify to name. The meta key "upgrading-chain" holds the last ID
// sealed and its seal, so that an Open that stops half way resumes there.
// Open then compacts the file. Version 6 had 0x05 values for records with
// a Delivery. Open upgrades an older file in place
// through migrate and refuses a newer one with ErrNewerVersion rather than
// risk damaging data it does not understand. Version 4 wrote records as
// 0x03 values and whole keys in the ids and requests buckets, all of which
// version 5 reads: upgrading it changes the version only, and the records
// it had keep their size. Version 3 had no search
// blocks; upgrading it builds them from every record, in one transaction
// (about a second and 10 MB of new pages at a million records). Version 2 had
// no requests bucket and no keys; upgrading it adds the bucket. Version 1
// stored each record as
// JSON with its schema inline, and kept no counts. Upgrading it writes the
// new buckets and version 2 first, marks the file ("upgrading-v1" in meta,
// naming the last record rewritten), then rewrites the records 5,000 per
// transaction; an Open that stops half way resumes at the mark. Open then
// compacts the file once, since the old values leave most of it free.
//
// # Searching
//
// A search (Query.Text) reads records newest first until it has a page of
// matches, but it reads only the records of blocks that can hold one. The
// records fall, in key order, into blocks of about 128, and the search
// bucket keeps one per block, under the key of its first record, with a
// filter: 10,240 bits, and for each trigram (three bytes) of the lower case
// of each field a search reads — message, server, tool, serverInfo name,
// folded by searchText as the match is — one bit set, chosen by a hash. A block whose filter lacks a bit of one of the query's trigrams has
// no match, and the search passes over its records without reading them.
// Two trigrams may share a bit, so a block may be read for nothing, but
// never skipped with a match in it. The fields a search does not read
// (content, URL, reason) leave nothing in the filters.
//
// Add sets the bits of its record in the block of its key, and starts a new
// block when that block is full and the record is its newest; a record
// with an older time (a spool taken in late, a clock set back) joins the
// block of its time, and a block that grows to 256 records is split in
// two. Delete and Prune compute the filters of the blocks they took records
// from again from the records left, before their transaction commits, so
// that a deleted record's text leaves no trace in them, and drop a block
// left empty; Clear empties the bucket with the others.
//
// At a million records (`make bench-history`, 2 cores) a search for a word
// in no message reads about 7,800 filters and no record: 1 to 3 ms instead
// of 0.55 s; one for a word in 0.1% of the messages takes 8 to 16 ms
// instead of 60 ms. The blocks take 11 bytes per record, Add spends about
// 3 µs more on a record (nothing next to its wait for the disk), and
// opening a version 3 file builds them once in about a second. The filters
// cannot help a query of common words in an order no message has them, or
// one shorter than three bytes: every block has their trigrams, and such a
// search still reads every record (parsing each only up to its message and
// looking for the query's rarest byte first), 0.3 to 0.5 s at a million.
//
// Query.ScanLimit bounds one call, and Page.Next continues where it
// stopped; under a ScanLimit the records of a skipped block count as
// examined, so that Page.Next stays where the limit stopped.
//
// The blocks are made from the records and hold nothing else: a block value
// that is not one (damage) rules nothing out, and the next Add or Delete in
// its range computes it again, so that damage to them never hides a record
// or stops the hub keeping decisions.
//
// # Caveats
//
//   - Record times must lie between 1970 and 2262, the range of Unix
//     nanoseconds in 64 bits; Add refuses others.
//   - History stores what it is given: redacting secret-looking fields is the
//     caller's job and must happen before Add.
//   - Content is JSON: numbers come back as json.Number, with every digit
//     they were stored with (a float64 keeps about 16), arrays as []any and
//     objects as map[string]any, whatever Go types were added.
//   - bbolt trusts the page numbers in the file. Open checks the meta pages
//     and the file's length, and turns a fault while it reads a damaged
//     file into ErrCorrupt; damage deeper in a file that opened can still
//     fail later reads.
package history
