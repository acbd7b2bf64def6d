package history

// Benchmarks at 1,000,000 records (`make bench-history`). They share one
// history file, built once per run in a temporary directory the first time a
// benchmark needs it, so plain `go test` never builds it.
// ELICITRAY_BENCH_RECORDS sets another number of records.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// The benchmark history: benchN records from benchRecords, in benchPath.
var (
	benchOnce  sync.Once
	benchDir   string
	benchPath  string
	benchStore *Store
	benchN     int
	benchLoad  time.Duration // time taken to bulk-load the records
	benchErr   error
)

// Shares of the benchmark records that queries look for.
const (
	rareServer    = "billing"  // 1% of the records
	rareWord      = "zanzibar" // in 0.1% of the messages
	benchPageSize = 200
)

// benchHistory returns the benchmark history, building it on first use.
func benchHistory(b *testing.B) *Store {
	b.Helper()
	benchOnce.Do(func() {
		benchN = 1_000_000
		if n, err := strconv.Atoi(os.Getenv("ELICITRAY_BENCH_RECORDS")); err == nil && n > 0 {
			benchN = n
		}
		if benchDir, benchErr = os.MkdirTemp("", "elicitray-bench-"); benchErr != nil {
			return
		}
		benchPath = filepath.Join(benchDir, "history.db")
		if benchStore, benchErr = Open(benchPath, nil); benchErr != nil {
			return
		}
		start := time.Now()
		benchErr = bulkAdd(benchStore, benchRecords(benchN, 1))
		benchLoad = time.Since(start)
	})
	if benchErr != nil {
		b.Fatalf("building the benchmark history: %v", benchErr)
	}
	return benchStore
}

