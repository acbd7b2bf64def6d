package history

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
)

// searchWords are the words of searchRecords' texts: ASCII in every case,
// and text whose lower case is not byte for byte the same length or the
// same letters (the Kelvin sign lowers to ASCII k, İ to two runes, final
// sigma, a ligature, a titlecase digraph), CJK and an emoji.
var searchWords = strings.Fields("Deploy PROD staging Pick a branch merge PR #12 Token for the org " +
	"Ville d'ÉTÉ Temperature in \u212aelvin kelvin İstanbul ISTANBUL ΣΊΣΥΦΟΣ σίσυφος STRASSE Straße " +
	"ǅemal ﬁle naïve CAFÉ café 東京 🎉 Ωmega über ÜBER approve the invoice")

// searchSecrets are words that only fields a search never reads hold: the
// content (where secrets go), the URL, the reason, serverInfo's title and
// version.
var searchSecrets = []string{"hunter2", "s3cr3t-token", "passphrase", "oauthstate", "titleword", "9.9.9-beta"}

// searchRecords returns n random records for comparing searches with a plain
// scan: messages of searchWords, servers and tools with non-ASCII names,
// searchSecrets in the fields a search ignores, times half a minute apart
// and one in ten earlier (so not in ID order), and a Key on every third
// record.
func searchRecords(n int, seed uint64) []Record {
	rng := rand.New(rand.NewPCG(seed, 99))
	servers := []string{"github", "jira", "deploy", "Deploy", "", "Ünïcode-srv", "İzmir"}
	infos := []string{"GitHub-MCP", "atlassian", "Kubectl", "ΣΎΣΤΗΜΑ", ""}
	tools := []string{"", "create_issue", "rollout", "Überweisen"}
	base := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	var rs []Record
	for i := range n {
		var msg []string
		for range 1 + rng.IntN(12) {
			msg = append(msg, searchWords[rng.IntN(len(searchWords))])
		}
		r := Record{
			Time:       base.Add(time.Duration(i*30+rng.IntN(40)) * time.Second),
			Server:     servers[rng.IntN(len(servers))],
			ServerInfo: ServerInfo{Name: infos[rng.IntN(len(infos))], Title: "titleword", Version: "9.9.9-beta"},
			Tool:       tools[rng.IntN(len(tools))],
			Mode:       "form",
			Message:    strings.Join(msg, " "),
			Action:     []string{"accept", "decline", "cancel", "error"}[rng.IntN(4)],
			DecidedBy:  []string{"user", "timeout", "error"}[rng.IntN(3)],
			Reason:     "passphrase expired",
		}
		if rng.IntN(4) == 0 {
			r.Mode, r.URL = "url", "https://auth.example.com/authorize?state=oauthstate"
		} else {
			r.RequestedSchema = []byte(`{"type":"object","properties":{"token":{"type":"string"}}}`)
		}
		if r.Action == "accept" {
			r.Content = map[string]any{"token": "s3cr3t-token", "password": "hunter2"}
		}
		if i%3 == 0 {
			r.Key = fmt.Sprintf("req-%d-%d", seed, i)
		}
		if rng.IntN(10) == 0 {
			// Written late, as a spooled record is: into an older block.
			r.Time = base.Add(time.Duration(rng.IntN(i*30+1)) * time.Second)
		}
		rs = append(rs, r)
	}
	return rs
}

// plainSearch returns the IDs of the records of all (newest first) whose
// message, server, tool or serverInfo name contains text in lower case:
// what a search read every record for before the search blocks.
func plainSearch(all []Record, text string) []uint64 {
	lower := strings.ToLower(text)
	var out []uint64
	for _, r := range all {
		for _, f := range []string{r.Message, r.Server, r.Tool, r.ServerInfo.Name} {
			if strings.Contains(strings.ToLower(f), lower) {
				out = append(out, r.ID)
				break
			}
		}
	}
	return out
}

