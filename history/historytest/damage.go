// Package historytest damages a history file as a failing disk or another
// program would, for the tests of what reads it (history, the history
// window, the command line). It writes the file with bbolt directly, by
// the layout history/doc.go gives ("Buckets and keys"), as an outside
// program would: nothing of history's own code is used to do it.
package historytest

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Damage replaces the stored bytes of record id in the closed history
// file at path with what damage makes of a copy of them.
func Damage(path string, id uint64, damage func(value []byte) []byte) error {
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		ids, records := tx.Bucket([]byte("ids")), tx.Bucket([]byte("records"))
		if ids == nil || records == nil {
			return fmt.Errorf("%s is not a history file", path)
		}
		nanos := ids.Get(binary.BigEndian.AppendUint64(nil, id))
		if len(nanos) != 8 {
			return fmt.Errorf("%s has no record %d", path, id)
		}
		k := binary.BigEndian.AppendUint64(bytes.Clone(nanos), id)
		v := records.Get(k)
		if v == nil {
			return fmt.Errorf("%s has no value for record %d", path, id)
		}
		return records.Put(k, damage(bytes.Clone(v)))
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// CutShort is damage that keeps the first half of a value: a write that
// did not end, a page half lost.
func CutShort(v []byte) []byte { return v[:len(v)/2] }