// bulkAdd adds rs like Add, 10,000 per transaction and without syncing each
// to disk: the benchmark's way to a large history in seconds.
func bulkAdd(s *Store, rs func(yield func(Record) bool)) error {
	s.db.NoSync = true
	defer func() { s.db.NoSync = false }()
	var batch []Record
	flush := func() error {
		err := s.update(func(tx *bolt.Tx) error {
			a := newAdder(tx, s.now)
			defer a.stop()
			for _, r := range batch {
				if _, err := a.add(r); err != nil {
					return err
				}
			}
			return a.flush()
		})
		batch = batch[:0]
		return err
	}
	for r := range rs {
		if batch = append(batch, r); len(batch) == 10000 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return s.db.Sync()
}

// benchSchemas are 5 requestedSchemas of 0.5 to 2 kB, as servers send them.
var benchSchemas = func() []string {
	var out []string
	for i, fields := range []int{3, 5, 8, 11, 14} {
		props := map[string]any{}
		var required []string
		for f := range fields {
			name := fmt.Sprintf("field_%d_%d", i, f)
			props[name] = map[string]any{
				"type":        []string{"string", "integer", "boolean", "number"}[f%4],
				"title":       fmt.Sprintf("Field %d of form %d", f, i),
				"description": "What the server wants to know for this step, in a sentence.",
			}
			if f%2 == 0 {
				required = append(required, name)
			}
		}
		b, _ := json.MarshalIndent(map[string]any{"type": "object", "properties": props, "required": required}, "", " ")
		out = append(out, string(b))
	}
	return out
}()

// benchRecords yields n realistic records over 20 servers (rareServer has
// 1% of them) and 30 tools, one to three seconds apart: messages of 50 to
// 300 characters, rareWord in 0.1% of them, 90% forms with one of
// benchSchemas, content for accepts.
func benchRecords(n int, seed uint64) func(yield func(Record) bool) {
	return func(yield func(Record) bool) {
		rng := rand.New(rand.NewPCG(seed, 42))
		words := strings.Fields("deploy the build to production confirm branch merge pull request " +
			"select environment staging review access token rotate database migration run " +
			"approve payment invoice customer refund ticket assign sprint release notes")
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range n {
			at = at.Add(time.Second + time.Duration(rng.IntN(2000))*time.Millisecond)
			server := fmt.Sprintf("server-%02d", rng.IntN(19))
			if i%100 == 0 {
				server = rareServer
			}
			var msg strings.Builder
			size := 50 + rng.IntN(251)
			if i%1000 == 500 {
				msg.WriteString("Pay the invoice from Zanzibar? ")
			}
			for msg.Len() < size {
				msg.WriteString(words[rng.IntN(len(words))])
				msg.WriteByte(' ')
			}
			r := Record{
				Time:       at,
				Server:     server,
				ServerInfo: ServerInfo{Name: server + "-mcp", Version: "1.4.2"},
				Tool:       fmt.Sprintf("tool_%02d", rng.IntN(30)),
				Mode:       "form",
				Message:    strings.TrimSpace(msg.String()[:size]),
				DecidedBy:  "user",
				Elapsed:    time.Duration(rng.IntN(30000)) * time.Millisecond,
			}
			if rng.IntN(10) == 0 {
				r.Mode, r.URL = "url", "https://auth.example.com/oauth/authorize?client_id=abc&state="+strconv.Itoa(i)
			} else {
				r.RequestedSchema = json.RawMessage(benchSchemas[rng.IntN(len(benchSchemas))])
			}
			switch p := rng.IntN(100); {
			case p < 50:
				r.Action = "accept"
				if r.Mode == "form" {
					r.Content = map[string]any{"env": "production", "count": float64(rng.IntN(10)), "confirm": true,
						"note": "as discussed in the ticket", "token": "[redacted]"}
				}
			case p < 70:
				r.Action = "decline"
			case p < 95:
				r.Action, r.DecidedBy = "cancel", "timeout"
				r.Reason = "no answer within 10m0s"
			default:
				r.Action, r.DecidedBy, r.Reason = "error", "error", "unrenderable schema"
			}
			if !yield(r) {
				return
			}
		}
	}
}

// timeRuns runs fn runs times per benchmark op and reports the median and
// the first run in milliseconds: the first is what opening the history
// window costs, the median what paging through it costs.
func timeRuns(b *testing.B, runs int, fn func() int) {
	var first, med float64
	var found int
	for range b.N {
		var ds []float64
		for range runs {
			start := time.Now()
			found = fn()
			ds = append(ds, float64(time.Since(start).Nanoseconds())/1e6)
		}
		first = ds[0]
		slices.Sort(ds)
		med = ds[len(ds)/2]
	}
	b.ReportMetric(med, "ms/query")
	b.ReportMetric(first, "ms/first")
	b.ReportMetric(float64(found), "records")
}

// BenchmarkFileSize reports the bulk load of the benchmark history and its
// size on disk: the whole file, and the pages bbolt has handed out of it
// (used-bytes), without the room it grows the file by ahead of need (16
// MiB), which moves bytes/record by up to 17 bytes at a million records as
// their number changes.
func BenchmarkFileSize(b *testing.B) {
	s := benchHistory(b)
	for range b.N {
	}
	n, err := s.Count()
	if err != nil {
		b.Fatal(err)
	}
	var used int64
	if err := s.view(func(tx *bolt.Tx) error {
		used = tx.Size()
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fileSize(b, benchPath))/float64(n), "bytes/record")
	b.ReportMetric(float64(used)/float64(n), "used-bytes/record")
	b.ReportMetric(float64(benchN)/benchLoad.Seconds(), "bulk-records/s")
	b.ReportMetric(float64(n), "records")
}

func BenchmarkFirstPage(b *testing.B) {
	s := benchHistory(b)
	timeRuns(b, 9, func() int { return len(mustListB(b, s, Query{Limit: benchPageSize})) })
}

func BenchmarkPageBackward(b *testing.B) {
	s := benchHistory(b)
	// The page 50 pages down, from where the previous one ended.
	page := mustListB(b, s, Query{Limit: 50 * benchPageSize})
	before := page[len(page)-1].ID
	timeRuns(b, 9, func() int { return len(mustListB(b, s, Query{Limit: benchPageSize, Before: before})) })
}

func BenchmarkPageForward(b *testing.B) {
	s := benchHistory(b)
	page := mustListB(b, s, Query{Limit: 50 * benchPageSize})
	after := page[len(page)-1].ID
	timeRuns(b, 9, func() int { return len(mustListB(b, s, Query{Limit: benchPageSize, After: after})) })
}

func BenchmarkServerFilter(b *testing.B) {
	s := benchHistory(b)
	timeRuns(b, 9, func() int { return len(mustListB(b, s, Query{Server: rareServer, Limit: benchPageSize})) })
}

func BenchmarkActionFilter(b *testing.B) {
	s := benchHistory(b)
	timeRuns(b, 9, func() int { return len(mustListB(b, s, Query{Action: "error", Limit: benchPageSize})) })
}

// BenchmarkTextSearch looks for a word in 0.1% of the messages: it reads
// records until it has a page of them, a fifth of the history.
func BenchmarkTextSearch(b *testing.B) {
	s := benchHistory(b)
	timeRuns(b, 3, func() int { return len(mustListB(b, s, Query{Text: "ZANZIBAR", Limit: benchPageSize})) })
}

// BenchmarkTextSearchNoMatch is the worst case: a word in no message, so
// the search reads every record.
func BenchmarkTextSearchNoMatch(b *testing.B) {
	s := benchHistory(b)
	timeRuns(b, 3, func() int { return len(mustListB(b, s, Query{Text: "no such words", Limit: benchPageSize})) })
}

// BenchmarkTextSearchNoMatchPhrase looks for seven words of the messages
// in an order no message has them: every block has all the trigrams of the
// words and of the spaces between them, so no filter rules one out and the
// search reads every record. It is what a search for common words costs.
func BenchmarkTextSearchNoMatchPhrase(b *testing.B) {
	s := benchHistory(b)
	timeRuns(b, 3, func() int {
		return len(mustListB(b, s, Query{Text: "deploy the staging build to production database", Limit: benchPageSize}))
	})
}

// BenchmarkTextSearchScanLimit is the worst case bounded as a window would
// bound it: 100,000 records per call, continuing from Page.Next.
func BenchmarkTextSearchScanLimit(b *testing.B) {
	s := benchHistory(b)
	timeRuns(b, 5, func() int {
		p, err := s.ListPage(Query{Text: "no such words", Limit: benchPageSize, ScanLimit: 100_000})
		if err != nil {
			b.Fatal(err)
		}
		return len(p.Records)
	})
}

func BenchmarkCountServer(b *testing.B) {
	s := benchHistory(b)
	timeRuns(b, 9, func() int {
		n, err := s.CountQuery(Query{Server: rareServer})
		if err != nil {
			b.Fatal(err)
		}
		return n
	})
}

func BenchmarkCountText(b *testing.B) {
	s := benchHistory(b)
	timeRuns(b, 3, func() int {
		n, err := s.CountQuery(Query{Text: rareWord})
		if err != nil {
			b.Fatal(err)
		}
		return n
	})
}

// BenchmarkAdd adds records one per call, as the hub does one per
// decision, each written to disk before Add returns.
func BenchmarkAdd(b *testing.B) {
	s := benchHistory(b)
	const adds = 500
	var rs []Record
	for r := range benchRecords(adds, 7) {
		r.Time = time.Time{}
		rs = append(rs, r)
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		for _, r := range rs {
			if _, err := s.Add(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*adds)/time.Since(start).Seconds(), "records/s")
}

// BenchmarkUpgradeSearch opens the history as a version 3 file, which has
// no search blocks: the one Open that builds them, once per file. It
// seals every record too, as BenchmarkUpgradeSeal measures alone.
func BenchmarkUpgradeSearch(b *testing.B) {
	s := benchHistory(b)
	for range b.N {
		if err := s.update(func(tx *bolt.Tx) error {
			if err := tx.DeleteBucket(bucketSearch); err != nil {
				return err
			}
			return writeVersion(tx, 3)
		}); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		var err error
		if benchStore, err = Open(benchPath, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/open")
		s = benchStore
	}
	b.ReportMetric(float64(fileSize(b, benchPath))/float64(benchN), "bytes/record")
}

// BenchmarkUpgradeSeal opens the history as a version 6 file, whose
// records have no seals: the one Open that copies the file aside, seals
// every record and compacts the file (doc.go, "Schema version").
func BenchmarkUpgradeSeal(b *testing.B) {
	s := benchHistory(b)
	for range b.N {
		if err := s.update(func(tx *bolt.Tx) error {
			if err := tx.DeleteBucket(bucketRemoved); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(bucketRemoved); err != nil {
				return err
			}
			if err := tx.Bucket(bucketMeta).Delete(keyHead); err != nil {
				return err
			}
			return writeVersion(tx, 6)
		}); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		os.Remove(benchPath + ".v6.bak")
		start := time.Now()
		var err error
		if benchStore, err = Open(benchPath, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/open")
		os.Remove(benchPath + ".v6.bak")
		s = benchStore
	}
	if v, err := s.Verify(); err != nil || len(v.Problems) > 0 {
		b.Fatalf("the chain after the upgrade: %v %+v", err, v.Problems)
	}
	b.ReportMetric(float64(fileSize(b, benchPath))/float64(benchN), "bytes/record")
}

// BenchmarkVerify checks the whole chain, as `history verify` does.
func BenchmarkVerify(b *testing.B) {
	s := benchHistory(b)
	for range b.N {
		start := time.Now()
		v, err := s.Verify()
		if err != nil || len(v.Problems) > 0 {
			b.Fatalf("Verify: %v %+v", err, v.Problems)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/verify")
	}
}

// BenchmarkPrune deletes the oldest 1% of the history, as a daily
// retention of a few months does. It runs after the read benchmarks, which
// it would change.
func BenchmarkPrune(b *testing.B) {
	s := benchHistory(b)
	for range b.N {
		n, err := s.Count()
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		deleted, err := s.Prune(PruneOptions{Keep: n - n/100})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(deleted), "deleted")
		b.ReportMetric(float64(deleted)/time.Since(start).Seconds(), "records/s")
	}
}

// BenchmarkCompact rewrites the whole history; every other call waits for
// it meanwhile.
func BenchmarkCompact(b *testing.B) {
	s := benchHistory(b)
	for range b.N {
		before := fileSize(b, benchPath)
		if err := s.Compact(); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(before-fileSize(b, benchPath))/(1<<20), "MiB-freed")
		b.ReportMetric(float64(fileSize(b, benchPath))/(1<<20), "MiB")
	}
}

// mustListB lists q or fails the benchmark.
func mustListB(b *testing.B, s *Store, q Query) []Record {
	b.Helper()
	rs, err := s.List(q)
	if err != nil {
		b.Fatalf("List(%+v): %v", q, err)
	}
	return rs
}
