package history

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
)

// A decision reaches history more than once under faults: a spooled record
// taken again after a crash, the hub's record and the wrapper's account of
// what the server really got. The user must see one record per elicitation,
// and it must say what the server received.
func TestOneRecordPerElicitation(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"env":{"type":"string"}}}`)
	hub := Record{Time: t0, Server: "github", Mode: "form", Message: "Deploy?", RequestedSchema: schema,
		Action: "decline", DecidedBy: "rule", Key: "w1-7", Elapsed: time.Millisecond}
	wrapper := Record{Time: t0.Add(time.Second), Server: "github", Mode: "form", Message: "Deploy?", RequestedSchema: schema,
		Action: "cancel", DecidedBy: "error", Reason: "the hub stopped", Key: "w1-7", Source: SourceWrapper, Elapsed: 2 * time.Second}
	for _, tt := range []struct {
		name string
		adds []Record
		want Record // ID and Time of the first add
	}{
		{"a replay changes nothing", []Record{hub, hub}, hub},
		{"the wrapper's account replaces the hub's", []Record{hub, wrapper}, func() Record {
			r := hub
			r.Action, r.DecidedBy, r.Reason, r.Source, r.Elapsed = "cancel", "error", "the hub stopped", SourceWrapper, 2*time.Second
			return r
		}()},
		{"the hub's record after the wrapper's is a replay", []Record{wrapper, hub}, wrapper},
		{"the wrapper's account twice", []Record{wrapper, wrapper}, wrapper},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t, nil)
			var first Record
			for i, r := range tt.adds {
				got := mustAdd(t, s, r)
				if i == 0 {
					first = got
				}
			}
			recs, err := s.List(Query{})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.ID, want.Time = first.ID, first.Time
			if diff := cmp.Diff([]Record{want}, recs); diff != "" {
				t.Errorf("history mismatch (-want +got):\n%s", diff)
			}
			if n, _ := s.Count(); n != 1 {
				t.Errorf("Count = %d, want 1", n)
			}
			// The schema is kept once and still read back after the change.
			if err := s.Delete(first.ID); err != nil {
				t.Fatal(err)
			}
			again := mustAdd(t, s, hub)
			if again.ID == first.ID || again.Action != "decline" {
				t.Errorf("after Delete, the key names no record: got %+v", again)
			}
		})
	}
}

// Records taken from a spool go in together, replays skipped.
func TestAddAllCountsWhatChanged(t *testing.T) {
	s := openStore(t, nil)
	a := Record{Time: t0, Server: "a", Mode: "form", Action: "cancel", DecidedBy: "error", Key: "k1", Source: SourceWrapper}
	b := Record{Time: t0, Server: "b", Mode: "form", Action: "accept", DecidedBy: "user", Key: "k2"}
	n, err := s.AddAll([]Record{a, b, a})
	if err != nil || n != 2 {
		t.Fatalf("AddAll = %d, %v; want 2 added", n, err)
	}
	n, err = s.AddAll([]Record{a, b})
	if err != nil || n != 0 {
		t.Fatalf("AddAll again = %d, %v; want 0 (replays)", n, err)
	}
	if c, _ := s.Count(); c != 2 {
		t.Errorf("Count = %d, want 2", c)
	}
	// One bad record keeps the whole batch out: it stays in the spool.
	_, err = s.AddAll([]Record{{Time: t0, Server: "c", Key: "k3"}, {Time: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), Key: "k4"}})
	if err == nil {
		t.Fatal("AddAll with a record before 1970 succeeded")
	}
	if c, _ := s.Count(); c != 2 {
		t.Errorf("Count after a failed AddAll = %d, want 2", c)
	}
}

// A version 2 file (elicitray before keyed records) keeps its records and
// takes keyed ones after Open upgrades it.
func TestUpgradeFromVersion2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := mustAdd(t, s, Record{Time: t0, Server: "github", Mode: "form", Message: "old", Action: "accept", DecidedBy: "user"})
	// Make it what version 2 wrote: no requests bucket, version "2".
	if err := s.update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketRequests); err != nil {
			return err
		}
		return writeVersion(tx, 2)
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if info, err := Inspect(path, time.Second); err != nil || info.Records != 1 {
		t.Errorf("Inspect of a version 2 file = %+v, %v; want 1 record", info, err)
	}
	s, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	assertVersion(t, s, schemaVersion)
	mustAdd(t, s, Record{Time: t0, Server: "github", Mode: "form", Action: "cancel", DecidedBy: "error", Key: "k"})
	mustAdd(t, s, Record{Time: t0, Server: "github", Mode: "form", Action: "cancel", DecidedBy: "error", Key: "k"})
	got, err := s.Get(old.ID)
	if err != nil || got.Message != "old" {
		t.Errorf("the version 2 record: %+v, %v", got, err)
	}
	if n, _ := s.Count(); n != 2 {
		t.Errorf("Count = %d, want 2 (the old record and one keyed one)", n)
	}
}

// An ids or requests entry that damage cut short fails what needs it with
// an error that names the record, and nothing else: the other records stay
// readable, and the damaged one is not taken for absent (which would add a
// second record of its elicitation).
func TestDamagedIndexEntries(t *testing.T) {
	s := openStore(t, nil)
	a := mustAdd(t, s, Record{Time: t0, Server: "github", Mode: "form", Message: "a", Action: "accept", DecidedBy: "user", Key: "ka"})
	b := mustAdd(t, s, Record{Time: t0.Add(time.Second), Server: "github", Mode: "form", Message: "b", Action: "decline", DecidedBy: "user", Key: "kb"})
	c := mustAdd(t, s, Record{Time: t0.Add(2 * time.Second), Server: "github", Mode: "url", Message: "c", Action: "cancel", DecidedBy: "timeout"})
	if err := s.update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketIDs).Put(idKey(a.ID), []byte{1, 2, 3}); err != nil {
			return err
		}
		return tx.Bucket(bucketRequests).Put([]byte("kb"), []byte{4, 5})
	}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("the index entry of record %d is unreadable", a.ID)
	if _, err := s.Get(a.ID); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Get of the record with a damaged ids entry: %v; want an error saying %q", err, want)
	}
	if _, err := s.List(Query{Before: a.ID}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("paging from it: %v; want an error saying %q", err, want)
	}
	if _, err := s.Add(b); err == nil || !strings.Contains(err.Error(), `request "kb" is unreadable`) {
		t.Errorf("Add of a replay whose request entry is damaged: %v; want an error naming the request", err)
	}
	for _, r := range []Record{b, c} {
		if got, err := s.Get(r.ID); err != nil || !cmp.Equal(got, r) {
			t.Errorf("Get(%d) = %+v, %v; want the record as added", r.ID, got, err)
		}
	}
	if got := ids(mustList(t, s, Query{})); !cmp.Equal(got, []uint64{c.ID, b.ID, a.ID}) {
		t.Errorf("List = %v, want every record", got)
	}
}
