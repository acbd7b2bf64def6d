package history

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DefaultTimeout is how long Open waits for another process to release the
// file when Options.Timeout is zero.
const DefaultTimeout = time.Second

var (
	// ErrLocked is returned by Open when another process (normally the hub)
	// still holds the file after Options.Timeout.
	ErrLocked = errors.New("history file is in use by another process")
	// ErrNotFound is returned for a record ID that is not in the history,
	// never was or has been deleted.
	ErrNotFound = errors.New("no such history record")
	// ErrUnreadable is wrapped by the error of Get for a record whose
	// stored bytes cannot be read (Record.Unreadable), and by Export's when
	// it left out records for that reason, having written every other one.
	ErrUnreadable = errors.New("the history file is damaged")
)

// kinds names the errors of Store's that pass from process to process.
var kinds = map[string]error{"not-found": ErrNotFound, "unreadable": ErrUnreadable}

// ErrorKind names the error of Store's that err is, for a process that
// passes err on as its sentence (the hub to a command or a window):
// "not-found" (ErrNotFound), "unreadable" (ErrUnreadable), or "" for any
// other. Said makes it that error again.
func ErrorKind(err error) string {
	for name, k := range kinds {
		if errors.Is(err, k) {
			return name
		}
	}
	return ""
}

// Said is the error of sentence, of kind (ErrorKind): errors.Is tells
// ErrNotFound and ErrUnreadable in it, as in the error first said.
func Said(sentence, kind string) error { return said{sentence, kinds[kind]} }

type said struct {
	sentence string
	kind     error
}

func (e said) Error() string { return e.sentence }
func (e said) Unwrap() error { return e.kind }

// Options configures Open. A nil *Options means all defaults.
type Options struct {
	// Timeout is how long Open waits for the file lock held by another
	// process before it fails with ErrLocked. Zero means DefaultTimeout; a
	// negative value means trying once.
	Timeout time.Duration
	// Now returns the time given to records added without one, and the date
	// in the name OpenOrRecover gives an unreadable file. Nil means time.Now;
	// tests inject a fake clock.
	Now func() time.Time
}

// Store is an open history file. Its methods are safe for concurrent use;
// after Close they return an error.
type Store struct {
	// mu guards db, which Compact replaces: every other method holds it for
	// reading while it uses db.
	mu   sync.RWMutex
	db   *bolt.DB
	path string
	now  func() time.Time
}

// Open opens the history file at path, creating it and its directory if
// missing, and brings its layout up to date (see doc.go): a version 1 file
// is upgraded to version 2 and then compacted. It fails with ErrLocked when
// another process holds the file for longer than opts.Timeout, with
// ErrNewerVersion for a file of a newer elicitray, and with ErrCorrupt for a
// file that is not a readable history (not a bbolt file, a checksum error,
// cut short, missing its buckets); OpenOrRecover replaces such a file.
func Open(path string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating history directory: %w", err)
	}
	db, upgraded, err := openDB(path, o.Timeout)
	if err != nil {
		return nil, fmt.Errorf("opening history %s: %w", path, err)
	}
	s := &Store{db: db, path: path, now: o.Now}
	// A Compact cut short (its process killed) leaves its copy of the
	// history beside it, a second copy the user knows nothing of. With the
	// file open here, no Compact is under way.
	if err := os.Remove(path + ".compacting"); err != nil && !errors.Is(err, os.ErrNotExist) {
		db.Close()
		return nil, fmt.Errorf("removing what a compaction cut short left: %w", err)
	}
	if upgraded {
		// Rewriting every record left the pages of the version 1 values
		// free, and version 2 is meant to be small on disk. A failure leaves
		// the file whole, only larger, so it does not fail Open.
		_ = s.Compact()
	}
	return s, nil
}

// openDB opens the bbolt file at path and prepares its layout, turning every
// sign of a damaged file into ErrCorrupt.
func openDB(path string, timeout time.Duration) (db *bolt.DB, upgraded bool, err error) {
	// bbolt trusts the page numbers it reads: in a damaged file they can
	// point past the end of the memory map, and reading there is a fault
	// that ends the program. Turned into a panic and recovered, it is an
	// unreadable file instead.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			if db != nil {
				db.Close()
			}
			db, upgraded, err = nil, false, fmt.Errorf("%w: %v", ErrCorrupt, p)
		}
	}()
	if err := checkSize(path, timeout); err != nil {
		return nil, false, err
	}
	db, err = openBolt(path, &bolt.Options{Timeout: timeout})
	if err != nil {
		return nil, false, boltOpenError(err)
	}
	// bbolt applies the mode only to a file it creates, narrowed by the
	// umask; a file made by hand or by an older build may be readable by
	// others; DESIGN.md: "The history file is private to the user (0600)".
	if err := os.Chmod(path, 0o600); err != nil {
		db.Close()
		return nil, false, fmt.Errorf("making it private: %w", err)
	}
	upgraded, err = prepare(db)
	if err != nil {
		db.Close()
		if errors.Is(err, errDamaged) {
			return nil, false, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return nil, false, err
	}
	return db, upgraded, nil
}

