package history

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"runtime"
	"time"

	bolt "go.etcd.io/bbolt"
)

// An adder adds records to the history within one read-write transaction
// (Store.Add, Store.AddAll). Sealing a record is a third of what adding it
// costs: the adder has a sealer hash each record's line while it encodes
// the records after it, and stores the records, in the order they were
// added, as their lines are hashed. Only the transaction's goroutine
// touches the transaction.
type adder struct {
	tx      *bolt.Tx
	now     func() time.Time
	sealer  sealer
	pending []*adding
	keys    map[string]bool // Keys of the records pending
	rd      *reader
}

// adding is a record encoded and waiting to be stored.
type adding struct {
	k, v    []byte
	rr      rawRecord
	stored  Record // as Get will read it
	sealing *sealing
}

// maxPending records are encoded ahead of those stored.
const maxPending = 256

func newAdder(tx *bolt.Tx, now func() time.Time) *adder {
	return &adder{tx: tx, now: now, keys: map[string]bool{}, rd: newReader(tx)}
}

// put stores r as Store.Add describes: it returns the record as stored
// and whether it added or changed one (false for a replay). A record that
// changes one already stored, or pending, waits for those pending.
func (a *adder) put(r Record) (Record, bool, error) {
	r = validText(r)
	if r.Key != "" {
		if a.keys[r.Key] {
			if err := a.flush(); err != nil {
				return Record{}, false, err
			}
		}
		k, err := keyOfRequest(a.tx, r.Key)
		if err != nil {
			return Record{}, false, err
		}
		if k != nil {
			if err := a.flush(); err != nil {
				return Record{}, false, err
			}
			return amend(a.tx, k, r)
		}
	}
	if r.Source == SourceDelivery {
		// The word on a record this history does not have (pruned, or
		// kept elsewhere): nothing to settle.
		return r, false, nil
	}
	stored, err := a.add(r)
	return stored, err == nil, err
}

// add gives r, whose text put made valid, a new ID and its time key, and
// encodes it; flush (or an add maxPending later) stores it. It returns
// the record as Get will read it.
func (a *adder) add(r Record) (Record, error) {
	if r.Time.IsZero() {
		r.Time = a.now()
	}
	// A monotonic clock reading means nothing once stored; dropping it makes
	// the returned record compare like the one Get returns.
	r.Time = r.Time.Round(0)
	nanos, err := timeNanos(r.Time)
	if err != nil {
		return Record{}, err
	}
	setFill(a.tx)
	id, err := a.tx.Bucket(bucketRecords).NextSequence()
	if err != nil {
		return Record{}, err
	}
	r.ID = id
	v, err := encode(r, func(schema []byte) ([]byte, error) { return putSchema(a.tx, schema) })
	if err != nil {
		return Record{}, err
	}
	j := &adding{k: recordKey(nanos, id), v: v}
	if err := j.rr.parse(v); err != nil {
		return Record{}, err
	}
	if j.stored, err = a.rd.record(j.k, &j.rr); err != nil {
		return Record{}, err
	}
	j.sealing = a.sealer.start(j.stored)
	a.pending = append(a.pending, j)
	if r.Key != "" {
		a.keys[r.Key] = true
	}
	if len(a.pending) >= maxPending {
		return j.stored, a.flush()
	}
	return j.stored, nil
}

// flush stores the records pending, in the order they were added.
func (a *adder) flush() error {
	for _, j := range a.pending {
		if err := a.store(j); err != nil {
			return err // the transaction fails: nothing pending is kept
		}
	}
	a.pending = a.pending[:0]
	clear(a.keys)
	return nil
}

// stop ends the adder's sealer. Records still pending are not stored:
// the transaction is failing.
func (a *adder) stop() { a.sealer.stop() }

// store seals j with the head of the chain, stores it and its indexes and
// counts it.
func (a *adder) store(j *adding) error {
	tx, r := a.tx, j.stored
	l, err := j.sealing.seal(head(tx))
	if err != nil {
		return err
	}
	copy(j.v[1:], l[:])
	if err := setHead(tx, l); err != nil {
		return err
	}
	if err := tx.Bucket(bucketRecords).Put(j.k, j.v); err != nil {
		return err
	}
	if err := tx.Bucket(bucketIDs).Put(idKey(r.ID), idValue(j.k)); err != nil {
		return err
	}
	// A record without a server name is found by queries over all records
	// only; bbolt has no bucket with an empty name.
	if r.Server != "" {
		index, err := tx.Bucket(bucketServers).CreateBucketIfNotExists([]byte(r.Server))
		if err != nil {
			return fmt.Errorf("indexing server %q: %w", r.Server, err)
		}
		index.FillPercent = 1
		if err := index.Put(j.k, []byte{}); err != nil {
			return err
		}
	}
	if err := countRecord(tx, r.Server, 1); err != nil {
		return err
	}
	if r.Key != "" {
		if err := tx.Bucket(bucketRequests).Put([]byte(r.Key), idKey(r.ID)); err != nil {
			return err
		}
	}
	if err := indexText(tx, j.k, &j.rr); err != nil {
		return fmt.Errorf("indexing record %d for search: %w", r.ID, err)
	}
	return nil
}

// A sealer seals records on other goroutines: of a record's sealed form
// (sealedForm) all but its last bytes, the seal before it, are the
// record's alone, and are hashed as soon as the record is given (start);
// seal then hashes those last bytes. The chain is made in the order
// seal is called.
type sealer struct {
	used bool
	jobs chan *sealing
}

// sealing is one record's seal in the making.
type sealing struct {
	r    Record
	line hash.Hash // its sealed form up to the seal before it, hashed
	err  error
	done chan struct{}
}

// start starts sealing r, which must not change until it is sealed. The
// first record is hashed at once, on the caller's goroutine: a single
// Add would wait longer for another goroutine to wake than for its own
// hashing.
func (s *sealer) start(r Record) *sealing {
	j := &sealing{r: r, done: make(chan struct{})}
	if !s.used {
		s.used = true
		j.hashBody()
		return j
	}
	if s.jobs == nil {
		jobs := make(chan *sealing, maxPending)
		for range max(1, runtime.GOMAXPROCS(0)-1) {
			go func() {
				for j := range jobs {
					j.hashBody()
				}
			}()
		}
		s.jobs = jobs
	}
	s.jobs <- j
	return j
}

// stop ends the sealer's goroutines once they have hashed what they were
// given.
func (s *sealer) stop() {
	if s.jobs != nil {
		close(s.jobs)
		s.jobs = nil
	}
}

func (j *sealing) hashBody() {
	defer close(j.done)
	body, err := formBody(j.r)
	if err != nil {
		j.err = fmt.Errorf("sealing record %d: %w", j.r.ID, err)
		return
	}
	j.line = sha256.New()
	j.line.Write(body)
}

// seal returns the record's seal when prev is the seal before it.
func (j *sealing) seal(prev link) (link, error) {
	<-j.done
	if j.err != nil {
		return link{}, j.err
	}
	j.line.Write(appendTail(make([]byte, 0, 2*linkLen+2), prev))
	var l link
	copy(l[:], j.line.Sum(nil))
	return l, nil
}