// searchTexts returns n queries drawn from the searched fields of rs: byte
// ranges of any length, cut anywhere (also inside a rune), in lower, upper
// or the original case; then whole words, the secrets and text in no record.
func searchTexts(rs []Record, n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 3))
	var out []string
	for len(out) < n {
		r := rs[rng.IntN(len(rs))]
		f := []string{r.Message, r.Server, r.Tool, r.ServerInfo.Name}[rng.IntN(4)]
		if f == "" {
			continue
		}
		i := rng.IntN(len(f))
		j := min(len(f), i+1+rng.IntN(14))
		q := f[i:j]
		switch rng.IntN(3) {
		case 0:
			q = strings.ToUpper(q)
		case 1:
			q = strings.ToLower(q)
		}
		out = append(out, q)
	}
	out = append(out, searchWords...)
	out = append(out, searchSecrets...)
	return append(out, "no such words", "zzqx", "xq", "ß", "K", "sTrAsSe", "İ", "i̇stanbul", "ς")
}

// assertSearchesAgree checks that every search for a text in texts finds
// what a plain scan of all the records finds: List, CountQuery, a search
// within one server, and paging in both directions with a ScanLimit, which
// examines the records a few at a time.
func assertSearchesAgree(t *testing.T, s *Store, texts []string) {
	t.Helper()
	all := mustList(t, s, Query{Limit: 1 << 30})
	if len(all) == 0 {
		t.Fatal("the history is empty")
	}
	oldest := all[len(all)-1]
	for _, text := range texts {
		want := plainSearch(all, text)
		if got := ids(mustList(t, s, Query{Text: text, Limit: 1 << 30})); !slices.Equal(got, want) {
			t.Fatalf("List(Text %q) mismatch (-want +got):\n%s", text, cmp.Diff(want, got))
		}
		if n, err := s.CountQuery(Query{Text: text}); err != nil || n != len(want) {
			t.Fatalf("CountQuery(Text %q) = %d, %v; want %d", text, n, err, len(want))
		}
		var server []Record
		for _, r := range all {
			if r.Server == oldest.Server {
				server = append(server, r)
			}
		}
		if oldest.Server != "" {
			q := Query{Server: oldest.Server, Text: text, Limit: 1 << 30}
			if got, want := ids(mustList(t, s, q)), plainSearch(server, text); !slices.Equal(got, want) {
				t.Fatalf("List(%+v) mismatch (-want +got):\n%s", q, cmp.Diff(want, got))
			}
		}

		// A window of time: the search starts and ends inside blocks.
		newer, older := all[len(all)/5], all[len(all)*2/3]
		var window []Record
		for _, r := range all {
			if !r.Time.Before(older.Time) && r.Time.Before(newer.Time) {
				window = append(window, r)
			}
		}
		q := Query{Text: text, Since: older.Time, Until: newer.Time, Limit: 1 << 30}
		if got, want := ids(mustList(t, s, q)), plainSearch(window, text); !slices.Equal(got, want) {
			t.Fatalf("List(%+v) mismatch (-want +got):\n%s", q, cmp.Diff(want, got))
		}
		if n, err := s.CountQuery(q); err != nil || n != len(plainSearch(window, text)) {
			t.Fatalf("CountQuery(%+v) = %d, %v; want %d", q, n, err, len(plainSearch(window, text)))
		}

		// The same window walked oldest first: after a record, until a time.
		var after []Record
		for _, r := range window {
			if r.Time.After(older.Time) || r.Time.Equal(older.Time) && r.ID > older.ID {
				after = append(after, r)
			}
		}
		q = Query{Text: text, After: older.ID, Until: newer.Time, Limit: 1 << 30}
		if got, want := ids(mustList(t, s, q)), plainSearch(after, text); !slices.Equal(got, want) {
			t.Fatalf("List(%+v) mismatch (-want +got):\n%s", q, cmp.Diff(want, got))
		}

		for _, scanLimit := range []int{0, 11} {
			assertPagingAgrees(t, s, text, scanLimit, oldest.ID, want)
		}
	}
}