// openBolt is bbolt's Open, which closes the file again should bbolt
// fault reading a damaged one before it returns (openDB recovers the
// fault), so that no descriptor is left behind. The memory map bbolt made
// by then stays until the process ends: on Windows such a file cannot be
// renamed or removed meanwhile.
func openBolt(path string, o *bolt.Options) (db *bolt.DB, err error) {
	var f *os.File
	o.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		var err error
		f, err = os.OpenFile(name, flag, perm)
		return f, err
	}
	defer func() {
		if p := recover(); p != nil {
			if f != nil {
				f.Close()
			}
			panic(p)
		}
	}()
	return bolt.Open(path, 0o600, o)
}

// boltOpenError returns the error of Open for an error of bbolt's Open.
func boltOpenError(err error) error {
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		return ErrLocked
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrChecksum),
		errors.Is(err, bolt.ErrVersionMismatch),
		// A file shorter than its two meta pages; bbolt has no sentinel
		// for it.
		strings.Contains(err.Error(), "file size too small"):
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return err
}

// checkSize fails with ErrCorrupt when the file at path is shorter than its
// meta page says: a file cut short (a full disk, an interrupted copy) keeps
// meta pages that name pages past its end. It opens the file read-only
// first because a read-write open loads the list of free pages, which lies
// near the end of the file: reading it past the end is a fault that
// recover turns into an error only after bbolt has locked the file for good.
func checkSize(path string, timeout time.Duration) error {
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) || err == nil && info.Size() == 0 {
		return nil // a new history
	}
	if err != nil {
		return err
	}
	db, err := openBolt(path, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		return boltOpenError(err)
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		if tx.Size() > info.Size() {
			return fmt.Errorf("%w: the file has %d bytes and should have %d", ErrCorrupt, info.Size(), tx.Size())
		}
		return nil
	})
}

// view runs fn in a read-only transaction.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.db.View(fn)
}

// update runs fn in a read-write transaction.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.db.Update(fn)
}

// Path returns the path of the history file as given to Open.
func (s *Store) Path() string { return s.path }

// Close releases the file and its lock. It waits for transactions in
// progress.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("closing history %s: %w", s.path, err)
	}
	return nil
}

// Add stores r as a new record and returns it as Get will: with its new ID,
// with Time set from Options.Now when r.Time is zero, and with Content
// decoded from JSON. It fails for a time outside 1970–2262, an invalid
// RequestedSchema or Content that is not JSON. Each Add is one transaction,
// written to disk before Add returns.
//
// A record whose Key is in the history already adds nothing: it is a replay
// (a spooled record taken twice, say) and Add returns the stored record,
// unless r is a SourceWrapper record and the stored one is not, when r's
// decision (Action, Content, DecidedBy, Reason, Elapsed, Source) replaces
// the stored one's under the same ID and Time. A SourceDelivery record
// settles the Delivery of a stored record that is DeliveryPending, and
// otherwise adds nothing (doc.go, "One record per elicitation").
func (s *Store) Add(r Record) (Record, error) {
	var stored Record
	err := s.update(func(tx *bolt.Tx) error {
		a := newAdder(tx, s.now)
		defer a.stop()
		var err error
		if stored, _, err = a.put(r); err != nil {
			return err
		}
		return a.flush()
	})
	if err != nil {
		return Record{}, fmt.Errorf("adding history record: %w", err)
	}
	return stored, nil
}

// AddAll adds recs as Add does, in one transaction: all of them or, on an
// error, none. It returns how many records it added or changed; replays
// count as neither.
func (s *Store) AddAll(recs []Record) (int, error) {
	n := 0
	err := s.update(func(tx *bolt.Tx) error {
		n = 0
		a := newAdder(tx, s.now)
		defer a.stop()
		for i, r := range recs {
			_, changed, err := a.put(r)
			if err != nil {
				return fmt.Errorf("record %d of %d: %w", i+1, len(recs), err)
			}
			if changed {
				n++
			}
		}
		return a.flush()
	})
	if err != nil {
		return 0, fmt.Errorf("adding history records: %w", err)
	}
	return n, nil
}

// Get returns the record with the given ID, or ErrNotFound.
func (s *Store) Get(id uint64) (Record, error) {
	var r Record
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		r, err = get(tx, id)
		return err
	})
	if err != nil {
		return Record{}, fmt.Errorf("reading history record %d: %w", id, err)
	}
	return r, nil
}

