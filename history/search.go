package history

import (
	"bytes"
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// The search bucket (doc.go, "Searching"): the records, in key order, fall
// into blocks of about blockRecords, and each block keeps a filter of the
// trigrams in the text a search reads. A search skips every block whose
// filter lacks one of its query's trigrams without reading its records, so a
// word in no message costs a look at each filter instead of a read of each
// record.
//
// A block's key is the key of its first record when it was made; it holds
// every record from there up to the next block's key. Its value is
//
//	uint32     the number of its records (big-endian)
//	filterLen  the filter: bit trigramBit(t) is set for every trigram t
//	           (three bytes) of the lower case of each field a search
//	           reads, in one of the block's records
//
// A set bit may also come from a trigram no record has (two trigrams share
// it); a filter never lacks a trigram a record has, so skipping loses no
// match. Add sets the bits of its record (and halves a block that old
// records made twice the size); Delete and Prune compute the
// filters of the blocks they took records from anew, so that a deleted
// record leaves nothing of its text behind, and drop a block with no
// records left.

// blockRecords is how many records a block gathers before Add starts the
// next one. Bigger blocks mean fewer filters to look at but more bits set in
// each, and so more blocks a search must read. Tests lower it.
var blockRecords = 128

// filterLen is the length of a block's filter in bytes. 10,240 bits for 128
// records of a few hundred characters leaves most bits clear, so that a
// query's trigrams rarely all find theirs set by chance; three values of
// this size fill a 4 KiB page.
const filterLen = 1280

const (
	filterBits   = filterLen * 8
	blockHeadLen = 4
	blockLen     = blockHeadLen + filterLen
)

// searchFields calls fn with each field of rr that Query.Text searches:
// the message, the server's name, the tool and serverInfo's name.
func searchFields(rr *rawRecord, fn func([]byte)) {
	fn(rr.message)
	fn(rr.server)
	fn(rr.tool)
	fn(rr.infoName)
}

// trigramBit returns the filter bit of the trigram t (its three bytes, the
// first highest): a multiplicative hash, taken to the filter's range by its
// high bits.
func trigramBit(t uint32) uint32 {
	return uint32(uint64(t*0x9E3779B1) * filterBits >> 32)
}

// addTrigrams sets in filter the bits of the trigrams of field folded as
// the query's matcher folds it (searchText).
func addTrigrams(filter []byte, field []byte) {
	if len(field) < 3 {
		return
	}
	if !isASCII(field) {
		field = []byte(searchText(string(field)))
		var t uint32
		for i, c := range field {
			t = (t<<8 | uint32(c)) & 0xffffff
			if i >= 2 {
				b := trigramBit(t)
				filter[b>>3] |= 1 << (b & 7)
			}
		}
		return
	}
	var t uint32
	for i, c := range field {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		t = (t<<8 | uint32(c)) & 0xffffff
		if i >= 2 {
			b := trigramBit(t)
			filter[b>>3] |= 1 << (b & 7)
		}
	}
}

// queryBits returns the filter bits of the trigrams of lower, a query in
// lower case; nil when it is shorter than a trigram, which no filter can
// rule out.
func queryBits(lower string) []uint32 {
	if len(lower) < 3 {
		return nil
	}
	bits := make([]uint32, 0, len(lower)-2)
	var t uint32
	for i := range len(lower) {
		t = (t<<8 | uint32(lower[i])) & 0xffffff
		if i >= 2 {
			bits = append(bits, trigramBit(t))
		}
	}
	return bits
}

// blockCount returns the number of records a block value holds, and false
// for a value of the wrong length.
func blockCount(v []byte) (int, bool) {
	if len(v) != blockLen {
		return 0, false
	}
	return int(binary.BigEndian.Uint32(v)), true
}

// newBlock returns the value of a block with n records and an empty filter.
func newBlock(n int) []byte {
	v := make([]byte, blockLen)
	binary.BigEndian.PutUint32(v, uint32(n))
	return v
}

// indexText puts the record rr, stored under key k, into its block: the
// block that holds k, or a new one when k lies past a full last block or
// before the first block. It must run in the transaction that stores the
// record.
func indexText(tx *bolt.Tx, k []byte, rr *rawRecord) error {
	search := tx.Bucket(bucketSearch)
	search.FillPercent = 1 // blocks are added at the end, like records
	c := search.Cursor()
	next, nextV := c.Seek(k)
	var start, v []byte
	if next == nil {
		start, v = c.Last()
	} else {
		start, v = c.Prev()
	}
	var block []byte
	switch n, ok := blockCount(v); {
	case start != nil && !ok:
		// A block that is not one is computed again, with the record, which
		// is stored already: the blocks are made from the records, and a
		// damaged one must not stop the hub keeping decisions.
		return refreshBlocks(tx, staleBlocks{string(start): {}})
	case start == nil && next != nil:
		// k is older than every block: the first block moves down to k when
		// it has room, else k starts a block of its own.
		if m, ok := blockCount(nextV); ok && m < blockRecords {
			block = bytes.Clone(nextV)
			if err := search.Delete(bytes.Clone(next)); err != nil {
				return err
			}
		}
		start = k
	case start == nil, n >= blockRecords && lastBefore(tx, k, next):
		// A full block ends at k: the newest record, or one after which
		// the next block starts (a clock set back adds its records there).
		start = k
	default:
		// A record with an old time joins the block of its time, full or
		// not (splitBlock halves it at twice the size): a block starting at
		// k would take the records after k from the block whose filter has
		// their trigrams.
		block = bytes.Clone(v)
		start = bytes.Clone(start)
	}
	if block == nil {
		block = newBlock(0)
	}
	n, _ := blockCount(block)
	n++
	binary.BigEndian.PutUint32(block, uint32(n))
	searchFields(rr, func(f []byte) { addTrigrams(block[blockHeadLen:], f) })
	if err := search.Put(start, block); err != nil {
		return err
	}
	if n >= 2*blockRecords {
		return splitBlock(tx, start, n)
	}
	return nil
}

// splitBlock makes two blocks of the block with key start and n records,
// which records with old times have made twice the size of a block (a
// spool taken in late, a clock set back): a block that grew on would be
// read whole for any query its many records have the trigrams of.
func splitBlock(tx *bolt.Tx, start []byte, n int) error {
	c := tx.Bucket(bucketRecords).Cursor()
	mid, _ := c.Seek(start)
	for range n / 2 {
		mid, _ = c.Next()
	}
	if mid == nil {
		return nil
	}
	mid = bytes.Clone(mid)
	if err := tx.Bucket(bucketSearch).Put(mid, newBlock(0)); err != nil {
		return err
	}
	return refreshBlocks(tx, staleBlocks{string(start): {}, string(mid): {}})
}

// lastBefore reports whether no record lies after key k and before the
// block key next (nil for no block after k).
func lastBefore(tx *bolt.Tx, k, next []byte) bool {
	c := tx.Bucket(bucketRecords).Cursor()
	c.Seek(k)
	after, _ := c.Next()
	return after == nil || next != nil && bytes.Compare(after, next) >= 0
}

// staleBlocks are the keys of the blocks a transaction took records from:
// refreshBlocks computes their filters anew before it commits.
type staleBlocks map[string]struct{}

// unindexText notes in stale the block that held the record with key k,
// which is deleted already. refreshBlocks then counts the block's records
// and computes its filter again, or drops it when it has none left: a count
// is not trusted to say a block is empty, since dropping a block that is
// not would leave its records in no block's filter.
func unindexText(tx *bolt.Tx, k []byte, stale staleBlocks) {
	if start, _ := blockOf(tx.Bucket(bucketSearch).Cursor(), k); start != nil {
		stale[string(start)] = struct{}{}
	}
}

// blockOf returns the key and value of the block that holds key k: the last
// block whose key is not after k; nil when k is before every block.
func blockOf(c *bolt.Cursor, k []byte) (start, v []byte) {
	start, v = c.Seek(k)
	switch {
	case start == nil:
		return c.Last()
	case !bytes.Equal(start, k):
		return c.Prev()
	}
	return start, v
}

// refreshBlocks computes the filters and counts of the stale blocks from
// the records they still hold, dropping a block that holds none.
func refreshBlocks(tx *bolt.Tx, stale staleBlocks) error {
	search := tx.Bucket(bucketSearch)
	records := tx.Bucket(bucketRecords)
	for s := range stale {
		start := []byte(s)
		c := search.Cursor()
		k, _ := c.Seek(start)
		if !bytes.Equal(k, start) {
			continue // gone since
		}
		end, _ := c.Next()
		block := newBlock(0)
		n := 0
		unreadable := false
		var rr rawRecord
		rc := records.Cursor()
		for rk, rv := rc.Seek(start); rk != nil && (end == nil || bytes.Compare(rk, end) < 0); rk, rv = rc.Next() {
			n++
			if rr.parse(rv) != nil {
				unreadable = true
				continue
			}
			searchFields(&rr, func(f []byte) { addTrigrams(block[blockHeadLen:], f) })
		}
		if unreadable {
			// A record whose text cannot be read may hold any text: the
			// block is never ruled out, and a search lists the record
			// (Record.Unreadable). Deleting the others goes on.
			for i := blockHeadLen; i < len(block); i++ {
				block[i] = 0xff
			}
		}
		if n == 0 {
			if err := search.Delete(start); err != nil {
				return err
			}
			continue
		}
		binary.BigEndian.PutUint32(block, uint32(n))
		if err := search.Put(start, block); err != nil {
			return err
		}
	}
	return nil
}

// buildSearch fills the empty search bucket from every record in the
// file, blockRecords to a block: the upgrade to schema version 4. Records
// of version 1, which an interrupted upgrade from it leaves after its mark,
// are read as such; rewriting them keeps their text.
func buildSearch(tx *bolt.Tx) error {
	search := tx.Bucket(bucketSearch)
	search.FillPercent = 1
	var start, block []byte
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		binary.BigEndian.PutUint32(block, uint32(n))
		return search.Put(start, block)
	}
	var rr rawRecord
	c := tx.Bucket(bucketRecords).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if n == blockRecords || block == nil {
			if err := flush(); err != nil {
				return err
			}
			start, block, n = bytes.Clone(k), newBlock(0), 0
		}
		// A record that cannot be read has no text to find (every
		// listing shows it, whatever the search): it counts in its block
		// and leaves nothing in the filter, and the rest is indexed.
		if len(v) > 0 && v[0] == '{' {
			if r, err := decodeV1(v); err == nil {
				for _, f := range []string{r.Message, r.Server, r.Tool, r.ServerInfo.Name} {
					addTrigrams(block[blockHeadLen:], []byte(f))
				}
			}
		} else if rr.parse(v) == nil {
			searchFields(&rr, func(f []byte) { addTrigrams(block[blockHeadLen:], f) })
		}
		n++
	}
	return flush()
}

