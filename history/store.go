package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
)

// Options configures Open. A nil *Options means all defaults.
type Options struct {
	// Timeout is how long Open waits for the file lock held by another
	// process before it fails with ErrLocked. Zero means DefaultTimeout; a
	// negative value means trying once.
	Timeout time.Duration
	// Now returns the time given to records added without one. Nil means
	// time.Now; tests inject a fake clock.
	Now func() time.Time
}

// Store is an open history file. Its methods are safe for concurrent use;
// after Close they return an error.
type Store struct {
	db   *bolt.DB
	path string
	now  func() time.Time
}

// Open opens the history file at path, creating it and its directory if
// missing, and brings its layout up to date (see doc.go). It fails with
// ErrLocked when another process holds the file for longer than
// opts.Timeout, and with ErrNewerVersion for a file of a newer elicitray.
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
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.Timeout})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("opening history %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("opening history %s: %w", path, err)
	}
	// bbolt applies the mode only to a file it creates, narrowed by the
	// umask; a file made by hand or by an older build may be readable by
	// others. "The history file is private to the user (0600)" (DESIGN.md).
	if err := os.Chmod(path, 0o600); err != nil {
		db.Close()
		return nil, fmt.Errorf("making history %s private: %w", path, err)
	}
	if err := db.Update(prepare); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening history %s: %w", path, err)
	}
	return &Store{db: db, path: path, now: o.Now}, nil
}

// Path returns the path of the history file as given to Open.
func (s *Store) Path() string { return s.path }

// Close releases the file and its lock. It waits for transactions in
// progress.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("closing history %s: %w", s.path, err)
	}
	return nil
}

// Add stores r as a new record and returns it as Get will: with its new ID,
// with Time set from Options.Now when r.Time is zero, and with Content
// decoded from JSON. It fails for a time outside 1970–2262, an invalid
// RequestedSchema or Content that is not JSON.
func (s *Store) Add(r Record) (Record, error) {
	var stored Record
	err := s.db.Update(func(tx *bolt.Tx) error {
		var err error
		stored, err = add(tx, r, s.now)
		return err
	})
	if err != nil {
		return Record{}, fmt.Errorf("adding history record: %w", err)
	}
	return stored, nil
}

// Get returns the record with the given ID, or ErrNotFound.
func (s *Store) Get(id uint64) (Record, error) {
	var r Record
	err := s.db.View(func(tx *bolt.Tx) error {
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
	err := s.db.Update(func(tx *bolt.Tx) error { return del(tx, id) })
	if err != nil {
		return fmt.Errorf("deleting history record %d: %w", id, err)
	}
	return nil
}

// Count returns the number of records in the history.
func (s *Store) Count() (int, error) {
	var n int
	err := s.db.View(func(tx *bolt.Tx) error {
		n = count(tx)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("counting history records: %w", err)
	}
	return n, nil
}

// add stores r under a new ID and its time key, and indexes it by ID and
// server. It returns the record decoded from what was stored.
func add(tx *bolt.Tx, r Record, now func() time.Time) (Record, error) {
	if r.Time.IsZero() {
		r.Time = now()
	}
	// A monotonic clock reading means nothing once stored; dropping it makes
	// the returned record compare like the one Get returns.
	r.Time = r.Time.Round(0)
	nanos, err := timeNanos(r.Time)
	if err != nil {
		return Record{}, err
	}
	records := tx.Bucket(bucketRecords)
	id, err := records.NextSequence()
	if err != nil {
		return Record{}, err
	}
	r.ID = id
	v, err := encode(r)
	if err != nil {
		return Record{}, err
	}
	k := recordKey(nanos, id)
	if err := records.Put(k, v); err != nil {
		return Record{}, err
	}
	if err := tx.Bucket(bucketIDs).Put(idKey(id), k); err != nil {
		return Record{}, err
	}
	// A record without a server name is found by queries over all records
	// only; bbolt has no bucket with an empty name.
	if r.Server != "" {
		index, err := tx.Bucket(bucketServers).CreateBucketIfNotExists([]byte(r.Server))
		if err != nil {
			return Record{}, fmt.Errorf("indexing server %q: %w", r.Server, err)
		}
		if err := index.Put(k, []byte{}); err != nil {
			return Record{}, err
		}
	}
	return decode(v)
}

// get returns the record with the given ID, or ErrNotFound.
func get(tx *bolt.Tx, id uint64) (Record, error) {
	k := tx.Bucket(bucketIDs).Get(idKey(id))
	if k == nil {
		return Record{}, ErrNotFound
	}
	v := tx.Bucket(bucketRecords).Get(k)
	if v == nil {
		return Record{}, fmt.Errorf("history file is damaged: record %d is indexed but missing", id)
	}
	return decode(v)
}

// del removes the record with the given ID and its index entries, and the
// server's index when it becomes empty.
func del(tx *bolt.Tx, id uint64) error {
	ids := tx.Bucket(bucketIDs)
	k := ids.Get(idKey(id))
	if k == nil {
		return ErrNotFound
	}
	// k points into the ids bucket, which the deletes below change.
	k = bytes.Clone(k)
	records := tx.Bucket(bucketRecords)
	var r struct {
		Server string `json:"server"`
	}
	if v := records.Get(k); v != nil {
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("decoding record %d: %w", id, err)
		}
		if err := records.Delete(k); err != nil {
			return err
		}
	}
	if err := ids.Delete(idKey(id)); err != nil {
		return err
	}
	if r.Server == "" {
		return nil
	}
	servers := tx.Bucket(bucketServers)
	index := servers.Bucket([]byte(r.Server))
	if index == nil {
		return nil
	}
	if err := index.Delete(k); err != nil {
		return err
	}
	if first, _ := index.Cursor().First(); first == nil {
		return servers.DeleteBucket([]byte(r.Server))
	}
	return nil
}

// count returns the number of records.
func count(tx *bolt.Tx) int {
	return tx.Bucket(bucketRecords).Stats().KeyN
}

// encode returns the JSON value stored for r. RequestedSchema is spliced in
// as is: json.Marshal would compact it and escape HTML characters, and the
// history must show the schema the server sent.
func encode(r Record) ([]byte, error) {
	// Whitespace around the schema is not part of it, and json.Unmarshal
	// would drop it on the way back anyway.
	schema := bytes.TrimSpace(r.RequestedSchema)
	r.RequestedSchema = nil
	v, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encoding record: %w", err)
	}
	if len(schema) == 0 {
		return v, nil
	}
	if !json.Valid(schema) {
		return nil, errors.New("encoding record: requestedSchema is not valid JSON")
	}
	// v is a JSON object with at least the "id" member, so it ends in '}'
	// after a member.
	out := make([]byte, 0, len(v)+len(`,"requestedSchema":`)+len(schema))
	out = append(out, v[:len(v)-1]...)
	out = append(out, `,"requestedSchema":`...)
	out = append(out, schema...)
	return append(out, '}'), nil
}

// decode returns the record in a stored value. The record shares no memory
// with v, which may belong to bbolt's memory map and be valid only during
// the transaction: json.Unmarshal copies strings and json.RawMessage.
func decode(v []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(v, &r); err != nil {
		return Record{}, fmt.Errorf("decoding record: %w", err)
	}
	return r, nil
}