// Delete removes the record with the given ID, or returns ErrNotFound. Its ID
// is not given to another record.
func (s *Store) Delete(id uint64) error {
	err := s.update(func(tx *bolt.Tx) error {
		k, err := keyOfID(tx, id)
		if err != nil {
			return err
		}
		if k == nil {
			return ErrNotFound
		}
		stale := staleBlocks{}
		var gone cut
		if err := remove(tx, k, stale, &gone); err != nil {
			return err
		}
		if err := gone.checkpoint(tx, whyDeleted, s.now()); err != nil {
			return err
		}
		return refreshBlocks(tx, stale)
	})
	if err != nil {
		return fmt.Errorf("deleting history record %d: %w", id, err)
	}
	return nil
}

// Count returns the number of records in the history. It reads a counter,
// so it takes the same short time for any number of records.
func (s *Store) Count() (int, error) {
	var n int
	err := s.view(func(tx *bolt.Tx) error {
		n = count(tx)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("counting history records: %w", err)
	}
	return n, nil
}

// setFill makes the buckets of tx that grow at their end fill their pages:
// keys increase with time and ID, so bbolt's default of splitting pages half
// full would leave half of every page empty for good.
func setFill(tx *bolt.Tx) {
	tx.Bucket(bucketRecords).FillPercent = 1
	tx.Bucket(bucketIDs).FillPercent = 1
}

// amend applies r to the record under key k, which has r's Key: a
// SourceWrapper record replaces the decision of a record that is not one,
// a SourceDelivery record settles a pending delivery; anything else is a
// replay. It returns the record as stored and whether it
// changed. k must not point into bbolt's memory.
func amend(tx *bolt.Tx, k []byte, r Record) (Record, bool, error) {
	records := tx.Bucket(bucketRecords)
	v := records.Get(k)
	if v == nil {
		return Record{}, false, fmt.Errorf("%w: request %q names record %d, which is missing", errDamaged, r.Key, keyID(k))
	}
	var rr rawRecord
	if err := rr.parse(v); err != nil {
		return Record{}, false, fmt.Errorf("record %d: %w", keyID(k), err)
	}
	stored, err := newReader(tx).record(k, &rr)
	if err != nil {
		return Record{}, false, err
	}
	switch {
	case r.Source == SourceDelivery:
		// Once settled, a record's delivery stays: a replay of the word
		// (or of the pending record before it) changes nothing.
		if stored.Delivery != DeliveryPending || r.Delivery == DeliveryPending {
			return stored, false, nil
		}
		stored.Delivery = r.Delivery
	case r.Source != SourceWrapper || stored.Source == SourceWrapper:
		return stored, false, nil
	default:
		stored.Action, stored.Content, stored.DecidedBy = r.Action, r.Content, r.DecidedBy
		stored.Reason, stored.Elapsed, stored.Source = r.Reason, r.Elapsed, r.Source
		// The wrapper's record is kept before its answer is written: its
		// delivery is the one to settle.
		stored.Delivery = r.Delivery
	}
	var oldRef []byte
	if rr.schemaKind == schemaRef {
		oldRef = bytes.Clone(rr.schema)
	}
	// A record changed by others before keeps the seal it had, which no
	// longer matches: elicitray does not seal text it did not keep.
	intact := holds(tx, k, v)
	var oldSeal link
	copy(oldSeal[:], rr.link)
	nv, err := encode(stored, func(schema []byte) ([]byte, error) { return putSchema(tx, schema) })
	if err != nil {
		return Record{}, false, err
	}
	if !intact {
		copy(nv[1:], oldSeal[:])
	}
	if err := records.Put(k, nv); err != nil {
		return Record{}, false, err
	}
	if intact {
		if err := reseal(tx, k, oldSeal); err != nil {
			return Record{}, false, err
		}
	}
	// The new value took a reference to the same schema: the old one's goes.
	if oldRef != nil {
		if err := releaseSchema(tx, oldRef); err != nil {
			return Record{}, false, err
		}
	}
	if err := rr.parse(records.Get(k)); err != nil {
		return Record{}, false, err
	}
	stored, err = newReader(tx).record(k, &rr)
	return stored, true, err
}

// countRecord adds delta to the number of records, and to the number of
// records of server when it has a name (doc.go, "Counts").
func countRecord(tx *bolt.Tx, server string, delta int) error {
	ids := tx.Bucket(bucketIDs)
	if err := ids.SetSequence(ids.Sequence() + uint64(delta)); err != nil {
		return err
	}
	if server == "" {
		return nil
	}
	index := tx.Bucket(bucketServers).Bucket([]byte(server))
	if index == nil {
		return fmt.Errorf("%w: server %q has no index", errDamaged, server)
	}
	return index.SetSequence(index.Sequence() + uint64(delta))
}

// get returns the record with the given ID, or ErrNotFound.
func get(tx *bolt.Tx, id uint64) (Record, error) {
	k, err := keyOfID(tx, id)
	if err != nil {
		return Record{}, err
	}
	if k == nil {
		return Record{}, ErrNotFound
	}
	v := tx.Bucket(bucketRecords).Get(k)
	if v == nil {
		return Record{}, fmt.Errorf("%w: record %d is indexed but missing", errDamaged, id)
	}
	var rr rawRecord
	if err := rr.parse(v); err != nil {
		return Record{}, fmt.Errorf("%w: record %d cannot be read", ErrUnreadable, id)
	}
	r, err := newReader(tx).record(k, &rr)
	if err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	return r, nil
}

// remove deletes the record with key k, its index entries and its counts,
// the server's index when it becomes empty and the record's schema when no
// other record refers to it. It notes the record's search block in stale,
// whose filters the caller computes anew with refreshBlocks before the
// transaction ends, and the record and its seal in gone, whose
// checkpoint the caller writes. k must not point into bbolt's memory.
func remove(tx *bolt.Tx, k []byte, stale staleBlocks, gone *cut) error {
	records := tx.Bucket(bucketRecords)
	v := records.Get(k)
	if v == nil {
		return fmt.Errorf("%w: record %d is indexed but missing", errDamaged, keyID(k))
	}
	var rr rawRecord
	if rr.parse(v) != nil {
		return removeUnreadable(tx, k, v, stale, gone)
	}
	// v belongs to the page the deletes below change.
	gone.note(keyID(k), rr.link)
	server := string(rr.server)
	if len(rr.key) > 0 {
		if err := tx.Bucket(bucketRequests).Delete(bytes.Clone(rr.key)); err != nil {
			return err
		}
	}
	var ref []byte
	if rr.schemaKind == schemaRef {
		ref = bytes.Clone(rr.schema)
	}
	if err := records.Delete(k); err != nil {
		return err
	}
	unindexText(tx, k, stale)
	if err := tx.Bucket(bucketIDs).Delete(idKey(keyID(k))); err != nil {
		return err
	}
	if err := uncount(tx, server, k); err != nil {
		return err
	}
	if ref != nil {
		return releaseSchema(tx, ref)
	}
	return nil
}

// removeUnreadable is remove for a record whose value v cannot be read
// (Record.Unreadable), so that Delete and pruning still end it: what its
// value would name is found by looking, its server by the index that
// holds k and its request by the entry that names its ID. Its seal is
// kept for the checkpoint when the value still has it. A schema it
// referred to stays, unreleased: which one is not known.
func removeUnreadable(tx *bolt.Tx, k, v []byte, stale staleBlocks, gone *cut) error {
	id := keyID(k)
	var seal []byte
	if len(v) >= 1+linkLen && v[0] >= valueV6 {
		seal = v[1 : 1+linkLen]
	}
	gone.note(id, seal) // copied: v belongs to a page the deletes change
	var server []byte
	err := tx.Bucket(bucketServers).ForEachBucket(func(name []byte) error {
		if server == nil && tx.Bucket(bucketServers).Bucket(name).Get(k) != nil {
			server = bytes.Clone(name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var request []byte
	want := idKey(id)
	c := tx.Bucket(bucketRequests).Cursor()
	for rk, rv := c.First(); rk != nil && request == nil; rk, rv = c.Next() {
		if bytes.Equal(rv, want) || bytes.Equal(rv, k) {
			request = bytes.Clone(rk)
		}
	}
	if request != nil {
		if err := tx.Bucket(bucketRequests).Delete(request); err != nil {
			return err
		}
	}
	if err := tx.Bucket(bucketRecords).Delete(k); err != nil {
		return err
	}
	unindexText(tx, k, stale)
	if err := tx.Bucket(bucketIDs).Delete(want); err != nil {
		return err
	}
	return uncount(tx, string(server), k)
}

// uncount takes the record with key k out of the counts and out of its
// server's index, and drops the index once it is empty.
func uncount(tx *bolt.Tx, server string, k []byte) error {
	if err := countRecord(tx, server, -1); err != nil || server == "" {
		return err
	}
	servers := tx.Bucket(bucketServers)
	index := servers.Bucket([]byte(server))
	if err := index.Delete(k); err != nil {
		return err
	}
	if first, _ := index.Cursor().First(); first == nil {
		return servers.DeleteBucket([]byte(server))
	}
	return nil
}

// count returns the number of records: the ids bucket's sequence counts
// them (doc.go, "Counts").
func count(tx *bolt.Tx) int {
	return int(tx.Bucket(bucketIDs).Sequence())
}
