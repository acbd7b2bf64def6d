package history

import (
	"encoding/binary"
	"fmt"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
)

// Verification is what Verify found.
type Verification struct {
	// Records is how many records it checked.
	Records int
	// Checkpoints stand for the records removed, oldest IDs first.
	Checkpoints []Checkpoint
	// Head is the seal of the newest record ever added (hexadecimal): a
	// user who notes it can tell later that nothing before it changed.
	Head string
	// Problems are the places where the chain does not hold, in ID order;
	// none when the history is whole.
	Problems []Problem
}

// Problem is one place where the chain does not hold: the record it names
// (by ID) and what is wrong, as a sentence.
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
	last := tx.Bucket(bucketRecords).Sequence()
	records := tx.Bucket(bucketRecords)
	rd := newReader(tx)
	var prev link
	next := uint64(1) // the ID the chain goes on with
	known := true     // prev is the seal before next
	cps := tx.Bucket(bucketRemoved).Cursor()
	ck, cv := cps.First()
	// at takes the chain to the record with ID id (last+1: its end)
	// through the checkpoints kept up to it.
	at := func(id uint64) {
		for ; ck != nil && binary.BigEndian.Uint64(ck) <= id; ck, cv = cps.Next() {
			to := binary.BigEndian.Uint64(ck)
			cp, ok := decodeCheckpoint(cv)
			switch {
			case !ok:
				problem(to-1, "the checkpoint before record %d cannot be read", to)
				continue
			case cp.first > next:
				missing(next, cp.first-1)
			case cp.first < next:
				problem(cp.first, "the checkpoint of records %d to %d names records that are there", cp.first, to-1)
			case known && cp.prev != prev:
				problem(cp.first, "the checkpoint of records %d to %d does not follow the seal before it: the chain was changed outside elicitray", cp.first, to-1)
			}
			out.Checkpoints = append(out.Checkpoints, cp.public(to))
			prev, next, known = cp.hash, to, true
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
	// A checkpoint left after the end names IDs never given.
	for ; ck != nil; ck, cv = cps.Next() {
		problem(binary.BigEndian.Uint64(ck)-1, "a checkpoint names records the history never had")
	}
	return out
}

// chainOf returns the seal before each record of rs and its own, as stored,
// for the export.
func chainOf(tx *bolt.Tx, rs []Record) (prevs, seals []link) {
	prevs, seals = make([]link, len(rs)), make([]link, len(rs))
	for i, r := range rs {
		seals[i], _ = sealAt(tx, r.ID)
		prevs[i], _ = prevOf(tx, r.ID)
	}
	return prevs, seals
}

// checkpoints returns every checkpoint, oldest IDs first.
func checkpoints(tx *bolt.Tx) []Checkpoint {
	var out []Checkpoint
	_ = tx.Bucket(bucketRemoved).ForEach(func(k, v []byte) error {
		if cp, ok := decodeCheckpoint(v); ok {
			out = append(out, cp.public(binary.BigEndian.Uint64(k)))
		}
		return nil
	})
	return out
}
