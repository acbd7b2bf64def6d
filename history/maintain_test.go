package history

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// addMinutes adds n records to s, one a minute from t0, over three servers
// and two schemas, and returns them.
func addMinutes(t *testing.T, s *Store, n int) []Record {
	t.Helper()
	var out []Record
	for i := range n {
		r := Record{Time: t0.Add(time.Duration(i) * time.Minute), Server: []string{"github", "jira", "deploy"}[i%3],
			Mode: "form", Message: "prompt", Action: "accept", DecidedBy: "user"}
		if i%2 == 0 {
			r.RequestedSchema = json.RawMessage([]string{spacedSchema, nestedSchema}[i/2%2])
		}
		out = append(out, mustAdd(t, s, r))
	}
	return out
}

func TestClear(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	addMinutes(t, s, 10)
	if err := s.Clear(); err != nil {
		t.Fatalf("Clear: %v", err)
	}
	if got := mustList(t, s, Query{}); got != nil {
		t.Errorf("List after Clear = %v, want none", ids(got))
	}
	for _, q := range []Query{{}, {Server: "github"}, {Action: "accept"}} {
		if n, err := s.CountQuery(q); err != nil || n != 0 {
			t.Errorf("CountQuery(%+v) after Clear = %d, %v; want 0", q, n, err)
		}
	}
	if _, err := s.Get(3); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(3) after Clear: err = %v, want ErrNotFound", err)
	}
	assertSchemasShared(t, s) // and none are left
	// IDs go on from where they were, and the file still works after reopening.
	if got := mustAdd(t, s, Record{Time: t0, Server: "github", RequestedSchema: json.RawMessage(spacedSchema)}); got.ID != 11 {
		t.Errorf("record after Clear has ID %d, want 11", got.ID)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, nil)
	if err != nil {
		t.Fatalf("reopen after Clear: %v", err)
	}
	defer s.Close()
	if diff := cmp.Diff([]uint64{11}, ids(mustList(t, s, Query{Server: "github"}))); diff != "" {
		t.Errorf("records after Clear and reopen mismatch (-want +got):\n%s", diff)
	}
	assertVersion(t, s, schemaVersion)
	assertSchemasShared(t, s)
}

func TestPrune(t *testing.T) {
	at := func(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }
	for _, tt := range []struct {
		name string
		opts PruneOptions
		want int // records left: the newest ones
	}{
		{"nothing to do", PruneOptions{}, 10},
		{"older than a time", PruneOptions{Before: at(4)}, 6},
		{"a time is exclusive", PruneOptions{Before: at(4).Add(time.Nanosecond)}, 5},
		{"a time before every record", PruneOptions{Before: at(-1)}, 10},
		{"a time after every record", PruneOptions{Before: at(60)}, 0},
		{"keep the newest", PruneOptions{Keep: 3}, 3},
		{"keep more than there are", PruneOptions{Keep: 30}, 10},
		{"negative keep is no limit", PruneOptions{Keep: -1}, 10},
		{"time deletes more than keep", PruneOptions{Before: at(8), Keep: 5}, 2},
		{"keep deletes more than time", PruneOptions{Before: at(2), Keep: 5}, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t, nil)
			all := addMinutes(t, s, 10)
			n, err := s.Prune(tt.opts)
			if err != nil {
				t.Fatalf("Prune: %v", err)
			}
			if n != 10-tt.want {
				t.Errorf("Prune returned %d, want %d deleted", n, 10-tt.want)
			}
			var want []uint64
			for i := len(all) - 1; i >= 10-tt.want; i-- {
				want = append(want, all[i].ID)
			}
			if diff := cmp.Diff(want, ids(mustList(t, s, Query{}))); diff != "" {
				t.Errorf("records left mismatch (-want +got):\n%s", diff)
			}
			if c, err := s.Count(); err != nil || c != tt.want {
				t.Errorf("Count = %d, %v; want %d", c, err, tt.want)
			}
			for _, server := range []string{"github", "jira", "deploy"} {
				var wantN int
				for _, id := range want {
					if all[id-1].Server == server {
						wantN++
					}
				}
				if c, err := s.CountQuery(Query{Server: server}); err != nil || c != wantN {
					t.Errorf("CountQuery(server %s) = %d, %v; want %d", server, c, err, wantN)
				}
				if got := len(mustList(t, s, Query{Server: server})); got != wantN {
					t.Errorf("List(server %s) has %d records, want %d", server, got, wantN)
				}
			}
			assertSchemasShared(t, s)
		})
	}
}

