package history

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DefaultLimit is the number of records List returns when Query.Limit is
// zero.
const DefaultLimit = 100

// Query selects records for List, ListPage, CountQuery and Export. Its zero
// value selects the newest DefaultLimit records; each field set narrows the
// selection.
type Query struct {
	// Server selects the records of one configured server name (exact
	// match). Empty means all servers.
	Server string
	// Action selects one action: "accept", "decline", "cancel" or "error".
	// Empty means all.
	Action string
	// DecidedBy selects who or what decided: "user", "timeout",
	// "server-cancelled" or "error". Empty means all.
	DecidedBy string
	// Mode selects one kind of request: "form", "url", or "tool call" (a
	// guarded tools/call the user approved or denied). Empty means all.
	Mode string
	// Since selects records at or after this time. Zero means no lower bound.
	Since time.Time
	// Until selects records strictly before this time, so that consecutive
	// ranges do not share records. Zero means no upper bound.
	Until time.Time
	// Text selects records whose message, server, tool or serverInfo name
	// contains it, ignoring case (strings.ToLower of both). Empty means
	// all. A search reads records until it has Limit matches, all of them
	// when fewer match, except those of blocks whose filter rules the text
	// out (doc.go, "Searching"); ScanLimit bounds that.
	Text string
	// Limit is the most records List returns. Zero or negative means
	// DefaultLimit.
	Limit int
	// Before pages toward the oldest: it selects only records older than
	// the record with this ID, which is normally the last record of the
	// previous page. Zero means starting from the newest record. A record that
	// no longer exists makes List fail with ErrNotFound.
	Before uint64
	// After pages toward the newest: it selects only records newer than the
	// record with this ID, and List returns the Limit selected records
	// nearest to it, still newest first. Pass the first record of a page to
	// get the page before it. Zero means no bound; with Before too, both
	// bound the selection. A record that no longer exists makes List fail
	// with ErrNotFound.
	After uint64
	// ScanLimit bounds the work of one List or ListPage call: it examines at
	// most this many records, matching or not, and Page.Next says where to
	// continue. Zero or negative means no bound. CountQuery and Export
	// ignore it.
	ScanLimit int
}

// Page is one page of a listing, as ListPage returns it.
type Page struct {
	// Records are the records selected, newest first; nil for none.
	Records []Record
	// Next is where to continue: pass it as Query.Before for the next page,
	// or as Query.After when the query paged with After. It is the ID of the
	// last record examined, so that a scan stopped by ScanLimit continues
	// where it stopped. Zero means there is nothing more to examine; a
	// non-zero Next with Action, DecidedBy or Text set may still lead to no
	// more records.
	Next uint64
}

// List returns the records that q selects, newest first; records with the
// same time come newest ID first. An empty result is a nil slice.
func (s *Store) List(q Query) ([]Record, error) {
	p, err := s.ListPage(q)
	return p.Records, err
}

// ListPage is List that also says where the listing continues: Page.Next is
// non-zero when records past the page are left to examine, whether the page
// ended at q.Limit or at q.ScanLimit. It fails with ErrNotFound when
// q.Before or q.After names a record that does not exist.
func (s *Store) ListPage(q Query) (Page, error) {
	var p Page
	err := s.view(func(tx *bolt.Tx) error {
		res, err := scan(tx, q, q.After != 0, span{})
		if err != nil {
			return err
		}
		p.Records = res.records
		if res.more {
			p.Next = keyID(res.last)
		}
		return nil
	})
	if err != nil {
		return Page{}, fmt.Errorf("listing history: %w", err)
	}
	return p, nil
}

// CountQuery returns how many records q selects, ignoring q.Limit,
// q.Before, q.After and q.ScanLimit. A query with no field set but Server
// reads a counter, like Count; Since and Until alone walk the keys in their
// range; Action, DecidedBy and Text read every record in that range.
func (s *Store) CountQuery(q Query) (int, error) {
	var n int
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		n, err = countQuery(tx, q)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("counting history records: %w", err)
	}
	return n, nil
}

// Servers returns the names of the servers that have records, in byte
// order (the servers' index, doc.go, holds one bucket per name; a name's
// bucket goes with its last record). Records without a server name are
// left out.
func (s *Store) Servers() ([]string, error) {
	var names []string
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketServers).ForEachBucket(func(k []byte) error {
			names = append(names, string(k))
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("listing the servers in history: %w", err)
	}
	return names, nil
}

// span is a range of record keys: from lo (included) to hi (excluded). A
// nil end is unbounded.
type span struct{ lo, hi []byte }

