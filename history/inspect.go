package history

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Info is what Inspect tells of a history file.
type Info struct {
	// Exists is false for a file not made yet (no decision was kept).
	Exists bool
	// Size is the file's size in bytes.
	Size int64
	// Version is the file's layout version (doc.go).
	Version int
	// Records is the number of decisions kept; -1 for a version 1 file,
	// which has no counter (it is counted once upgraded).
	Records int
}

// Inspect reads the history file at path without changing it, for a check
// such as `elicitray doctor`: it opens the file read-only, which another
// reader does not block but a writer (the hub) does, and fails as Open
// does, with ErrLocked after timeout, ErrCorrupt (also for a path that is
// not a regular file) or ErrNewerVersion.
func Inspect(path string, timeout time.Duration) (info Info, err error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return Info{}, nil
	}
	if err != nil {
		return Info{}, err
	}
	info = Info{Exists: true, Size: fi.Size()}
	if !fi.Mode().IsRegular() {
		return info, fmt.Errorf("%w: it is not a regular file", ErrCorrupt)
	}
	if fi.Size() == 0 {
		return info, nil
	}
	if err := checkSize(path, timeout); err != nil {
		return info, err
	}
	// As in openDB: a damaged file's page numbers may point past the map.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrCorrupt, p)
		}
	}()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		return info, boltOpenError(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		v, err := readVersion(tx)
		if err != nil {
			return err
		}
		info.Version = v
		if v > schemaVersion {
			return fmt.Errorf("file has schema version %d, this elicitray knows %d: %w", v, schemaVersion, ErrNewerVersion)
		}
		if v < 2 {
			// Version 1 kept no counts; Open upgrades it.
			info.Records = -1
			return nil
		}
		for _, name := range dataBuckets {
			if v < 3 && bytes.Equal(name, bucketRequests) || v < 4 && bytes.Equal(name, bucketSearch) {
				continue // Open adds it
			}
			if tx.Bucket(name) == nil {
				return fmt.Errorf("%w: bucket %q is missing", ErrCorrupt, name)
			}
		}
		info.Records = count(tx)
		return nil
	})
	return info, err
}
