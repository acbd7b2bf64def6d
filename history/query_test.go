package history

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
)

func TestListAfter(t *testing.T) {
	s := openStore(t, nil)
	at := func(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }
	// IDs 1–8, two servers; 4 and 5 share a time.
	for i, m := range []int{0, 1, 2, 3, 3, 4, 5, 6} {
		mustAdd(t, s, Record{Time: at(m), Server: []string{"a", "b"}[i%2], Action: []string{"accept", "cancel"}[i/4]})
	}
	for _, tt := range []struct {
		name string
		q    Query
		want []uint64
	}{
		{"after lists the newer records, newest first", Query{After: 5}, []uint64{8, 7, 6}},
		{"after with a limit takes the records nearest to it", Query{After: 2, Limit: 3}, []uint64{5, 4, 3}},
		{"after a record sharing its time with another", Query{After: 4, Limit: 1}, []uint64{5}},
		{"after the newest", Query{After: 8}, nil},
		{"after and before", Query{After: 2, Before: 7}, []uint64{6, 5, 4, 3}},
		{"after and before with a limit", Query{After: 2, Before: 7, Limit: 2}, []uint64{4, 3}},
		{"after and since picks the later bound", Query{After: 2, Since: at(4)}, []uint64{8, 7, 6}},
		{"after and until", Query{After: 2, Until: at(4)}, []uint64{5, 4, 3}},
		{"after with server", Query{After: 1, Server: "a", Limit: 2}, []uint64{5, 3}},
		{"after with action", Query{After: 1, Action: "cancel", Limit: 2}, []uint64{6, 5}},
		{"after a record of another server", Query{After: 2, Server: "a"}, []uint64{7, 5, 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ids(mustList(t, s, tt.q))); diff != "" {
				t.Errorf("List(%+v) IDs mismatch (-want +got):\n%s", tt.q, diff)
			}
		})
	}

	if err := s.Delete(4); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(Query{After: 4}); !errors.Is(err, ErrNotFound) {
		t.Errorf("List after a deleted record: err = %v, want ErrNotFound", err)
	}
}

func TestPagingBothWays(t *testing.T) {
	// 25 records in pairs at the same time, as in TestListPaging.
	var times []time.Time
	for i := range 25 {
		times = append(times, t0.Add(time.Duration(i/2)*time.Second))
	}
	s := openStore(t, &Options{Now: scriptedClock(times...)})
	for i := range 25 {
		mustAdd(t, s, Record{Server: []string{"a", "b"}[i%2], Message: fmt.Sprint(i + 1)})
	}
	for _, q := range []Query{{Limit: 7}, {Server: "b", Limit: 4}, {Text: "1", Limit: 3}} {
		t.Run(fmt.Sprintf("%+v", q), func(t *testing.T) {
			// Down to the oldest with Before, as the history window's Older
			// button does, then back up with After (Newer).
			var down [][]uint64
			p := q
			for {
				page, err := s.ListPage(p)
				if err != nil {
					t.Fatal(err)
				}
				down = append(down, ids(page.Records))
				if page.Next == 0 {
					break
				}
				if page.Next != page.Records[len(page.Records)-1].ID {
					t.Fatalf("Page.Next = %d, want the last record's ID %d", page.Next, page.Records[len(page.Records)-1].ID)
				}
				p.Before = page.Next
			}
			var up [][]uint64
			p = q
			p.After = down[len(down)-1][0]
			for {
				page, err := s.ListPage(p)
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Records) > 0 {
					up = append(up, ids(page.Records))
				}
				if page.Next == 0 {
					break
				}
				p.After = page.Records[0].ID
			}
			// Going up, pages fill from the oldest end: they are the pages
			// going down, cut from the other end. Joined, both are the
			// whole selection but for the oldest page, from whose newest
			// record going up started.
			all := q
			all.Limit = 1000
			want := ids(mustList(t, s, all))
			if diff := cmp.Diff(want, slices.Concat(down...)); diff != "" {
				t.Errorf("pages going down mismatch (-want +got):\n%s", diff)
			}
			var joinedUp []uint64
			for i := len(up) - 1; i >= 0; i-- {
				joinedUp = append(joinedUp, up[i]...)
			}
			if diff := cmp.Diff(want[:len(want)-len(down[len(down)-1])], joinedUp); diff != "" {
				t.Errorf("pages going up mismatch (-want +got):\n%s", diff)
			}
			for i, page := range up {
				if len(page) > q.Limit {
					t.Errorf("page %d going up has %d records, limit %d", i, len(page), q.Limit)
				}
			}
		})
	}
}

