package history

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DefaultLimit is the number of records List returns when Query.Limit is
// zero.
const DefaultLimit = 100

// Query selects records for List. Its zero value selects the newest
// DefaultLimit records; each field set narrows the selection.
type Query struct {
	// Server selects the records of one configured server name (exact
	// match). Empty means all servers.
	Server string
	// Action selects one action: "accept", "decline", "cancel" or "error".
	// Empty means all.
	Action string
	// DecidedBy selects who or what decided: "user", "timeout",
	// "server-cancelled" or "error". Empty means all.
	DecidedBy string
	// Since selects records at or after this time. Zero means no lower bound.
	Since time.Time
	// Until selects records strictly before this time, so that consecutive
	// ranges do not share records. Zero means no upper bound.
	Until time.Time
	// Text selects records whose message, server, tool or serverInfo name
	// contains it, ignoring case. Empty means all.
	Text string
	// Limit is the most records List returns. Zero or negative means
	// DefaultLimit.
	Limit int
	// Before pages through the results: it selects only records older than
	// the record with this ID, which is normally the last record of the
	// previous page. Zero means starting from the newest record. A record that
	// no longer exists makes List fail with ErrNotFound.
	Before uint64
}

// List returns the records that q selects, newest first; records with the
// same time come newest ID first. An empty result is a nil slice.
func (s *Store) List(q Query) ([]Record, error) {
	var rs []Record
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		rs, err = list(tx, q)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("listing history: %w", err)
	}
	return rs, nil
}

// list walks the records bucket, or the server's index when q.Server is set,
// backwards from the upper bound that q.Until and q.Before set down to
// q.Since, and keeps the records that match the other fields.
func list(tx *bolt.Tx, q Query) ([]Record, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	records := tx.Bucket(bucketRecords)
	index := records
	if q.Server != "" {
		index = tx.Bucket(bucketServers).Bucket([]byte(q.Server))
		if index == nil {
			return nil, nil
		}
	}

	// upper is the smallest key not wanted; nil means no upper bound.
	var upper []byte
	if !q.Until.IsZero() {
		upper = recordKey(boundNanos(q.Until), 0)
	}
	if q.Before != 0 {
		k := tx.Bucket(bucketIDs).Get(idKey(q.Before))
		if k == nil {
			return nil, fmt.Errorf("paging before record %d: %w", q.Before, ErrNotFound)
		}
		if upper == nil || bytes.Compare(k, upper) < 0 {
			upper = k
		}
	}
	since := boundNanos(q.Since)
	match := q.matcher()

	c := index.Cursor()
	var k []byte
	if upper == nil {
		k, _ = c.Last()
	} else if k, _ = c.Seek(upper); k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	var out []Record
	for ; k != nil && len(out) < limit; k, _ = c.Prev() {
		if keyNanos(k) < since {
			break
		}
		v := records.Get(k)
		if v == nil {
			return nil, fmt.Errorf("history file is damaged: index of server %q names a missing record", q.Server)
		}
		r, err := decode(v)
		if err != nil {
			return nil, err
		}
		if match(r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// matcher returns a test for the fields of q that keys cannot answer.
func (q Query) matcher() func(Record) bool {
	text := strings.ToLower(q.Text)
	return func(r Record) bool {
		if q.Action != "" && r.Action != q.Action {
			return false
		}
		if q.DecidedBy != "" && r.DecidedBy != q.DecidedBy {
			return false
		}
		if text == "" {
			return true
		}
		for _, field := range []string{r.Message, r.Server, r.Tool, r.ServerInfo.Name} {
			if strings.Contains(strings.ToLower(field), text) {
				return true
			}
		}
		return false
	}
}
