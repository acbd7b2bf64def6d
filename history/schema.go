package history

import (
	"errors"
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// schemaVersion is the version of the file layout described in doc.go that
// this package reads and writes.
const schemaVersion = 1

// Bucket names and the key of the schema version in the meta bucket.
var (
	bucketMeta    = []byte("meta")
	bucketRecords = []byte("records")
	bucketIDs     = []byte("ids")
	bucketServers = []byte("servers")

	keyVersion = []byte("version")
)

// ErrNewerVersion is returned by Open for a file written by a newer elicitray
// whose layout this version does not know. The file is left untouched.
var ErrNewerVersion = errors.New("history file was written by a newer version of elicitray")

// prepare brings the file in tx to schemaVersion: it creates the buckets of a
// new file, upgrades an older one and refuses a newer one.
func prepare(tx *bolt.Tx) error {
	version, err := readVersion(tx)
	if err != nil {
		return err
	}
	if version > schemaVersion {
		return fmt.Errorf("file has schema version %d, this elicitray knows %d: %w",
			version, schemaVersion, ErrNewerVersion)
	}
	if version < schemaVersion {
		if err := migrate(tx, version); err != nil {
			return fmt.Errorf("migrating from schema version %d: %w", version, err)
		}
		if err := writeVersion(tx, schemaVersion); err != nil {
			return err
		}
	}
	for _, name := range [][]byte{bucketRecords, bucketIDs, bucketServers} {
		if tx.Bucket(name) == nil {
			return fmt.Errorf("history file is damaged: bucket %q is missing", name)
		}
	}
	return nil
}

// readVersion returns the schema version of the file in tx, 0 for a file
// without one (a new, empty file).
func readVersion(tx *bolt.Tx) (int, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return 0, nil
	}
	v := meta.Get(keyVersion)
	if v == nil {
		return 0, nil
	}
	version, err := strconv.Atoi(string(v))
	if err != nil || version < 1 {
		return 0, fmt.Errorf("history file is damaged: unreadable schema version %q", v)
	}
	return version, nil
}

// writeVersion stores version as the file's schema version.
func writeVersion(tx *bolt.Tx, version int) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	return meta.Put(keyVersion, []byte(strconv.Itoa(version)))
}

// migrate upgrades the layout of the file in tx from schema version from to
// schemaVersion; prepare then records the new version.
//
// Version 1 is the starting point: there is no file older than it, so from is
// 0 only for a new file, and migrating from 0 creates the version 1 buckets.
// Each later version adds one step below that runs when from is older than
// it, in order, so a file several versions behind passes through every step:
//
//	if from < 2 {
//		// change version 1 data into version 2 data
//	}
func migrate(tx *bolt.Tx, from int) error {
	if from < 1 {
		for _, name := range [][]byte{bucketRecords, bucketIDs, bucketServers} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("creating bucket %q: %w", name, err)
			}
		}
	}
	return nil
}
