package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
)

// t0 is the time of the first record in most tests: a weekday afternoon with
// nanoseconds, so that lost precision shows.
var t0 = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)

// openStore opens a new history file under t.TempDir and closes it when the
// test ends.
func openStore(t *testing.T, opts *Options) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "history.db"), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// scriptedClock returns a clock for Options.Now that returns times in order,
// and then keeps returning the last one.
func scriptedClock(times ...time.Time) func() time.Time {
	var mu sync.Mutex
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now := times[0]
		if len(times) > 1 {
			times = times[1:]
		}
		return now
	}
}

// mustAdd adds r or fails the test.
func mustAdd(t *testing.T, s *Store, r Record) Record {
	t.Helper()
	got, err := s.Add(r)
	if err != nil {
		t.Fatalf("Add(%+v): %v", r, err)
	}
	return got
}

// mustList lists q or fails the test.
func mustList(t *testing.T, s *Store, q Query) []Record {
	t.Helper()
	got, err := s.List(q)
	if err != nil {
		t.Fatalf("List(%+v): %v", q, err)
	}
	return got
}

// ids returns the IDs of rs in order.
func ids(rs []Record) []uint64 {
	var out []uint64
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// Schemas as servers send them, with the spacing of Python's json.dumps and
// characters that encoding/json would escape.
const (
	spacedSchema = `{"type": "object", "properties": {"name": {"type": "string", "description": "Your <name> & title"}, "age": {"type": "integer"}}, "required": ["name"]}`
	nestedSchema = "{\n  \"type\": \"object\",\n  \"properties\": {\"ok\": {\"type\": \"boolean\", \"default\": true}}\n}"
)

func TestAddGetRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name string
		add  Record
		now  time.Time
		want Record
	}{
		{
			name: "accepted form keeps every value and the schema as sent",
			add: Record{
				Time:            t0,
				Server:          "github",
				ServerInfo:      ServerInfo{Name: "github-mcp", Title: "GitHub", Version: "1.2.3"},
				Tool:            "create_issue",
				Mode:            "form",
				Message:         "Who should be assigned?",
				RequestedSchema: json.RawMessage(spacedSchema),
				Action:          "accept",
				Content: map[string]any{
					"name":      "Ada <admin>",
					"age":       36.0,
					"ratio":     0.25,
					"id":        json.Number("9007199254740993"),
					"subscribe": true,
					"labels":    []any{"bug", "p1"},
				},
				DecidedBy: "user",
				Elapsed:   4*time.Second + 123456789*time.Nanosecond,
			},
			want: Record{
				ID:              1,
				Time:            t0,
				Server:          "github",
				ServerInfo:      ServerInfo{Name: "github-mcp", Title: "GitHub", Version: "1.2.3"},
				Tool:            "create_issue",
				Mode:            "form",
				Message:         "Who should be assigned?",
				RequestedSchema: json.RawMessage(spacedSchema),
				Action:          "accept",
				// Numbers come back as their JSON text, every digit kept:
				// a float64 would hold 9007199254740992.
				Content: map[string]any{
					"name":      "Ada <admin>",
					"age":       json.Number("36"),
					"ratio":     json.Number("0.25"),
					"id":        json.Number("9007199254740993"),
					"subscribe": true,
					"labels":    []any{"bug", "p1"},
				},
				DecidedBy: "user",
				Elapsed:   4*time.Second + 123456789*time.Nanosecond,
			},
		},
		{
			name: "multi-line schema keeps its line breaks",
			add: Record{
				Time: t0, Server: "deploy", Mode: "form", Message: "Proceed?",
				RequestedSchema: json.RawMessage(nestedSchema),
				Action:          "decline", DecidedBy: "user", Elapsed: time.Millisecond,
			},
			want: Record{
				ID: 1, Time: t0, Server: "deploy", Mode: "form", Message: "Proceed?",
				RequestedSchema: json.RawMessage(nestedSchema),
				Action:          "decline", DecidedBy: "user", Elapsed: time.Millisecond,
			},
		},
		{
			name: "URL elicitation has no schema and no content",
			add: Record{
				Time: t0, Server: "stripe", Mode: "url", Message: "Sign in to Stripe",
				URL: "https://connect.stripe.com/oauth?state=x&y=1", Action: "cancel",
				DecidedBy: "timeout", Reason: "no answer within 10m0s", Elapsed: 10 * time.Minute,
			},
			want: Record{
				ID: 1, Time: t0, Server: "stripe", Mode: "url", Message: "Sign in to Stripe",
				URL: "https://connect.stripe.com/oauth?state=x&y=1", Action: "cancel",
				DecidedBy: "timeout", Reason: "no answer within 10m0s", Elapsed: 10 * time.Minute,
			},
		},
		{
			name: "record without a time gets the clock's",
			add:  Record{Server: "github", Mode: "form", Action: "cancel", DecidedBy: "error", Reason: "hub gone"},
			now:  t0.Add(time.Hour),
			want: Record{ID: 1, Time: t0.Add(time.Hour), Server: "github", Mode: "form", Action: "cancel", DecidedBy: "error", Reason: "hub gone"},
		},
		{
			name: "time in another zone is the same instant",
			add:  Record{Time: t0.In(time.FixedZone("CET", 3600)), Server: "github", Mode: "form", Action: "accept", DecidedBy: "user"},
			want: Record{ID: 1, Time: t0, Server: "github", Mode: "form", Action: "accept", DecidedBy: "user"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t, &Options{Now: scriptedClock(tt.now)})
			added := mustAdd(t, s, tt.add)
			if diff := cmp.Diff(tt.want, added); diff != "" {
				t.Errorf("Add returned mismatch (-want +got):\n%s", diff)
			}
			got, err := s.Get(added.ID)
			if err != nil {
				t.Fatalf("Get(%d): %v", added.ID, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Get mismatch (-want +got):\n%s", diff)
			}
			// cmp compares RawMessage bytes already; this states the promise
			// in the schema's own text.
			if diff := cmp.Diff(string(tt.want.RequestedSchema), string(got.RequestedSchema)); diff != "" {
				t.Errorf("requestedSchema not kept byte for byte, mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAddRefusesUnstorableRecords(t *testing.T) {
	for _, tt := range []struct {
		name string
		add  Record
	}{
		{"time before 1970", Record{Time: time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC), Server: "github"}},
		{"time after 2262", Record{Time: time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), Server: "github"}},
		{"truncated schema", Record{Time: t0, Server: "github", RequestedSchema: json.RawMessage(`{"type":`)}},
		{"content that is not JSON", Record{Time: t0, Server: "github", Content: map[string]any{"f": func() {}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t, nil)
			if _, err := s.Add(tt.add); err == nil {
				t.Fatal("Add succeeded, want an error")
			}
			if n, err := s.Count(); err != nil || n != 0 {
				t.Errorf("Count = %d, %v; want 0 records after a refused Add", n, err)
			}
			// The refused record's transaction rolled back, ID and all.
			if got := mustAdd(t, s, Record{Time: t0, Server: "github"}); got.ID != 1 {
				t.Errorf("next record has ID %d, want 1", got.ID)
			}
		})
	}
}

func TestListNewestFirst(t *testing.T) {
	// The clock stamps records 1 to 4; 3 and 4 arrive at the same
	// nanosecond. Record 5 carries an earlier time of its own, as a record
	// written late would.
	s := openStore(t, &Options{Now: scriptedClock(
		t0,
		t0.Add(time.Second),
		t0.Add(2*time.Second),
		t0.Add(2*time.Second),
	)})
	for i := range 4 {
		mustAdd(t, s, Record{Server: "github", Message: fmt.Sprintf("prompt %d", i+1)})
	}
	mustAdd(t, s, Record{Time: t0.Add(500 * time.Millisecond), Server: "github", Message: "late"})

	got := mustList(t, s, Query{})
	if diff := cmp.Diff([]uint64{4, 3, 2, 5, 1}, ids(got)); diff != "" {
		t.Errorf("order mismatch (-want +got):\n%s", diff)
	}
	if !got[0].Time.Equal(got[1].Time) {
		t.Errorf("records 4 and 3 have times %v and %v, want the same instant", got[0].Time, got[1].Time)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Time.After(got[i-1].Time) {
			t.Errorf("record %d (%v) listed after older record %d (%v)", got[i].ID, got[i].Time, got[i-1].ID, got[i-1].Time)
		}
	}
}

func TestListFilters(t *testing.T) {
	s := openStore(t, nil)
	at := func(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }
	for _, r := range []Record{
		// ID 1
		{Time: at(0), Server: "github", ServerInfo: ServerInfo{Name: "github-mcp"}, Tool: "create_issue",
			Message: "Who should be assigned?", Action: "accept", DecidedBy: "user"},
		// ID 2
		{Time: at(1), Server: "jira", ServerInfo: ServerInfo{Name: "atlassian"}, Tool: "transition",
			Message: "Move the ticket to Done?", Action: "decline", DecidedBy: "user"},
		// ID 3
		{Time: at(2), Server: "github", ServerInfo: ServerInfo{Name: "github-mcp"}, Tool: "merge_pr",
			Message: "Confirm DEPLOY to production", Action: "cancel", DecidedBy: "timeout"},
		// ID 4
		{Time: at(3), Server: "deploy", ServerInfo: ServerInfo{Name: "Kubectl-Bridge"}, Tool: "rollout",
			Message: "Which cluster?", Action: "accept", DecidedBy: "user"},
		// ID 5
		{Time: at(4), Server: "github", ServerInfo: ServerInfo{Name: "github-mcp"},
			Message: "Token for the org", Action: "error", DecidedBy: "error", Reason: "unrenderable schema"},
		// ID 6: a server without a configured name is listed, but not by name.
		{Time: at(5), ServerInfo: ServerInfo{Name: "anon"}, Message: "Anything?", Action: "cancel", DecidedBy: "server-cancelled"},
	} {
		mustAdd(t, s, r)
	}

	for _, tt := range []struct {
		name string
		q    Query
		want []uint64
	}{
		{"zero query lists all, newest first", Query{}, []uint64{6, 5, 4, 3, 2, 1}},
		{"server", Query{Server: "github"}, []uint64{5, 3, 1}},
		{"server is an exact name", Query{Server: "git"}, nil},
		{"unknown server", Query{Server: "gitlab"}, nil},
		{"action", Query{Action: "accept"}, []uint64{4, 1}},
		{"decidedBy", Query{DecidedBy: "timeout"}, []uint64{3}},
		{"server and action", Query{Server: "github", Action: "cancel"}, []uint64{3}},
		{"since is inclusive", Query{Since: at(3)}, []uint64{6, 5, 4}},
		{"until is exclusive", Query{Until: at(2)}, []uint64{2, 1}},
		{"since and until", Query{Since: at(1), Until: at(4)}, []uint64{4, 3, 2}},
		{"since a nanosecond later", Query{Since: at(3).Add(time.Nanosecond)}, []uint64{6, 5}},
		{"server since and until", Query{Server: "github", Since: at(1), Until: at(5)}, []uint64{5, 3}},
		{"until before 1970 selects nothing", Query{Until: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)}, nil},
		{"since before 1970 selects everything", Query{Since: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)}, []uint64{6, 5, 4, 3, 2, 1}},
		{"since in the future selects nothing", Query{Since: at(60)}, nil},
		{"text in message ignores case", Query{Text: "deploy to"}, []uint64{3}},
		{"text matches lower case against upper", Query{Text: "TICKET"}, []uint64{2}},
		{"text in tool", Query{Text: "rollout"}, []uint64{4}},
		{"text in serverInfo name", Query{Text: "kubectl"}, []uint64{4}},
		{"text in server", Query{Text: "JIRA"}, []uint64{2}},
		{"text in message or server", Query{Text: "deploy"}, []uint64{4, 3}},
		{"text not in reason", Query{Text: "unrenderable"}, nil},
		{"text and server", Query{Server: "github", Text: "token"}, []uint64{5}},
		{"limit keeps the newest", Query{Limit: 2}, []uint64{6, 5}},
		{"limit counts matches only", Query{Action: "accept", Limit: 1}, []uint64{4}},
		{"limit with server", Query{Server: "github", Limit: 2}, []uint64{5, 3}},
		{"before", Query{Before: 4}, []uint64{3, 2, 1}},
		{"before with until picks the earlier bound", Query{Before: 5, Until: at(2)}, []uint64{2, 1}},
		{"before with server", Query{Server: "github", Before: 5}, []uint64{3, 1}},
		{"before the oldest", Query{Before: 1}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustList(t, s, tt.q)
			if diff := cmp.Diff(tt.want, ids(got)); diff != "" {
				t.Errorf("List(%+v) IDs mismatch (-want +got):\n%s", tt.q, diff)
			}
		})
	}
}

