package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
)

// The version 1 fixture: testdata/v1.db was written by the version 1 code
// of this package (40 records over 5 servers, one without a name; schemas
// with spacing, line breaks, escapes and "null"; times in UTC, CET, +02:00
// and written late; records 5, 17 and 40 deleted), and
// testdata/v1.golden.jsonl is what that code listed, one
// {"record": …, "schema": "<requestedSchema as listed>"} per line.
const (
	v1Fixture       = "testdata/v1.db"
	v1FixtureGolden = "testdata/v1.golden.jsonl"
)

// copyFile copies src to a new file under t.TempDir and returns its path.
func copyFile(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "history.db")
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

// readGolden returns the records of v1FixtureGolden, newest first.
func readGolden(t *testing.T) []Record {
	t.Helper()
	f, err := os.Open(v1FixtureGolden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Record Record `json:"record"`
			Schema string `json:"schema"`
		}
		if err := decodeJSON(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Schema != "" {
			line.Record.RequestedSchema = json.RawMessage(line.Schema)
		}
		out = append(out, line.Record)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// jsonLines returns rs as `elicitray history list --json` prints them.
func jsonLines(t *testing.T, rs []Record) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, r := range rs {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func TestOpenUpgradesVersion1Fixture(t *testing.T) {
	path := copyFile(t, v1Fixture)
	want := readGolden(t)
	if len(want) != 37 {
		t.Fatalf("golden file has %d records, want 37", len(want))
	}

	s, err := Open(path, &Options{Now: scriptedClock(t0.Add(24 * time.Hour))})
	if err != nil {
		t.Fatalf("Open of a version 1 file: %v", err)
	}
	defer s.Close()

	got := mustList(t, s, Query{Limit: 1000})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records after the upgrade mismatch (-want +got):\n%s", diff)
	}
	// The JSON users see is the same to the byte: times keep their zone,
	// schemas their text.
	if diff := cmp.Diff(jsonLines(t, want), jsonLines(t, got)); diff != "" {
		t.Errorf("--json output after the upgrade mismatch (-want +got):\n%s", diff)
	}
	for _, w := range want {
		g, err := s.Get(w.ID)
		if err != nil {
			t.Fatalf("Get(%d): %v", w.ID, err)
		}
		if diff := cmp.Diff(string(w.RequestedSchema), string(g.RequestedSchema)); diff != "" {
			t.Errorf("record %d: requestedSchema not kept byte for byte (-want +got):\n%s", w.ID, diff)
		}
	}

	// Counts, indexes and the ID sequence came through.
	if n, err := s.Count(); err != nil || n != 37 {
		t.Errorf("Count = %d, %v; want 37", n, err)
	}
	for _, server := range []string{"github", "jira", "deploy", "stripe"} {
		var wantIDs []uint64
		for _, r := range want {
			if r.Server == server {
				wantIDs = append(wantIDs, r.ID)
			}
		}
		if diff := cmp.Diff(wantIDs, ids(mustList(t, s, Query{Server: server, Limit: 1000}))); diff != "" {
			t.Errorf("List(server %s) mismatch (-want +got):\n%s", server, diff)
		}
		if n, err := s.CountQuery(Query{Server: server}); err != nil || n != len(wantIDs) {
			t.Errorf("CountQuery(server %s) = %d, %v; want %d", server, n, err, len(wantIDs))
		}
	}
	// Searches find in the upgraded records what a plain scan finds.
	assertSearchesAgree(t, s, searchTexts(want, 40, 4))
	if got := mustAdd(t, s, Record{Server: "github"}); got.ID != 41 {
		t.Errorf("first record after the upgrade has ID %d, want 41", got.ID)
	}
	assertVersion(t, s, schemaVersion)
	assertSchemasShared(t, s)
}

// assertVersion checks the schema version in the file of s.
func assertVersion(t *testing.T, s *Store, want int) {
	t.Helper()
	var version int
	var upgrading []byte
	if err := s.view(func(tx *bolt.Tx) error {
		var err error
		version, err = readVersion(tx)
		upgrading = tx.Bucket(bucketMeta).Get(keyUpgrading)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if version != want || upgrading != nil {
		t.Errorf("file has schema version %d (upgrade marker %q), want %d and no marker", version, upgrading, want)
	}
	// Every upgrade ends sealed: the chain holds.
	if want == schemaVersion {
		if v := mustVerify(t, s); len(v.Problems) > 0 {
			t.Errorf("the chain does not hold after the upgrade: %+v", v.Problems)
		}
	}
}

// assertSchemasShared checks that each distinct requestedSchema in s is
// stored once, counted once per record that carries it, and referred to by
// the records rather than kept in them.
func assertSchemasShared(t *testing.T, s *Store) {
	t.Helper()
	uses := map[string]int{}
	all := mustList(t, s, Query{Limit: 1 << 30})
	for _, r := range all {
		if len(r.RequestedSchema) > 0 {
			uses[string(r.RequestedSchema)]++
		}
	}
	stored := map[string]int{}
	if err := s.view(func(tx *bolt.Tx) error {
		refs := tx.Bucket(bucketSchemaRefs)
		if err := tx.Bucket(bucketSchemas).ForEach(func(k, v []byte) error {
			n := refs.Get(k)
			if len(n) != 8 {
				return fmt.Errorf("schema %x has no reference count", k)
			}
			stored[string(v)] = int(bytesToUint(n))
			return nil
		}); err != nil {
			return err
		}
		if nRefs, nSchemas := refs.Stats().KeyN, tx.Bucket(bucketSchemas).Stats().KeyN; nRefs != nSchemas {
			return fmt.Errorf("%d reference counts for %d schemas", nRefs, nSchemas)
		}
		return tx.Bucket(bucketRecords).ForEach(func(k, v []byte) error {
			var rr rawRecord
			if err := rr.parse(v); err != nil {
				return err
			}
			if rr.schemaKind == schemaInline {
				return fmt.Errorf("record %d keeps its schema inline", keyID(k))
			}
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(uses, stored); diff != "" {
		t.Errorf("stored schemas and their reference counts mismatch (-records +stored):\n%s", diff)
	}
}

func bytesToUint(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return n
}

// writeV1 writes rs to a new version 1 file at path, as version 1 of this
// package did: the same buckets and keys, and values that are the JSON of
// the record with RequestedSchema spliced in as sent.
func writeV1(t testing.TB, path string, rs []Record) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for start := 0; start == 0 || start < len(rs); start += 1000 {
		err := db.Update(func(tx *bolt.Tx) error {
			if start == 0 {
				for _, name := range [][]byte{bucketRecords, bucketIDs, bucketServers} {
					if _, err := tx.CreateBucketIfNotExists(name); err != nil {
						return err
					}
				}
				if err := writeVersion(tx, 1); err != nil {
					return err
				}
			}
			records := tx.Bucket(bucketRecords)
			for _, r := range rs[start:min(start+1000, len(rs))] {
				id, err := records.NextSequence()
				if err != nil {
					return err
				}
				r.ID = id
				k := recordKey(uint64(r.Time.UnixNano()), id)
				if err := records.Put(k, encodeV1(t, r)); err != nil {
					return err
				}
				if err := tx.Bucket(bucketIDs).Put(idKey(id), k); err != nil {
					return err
				}
				if r.Server != "" {
					index, err := tx.Bucket(bucketServers).CreateBucketIfNotExists([]byte(r.Server))
					if err != nil {
						return err
					}
					if err := index.Put(k, []byte{}); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// encodeV1 is version 1's record value.
func encodeV1(t testing.TB, r Record) []byte {
	schema := bytes.TrimSpace(r.RequestedSchema)
	r.RequestedSchema = nil
	v, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(schema) == 0 {
		return v
	}
	return append(append(append(v[:len(v)-1:len(v)-1], `,"requestedSchema":`...), schema...), '}')
}

// v1Records returns n records like a hub writes, over 7 servers and 3
// schemas of 0.2 to 2 kB, a second apart.
func v1Records(n int) []Record {
	schemas := []string{spacedSchema, benchSchemas[4], "", benchSchemas[1]}
	var rs []Record
	for i := range n {
		r := Record{
			Time:       t0.Add(time.Duration(i) * time.Second),
			Server:     fmt.Sprintf("server-%d", i%7),
			ServerInfo: ServerInfo{Name: "srv", Version: "1.0"},
			Tool:       "tool",
			Mode:       "form",
			Message:    fmt.Sprintf("Question %d <b>?</b>", i),
			Action:     []string{"accept", "decline", "cancel"}[i%3],
			DecidedBy:  "user",
			Elapsed:    time.Duration(i) * time.Millisecond,
		}
		if schema := schemas[i%len(schemas)]; schema != "" {
			r.RequestedSchema = json.RawMessage(schema)
		}
		if r.Action == "accept" {
			r.Content = map[string]any{"n": json.Number(strconv.Itoa(i))}
		}
		rs = append(rs, r)
	}
	return rs
}

func TestOpenUpgradesLargeVersion1File(t *testing.T) {
	// More records than one upgrade transaction takes.
	lower(t, &upgradeBatch, 100)
	n := 20*upgradeBatch + 23
	path := filepath.Join(t.TempDir(), "history.db")
	rs := v1Records(n)
	writeV1(t, path, rs)
	v1Size := fileSize(t, path)

	s, err := Open(path, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	got := mustList(t, s, Query{Limit: n + 1})
	if len(got) != n {
		t.Fatalf("List after the upgrade returned %d records, want %d", len(got), n)
	}
	for i, g := range got {
		want := rs[n-1-i]
		want.ID = uint64(n - i)
		if diff := cmp.Diff(want, g); diff != "" {
			t.Fatalf("record %d after the upgrade mismatch (-want +got):\n%s", want.ID, diff)
		}
	}
	for server, want := range map[string]int{"": n, "server-0": (n + 6) / 7, "server-6": n / 7} {
		if got, err := s.CountQuery(Query{Server: server}); err != nil || got != want {
			t.Errorf("CountQuery(server %q) = %d, %v; want %d", server, got, err, want)
		}
	}
	assertVersion(t, s, schemaVersion)
	assertSchemasShared(t, s)
	// The upgrade compacted the file: the schemas are stored once now.
	if size := fileSize(t, path); size >= v1Size/2 {
		t.Errorf("file has %d bytes after the upgrade, version 1 had %d: want less than half", size, v1Size)
	}
}

func TestOpenResumesInterruptedUpgrade(t *testing.T) {
	for _, tt := range []struct {
		name string
		// olderCode makes the file what a version 3 elicitray leaves: no
		// search blocks, so that Open builds them from records of both
		// versions.
		olderCode bool
	}{
		{"interrupted by this version", false},
		{"interrupted by version 3", true},
	} {
		t.Run(tt.name, func(t *testing.T) { testResumeUpgrade(t, tt.olderCode) })
	}
}

func testResumeUpgrade(t *testing.T, olderCode bool) {
	lower(t, &upgradeBatch, 100)
	lower(t, &blockRecords, 16)
	n := upgradeBatch + 10
	path := filepath.Join(t.TempDir(), "history.db")
	rs := v1Records(n)
	writeV1(t, path, rs)

	// An Open that stopped after the first step: the new version is
	// written, the first upgradeBatch records are rewritten, the rest are
	// not.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(prepareTx); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := upgradeV1Step(tx); return err }); err != nil {
		t.Fatal(err)
	}
	if olderCode {
		if err := db.Update(func(tx *bolt.Tx) error {
			if err := tx.DeleteBucket(bucketSearch); err != nil {
				return err
			}
			return writeVersion(tx, 3)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(path, nil)
	if err != nil {
		t.Fatalf("Open after an interrupted upgrade: %v", err)
	}
	defer s.Close()
	got := mustList(t, s, Query{Limit: n + 1})
	if len(got) != n {
		t.Fatalf("List returned %d records, want %d", len(got), n)
	}
	for i, g := range got {
		want := rs[n-1-i]
		want.ID = uint64(n - i)
		if diff := cmp.Diff(want, g); diff != "" {
			t.Fatalf("record %d mismatch (-want +got):\n%s", want.ID, diff)
		}
	}
	if c, err := s.Count(); err != nil || c != n {
		t.Errorf("Count = %d, %v; want %d: each record counted once", c, err, n)
	}
	assertVersion(t, s, schemaVersion)
	assertSchemasShared(t, s)
	// Records rewritten before and after the interruption are found alike.
	assertSearchesAgree(t, s, []string{"QUESTION 7", "question 103 <b>", "<B>?</b>", "server-3", "SRV", "tool", "no such words"})
}

// lower sets *v to n for the rest of the test: batch sizes, so that tests
// cross batch boundaries with few records.
func lower(t *testing.T, v *int, n int) {
	old := *v
	*v = n
	t.Cleanup(func() { *v = old })
}

// fileSize returns the size of the file at path in bytes.
func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}