// assertPagingAgrees checks that paging down (Before) and up (After, from
// the oldest record) through a search for text, 5 records a page and
// examining at most scanLimit records a call, finds want, the IDs of the
// records of a plain scan.
func assertPagingAgrees(t *testing.T, s *Store, text string, scanLimit int, oldest uint64, want []uint64) {
	t.Helper()
	{
		var down []uint64
		for q := (Query{Text: text, Limit: 5, ScanLimit: scanLimit}); ; {
			p, err := s.ListPage(q)
			if err != nil {
				t.Fatal(err)
			}
			down = append(down, ids(p.Records)...)
			if p.Next == 0 {
				break
			}
			q.Before = p.Next
		}
		if !slices.Equal(down, want) {
			t.Fatalf("paging down through Text %q (ScanLimit %d) mismatch (-want +got):\n%s", text, scanLimit, cmp.Diff(want, down))
		}
		var up []uint64
		for q := (Query{Text: text, Limit: 5, ScanLimit: scanLimit, After: oldest}); ; {
			p, err := s.ListPage(q)
			if err != nil {
				t.Fatal(err)
			}
			up = append(ids(p.Records), up...)
			if p.Next == 0 {
				break
			}
			q.After = p.Next
		}
		if len(want) > 0 && want[len(want)-1] == oldest {
			up = append(up, oldest)
		}
		if !slices.Equal(up, want) {
			t.Fatalf("paging up through Text %q (ScanLimit %d) mismatch (-want +got):\n%s", text, scanLimit, cmp.Diff(want, up))
		}
	}
}

