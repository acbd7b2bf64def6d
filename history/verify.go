package history

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// Verification is what Verify found.
type Verification struct {
	// Records is how many records it checked.
	Records int
	// Checkpoints say which records were removed, when and why, oldest
	// first.
	Checkpoints []Checkpoint
	// Head is the seal of the newest record ever added, and
	// CheckpointsHead the seal of the newest checkpoint (hexadecimal): a
	// user who notes them can tell later that nothing before them changed.
	Head, CheckpointsHead string
	// Problems are the places where the chain does not hold, the
	// checkpoints' first, then the records' in ID order; none when the
	// history is whole.
	Problems []Problem
}

// Problem is one place where the chain does not hold: the record it names
// (by ID; 0 for a checkpoint) and what is wrong, as a sentence.
type Problem struct {
	ID   uint64
	Text string
}

// Verify checks every record's seal against its text and the seal before
// it, and that every ID the history ever gave is a record or stood for by
// a checkpoint (doc.go, "The chain"). It reads the file in one
// transaction: at a million records, a few seconds during which Add waits
// if the file must grow.
//
// A file damaged below what a record holds (a page bbolt cannot read, an
// address past the file's end) fails Verify with ErrCorrupt, saying so,
// rather than ending the process, which is the hub when one runs.
func (s *Store) Verify() (Verification, error) {
	var out Verification
	err := s.view(func(tx *bolt.Tx) (err error) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("%w: %v", ErrCorrupt, p)
			}
		}()
		out = verify(tx)
		return nil
	})
	if err != nil {
		return Verification{}, fmt.Errorf("verifying history: %w", err)
	}
	return out, nil
}

func verify(tx *bolt.Tx) Verification {
	var out Verification
	problem := func(id uint64, format string, args ...any) {
		out.Problems = append(out.Problems, Problem{ID: id, Text: fmt.Sprintf(format, args...)})
	}
	missing := func(from, to uint64) {
		if from == to {
			problem(from, "record %d is missing, and no checkpoint says it was removed: it was deleted outside elicitray", from)
		} else {
			problem(from, "records %d to %d are missing, and no checkpoint says they were removed: they were deleted outside elicitray", from, to)
		}
	}
	stated := verifyCheckpoints(tx, &out, problem)
	unstated := func(from, to uint64) {
		if !stated.covers(from, to) {
			problem(from, "records %d to %d were removed, and no sealed checkpoint says so: they were deleted outside elicitray", from, to)
		}
	}
	last := tx.Bucket(bucketRecords).Sequence()
	records := tx.Bucket(bucketRecords)
	rd := newReader(tx)
	var prev link
	next := uint64(1) // the ID the chain goes on with
	known := true     // prev is the seal before next
	gaps := tx.Bucket(bucketRemoved).Cursor()
	gk, gv := gaps.First()
	// at takes the chain to the record with ID id (last+1: its end)
	// through the gaps kept up to it.
	at := func(id uint64) {
		for ; gk != nil && binary.BigEndian.Uint64(gk) <= id; gk, gv = gaps.Next() {
			to := binary.BigEndian.Uint64(gk)
			g, ok := decodeGap(gv)
			switch {
			case !ok:
				problem(to-1, "the seals over the records removed before record %d cannot be read", to)
				continue
			case g.first > next:
				missing(next, g.first-1)
			case g.first < next:
				problem(g.first, "the seals over records %d to %d name records that are there", g.first, to-1)
			case known && g.prev != prev:
				problem(g.first, "the seals over records %d to %d, removed, do not follow the seal before them: the chain was changed outside elicitray", g.first, to-1)
			}
			unstated(g.first, to-1)
			// No seal over the removed records (zero): the last of them
			// was a damaged record whose seal could not be read when it
			// was deleted (removeUnreadable). What follows is not
			// checked against it: it was not changed, the seal was lost.
			prev, next, known = g.hash, to, g.hash != link{}
		}
		if id > next {
			missing(next, id-1)
			next, known = id, false
		}
	}
	c := tx.Bucket(bucketIDs).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		id := binary.BigEndian.Uint64(k)
		at(id)
		out.Records++
		if stated.covers(id, id) {
			problem(id, "a checkpoint says record %d was removed, but it is there", id)
		}
		key, err := idEntryKey(k, v)
		var rr rawRecord
		if err == nil {
			err = rr.parse(records.Get(key))
		}
		var r Record
		if err == nil {
			r, err = rd.record(key, &rr)
		}
		if err != nil || rr.link == nil {
			problem(id, "record %d cannot be read: the file was changed outside elicitray", id)
			next, known = id+1, false
			continue
		}
		stored := link(rr.link)
		if known {
			form, err := sealedForm(r, prev)
			if err != nil || sealOf(form) != stored {
				problem(id, "record %d does not match its seal: it was changed outside elicitray after it was kept", id)
			}
		}
		prev, next, known = stored, id+1, true
	}
	at(last + 1)
	h := head(tx)
	out.Head = h.String()
	if known && last > 0 && h != prev {
		problem(last, "the newest seal kept does not match record %d, the newest: records were removed or changed outside elicitray", last)
	}
	// A gap left after the end names IDs never given.
	for ; gk != nil; gk, gv = gaps.Next() {
		problem(binary.BigEndian.Uint64(gk)-1, "seals are kept over records the history never had")
	}
	return out
}