func TestListPageNext(t *testing.T) {
	s := openStore(t, &Options{Now: scriptedClock(t0)})
	for i := range 10 {
		mustAdd(t, s, Record{Server: "a", Message: []string{"plain", "needle"}[i%5/4]}) // 5 and 10 say needle
	}
	for _, tt := range []struct {
		name     string
		q        Query
		want     []uint64
		wantNext uint64
	}{
		{"more records", Query{Limit: 3}, []uint64{10, 9, 8}, 8},
		{"the last page", Query{Limit: 3, Before: 3}, []uint64{2, 1}, 0},
		{"a page that ends with the selection", Query{Limit: 2, Before: 3}, []uint64{2, 1}, 0},
		{"a filter may find nothing more", Query{Limit: 2, Server: "a", Text: "needle"}, []uint64{10, 5}, 5},
		{"scan limit stops before the limit", Query{Text: "needle", ScanLimit: 4}, []uint64{10}, 7},
		{"scan limit continues", Query{Text: "needle", ScanLimit: 4, Before: 7}, []uint64{5}, 3},
		{"scan limit at the end", Query{Text: "needle", ScanLimit: 4, Before: 3}, nil, 0},
		{"scan limit going up", Query{Text: "needle", ScanLimit: 3, After: 1}, nil, 4},
		{"scan limit going up continues", Query{Text: "needle", ScanLimit: 3, After: 4}, []uint64{5}, 7},
		{"going up, more records", Query{Limit: 2, After: 1}, []uint64{3, 2}, 3},
		{"going up, the newest page", Query{Limit: 2, After: 8}, []uint64{10, 9}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.ListPage(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, ids(p.Records)); diff != "" {
				t.Errorf("ListPage(%+v) IDs mismatch (-want +got):\n%s", tt.q, diff)
			}
			if p.Next != tt.wantNext {
				t.Errorf("ListPage(%+v).Next = %d, want %d", tt.q, p.Next, tt.wantNext)
			}
		})
	}
}

// modelRecords are random records for comparing queries with a model:
// times from a few minutes, so that many share one, and not in ID order.
func modelRecords(n int) []Record {
	rng := rand.New(rand.NewPCG(1, 2))
	servers := []string{"github", "jira", "deploy", "Deploy", "", "ünïcode"}
	messages := []string{"Deploy to PROD?", "Pick a branch", "Ville d'ÉTÉ", "Temperature in \u212aelvin",
		"", "Token for the org", "merge PR #12"}
	var rs []Record
	for range n {
		server := servers[rng.IntN(len(servers))]
		rs = append(rs, Record{
			Time:       t0.Add(time.Duration(rng.IntN(300)) * time.Second),
			Server:     server,
			ServerInfo: ServerInfo{Name: []string{"GitHub-MCP", "atlassian", "Kubectl"}[rng.IntN(3)]},
			Tool:       []string{"", "create_issue", "rollout"}[rng.IntN(3)],
			Mode:       "form",
			Message:    messages[rng.IntN(len(messages))],
			Action:     []string{"accept", "decline", "cancel", "error"}[rng.IntN(4)],
			DecidedBy:  []string{"user", "timeout", "error", "rate-limit"}[rng.IntN(4)],
		})
	}
	return rs
}

