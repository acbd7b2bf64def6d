package history

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	bolt "go.etcd.io/bbolt"
)

// PruneOptions says which records Prune deletes. Its zero value deletes
// nothing.
type PruneOptions struct {
	// Before deletes the records older than this time (strictly before it).
	// Zero means no age limit.
	Before time.Time
	// Keep deletes all but the newest Keep records. Zero or negative means
	// no count limit.
	Keep int
}

// pruneBatch is how many records one transaction of Prune deletes: bbolt
// keeps every page a transaction changes in memory until it commits. Tests
// lower it.
var pruneBatch = 10000

// compactTxSize is how many bytes of keys and values one transaction of
// Compact copies, for the same reason.
const compactTxSize = 64 << 20

// Clear deletes every record, in one transaction. The file, its schema
// version and the ID sequence stay: a record added afterwards gets the next
// ID, never one a deleted record had. The file keeps its size until Compact.
func (s *Store) Clear() error {
	err := s.update(func(tx *bolt.Tx) error {
		lastID := tx.Bucket(bucketRecords).Sequence()
		// One gap carries the chain over every record there ever was;
		// the checkpoint says which were removed now.
		var runs [][2]uint64
		if err := tx.Bucket(bucketIDs).ForEach(func(k, _ []byte) error {
			runs = addRun(runs, binary.BigEndian.Uint64(k))
			return nil
		}); err != nil {
			return err
		}
		g := gap{first: 1, hash: head(tx)}
		for _, name := range append(dataBuckets, bucketRemoved) {
			if err := tx.DeleteBucket(name); err != nil {
				return fmt.Errorf("deleting bucket %q: %w", name, err)
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return fmt.Errorf("creating bucket %q: %w", name, err)
			}
		}
		if lastID > 0 {
			if err := tx.Bucket(bucketRemoved).Put(idKey(lastID+1), g.encode()); err != nil {
				return err
			}
		}
		if len(runs) > 0 {
			if err := addCheckpoint(tx, runs, whyCleared, s.now()); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketRecords).SetSequence(lastID)
	})
	if err != nil {
		return fmt.Errorf("clearing history: %w", err)
	}
	return nil
}

// Prune deletes the records older than opts.Before and all but the newest
// opts.Keep records, and returns how many it deleted. Both select from the
// oldest end, so Prune deletes the oldest records until neither selects
// more. It deletes pruneBatch records per transaction, so a failure can
// leave some deleted; the count says how many. The file keeps its size, its
// free pages taking new records, until Compact.
func (s *Store) Prune(opts PruneOptions) (int, error) {
	if opts.Before.IsZero() && opts.Keep <= 0 {
		return 0, nil
	}
	before := uint64(0)
	if !opts.Before.IsZero() {
		before = boundNanos(opts.Before)
	}
	deleted := 0
	for {
		var n int
		err := s.update(func(tx *bolt.Tx) error {
			var err error
			n, err = pruneStep(tx, before, opts.Keep, s.now())
			return err
		})
		deleted += n
		if err != nil {
			return deleted, fmt.Errorf("pruning history: %w", err)
		}
		if n < pruneBatch {
			return deleted, nil
		}
	}
}

// pruneStep deletes up to pruneBatch of the oldest records while they are
// older than before (Unix nanoseconds) or more than keep (when positive)
// remain, and returns how many it deleted. Their checkpoints say they
// were pruned at now.
func pruneStep(tx *bolt.Tx, before uint64, keep int, now time.Time) (int, error) {
	remaining := count(tx)
	// bbolt cursors must not see the changes they walk over: collect the
	// batch, then delete it.
	var keys [][]byte
	c := tx.Bucket(bucketRecords).Cursor()
	for k, _ := c.First(); k != nil && len(keys) < pruneBatch; k, _ = c.Next() {
		if keyNanos(k) >= before && (keep <= 0 || remaining-len(keys) <= keep) {
			break
		}
		keys = append(keys, bytes.Clone(k))
	}
	stale := staleBlocks{}
	gone := make(cut, 0, len(keys))
	for _, k := range keys {
		if err := remove(tx, k, stale, &gone); err != nil {
			return 0, err
		}
	}
	if err := gone.checkpoint(tx, whyPruned, now); err != nil {
		return 0, err
	}
	// The oldest blocks empty and go; the block the batch ended in keeps
	// records, and its filter is computed once for the batch.
	return len(keys), refreshBlocks(tx, stale)
}

// Compact rewrites the file without its free pages: after many records were
// deleted it shrinks to the size of those that remain. It copies every
// record into a new file next to the history (path + ".compacting", which
// needs that much free space) and renames it over the history, so the
// history is whole whatever happens; other calls wait until it is done, and
// the Store stays usable afterwards. A failure leaves the file as it was.
func (s *Store) Compact() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.compact(); err != nil {
		return fmt.Errorf("compacting history %s: %w", s.path, err)
	}
	return nil
}

func (s *Store) compact() error {
	tmp := s.path + ".compacting"
	// Only a Compact that did not finish leaves this file behind.
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: DefaultTimeout})
	if err != nil {
		return err
	}
	fail := func(err error) error {
		dst.Close()
		os.Remove(tmp)
		return err
	}
	if err := bolt.Compact(dst, s.db, compactTxSize); err != nil {
		return fail(err)
	}
	if runtime.GOOS == "windows" {
		return s.replaceClosed(dst, tmp)
	}
	// bbolt locks the open file, not its name: dst keeps its lock through
	// the rename, so no other process can open the history between the
	// rename and the switch to dst.
	if err := os.Rename(tmp, s.path); err != nil {
		return fail(err)
	}
	syncDir(s.path)
	old := s.db
	s.db = dst
	// The old file is unlinked and its data is in dst: closing it can lose
	// nothing.
	old.Close()
	return nil
}

// replaceClosed is the end of compact on Windows, which renames no file
// over one that is open (bbolt maps it): both files are closed for the
// rename, and the history is opened again, waiting as Open does should
// another process take it meanwhile. When the rename fails, the history
// as it was is opened again.
func (s *Store) replaceClosed(dst *bolt.DB, tmp string) error {
	dst.Close()
	s.db.Close()
	renamed := os.Rename(tmp, s.path)
	if renamed != nil {
		os.Remove(tmp)
	}
	db, err := bolt.Open(s.path, 0o600, &bolt.Options{Timeout: DefaultTimeout})
	if err != nil {
		return errors.Join(renamed, fmt.Errorf("opening it again: %w", err))
	}
	s.db = db
	return renamed
}

// syncDir writes the directory entry of path to disk, so that a rename of
// path survives a crash. It is best effort: the rename is done either way,
// and some systems cannot sync a directory.
func syncDir(path string) {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