func TestPruneManyRecords(t *testing.T) {
	// More records than one Prune transaction deletes.
	lower(t, &pruneBatch, 1000)
	s := openStore(t, nil)
	n := 2*pruneBatch + 500
	if err := bulkAdd(s, benchRecords(n, 1)); err != nil {
		t.Fatal(err)
	}
	newest := mustList(t, s, Query{Limit: 100})
	deleted, err := s.Prune(PruneOptions{Keep: 100})
	if err != nil || deleted != n-100 {
		t.Fatalf("Prune = %d, %v; want %d deleted", deleted, err, n-100)
	}
	if diff := cmp.Diff(newest, mustList(t, s, Query{Limit: 1000})); diff != "" {
		t.Errorf("records left mismatch (-want +got):\n%s", diff)
	}
	assertSchemasShared(t, s)
}

func TestCompact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	if err := bulkAdd(s, benchRecords(5000, 1)); err != nil {
		t.Fatal(err)
	}
	full := fileSize(t, path)
	if _, err := s.Prune(PruneOptions{Keep: 100}); err != nil {
		t.Fatal(err)
	}
	if size := fileSize(t, path); size < full {
		t.Fatalf("file shrank from %d to %d bytes before Compact: the test cannot tell Compact worked", full, size)
	}
	before := mustList(t, s, Query{Limit: 1000})

	// Readers and writers meanwhile wait for Compact, and then work on the
	// new file.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				if _, err := s.List(Query{Limit: 10}); err != nil {
					t.Errorf("List during Compact: %v", err)
					return
				}
			}
		})
	}
	if err := s.Compact(); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	wg.Wait()

	if size := fileSize(t, path); size > full/10 {
		t.Errorf("file has %d bytes after deleting 98%% of its records and Compact, had %d: want under a tenth", size, full)
	}
	if diff := cmp.Diff(before, mustList(t, s, Query{Limit: 1000})); diff != "" {
		t.Errorf("records after Compact mismatch (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(path + ".compacting"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Compact left its temporary file behind: %v", err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 { // Windows: the directory's access list
		t.Errorf("file mode after Compact = %#o, want 0600", info.Mode().Perm())
	}
	// The Store goes on: IDs continue, counts hold, the lock is held.
	r := mustAdd(t, s, Record{Server: "github", RequestedSchema: json.RawMessage(spacedSchema)})
	if r.ID != 5001 {
		t.Errorf("record after Compact has ID %d, want 5001", r.ID)
	}
	if n, err := s.Count(); err != nil || n != 101 {
		t.Errorf("Count after Compact = %d, %v; want 101", n, err)
	}
	assertSchemasShared(t, s)
	if other, err := Open(path, &Options{Timeout: 50 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		if other != nil {
			other.Close()
		}
		t.Errorf("Open by another Store after Compact: err = %v, want ErrLocked", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close after Compact: %v", err)
	}
	s, err = Open(path, nil)
	if err != nil {
		t.Fatalf("reopen after Compact: %v", err)
	}
	if n, err := s.Count(); err != nil || n != 101 {
		t.Errorf("Count after reopening = %d, %v; want 101", n, err)
	}
}

// TestOpenRemovesCompactionLeftover: a Compact whose process was killed
// leaves its copy of the history (path + ".compacting", private records)
// beside the file; the next Open removes it, and keeps the history. A
// link planted there is removed, not what it points to.
func TestOpenRemovesCompactionLeftover(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "history.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := bulkAdd(s, benchRecords(300, 1)); err != nil {
		t.Fatal(err)
	}
	want := mustList(t, s, Query{Limit: 1000})
	s.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".compacting", b[:len(b)/2], 0o600); err != nil { // cut short
		t.Fatal(err)
	}
	for _, leftover := range []string{"a copy", "a link"} {
		s, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(path + ".compacting"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left by a compaction cut short is still there after Open: %v", leftover, err)
		}
		if diff := cmp.Diff(want, mustList(t, s, Query{Limit: 1000})); diff != "" {
			t.Errorf("records after Open mismatch (-want +got):\n%s", diff)
		}
		s.Close()
		if runtime.GOOS == "windows" {
			break // Wine makes a Unix link of os.Symlink
		}
		other := filepath.Join(dir, "other")
		if err := os.WriteFile(other, []byte("not elicitray's"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(other, path+".compacting"); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if b, err := os.ReadFile(other); err != nil || string(b) != "not elicitray's" {
				t.Errorf("the file a planted link pointed to: %q, %v", b, err)
			}
		}()
	}
}