// model returns what q selects from rs (with their IDs set), ignoring
// Limit, newest first.
func model(rs []Record, q Query) []Record {
	byID := map[uint64]Record{}
	for _, r := range rs {
		byID[r.ID] = r
	}
	newer := func(a, b Record) bool {
		return a.Time.After(b.Time) || a.Time.Equal(b.Time) && a.ID > b.ID
	}
	text := strings.ToLower(q.Text)
	var out []Record
	for _, r := range rs {
		switch {
		case q.Server != "" && r.Server != q.Server,
			q.Action != "" && r.Action != q.Action,
			q.DecidedBy != "" && r.DecidedBy != q.DecidedBy,
			!q.Since.IsZero() && r.Time.Before(q.Since),
			!q.Until.IsZero() && !r.Time.Before(q.Until),
			q.Before != 0 && !newer(byID[q.Before], r),
			q.After != 0 && !newer(r, byID[q.After]):
			continue
		}
		if text != "" && !slices.ContainsFunc([]string{r.Message, r.Server, r.Tool, r.ServerInfo.Name},
			func(f string) bool { return strings.Contains(strings.ToLower(f), text) }) {
			continue
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Record) int {
		if newer(a, b) {
			return -1
		}
		return 1
	})
	return out
}

func TestQueriesAgreeWithModel(t *testing.T) {
	s := openStore(t, nil)
	rs := modelRecords(400)
	if err := bulkAdd(s, slices.Values(rs)); err != nil {
		t.Fatal(err)
	}
	for i := range rs {
		rs[i].ID = uint64(i + 1)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(options ...string) string { return options[rng.IntN(len(options))] }
	at := func() time.Time {
		if rng.IntN(3) > 0 {
			return time.Time{}
		}
		return t0.Add(time.Duration(rng.IntN(320)-10) * time.Second)
	}
	id := func() uint64 {
		if rng.IntN(3) > 0 {
			return 0
		}
		return uint64(1 + rng.IntN(len(rs)))
	}
	for i := range 1500 {
		q := Query{
			Server:    pick("", "", "github", "deploy", "Deploy", "ünïcode", "nobody"),
			Action:    pick("", "", "accept", "cancel"),
			DecidedBy: pick("", "", "user", "rate-limit"),
			Since:     at(),
			Until:     at(),
			Text:      pick("", "", "", "deploy", "PROD", "été", "ÉTÉ", "k", "KELVIN", "mcp", "#1", "nothing"),
			Limit:     rng.IntN(30),
			Before:    id(),
			After:     id(),
		}
		want := model(rs, q)
		n, err := s.CountQuery(q)
		if err != nil {
			t.Fatalf("CountQuery(%+v): %v", q, err)
		}
		unpaged := q
		unpaged.Before, unpaged.After = 0, 0
		if wantN := len(model(rs, unpaged)); n != wantN {
			t.Errorf("query %d: CountQuery(%+v) = %d, want %d", i, q, n, wantN)
		}
		limit := q.Limit
		if limit <= 0 {
			limit = DefaultLimit
		}
		if len(want) > limit {
			if q.After != 0 {
				want = want[len(want)-limit:]
			} else {
				want = want[:limit]
			}
		}
		got := mustList(t, s, q)
		if diff := cmp.Diff(ids(want), ids(got)); diff != "" {
			t.Fatalf("query %d: List(%+v) IDs mismatch (-want +got):\n%s", i, q, diff)
		}
	}
}

func TestCountQuery(t *testing.T) {
	s := openStore(t, nil)
	at := func(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }
	for i := range 10 {
		mustAdd(t, s, Record{Time: at(i), Server: []string{"github", "jira", ""}[i%3],
			Action: []string{"accept", "decline"}[i%2], Message: fmt.Sprintf("prompt %d", i)})
	}
	for _, tt := range []struct {
		name string
		q    Query
		want int
	}{
		{"all", Query{}, 10},
		{"paging and limits are ignored", Query{Limit: 2, Before: 5, After: 2, ScanLimit: 1}, 10},
		{"server", Query{Server: "github"}, 4},
		{"unknown server", Query{Server: "gitlab"}, 0},
		{"server and limit", Query{Server: "jira", Limit: 1}, 3},
		{"since and until", Query{Since: at(2), Until: at(5)}, 3},
		{"server and since", Query{Server: "github", Since: at(3)}, 3},
		{"action", Query{Action: "accept"}, 5},
		{"server and action", Query{Server: "github", Action: "accept"}, 2},
		{"text", Query{Text: "PROMPT 1"}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n, err := s.CountQuery(tt.q)
			if err != nil || n != tt.want {
				t.Errorf("CountQuery(%+v) = %d, %v; want %d", tt.q, n, err, tt.want)
			}
		})
	}
	// Counts follow deletes, down to a server's last record.
	for _, id := range []uint64{1, 4, 7, 10} {
		if err := s.Delete(id); err != nil {
			t.Fatal(err)
		}
	}
	for q, want := range map[string]int{"": 6, "github": 0, "jira": 3} {
		if n, err := s.CountQuery(Query{Server: q}); err != nil || n != want {
			t.Errorf("after deletes, CountQuery(server %q) = %d, %v; want %d", q, n, err, want)
		}
	}
}