func TestListDefaultLimit(t *testing.T) {
	s := openStore(t, &Options{Now: scriptedClock(t0)})
	for range DefaultLimit + 1 {
		mustAdd(t, s, Record{Server: "github"})
	}
	got := mustList(t, s, Query{})
	if len(got) != DefaultLimit {
		t.Fatalf("List(Query{}) returned %d records, want %d", len(got), DefaultLimit)
	}
	// All share one time, so the newest ID comes first and the oldest is
	// the one left off.
	if got[0].ID != DefaultLimit+1 || got[len(got)-1].ID != 2 {
		t.Errorf("List(Query{}) spans IDs %d..%d, want %d..2", got[0].ID, got[len(got)-1].ID, DefaultLimit+1)
	}
}

func TestListPaging(t *testing.T) {
	// 25 records in pairs at the same time, alternating servers a and b, so
	// that page boundaries fall between records of one instant.
	var times []time.Time
	for i := range 25 {
		times = append(times, t0.Add(time.Duration(i/2)*time.Second))
	}
	s := openStore(t, &Options{Now: scriptedClock(times...)})
	for i := range 25 {
		mustAdd(t, s, Record{Server: []string{"a", "b"}[i%2], Message: fmt.Sprint(i + 1)})
	}

	for _, tt := range []struct {
		name  string
		q     Query
		sizes []int
	}{
		{"all servers", Query{Limit: 10}, []int{10, 10, 5}},
		{"one server's index", Query{Server: "a", Limit: 5}, []int{5, 5, 3}},
		{"with a filter", Query{Text: "1", Limit: 4}, []int{4, 4, 4}}, // 1, 10–19, 21
	} {
		t.Run(tt.name, func(t *testing.T) {
			all := tt.q
			all.Limit = 1000
			want := ids(mustList(t, s, all))

			var got []uint64
			var sizes []int
			q := tt.q
			for {
				page := mustList(t, s, q)
				if len(page) == 0 {
					break
				}
				sizes = append(sizes, len(page))
				got = append(got, ids(page)...)
				q.Before = page[len(page)-1].ID
				if len(sizes) > 10 {
					t.Fatalf("paging does not end; pages so far: %v", sizes)
				}
			}
			if diff := cmp.Diff(tt.sizes, sizes); diff != "" {
				t.Errorf("page sizes mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pages joined differ from one long list, mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	s := openStore(t, &Options{Now: scriptedClock(t0, t0.Add(time.Second), t0.Add(2*time.Second))})
	mustAdd(t, s, Record{Server: "github"}) // 1
	mustAdd(t, s, Record{Server: "jira"})   // 2
	mustAdd(t, s, Record{Server: "github"}) // 3

	if err := s.Delete(3); err != nil {
		t.Fatalf("Delete(3): %v", err)
	}
	if _, err := s.Get(3); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(3) after Delete: err = %v, want ErrNotFound", err)
	}
	if diff := cmp.Diff([]uint64{2, 1}, ids(mustList(t, s, Query{}))); diff != "" {
		t.Errorf("List after Delete mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint64{1}, ids(mustList(t, s, Query{Server: "github"}))); diff != "" {
		t.Errorf("List of server after Delete mismatch (-want +got):\n%s", diff)
	}
	if n, err := s.Count(); err != nil || n != 2 {
		t.Errorf("Count after Delete = %d, %v; want 2", n, err)
	}
	if err := s.Delete(3); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete(3): err = %v, want ErrNotFound", err)
	}
	if _, err := s.List(Query{Before: 3}); !errors.Is(err, ErrNotFound) {
		t.Errorf("List before deleted record: err = %v, want ErrNotFound", err)
	}

	// Deleting a server's last record leaves its name selecting nothing, and
	// a new record of that server is found again.
	if err := s.Delete(1); err != nil {
		t.Fatalf("Delete(1): %v", err)
	}
	if got := mustList(t, s, Query{Server: "github"}); got != nil {
		t.Errorf("List of server with no records = %v, want none", ids(got))
	}
	if got := mustAdd(t, s, Record{Server: "github"}); got.ID != 4 {
		t.Errorf("record after Delete has ID %d, want 4: IDs are never reused", got.ID)
	}
	if diff := cmp.Diff([]uint64{4}, ids(mustList(t, s, Query{Server: "github"}))); diff != "" {
		t.Errorf("List of server after re-adding mismatch (-want +got):\n%s", diff)
	}
}

func TestGetMissing(t *testing.T) {
	s := openStore(t, nil)
	for _, id := range []uint64{0, 1, 1 << 63} {
		if _, err := s.Get(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%d) on an empty history: err = %v, want ErrNotFound", id, err)
		}
	}
}

func TestOpenMakesFilePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix permission bits")
	}
	for _, tt := range []struct {
		name     string
		existing os.FileMode // mode of a file already there; 0: none
	}{
		{"new file in new directories", 0},
		{"existing file readable by everyone", 0o644},
		{"existing file writable by the group", 0o660},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "elicitray", "data")
			path := filepath.Join(dir, "history.db")
			if tt.existing != 0 {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, nil, tt.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tt.existing); err != nil { // past the umask
					t.Fatal(err)
				}
			}
			s, err := Open(path, nil)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			if s.Path() != path {
				t.Errorf("Path() = %q, want %q", s.Path(), path)
			}

			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Mode().Perm(); got != 0o600 {
				t.Errorf("history file mode = %#o, want 0600", got)
			}
			if tt.existing == 0 {
				info, err := os.Stat(dir)
				if err != nil {
					t.Fatalf("history directory not created: %v", err)
				}
				if !info.IsDir() || info.Mode().Perm() != 0o700 {
					t.Errorf("history directory mode = %v, want a directory with 0700", info.Mode())
				}
			}
			// The file works, whatever was there before.
			mustAdd(t, s, Record{Time: t0, Server: "github"})
		})
	}
}

func TestOpenLockedByAnotherStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	first, err := Open(path, nil)
	if err != nil {
		t.Fatalf("first Open: %v", err)
	}
	defer first.Close()
	mustAdd(t, first, Record{Time: t0, Server: "github"})

	// bbolt's lock is per open file, so a second Store in this process meets
	// it as a second process would.
	second, err := Open(path, &Options{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		if second != nil {
			second.Close()
		}
		t.Fatalf("second Open: err = %v, want ErrLocked", err)
	}
	if !strings.Contains(err.Error(), "in use by another process") || !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not say which file is in use", err)
	}

	// Once the holder closes, the file opens with its records.
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	third, err := Open(path, &Options{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	defer third.Close()
	if n, err := third.Count(); err != nil || n != 1 {
		t.Errorf("Count after reopening = %d, %v; want 1", n, err)
	}
}

func TestReopenKeepsRecordsAndIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path, &Options{Now: scriptedClock(t0, t0.Add(time.Second), t0.Add(2*time.Second))})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	for _, server := range []string{"github", "jira", "github"} {
		mustAdd(t, s, Record{Server: server, Message: "from " + server, Content: map[string]any{"n": 1.0}})
	}
	before := mustList(t, s, Query{})
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s, err = Open(path, &Options{Now: scriptedClock(t0.Add(time.Minute))})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if diff := cmp.Diff(before, mustList(t, s, Query{})); diff != "" {
		t.Errorf("records after reopen mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint64{3, 1}, ids(mustList(t, s, Query{Server: "github"}))); diff != "" {
		t.Errorf("server index after reopen mismatch (-want +got):\n%s", diff)
	}
	if got := mustAdd(t, s, Record{Server: "github"}); got.ID != 4 {
		t.Errorf("first record after reopen has ID %d, want 4", got.ID)
	}
	if n, err := s.Count(); err != nil || n != 4 {
		t.Errorf("Count = %d, %v; want 4", n, err)
	}
}

func TestOpenRefusesNewerVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	mustAdd(t, s, Record{Time: t0, Server: "github"})
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// A newer elicitray has rewritten the file.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return writeVersion(tx, 99) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	if s, err := Open(path, nil); !errors.Is(err, ErrNewerVersion) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Open of a version 99 file: err = %v, want ErrNewerVersion", err)
	}

	// The newer elicitray's file is as it left it.
	db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version, records int
	if err := db.View(func(tx *bolt.Tx) error {
		version, err = readVersion(tx)
		records = count(tx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if version != 99 || records != 1 {
		t.Errorf("after refused Open: version %d with %d records, want version 99 with 1 record", version, records)
	}
}

func TestConcurrentAdd(t *testing.T) {
	const goroutines, each = 20, 50
	s := openStore(t, nil)

	var (
		mu  sync.Mutex
		got []uint64
		wg  sync.WaitGroup
	)
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				r, err := s.Add(Record{Server: fmt.Sprintf("server-%d", g), Message: fmt.Sprint(i)})
				if err != nil {
					t.Errorf("Add: %v", err)
					return
				}
				mu.Lock()
				got = append(got, r.ID)
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	slices.Sort(got)
	var want []uint64
	for id := range uint64(goroutines * each) {
		want = append(want, id+1)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("IDs are not 1..%d, each once; mismatch (-want +got):\n%s", goroutines*each, diff)
	}
	if n, err := s.Count(); err != nil || n != goroutines*each {
		t.Errorf("Count = %d, %v; want %d", n, err, goroutines*each)
	}
	for _, server := range []string{"server-0", "server-19"} {
		if rs := mustList(t, s, Query{Server: server, Limit: 1000}); len(rs) != each {
			t.Errorf("List(%s) returned %d records, want %d", server, len(rs), each)
		}
	}
}

// FuzzSchemaRoundTrip checks that any valid JSON schema comes back byte for
// byte, apart from surrounding whitespace: stored once in the schemas bucket
// and stored inline in the record, as a record does whose schema's key is
// taken by another schema.
func FuzzSchemaRoundTrip(f *testing.F) {
	for _, seed := range []string{spacedSchema, nestedSchema, `{}`, `null`, " {\"a\":\"\\u003c\"} \n"} {
		f.Add(seed)
	}
	s, err := Open(filepath.Join(f.TempDir(), "history.db"), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, schema string) {
		if !json.Valid([]byte(schema)) {
			t.Skip()
		}
		want := strings.TrimSpace(schema)

		added := mustAdd(t, s, Record{Time: t0, Server: "github", RequestedSchema: json.RawMessage(schema)})
		got, err := s.Get(added.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if diff := cmp.Diff(want, string(got.RequestedSchema)); diff != "" {
			t.Errorf("schema stored once, mismatch (-want +got):\n%s", diff)
		}

		v, err := encode(Record{ID: 1, Time: t0, RequestedSchema: json.RawMessage(schema)}, nil)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		var rr rawRecord
		if err := rr.parse(v); err != nil {
			t.Fatalf("parse %x: %v", v, err)
		}
		r, err := (&reader{}).record(recordKey(uint64(t0.UnixNano()), 1), &rr)
		if err != nil {
			t.Fatalf("record: %v", err)
		}
		if diff := cmp.Diff(want, string(r.RequestedSchema)); diff != "" {
			t.Errorf("schema stored inline, mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestInvalidUTF8: a server's invalid UTF-8 (in the message, in schema
// titles) is kept as U+FFFD, so that every record encodes to valid JSON
// (issue 10: `history list --json` printed invalid JSON).
func TestInvalidUTF8(t *testing.T) {
	s := openStore(t, nil)
	schema := "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\",\"title\":\"Ville d'arriv\xe9e\",\"enum\":[\"Z\xfcrich\",\"Paris\"]}}}"
	if _, err := s.Add(Record{Server: "trips", Message: "O\xf9 allez-vous\xc0?", RequestedSchema: json.RawMessage(schema), Action: "cancel"}); err != nil {
		t.Fatal(err)
	}
	recs, err := s.List(Query{})
	if err != nil || len(recs) != 1 {
		t.Fatalf("List: %v, %d records", err, len(recs))
	}
	b, err := json.Marshal(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(b) || !json.Valid(b) {
		t.Fatalf("the record encodes to invalid JSON: %q", b)
	}
	if got, want := recs[0].Message, "O\uFFFD allez-vous\uFFFD?"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if !strings.Contains(string(recs[0].RequestedSchema), "Ville d'arriv\uFFFDe") || !strings.Contains(string(recs[0].RequestedSchema), "Z\uFFFDrich") {
		t.Errorf("schema %s: want U+FFFD where the invalid bytes were", recs[0].RequestedSchema)
	}
}
