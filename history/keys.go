package history

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	bolt "go.etcd.io/bbolt"
)

// keyLen is the length of a key in the records bucket: Unix nanoseconds then
// ID, both big-endian uint64.
const keyLen = 16

// minTime and maxTime bound the times a key can hold: Unix nanoseconds must
// fit in a non-negative int64 for the big-endian bytes to sort like the times.
var (
	minTime = time.Unix(0, 0)
	maxTime = time.Unix(0, math.MaxInt64)
)

// recordKey returns the records-bucket key of the record with the given time
// (Unix nanoseconds) and ID.
func recordKey(nanos, id uint64) []byte {
	k := make([]byte, keyLen)
	binary.BigEndian.PutUint64(k[:8], nanos)
	binary.BigEndian.PutUint64(k[8:], id)
	return k
}

// keyNanos returns the Unix nanoseconds in a records-bucket key.
func keyNanos(k []byte) uint64 { return binary.BigEndian.Uint64(k[:8]) }

// idKey returns the ids-bucket key of a record ID.
func idKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// idValue returns the ids-bucket value of the record with key k: its time,
// the first half of k, since the ids bucket's key holds the other half
// (doc.go, "Buckets and keys").
func idValue(k []byte) []byte { return bytes.Clone(k[:8]) }

// keyOfID returns the records-bucket key of the record with the given ID,
// or nil when no record has it.
func keyOfID(tx *bolt.Tx, id uint64) ([]byte, error) {
	v := tx.Bucket(bucketIDs).Get(idKey(id))
	if v == nil {
		return nil, nil
	}
	return idEntryKey(idKey(id), v)
}

// idEntryKey returns the records-bucket key of the ids-bucket entry k → v.
// It reads the value of version 5, the record's time, and of older
// versions, the whole key.
func idEntryKey(k, v []byte) ([]byte, error) {
	id := binary.BigEndian.Uint64(k)
	switch {
	case len(v) == 8:
		return recordKey(binary.BigEndian.Uint64(v), id), nil
	case len(v) == keyLen && keyID(v) == id:
		return bytes.Clone(v), nil
	}
	return nil, fmt.Errorf("%w: the index entry of record %d is unreadable", errDamaged, id)
}

// timeNanos returns t as the Unix nanoseconds of a key, or an error when t
// lies outside the range a key can hold.
func timeNanos(t time.Time) (uint64, error) {
	if t.Before(minTime) || t.After(maxTime) {
		return 0, fmt.Errorf("record time %s is outside 1970–2262", t.Format(time.RFC3339))
	}
	return uint64(t.UnixNano()), nil
}

// boundNanos returns t as the Unix nanoseconds of a query bound, clamped to
// the range a key can hold, so that a bound beyond it selects everything or
// nothing instead of wrapping around.
func boundNanos(t time.Time) uint64 {
	switch {
	case t.Before(minTime):
		return 0
	case t.After(maxTime):
		return math.MaxInt64
	}
	return uint64(t.UnixNano())
}

// keyID returns the record ID in a records-bucket key.
func keyID(k []byte) uint64 { return binary.BigEndian.Uint64(k[8:keyLen]) }

// successor returns the smallest key after k: k plus one, as a big-endian
// number. Keys hold non-negative nanoseconds, so k is never all 0xff.
func successor(k []byte) []byte {
	next := bytes.Clone(k)
	for i := len(next) - 1; i >= 0; i-- {
		next[i]++
		if next[i] != 0 {
			break
		}
	}
	return next
}

// keyOfRequest returns the records-bucket key of the record of the
// elicitation with Record.Key key, or nil when there is none. It reads the
// requests-bucket value of version 5, the record's ID, and of versions 3
// and 4, the record's key.
func keyOfRequest(tx *bolt.Tx, key string) ([]byte, error) {
	v := tx.Bucket(bucketRequests).Get([]byte(key))
	switch {
	case v == nil:
		return nil, nil
	case len(v) == 8:
		id := binary.BigEndian.Uint64(v)
		k, err := keyOfID(tx, id)
		if err == nil && k == nil {
			err = fmt.Errorf("%w: request %q names record %d, which is missing", errDamaged, key, id)
		}
		return k, err
	case len(v) == keyLen:
		return bytes.Clone(v), nil
	}
	return nil, fmt.Errorf("%w: the index entry of request %q is unreadable", errDamaged, key)
}