// textFilter answers, for the keys a search walks, whether the block that
// holds them can have a match: it reads each block's filter once, however
// many of its keys the walk visits.
type textFilter struct {
	c      *bolt.Cursor
	bits   []uint32 // the query's trigram bits
	known  bool     // lo, hi and pass describe a block
	lo, hi []byte   // the keys of the block: from lo up to hi, nil for unbounded
	pass   bool     // the block's filter has every bit of the query
}

// newTextFilter returns the filter for a search for lower, the query text
// in lower case; nil when no filter can narrow it (a query shorter than a
// trigram).
func newTextFilter(tx *bolt.Tx, lower string) *textFilter {
	bits := queryBits(lower)
	if bits == nil {
		return nil
	}
	return &textFilter{c: tx.Bucket(bucketSearch).Cursor(), bits: bits}
}

// skip reports whether the block holding k has no match.
func (f *textFilter) skip(k []byte) bool {
	if !f.known || (f.lo != nil && bytes.Compare(k, f.lo) < 0) || (f.hi != nil && bytes.Compare(k, f.hi) >= 0) {
		f.locate(k)
	}
	return !f.pass
}

// passes reports whether a block's value can hold a match: a block that is
// not one rules nothing out.
func (f *textFilter) passes(v []byte) bool {
	if len(v) != blockLen {
		return true
	}
	filter := v[blockHeadLen:]
	for _, b := range f.bits {
		if filter[b>>3]&(1<<(b&7)) == 0 {
			return false
		}
	}
	return true
}

