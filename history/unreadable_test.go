package history

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/history/historytest"
)

// damagedStore is a store in a file of the test's own that held recs
// until damage changed the stored bytes of the records it names (by ID),
// as a failing disk would (historytest.Damage).
func damagedStore(t *testing.T, recs []Record, damage map[uint64]func([]byte) []byte) *Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		mustAdd(t, s, r)
	}
	closeStore(t, s)
	for id, f := range damage {
		if err := historytest.Damage(path, id, f); err != nil {
			t.Fatal(err)
		}
	}
	if s, err = Open(path, nil); err != nil {
		t.Fatalf("Open with records damaged: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestUnreadableRecord: one record whose stored bytes cannot be read
// hides no other. Every listing shows it where it is, by ID and time, and
// says it cannot be read; counts agree with the listings; an export writes
// every other record and then says which it left out; Delete and Prune
// remove it. Before, the first listing that reached it failed whole, and
// so did the history window, export, delete and the daily prune.
func TestUnreadableRecord(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		damage func([]byte) []byte
		// fieldsRead: the fields a selection looks at read well (only the
		// content is damaged), so selections still apply to the record.
		fieldsRead bool
	}{
		{"cut short", historytest.CutShort, false},
		{"a version no elicitray wrote", func(v []byte) []byte { v[0] = 0xee; return v }, false},
		{"content that is not JSON", func(v []byte) []byte {
			return bytes.Replace(v, []byte(`"prod"`), []byte(`{prod"`), 1)
		}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			texts := []string{"Deploy to production?", "部署到生产环境？", "هل تريد النشر؟", "לפרוס?", "Ship 🚢 v2?"}
			var recs []Record
			for i, msg := range texts {
				r := Record{Time: t0.Add(time.Duration(i) * time.Minute), Server: []string{"github", "部署"}[i%2], Mode: "form",
					Message: msg, Action: "accept", DecidedBy: "user", Content: map[string]any{"env": "prod"}}
				if i == 3 {
					r.Action, r.Content = "decline", nil
				}
				recs = append(recs, r)
			}
			s := damagedStore(t, recs, map[uint64]func([]byte) []byte{3: tt.damage}) // github's, accepted

			all := mustList(t, s, Query{})
			if got := fmt.Sprint(ids(all)); got != "[5 4 3 2 1]" {
				t.Fatalf("List() = %v; want every record, 3 too", got)
			}
			bad := all[2]
			if bad.Unreadable == "" || !bad.Time.Equal(t0.Add(2*time.Minute)) || bad.Message != "" {
				t.Errorf("record 3 listed as %+v; want it marked unreadable, at its time, with nothing made up", bad)
			}
			for _, r := range append(all[:2:2], all[3:]...) {
				if r.Unreadable != "" || r.Message != texts[r.ID-1] {
					t.Errorf("record %d listed as %+v; want it whole, message %q", r.ID, r, texts[r.ID-1])
				}
			}
			// Every selection shows it when whether it matches cannot be
			// read; one that reads it leaves it out when it does not match.
			for _, q := range []Query{{Server: "github"}, {Action: "decline"}, {Text: "部署"}, {Mode: "url"}, {Limit: 1, Before: 4}} {
				got := mustList(t, s, q)
				selects := q.Server != "" || q.Before != 0 || !tt.fieldsRead
				if hasUnreadable(got, 3) != selects {
					t.Errorf("List(%+v) = %v; want record 3 among them (marked unreadable): %v", q, ids(got), selects)
				}
				n, err := s.CountQuery(q)
				if q.Limit == 0 && (err != nil || n != len(got)) {
					t.Errorf("CountQuery(%+v) = %d, %v; want %d, as List shows", q, n, err, len(got))
				}
			}
			if got := mustList(t, s, Query{Server: "github"}); got[1].Server != "github" {
				t.Errorf("github's listing shows record 3 of server %q; want github, whose index holds it", got[1].Server)
			}
			if _, err := s.Get(3); !errors.Is(err, ErrUnreadable) {
				t.Errorf("Get(3) of the damaged record: %v; want ErrUnreadable", err)
			}

			var out bytes.Buffer
			n, err := s.Export(&out, FormatJSONL, Query{})
			if n != 4 || strings.Count(out.String(), "\n") != 4 {
				t.Errorf("Export wrote %d records, %d lines; want the 4 others", n, strings.Count(out.String(), "\n"))
			}
			if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "record 3 could not be read") {
				t.Errorf("Export's error = %v; want one naming record 3 as left out", err)
			}
			for _, msg := range []string{texts[0], texts[1], texts[3], texts[4]} {
				if !strings.Contains(out.String(), msg) {
					t.Errorf("the export lacks %q", msg)
				}
			}

			v, err := s.Verify()
			if err != nil || len(v.Problems) == 0 {
				t.Errorf("Verify() = %+v, %v; want it to name the damaged record", v, err)
			}

			if err := s.Delete(3); err != nil {
				t.Fatalf("Delete(3) of the damaged record: %v", err)
			}
			if got := fmt.Sprint(ids(mustList(t, s, Query{}))); got != "[5 4 2 1]" {
				t.Errorf("after Delete(3), List() = %v", got)
			}
			for _, q := range []Query{{}, {Server: "github"}} {
				if n, err := s.CountQuery(q); err != nil || n != map[string]int{"": 4, "github": 2}[q.Server] {
					t.Errorf("after Delete(3), CountQuery(%+v) = %d, %v", q, n, err)
				}
			}
			if _, err := s.Export(&out, FormatCSV, Query{}); err != nil {
				t.Errorf("after Delete(3), Export: %v", err)
			}
		})
	}
}