// containsFoldCases are the cases of TestContainsFold, and the seeds of
// FuzzContainsFold.
var containsFoldCases = []struct {
	s, text string
	want    bool
}{
	{"Deploy to PROD", "prod", true},
	{"Deploy to PROD", "deploy to", true},
	{"Deploy to PROD", "production", false},
	{"", "a", false},
	{"abc", "abcd", false},
	{"aaab", "aab", true},
	{"Ville d'ÉTÉ", "été", true},
	{"ÉTÉ", "ete", false},
	{"Temperature in \u212aelvin", "kelvin", true}, // the Kelvin sign lowers to k
	{"İstanbul", "istanbul", true},
	{"[brackets]", "[b", true},
	{"@_^`{", "`{", true},
}

func TestContainsFold(t *testing.T) {
	for _, tt := range containsFoldCases {
		if got := containsFold([]byte(tt.s), strings.ToLower(tt.text)); got != tt.want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", tt.s, tt.text, got, tt.want)
		}
	}
}

// FuzzContainsFold checks the search against its definition: the field in
// lower case contains the text in lower case.
func FuzzContainsFold(f *testing.F) {
	for _, tt := range containsFoldCases {
		f.Add(tt.s, tt.text)
	}
	f.Fuzz(func(t *testing.T, s, text string) {
		lower := strings.ToLower(text)
		if lower == "" {
			t.Skip() // an empty Text selects everything before any search
		}
		want := strings.Contains(strings.ToLower(s), lower)
		if got := containsFold([]byte(s), lower); got != want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", s, lower, got, want)
		}
	})
}

// TestServers: the servers named in the history, for "did you mean" and
// the history window's server filter; a server whose last record was
// deleted is gone.
func TestServers(t *testing.T) {
	s := openStore(t, nil)
	mustAdd(t, s, Record{Time: t0, Server: "jira", Action: "accept"})
	only := mustAdd(t, s, Record{Time: t0.Add(time.Minute), Server: "demo", Action: "cancel"})
	mustAdd(t, s, Record{Time: t0.Add(2 * time.Minute), Server: "github", Action: "accept"})
	mustAdd(t, s, Record{Time: t0.Add(3 * time.Minute), Action: "error"})
	got, err := s.Servers()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"demo", "github", "jira"}, got); diff != "" {
		t.Errorf("servers mismatch (-want +got):\n%s", diff)
	}
	if err := s.Delete(only.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Servers(); !cmp.Equal(got, []string{"github", "jira"}) {
		t.Errorf("after demo's only record went: %q", got)
	}
}