// prevPass finds, from the block skip last ruled out toward the oldest, the
// first block that can hold a match, and returns the end of its keys (the
// key of the block after it; hi excluded). The keys before the first block
// are in none and pass. It returns false when every block before stop, the
// lower end of the search's keys (nil for none), is ruled out.
func (f *textFilter) prevPass(stop []byte) (hi []byte, ok bool) {
	hi = f.lo
	f.c.Seek(hi)
	for {
		if stop != nil && bytes.Compare(hi, stop) <= 0 {
			return nil, false
		}
		k, v := f.c.Prev()
		if k == nil {
			f.known, f.lo, f.hi, f.pass = true, nil, hi, true
			return hi, true
		}
		if f.passes(v) {
			f.known, f.lo, f.hi, f.pass = true, k, hi, true
			return hi, true
		}
		hi = k
	}
}

// nextPass finds, from the block skip last ruled out toward the newest,
// the first block that can hold a match, and returns its key. It returns
// false when every block before stop, the upper end of the search's keys
// (nil for none), is ruled out.
func (f *textFilter) nextPass(stop []byte) (lo []byte, ok bool) {
	if f.hi == nil {
		return nil, false
	}
	k, v := f.c.Seek(f.hi)
	for k != nil {
		if stop != nil && bytes.Compare(k, stop) >= 0 {
			return nil, false
		}
		next, nextV := f.c.Next()
		if f.passes(v) {
			f.known, f.lo, f.hi, f.pass = true, k, next, true
			return k, true
		}
		k, v = next, nextV
	}
	return nil, false
}

// locate reads the block that holds k.
func (f *textFilter) locate(k []byte) {
	f.known = true
	start, v := f.c.Seek(k)
	if start != nil && bytes.Equal(start, k) {
		f.lo = start
		f.hi, _ = f.c.Next()
	} else {
		f.hi = start
		if start == nil {
			f.lo, v = f.c.Last()
		} else {
			f.lo, v = f.c.Prev()
		}
	}
	// A key before every block rules nothing out.
	f.pass = f.lo == nil || f.passes(v)
}