// span returns the keys that q's Since, Until, Before and After select.
func (q Query) span(tx *bolt.Tx) (span, error) {
	var sp span
	if !q.Since.IsZero() {
		sp.lo = recordKey(boundNanos(q.Since), 0)
	}
	if !q.Until.IsZero() {
		sp.hi = recordKey(boundNanos(q.Until), 0)
	}
	if q.After != 0 {
		k, err := keyOfID(tx, q.After)
		if err != nil {
			return span{}, err
		}
		if k == nil {
			return span{}, fmt.Errorf("paging after record %d: %w", q.After, ErrNotFound)
		}
		if k = successor(k); sp.lo == nil || bytes.Compare(k, sp.lo) > 0 {
			sp.lo = k
		}
	}
	if q.Before != 0 {
		k, err := keyOfID(tx, q.Before)
		if err != nil {
			return span{}, err
		}
		if k == nil {
			return span{}, fmt.Errorf("paging before record %d: %w", q.Before, ErrNotFound)
		}
		if sp.hi == nil || bytes.Compare(k, sp.hi) < 0 {
			sp.hi = k
		}
	}
	return sp, nil
}

// intersect returns the keys both sp and o hold.
func (sp span) intersect(o span) span {
	if o.lo != nil && (sp.lo == nil || bytes.Compare(o.lo, sp.lo) > 0) {
		sp.lo = o.lo
	}
	if o.hi != nil && (sp.hi == nil || bytes.Compare(o.hi, sp.hi) < 0) {
		sp.hi = o.hi
	}
	return sp
}

// index returns the bucket whose keys are those of the records q can
// select: the server's index for q.Server, else the records bucket; nil for
// a server without records.
func (q Query) index(tx *bolt.Tx) *bolt.Bucket {
	if q.Server == "" {
		return tx.Bucket(bucketRecords)
	}
	return tx.Bucket(bucketServers).Bucket([]byte(q.Server))
}

// walker steps through the keys of a cursor's bucket within a span, newest
// first, or oldest first when forward.
type walker struct {
	c       *bolt.Cursor
	sp      span
	forward bool
	// jumped says that skipBlocks moved the cursor, and jk and jv are what
	// next returns.
	jumped bool
	jk, jv []byte
}

// first returns the first key and value within the span, or nil.
func (w *walker) first() ([]byte, []byte) {
	var k, v []byte
	switch {
	case w.forward && w.sp.lo == nil:
		k, v = w.c.First()
	case w.forward:
		k, v = w.c.Seek(w.sp.lo)
	case w.sp.hi == nil:
		k, v = w.c.Last()
	default:
		// Seek finds the first key at or after hi, which is excluded: the
		// one before it is the newest wanted.
		if k, _ = w.c.Seek(w.sp.hi); k == nil {
			k, v = w.c.Last()
		} else {
			k, v = w.c.Prev()
		}
	}
	return w.within(k, v)
}

// next returns the next key and value within the span, or nil.
func (w *walker) next() ([]byte, []byte) {
	if w.jumped {
		w.jumped = false
		return w.jk, w.jv
	}
	if w.forward {
		return w.within(w.c.Next())
	}
	return w.within(w.c.Prev())
}

// skipBlocks moves the walk past the block of f it is in, whose filter
// rules the query out, and past every block after it in the walk's
// direction that f rules out too, reading the filters only: the next call
// of next returns the first key of a block f does not rule out, or nil at
// the end of the span.
func (w *walker) skipBlocks(f *textFilter) {
	w.jumped = true
	w.jk, w.jv = nil, nil
	if w.forward {
		if lo, ok := f.nextPass(w.sp.hi); ok {
			w.jk, w.jv = w.within(w.c.Seek(lo))
		}
		return
	}
	hi, ok := f.prevPass(w.sp.lo)
	if !ok {
		return
	}
	// The newest key before hi.
	if k, _ := w.c.Seek(hi); k == nil {
		w.jk, w.jv = w.within(w.c.Last())
	} else {
		w.jk, w.jv = w.within(w.c.Prev())
	}
}

func (w *walker) within(k, v []byte) ([]byte, []byte) {
	if k == nil || (w.sp.lo != nil && bytes.Compare(k, w.sp.lo) < 0) ||
		(w.sp.hi != nil && bytes.Compare(k, w.sp.hi) >= 0) {
		return nil, nil
	}
	return k, v
}

// scanResult is what scan found.
type scanResult struct {
	records []Record // newest first
	last    []byte   // key of the last record examined, a copy; nil for none
	more    bool     // the span has keys past last
	span    span     // the keys scanned, with Before and After resolved
	parsed  int      // how many records were read, not skipped by a search block
}

// add appends r to the page, which it makes at its full size at once:
// growing it by doubling copied each record of a page about twice.
func (res *scanResult) add(r Record, limit int) {
	if res.records == nil {
		res.records = make([]Record, 0, min(limit, maxPrealloc))
	}
	res.records = append(res.records, r)
}

// unreadable is the Record that stands for the record under key k when
// its stored bytes cannot be read (err says why): its ID and time come
// from the key, its server from the listing when it was of one server.
// Every listing shows it, whatever else it selects: a damaged record must
// not hide the others, nor vanish without a word (Record.Unreadable).
func unreadable(k []byte, server string, err error) Record {
	return Record{ID: keyID(k), Time: time.Unix(0, int64(keyNanos(k))), Server: server, Unreadable: err.Error()}
}

