package ui

import (
	"slices"

	"github.com/elicitray/elicitray/history"
)

// maxCached is how many records the history table keeps in memory; the
// IDs of all loaded rows are kept (8 bytes a row), their records only near
// where the table was looked at.
const maxCached = 10 * historyPage

// historyRows is what the history table shows: the IDs of the rows loaded
// so far, newest first, and a cache of their records. Its zero value is not
// ready: call reset.
type historyRows struct {
	ids []uint64
	// end is set once the oldest record the query selects is loaded.
	end bool
	// version counts the changes to the store that the rows saw: records
	// added on top, or deleted, or found missing. Loading more rows is no
	// change: a count made before it still holds.
	version uint64

	cache map[uint64]*cachedRecord
	tick  uint64 // bumped at each get: the cache's clock
	max   int    // how many records the cache keeps; maxCached if zero
}

type cachedRecord struct {
	rec  history.Record
	used uint64 // tick of the last get
}

// reset empties the rows.
func (r *historyRows) reset() {
	r.ids = nil
	r.end = false
	r.cache = map[uint64]*cachedRecord{}
}

// get returns the cached record id, marking it used.
func (r *historyRows) get(id uint64) (history.Record, bool) {
	c, ok := r.cache[id]
	if !ok {
		return history.Record{}, false
	}
	r.tick++
	c.used = r.tick
	return c.rec, true
}

// peek returns the cached record id without marking it used.
func (r *historyRows) peek(id uint64) (history.Record, bool) {
	c, ok := r.cache[id]
	if !ok {
		return history.Record{}, false
	}
	return c.rec, true
}

func (r *historyRows) put(rec history.Record) {
	r.tick++
	r.cache[rec.ID] = &cachedRecord{rec: rec, used: r.tick}
}

// index is the row of the record id, or -1.
func (r *historyRows) index(id uint64) int {
	return slices.Index(r.ids, id)
}

// appendPage adds rs, read after the last row, at the end; fewer than
// limit records means the end is reached.
func (r *historyRows) appendPage(rs []history.Record, limit int) {
	r.merge(len(r.ids), rs, limit)
}

// prepend adds rs, records newer than the first row, on top.
func (r *historyRows) prepend(rs []history.Record) {
	if len(rs) == 0 {
		return
	}
	ids := make([]uint64, 0, len(rs)+len(r.ids))
	for i := range rs {
		r.put(rs[i])
		ids = append(ids, rs[i].ID)
	}
	r.ids = append(ids, r.ids...)
	r.version++
}

// remove deletes row i.
func (r *historyRows) remove(i int) {
	delete(r.cache, r.ids[i])
	r.ids = slices.Delete(r.ids, i, i+1)
	r.version++
}

// merge puts rs, the records that follow row start-1 in the store (at
// most limit of them, newest first), at rows start onwards. The store is
// the truth: a loaded row missing from rs was deleted and goes, a record
// of rs that is not a loaded row was added (with an older time) and
// comes; fewer than limit records means nothing follows them. A record
// following the last row extends the rows.
func (r *historyRows) merge(start int, rs []history.Record, limit int) {
	// The loaded rows rs may cover: a window, so that a page costs no
	// scan of a million IDs.
	window := r.ids[start:min(len(r.ids), start+4*limit)]
	pos := make(map[uint64]int, len(window))
	for k, id := range window {
		pos[id] = start + k
	}
	ids := make([]uint64, 0, len(rs))
	j := start // next loaded row to match
	changed := false
	for i := range rs {
		rec := rs[i]
		r.put(rec)
		p, ok := pos[rec.ID]
		switch {
		case ok && p >= j:
			// Rows before it that rs skipped were deleted.
			for ; j < p; j++ {
				delete(r.cache, r.ids[j])
				changed = true
			}
			j++
		case ok:
			continue // already placed: the store does not reorder
		case j < len(r.ids):
			changed = true // added among the rows
		}
		ids = append(ids, rec.ID)
	}
	end := j
	if len(rs) < limit {
		// Nothing follows rs: loaded rows after it were deleted.
		for ; end < len(r.ids); end++ {
			delete(r.cache, r.ids[end])
			changed = true
		}
		r.end = true
	}
	r.ids = slices.Replace(r.ids, start, end, ids...)
	if changed {
		r.version++
	}
}

// evict drops records from the cache, least recently used first, once it
// holds more than its maximum, keeping the first page (the top of the
// table shows at once) and the rows from, to (those in view and around).
func (r *historyRows) evict(from, to int) {
	limit := r.max
	if limit == 0 {
		limit = maxCached
	}
	if len(r.cache) <= limit {
		return
	}
	keep := map[uint64]bool{}
	for _, id := range r.ids[:min(historyPage, len(r.ids))] {
		keep[id] = true
	}
	for _, id := range r.ids[min(from, len(r.ids)):min(to, len(r.ids))] {
		keep[id] = true
	}
	type aged struct {
		id   uint64
		used uint64
	}
	var old []aged
	for id, c := range r.cache {
		if !keep[id] {
			old = append(old, aged{id, c.used})
		}
	}
	slices.SortFunc(old, func(a, b aged) int {
		switch {
		case a.used < b.used:
			return -1
		case a.used > b.used:
			return 1
		}
		return 0
	})
	// Down to three quarters, so that eviction is not at every page.
	for _, a := range old[:min(len(old), len(r.cache)-limit*3/4)] {
		delete(r.cache, a.id)
	}
}