// recordsRead returns how many records a search for text reads rather than
// skips with its blocks' filters.
func recordsRead(t *testing.T, s *Store, text string) int {
	t.Helper()
	var n int
	if err := s.view(func(tx *bolt.Tx) error {
		res, err := scan(tx, Query{Text: text, Limit: 1 << 30}, false, span{})
		n = res.parsed
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSearchAgreesWithPlainScan(t *testing.T) {
	if testing.Short() {
		t.Skip("long: not in the short tier (-short)")
	}
	// Small blocks, so that a few hundred records make many, and small
	// batches, so that Prune takes several transactions.
	lower(t, &blockRecords, 8)
	lower(t, &pruneBatch, 50)
	s := openStore(t, nil)
	rs := searchRecords(1200, 1)
	rng := rand.New(rand.NewPCG(5, 6))
	// Added as the hub adds them, one at a time, and as a spool is taken
	// in, many at once; times are not in ID order, so records go into the
	// middle of blocks and before the first.
	for len(rs) > 0 {
		n := min(len(rs), 1+rng.IntN(40))
		if n < 5 {
			for _, r := range rs[:n] {
				mustAdd(t, s, r)
			}
		} else if _, err := s.AddAll(rs[:n]); err != nil {
			t.Fatal(err)
		}
		rs = rs[n:]
	}
	texts := searchTexts(mustList(t, s, Query{Limit: 1 << 30}), 60, 1)
	t.Run("added", func(t *testing.T) { assertSearchesAgree(t, s, texts) })

	// The wrapper's account of a decision replaces the hub's.
	for _, r := range searchRecords(1200, 1)[:300] {
		if r.Key != "" {
			r.Source, r.Action, r.Content, r.Reason = SourceWrapper, "cancel", nil, "hub gone"
			mustAdd(t, s, r)
		}
	}
	for range 150 {
		if err := s.Delete(uint64(1 + rng.IntN(1200))); err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
	}
	if _, err := s.Prune(PruneOptions{Keep: 800}); err != nil {
		t.Fatal(err)
	}
	t.Run("deleted and pruned", func(t *testing.T) { assertSearchesAgree(t, s, texts) })

	// Records after the deletes fill the blocks the deletes emptied.
	if _, err := s.AddAll(searchRecords(300, 2)); err != nil {
		t.Fatal(err)
	}
	t.Run("added after deletes", func(t *testing.T) { assertSearchesAgree(t, s, texts) })

	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	t.Run("compacted", func(t *testing.T) { assertSearchesAgree(t, s, texts) })

	if n := recordsRead(t, s, "no such words"); n > 0 {
		t.Errorf("a search for text in no record read %d records, want none: the blocks' filters should rule them all out", n)
	}
}

func TestSearchForgetsDeletedText(t *testing.T) {
	lower(t, &blockRecords, 8)
	s := openStore(t, nil)
	if _, err := s.AddAll(searchRecords(100, 3)); err != nil {
		t.Fatal(err)
	}
	r := mustAdd(t, s, Record{Server: "vault", Mode: "form", Message: "Unseal with quetzalcoatl?", Action: "decline", DecidedBy: "user"})
	if _, err := s.AddAll(searchRecords(20, 4)); err != nil {
		t.Fatal(err)
	}
	if got := ids(mustList(t, s, Query{Text: "QUETZAL"})); !slices.Equal(got, []uint64{r.ID}) {
		t.Fatalf("search for the word before Delete found %v, want [%d]", got, r.ID)
	}
	if err := s.Delete(r.ID); err != nil {
		t.Fatal(err)
	}
	if got := mustList(t, s, Query{Text: "QUETZAL"}); got != nil {
		t.Fatalf("search for the deleted record's word found %v", ids(got))
	}
	// Its block's filter was computed again without it: nothing in the file
	// still says the word was there.
	if n := recordsRead(t, s, "quetzalcoatl"); n > 0 {
		t.Errorf("a search for the deleted record's word read %d records, want none", n)
	}

	if err := s.Clear(); err != nil {
		t.Fatal(err)
	}
	r = mustAdd(t, s, Record{Server: "vault", Mode: "form", Message: "Seal with quetzalcoatl?", Action: "accept", DecidedBy: "user"})
	if got := ids(mustList(t, s, Query{Text: "Quetzalcoatl"})); !slices.Equal(got, []uint64{r.ID}) {
		t.Fatalf("search after Clear found %v, want [%d]", got, r.ID)
	}
}

// The fixtures of versions 3 and 4 were written by the code of their
// version: testdata/v3.db has 620 records (non-ASCII text, replays, the
// wrapper's accounts, deletes, a prune), testdata/v4.db 720 (the same,
// with zones, and modes, actions and deciders outside the usual words), and testdata/vN.golden.jsonl is what that code listed. Version 3
// had no search blocks; version 4 wrote the ids and requests buckets' values
// and the records' values that version 5 reads as they are.
func TestOpenUpgradesFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("long: not in the short tier (-short)")
	}
	for _, version := range []int{3, 4} {
		t.Run(fmt.Sprintf("version %d", version), func(t *testing.T) {
			path := copyFile(t, fmt.Sprintf("testdata/v%d.db", version))
			if info, err := Inspect(path, time.Second); err != nil || info.Version != version {
				t.Fatalf("Inspect(fixture) = %+v, %v; want version %d", info, err, version)
			}
			golden, err := os.ReadFile(fmt.Sprintf("testdata/v%d.golden.jsonl", version))
			if err != nil {
				t.Fatal(err)
			}
			s, err := Open(path, nil)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			assertVersion(t, s, schemaVersion)
			all := mustList(t, s, Query{Limit: 1 << 30})
			if diff := cmp.Diff(string(golden), jsonLines(t, all)); diff != "" {
				t.Fatalf("records after the upgrade mismatch (-version %d +now):\n%s", version, diff)
			}
			assertOldRecordsServed(t, s, all)
			texts := searchTexts(all, 80, 2)
			t.Run("upgraded", func(t *testing.T) { assertSearchesAgree(t, s, texts) })
			if n := recordsRead(t, s, "no such words"); n > 0 {
				t.Errorf("a search for text in no record read %d of the upgraded records, want none", n)
			}

			// The upgraded file takes records, replays and deletes like a
			// new one.
			if _, err := s.AddAll(searchRecords(200, 6)); err != nil {
				t.Fatal(err)
			}
			for _, r := range all[:60] {
				if err := s.Delete(r.ID); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Prune(PruneOptions{Keep: 500}); err != nil {
				t.Fatal(err)
			}
			t.Run("changed after the upgrade", func(t *testing.T) { assertSearchesAgree(t, s, texts) })
		})
	}
}

// assertOldRecordsServed checks that the records all of an upgraded file,
// newest first, are found as a new file's are: by ID, page by page in both
// directions, and by Record.Key, where a replay changes nothing and the
// wrapper's account replaces a hub record's decision.
func assertOldRecordsServed(t *testing.T, s *Store, all []Record) {
	t.Helper()
	for _, r := range all {
		got, err := s.Get(r.ID)
		if err != nil {
			t.Fatalf("Get(%d): %v", r.ID, err)
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Fatalf("Get(%d) mismatch (-listed +got):\n%s", r.ID, diff)
		}
	}
	var back, forward []Record
	for p := (Page{Next: 0}); ; {
		var err error
		if p, err = s.ListPage(Query{Limit: 70, Before: p.Next}); err != nil {
			t.Fatal(err)
		}
		back = append(back, p.Records...)
		if p.Next == 0 {
			break
		}
	}
	for after := all[len(all)-1].ID; ; {
		page := mustList(t, s, Query{Limit: 70, After: after})
		if page == nil {
			break
		}
		forward = append(page, forward...)
		after = page[0].ID
	}
	forward = append(forward, all[len(all)-1])
	if diff := cmp.Diff(ids(all), ids(back)); diff != "" {
		t.Errorf("paging toward the oldest mismatch (-all +pages):\n%s", diff)
	}
	if diff := cmp.Diff(ids(all), ids(forward)); diff != "" {
		t.Errorf("paging toward the newest mismatch (-all +pages):\n%s", diff)
	}

	var hub, wrapper Record
	for _, r := range all {
		switch {
		case r.Key == "":
		case r.Source == SourceWrapper && wrapper.ID == 0:
			wrapper = r
		case r.Source == SourceHub && hub.ID == 0:
			hub = r
		}
	}
	if hub.ID == 0 || wrapper.ID == 0 {
		t.Fatalf("the fixture lacks a hub record with a key (found %d) or a wrapper's account (found %d)", hub.ID, wrapper.ID)
	}
	replay := wrapper
	replay.ID, replay.Action, replay.Reason = 0, "accept", "a replay"
	if got := mustAdd(t, s, replay); !cmp.Equal(got, wrapper) {
		t.Errorf("a replay of record %d stored %+v, want it unchanged", wrapper.ID, got)
	}
	account := hub
	account.ID, account.Source, account.Action, account.DecidedBy, account.Reason, account.Content =
		0, SourceWrapper, "cancel", "error", "hub gone", nil
	want := account
	want.ID, want.Time = hub.ID, hub.Time
	if got := mustAdd(t, s, account); !cmp.Equal(got, want) {
		t.Errorf("the wrapper's account of record %d stored %+v, want %+v", hub.ID, got, want)
	}
	if n, err := s.Count(); err != nil || n != len(all) {
		t.Errorf("Count after a replay and an account = %d, %v; want %d", n, err, len(all))
	}
}

func TestSearchSurvivesDamagedBlocks(t *testing.T) {
	lower(t, &blockRecords, 8)
	s := openStore(t, &Options{Now: scriptedClock(t0)})
	for i := range 40 {
		mustAdd(t, s, Record{Time: t0.Add(time.Duration(i) * time.Minute), Server: "jira", Mode: "form",
			Message: fmt.Sprintf("Assign ticket %d to the sprint?", i), Action: "accept", DecidedBy: "user"})
	}
	// Every block's value cut short, as a damaged page might leave it.
	if err := s.update(func(tx *bolt.Tx) error {
		search := tx.Bucket(bucketSearch)
		var keys [][]byte
		c := search.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k))
		}
		for _, k := range keys {
			if err := search.Put(k, []byte{1}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	texts := []string{"TICKET 3", "ticket 39", "sprint", "jira", "no such words"}
	t.Run("damaged", func(t *testing.T) { assertSearchesAgree(t, s, texts) })

	// Adds and deletes go on, and compute the blocks they touch again.
	mustAdd(t, s, Record{Time: t0.Add(time.Hour), Server: "jira", Mode: "form", Message: "Close ticket 40?", Action: "decline", DecidedBy: "user"})
	mustAdd(t, s, Record{Time: t0.Add(90 * time.Second), Server: "jira", Mode: "form", Message: "Reopen ticket 1?", Action: "decline", DecidedBy: "user"})
	for _, id := range []uint64{5, 20, 33} {
		if err := s.Delete(id); err != nil {
			t.Fatalf("Delete(%d) with damaged search blocks: %v", id, err)
		}
	}
	texts = append(texts, "close", "reopen")
	t.Run("changed", func(t *testing.T) { assertSearchesAgree(t, s, texts) })
}

func TestSearchAfterTheClockWentBack(t *testing.T) {
	lower(t, &blockRecords, 8)
	s := openStore(t, nil)
	for i := range 40 {
		mustAdd(t, s, Record{Time: t0.Add(time.Duration(i) * time.Minute), Server: "jira", Mode: "form",
			Message: fmt.Sprintf("Assign ticket %d?", i), Action: "accept", DecidedBy: "user"})
	}
	// The clock goes back half an hour: the records from now on fall
	// between two records of one block.
	for i := range 100 {
		mustAdd(t, s, Record{Time: t0.Add(10*time.Minute + 30*time.Second + time.Duration(i)*time.Millisecond), Server: "jira",
			Mode: "form", Message: fmt.Sprintf("Close issue %d?", i), Action: "decline", DecidedBy: "user"})
	}
	assertSearchesAgree(t, s, []string{"ticket 3", "ISSUE 3", "issue 99", "close", "no such words"})
	// That block was split as it grew, so that a search rules its records
	// out a few at a time rather than reading them all for any query.
	if n := recordsRead(t, s, "issue 17?"); n > 2*blockRecords {
		t.Errorf("a search for one record read %d records, want at most %d: the records written after the clock went back share one block", n, 2*blockRecords)
	}
}

// TestSearchIgnoresUnseenCharacters: a search finds text whatever
// invisible characters it or the query hold that a person does not type:
// Persian writes a zero-width non-joiner inside everyday words, and a new
// user's search for میدهید found none of the records that said می‌دهید.
// Emoji sequences keep matching themselves.
func TestSearchIgnoresUnseenCharacters(t *testing.T) {
	t.Parallel()
	s := openStore(t, nil)
	persian := mustAdd(t, s, Record{Server: "فارسی", Mode: "form", Message: "آیا اجازه می\u200cدهید؟", Action: "accept", DecidedBy: "user"})
	hyphen := mustAdd(t, s, Record{Server: "docs", Mode: "form", Message: "Update the soft\u00adware manual?", Action: "decline", DecidedBy: "user"})
	family := mustAdd(t, s, Record{Server: "emoji", Mode: "form", Message: "Invite 👨\u200d👩\u200d👧 to the call?", Action: "cancel", DecidedBy: "user"})
	mustAdd(t, s, Record{Server: "other", Mode: "form", Message: "نام خانوادگی", Action: "cancel", DecidedBy: "user"})
	mustAdd(t, s, Record{Server: "ascii", Mode: "form", Message: "Plain text", Action: "cancel", DecidedBy: "user"})
	arabic := mustAdd(t, s, Record{Server: "عربي", Mode: "form", Message: "أين كتاب ٤؟", Action: "decline", DecidedBy: "user"})
	override := mustAdd(t, s, Record{Server: "tricky", Mode: "form", Message: "Pay \u202e001$\u202c now?", Action: "decline", DecidedBy: "user"})
	for _, tt := range []struct {
		text string
		want []uint64
	}{
		{"میدهید", []uint64{persian.ID}},
		{"می\u200cدهید", []uint64{persian.ID}},
		{"اجازه\u200f می", []uint64{persian.ID}},
		{"SOFTWARE", []uint64{hyphen.ID}},
		{"soft\u00adware", []uint64{hyphen.ID}},
		{"👨\u200d👩\u200d👧", []uint64{family.ID}},
		{"pay 001$", []uint64{override.ID}},
		// Arabic keyboards' yeh, kaf and digits find Persian text: the
		// Persian message has ی, and an Arabic one ك and ٤.
		{"آيا اجازه", []uint64{persian.ID}},
		{"كتاب ۴", []uint64{arabic.ID}},
		{"4", []uint64{arabic.ID}},
		// Nothing but such characters: the records that hold them as
		// written (the one hiding text behind an override is found).
		{"\u202e", []uint64{override.ID}},
		{"\u200c", []uint64{persian.ID}},
	} {
		got := ids(mustList(t, s, Query{Text: tt.text}))
		if !slices.Equal(got, tt.want) {
			t.Errorf("a search for %+q found %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestOpenRefoldsSearchOfVersion7: a file of version 7, whose search
// blocks were made from text folded by case alone, gets them made again
// as the match folds text now: here its filters are emptied, so that only
// blocks made again let a search find anything. It is backed up first, as
// every upgrade is.
func TestOpenRefoldsSearchOfVersion7(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := mustAdd(t, s, Record{Server: "فارسی", Mode: "form", Message: "آیا اجازه می\u200cدهید؟", Action: "accept", DecidedBy: "user"})
	s.Close()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		search := tx.Bucket(bucketSearch)
		blocks := map[string][]byte{}
		if err := search.ForEach(func(k, v []byte) error {
			blank := bytes.Clone(v)
			clear(blank[blockHeadLen:])
			blocks[string(k)] = blank
			return nil
		}); err != nil {
			return err
		}
		for k, v := range blocks {
			if err := search.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return writeVersion(tx, 7)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	assertVersion(t, s, schemaVersion)
	if got := ids(mustList(t, s, Query{Text: "میدهید"})); !slices.Equal(got, []uint64{r.ID}) {
		t.Errorf("after the upgrade a search found %v, want [%d]", got, r.ID)
	}
	if _, err := os.Stat(path + ".v7.bak"); err != nil {
		t.Errorf("no backup of the version 7 file: %v", err)
	}
}

// TestUpgradeCopiesOnce (a break-it session's finding): an upgrade that
// fails before it changed anything removes the copy it made of the older
// file (one that filled the disk left it full, and each later Open made
// another), and a copy made by an earlier attempt that holds the file
// byte for byte is not made again.
func TestUpgradeCopiesOnce(t *testing.T) {
	t.Parallel()
	version7 := func(t *testing.T, damage bool) string {
		t.Helper()
		path := filepath.Join(t.TempDir(), "history.db")
		s, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		mustAdd(t, s, Record{Server: "فارسی", Mode: "form", Message: "آیا اجازه می\u200cدهید؟", Action: "accept", DecidedBy: "user"})
		s.Close()
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Update(func(tx *bolt.Tx) error {
			if damage {
				if err := tx.DeleteBucket(bucketRecords); err != nil {
					return err
				}
			}
			return writeVersion(tx, 7)
		}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	baks := func(path string) []string {
		found, _ := filepath.Glob(path + ".v7*")
		return found
	}

	damaged := version7(t, true)
	for range 2 {
		if s, err := Open(damaged, nil); err == nil {
			s.Close()
			t.Fatal("a version 7 file without its records opened")
		}
	}
	if got := baks(damaged); len(got) != 0 {
		t.Errorf("failed upgrades left copies: %v", got)
	}

	path := version7(t, false)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// An earlier attempt, killed after its copy: the same bytes.
	if err := os.WriteFile(path+".v7.bak", before, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	assertVersion(t, s, schemaVersion)
	if got := baks(path); len(got) != 1 {
		t.Errorf("copies of the version 7 file: %v, want the one made before", got)
	}
}