// seekExact returns the value of key k in c's bucket, as Bucket.Get does
// (nil when k is missing or names a nested bucket), with c's memory.
func seekExact(c *bolt.Cursor, k []byte) []byte {
	if got, v := c.Seek(k); bytes.Equal(got, k) {
		return v
	}
	return nil
}

// maxPrealloc bounds the records scan makes room for before it has them:
// a caller's Limit may be far larger than what it gets.
const maxPrealloc = 1000

// scan returns up to q.Limit records that q selects, examining at most
// q.ScanLimit records when it is positive. It walks q's index backwards
// from the newest key of q's span, or forwards from the oldest when forward;
// within, when its ends are not nil, narrows q's span further.
func scan(tx *bolt.Tx, q Query, forward bool, within span) (scanResult, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	index := q.index(tx)
	if index == nil {
		return scanResult{}, nil
	}
	sp, err := q.span(tx)
	if err != nil {
		return scanResult{}, err
	}
	sp = sp.intersect(within)
	// One cursor looks up a server's records by key: Bucket.Get makes a
	// cursor for each lookup, four allocations per record of a page.
	records := tx.Bucket(bucketRecords).Cursor()
	viaIndex := q.Server != ""
	match, text, filter := q.matcher(), q.textMatcher(), q.textFilter(tx)
	rd := newReader(tx)
	w := walker{c: index.Cursor(), sp: sp, forward: forward}

	var res scanResult
	var rr rawRecord
	scanned := 0
	k, v := w.first()
	for ; k != nil; k, v = w.next() {
		if len(res.records) >= limit || (q.ScanLimit > 0 && scanned >= q.ScanLimit) {
			break
		}
		scanned++
		res.last = k
		if filter != nil {
			if filter.skip(k) {
				// No record of this block matches. Under a ScanLimit each
				// key still counts as examined, so that Page.Next is where
				// the limit stopped; without one the walk jumps past the
				// blocks ruled out (res.last matters then only at a match).
				if q.ScanLimit <= 0 {
					w.skipBlocks(filter)
				}
				continue
			}
		}
		res.parsed++
		if viaIndex {
			if v = seekExact(records, k); v == nil {
				return scanResult{}, fmt.Errorf("%w: index of server %q names a missing record", errDamaged, q.Server)
			}
		}
		if text != nil {
			if err := rr.parseHead(v); err != nil {
				res.add(unreadable(k, q.Server, err), limit)
				continue
			}
			if !text(&rr) {
				continue
			}
		}
		if err := rr.parse(v); err != nil {
			res.add(unreadable(k, q.Server, err), limit)
			continue
		}
		if viaIndex && string(rr.server) != q.Server {
			// A damaged index: the server's page must not show another
			// server's decision as its own.
			return scanResult{}, fmt.Errorf("%w: index of server %q names record %d, of server %q", errDamaged, q.Server, keyID(k), rr.server)
		}
		if !match(&rr) {
			continue
		}
		r, err := rd.record(k, &rr)
		if err != nil {
			r = unreadable(k, q.Server, err)
		}
		res.add(r, limit)
	}
	res.last = bytes.Clone(res.last)
	res.more = k != nil
	res.span = sp
	if forward {
		slices.Reverse(res.records)
	}
	return res, nil
}

// countQuery returns how many records q selects, ignoring its paging.
func countQuery(tx *bolt.Tx, q Query) (int, error) {
	q.Before, q.After = 0, 0
	timed := !q.Since.IsZero() || !q.Until.IsZero()
	filtered := q.Action != "" || q.DecidedBy != "" || q.Mode != "" || q.Text != ""
	index := q.index(tx)
	switch {
	case index == nil:
		return 0, nil
	case !timed && !filtered && q.Server == "":
		return count(tx), nil
	case !timed && !filtered:
		// A server's index counts its records in its sequence (doc.go).
		return int(index.Sequence()), nil
	}
	sp, err := q.span(tx)
	if err != nil {
		return 0, err
	}
	records := tx.Bucket(bucketRecords)
	match, text, filter := q.matcher(), q.textMatcher(), q.textFilter(tx)
	w := walker{c: index.Cursor(), sp: sp}
	var rr rawRecord
	n := 0
	for k, v := w.first(); k != nil; k, v = w.next() {
		if !filtered {
			n++
			continue
		}
		if filter != nil {
			if filter.skip(k) {
				w.skipBlocks(filter)
				continue
			}
		}
		if q.Server != "" {
			v = records.Get(k)
		}
		if text != nil {
			if err := rr.parseHead(v); err != nil {
				n++ // listed as unreadable (unreadable)
				continue
			}
			if !text(&rr) {
				continue
			}
		}
		if err := rr.parse(v); err != nil {
			n++
			continue
		}
		if match(&rr) {
			n++
		}
	}
	return n, nil
}