// TestPruneUnreadableRecord: the daily prune goes past damaged records,
// and removes them when they are old enough; deleting a record of their
// search block (blockRecords of them) goes on too. Before, every delete
// in the block read the damaged records again, and failed.
func TestPruneUnreadableRecord(t *testing.T) {
	t.Parallel()
	var recs []Record
	for i := range 8 {
		recs = append(recs, Record{Time: t0.Add(time.Duration(i) * time.Hour), Server: "部署", Mode: "form", Message: "نشر؟",
			Action: "accept", DecidedBy: "user", Key: fmt.Sprintf("k%d", i+1)})
	}
	s := damagedStore(t, recs, map[uint64]func([]byte) []byte{2: func(v []byte) []byte { return v[:40] }, 7: historytest.CutShort})
	if err := s.Delete(8); err != nil {
		t.Fatalf("Delete(8), of the damaged records' block: %v", err)
	}
	if got := mustList(t, s, Query{Text: "no such text"}); !hasUnreadable(got, 7) {
		t.Errorf("a search after the block changed lists %v; want the damaged record 7, whose text cannot be read", ids(got))
	}
	n, err := s.Prune(PruneOptions{Keep: 4})
	if err != nil || n != 3 {
		t.Fatalf("Prune(Keep 4) = %d, %v; want the 3 oldest gone, the damaged one among them", n, err)
	}
	if got := fmt.Sprint(ids(mustList(t, s, Query{Server: "部署"}))); got != "[7 6 5 4]" {
		t.Errorf("after Prune, the server's listing is %v", got)
	}
	if err := s.Delete(7); err != nil {
		t.Fatalf("Delete(7), the other damaged record: %v", err)
	}
	// Its request was let go with it: the same key is a new record now.
	r := mustAdd(t, s, Record{Time: t0.Add(9 * time.Hour), Server: "部署", Mode: "form", Message: "again", Action: "decline", DecidedBy: "user", Key: "k2"})
	if r.ID != 9 {
		t.Errorf("a record of the pruned record's key was stored as %+v; want a new record 9", r)
	}
	if v, err := s.Verify(); err != nil || len(v.Problems) != 0 {
		t.Errorf("Verify after pruning the damaged record = %+v, %v; want the chain whole (its seal was readable)", v, err)
	}
}

func hasUnreadable(rs []Record, id uint64) bool {
	for _, r := range rs {
		if r.ID == id && r.Unreadable != "" {
			return true
		}
	}
	return false
}

// TestDeleteUnreadableWithoutSeal: a damaged record whose seal is lost too
// (cut to a few bytes, emptied) can be deleted, and the chain still holds
// after it, as the records after it were not changed: verify does not
// name them. Before, it said the next record "was changed outside
// elicitray", for good, and after a new record, that one.
func TestDeleteUnreadableWithoutSeal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		id   uint64
	}{{"in the middle", 7}, {"the newest", 12}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var recs []Record
			for i := range 12 {
				recs = append(recs, Record{Time: t0.Add(time.Duration(i) * time.Minute), Server: "לפרוס", Mode: "form", Message: "🚀 ship?",
					Action: "accept", DecidedBy: "user"})
			}
			s := damagedStore(t, recs, map[uint64]func([]byte) []byte{tt.id: func(v []byte) []byte { return v[:5] }})
			if v, err := s.Verify(); err != nil || len(v.Problems) == 0 {
				t.Errorf("Verify with record %d damaged = %+v, %v; want it named", tt.id, v, err)
			}
			if err := s.Delete(tt.id); err != nil {
				t.Fatal(err)
			}
			mustAdd(t, s, Record{Time: t0.Add(time.Hour), Server: "לפרוס", Mode: "form", Message: "again", Action: "decline", DecidedBy: "user"})
			if v, err := s.Verify(); err != nil || len(v.Problems) != 0 {
				t.Errorf("Verify after deleting it = %+v, %v; want the chain to hold", v.Problems, err)
			}
		})
	}
}