// TestListAllocatesLittle keeps the history window's pages as cheap as
// they are (issue 12: the first page and a server's page under 1 ms at a
// million records): a record without content costs one allocation for all
// its texts, its requestedSchema is shared with the page's other records
// of that schema, and the page does not grow by doubling.
func TestListAllocatesLittle(t *testing.T) {
	s := openStore(t, nil)
	const n = 200
	for i := range n {
		mustAdd(t, s, Record{Time: t0.Add(time.Duration(i) * time.Second), Server: []string{"github", "billing"}[i%2],
			ServerInfo: ServerInfo{Name: "github-mcp", Version: "1.4.2"}, Tool: "deploy", Mode: "form",
			Message: "Deploy the build to production?", RequestedSchema: []byte(benchSchemas[i%len(benchSchemas)]),
			Action: "decline", DecidedBy: "user", Key: fmt.Sprintf("k%d", i)})
	}
	for _, q := range []Query{{Limit: n}, {Server: "billing", Limit: n}} {
		var got []Record
		allocs := testing.AllocsPerRun(20, func() { got = mustList(t, s, q) })
		if len(got) == 0 || got[0].Message != "Deploy the build to production?" || len(got[0].RequestedSchema) == 0 {
			t.Fatalf("List(%+v) = %d records, first %+v", q, len(got), got)
		}
		// One a record, and what opening a page costs whatever its size
		// (the transaction, its buckets and cursors, each schema once).
		if limit := float64(len(got) + 64); allocs > limit {
			t.Errorf("List(%+v) allocates %.0f times for %d records, want at most %.0f", q, allocs, len(got), limit)
		}
	}
}

// TestListSchemasStayApart: the records of one page share the bytes of a
// requestedSchema they both hold (TestListAllocatesLittle), yet adding to
// one record's schema must not change another's, as two history windows
// building on the same page would do.
func TestListSchemasStayApart(t *testing.T) {
	s := openStore(t, nil)
	const schema = `{"type":"object","properties":{"env":{"type":"string"}}}`
	for i := range 2 {
		mustAdd(t, s, Record{Time: t0.Add(time.Duration(i) * time.Second), Server: "github", Mode: "form",
			Message: "Deploy?", RequestedSchema: []byte(schema), Action: "decline", DecidedBy: "user"})
	}
	page := mustList(t, s, Query{})
	// One byte each: what fits in the room a copy has past its end.
	first := append(page[0].RequestedSchema, '\n')
	second := append(page[1].RequestedSchema, ' ')
	if got, want := string(first), schema+"\n"; got != want {
		t.Errorf("record %d's schema with a newline = %q, want %q", page[0].ID, got, want)
	}
	if got, want := string(second), schema+" "; got != want {
		t.Errorf("record %d's schema with a space = %q, want %q", page[1].ID, got, want)
	}
	for _, r := range page {
		if string(r.RequestedSchema) != schema {
			t.Errorf("record %d's schema became %s, want %s", r.ID, r.RequestedSchema, schema)
		}
	}
}

// TestServerIndexNamingAnotherServer: a damaged index that lists another
// server's record under a server gives an error, not that record on the
// server's page as if the server had asked.
func TestServerIndexNamingAnotherServer(t *testing.T) {
	s := openStore(t, nil)
	mustAdd(t, s, Record{Time: t0, Server: "github", Mode: "form", Message: "Merge?", Action: "accept", DecidedBy: "user"})
	jira := mustAdd(t, s, Record{Time: t0.Add(time.Second), Server: "jira", Mode: "form", Message: "Close the ticket?", Action: "accept", DecidedBy: "user"})
	if err := s.update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketServers).Bucket([]byte("github")).Put(recordKey(uint64(jira.Time.UnixNano()), jira.ID), nil)
	}); err != nil {
		t.Fatal(err)
	}
	got, err := s.List(Query{Server: "github"})
	if !errors.Is(err, errDamaged) {
		t.Errorf("List(Server github) with jira's record in github's index = %v, %v; want an error that the file is damaged", ids(got), err)
	}
	for _, r := range got {
		if r.Server != "github" {
			t.Errorf("github's page shows record %d of server %q", r.ID, r.Server)
		}
	}
}