// runs are runs of IDs, sorted, none touching another.
type runs [][2]uint64

// covers reports whether every ID from a to b is in one of rs.
func (rs runs) covers(a, b uint64) bool {
	i := sort.Search(len(rs), func(i int) bool { return rs[i][1] >= a })
	return i < len(rs) && rs[i][0] <= a && rs[i][1] >= b
}

// verifyCheckpoints checks each checkpoint's seal and that each names the
// seal of the one before, adds them to out, and returns the IDs they say
// were removed.
func verifyCheckpoints(tx *bolt.Tx, out *Verification, problem func(uint64, string, ...any)) runs {
	var all runs
	var prev link
	want := uint64(1)
	c := tx.Bucket(bucketCheckpoints).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		n := binary.BigEndian.Uint64(k)
		if n != want {
			problem(0, "checkpoint %d is missing: it was taken out outside elicitray", want)
		}
		want = n + 1
		var line struct {
			Checkpoint Checkpoint `json:"checkpoint"`
			Prev       string     `json:"prev"`
		}
		if len(v) < linkLen || json.Unmarshal(v[linkLen:], &line) != nil || line.Checkpoint.N != n {
			problem(0, "checkpoint %d cannot be read: the file was changed outside elicitray", n)
			continue
		}
		seal := link(v[:linkLen])
		switch {
		case sealOf(v[linkLen:]) != seal:
			problem(0, "checkpoint %d does not match its seal: it was changed outside elicitray", n)
		case line.Prev != prev.String():
			problem(0, "checkpoint %d does not follow the one before it: one was changed or taken out outside elicitray", n)
		}
		prev = seal
		out.Checkpoints = append(out.Checkpoints, line.Checkpoint)
		for _, r := range line.Checkpoint.Removed {
			if r[0] <= r[1] {
				all = append(all, r)
			}
		}
	}
	out.CheckpointsHead = prev.String()
	slices.SortFunc(all, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
	var merged runs
	for _, r := range all {
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1]+1 {
			merged[n-1][1] = max(merged[n-1][1], r[1])
		} else {
			merged = append(merged, r)
		}
	}
	return merged
}

// chainOf returns the seal before each record of rs and its own, as stored,
// for the export.
// The seal before a record is mostly that of the record after it in a
// chunk, newest first: it is read from the file only when it is not.
func chainOf(tx *bolt.Tx, rs []Record) (prevs, seals []link) {
	prevs, seals = make([]link, len(rs)), make([]link, len(rs))
	byID := make(map[uint64]link, len(rs))
	for i, r := range rs {
		seals[i], _ = sealAt(tx, r.ID)
		byID[r.ID] = seals[i]
	}
	for i, r := range rs {
		if l, ok := byID[r.ID-1]; ok {
			if _, gapped := gapAt(tx, r.ID); !gapped {
				prevs[i] = l
				continue
			}
		}
		prevs[i], _ = prevOf(tx, r.ID)
	}
	return prevs, seals
}

// exportTail returns the lines that end a whole export: each gap, then
// each checkpoint as it is sealed.
func exportTail(tx *bolt.Tx) [][]byte {
	var out [][]byte
	_ = tx.Bucket(bucketRemoved).ForEach(func(k, v []byte) error {
		if g, ok := decodeGap(v); ok {
			out = append(out, gapLine(g, binary.BigEndian.Uint64(k)))
		}
		return nil
	})
	_ = tx.Bucket(bucketCheckpoints).ForEach(func(_, v []byte) error {
		if len(v) > linkLen+1 {
			out = append(out, exportLine(v[linkLen:], link(v[:linkLen])))
		}
		return nil
	})
	return out
}
