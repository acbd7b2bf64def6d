package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
)

// chainTexts are messages in the scripts and marks a seal must carry byte
// for byte.
var chainTexts = []string{
	"Deploy build 1234 to production?",
	"部署到生产环境吗？请确认。",
	"هل تريد النشر إلى بيئة الإنتاج؟",
	"לפרוס לסביבת הייצור?",
	"Ship it 👩🏽‍💻🚀 now? 🇯🇵",
	"Cafe\u0301 and n\u0303, <b>&amp;</b>",
}

// addChainRecords adds n records of every kind a seal must hold: schemas,
// content with numbers of every shape, zones, a late time, keys.
func addChainRecords(t *testing.T, s *Store, n int) {
	t.Helper()
	cet := time.FixedZone("CET", 3600)
	for i := range n {
		r := Record{
			Time:    t0.Add(time.Duration(i) * time.Minute),
			Server:  []string{"github", "部署", ""}[i%3],
			Mode:    "form",
			Message: chainTexts[i%len(chainTexts)],
			Action:  "accept", DecidedBy: "user",
			Key: fmt.Sprintf("req-%d", i),
		}
		if i%2 == 0 {
			r.Time = r.Time.In(cet)
			r.RequestedSchema = json.RawMessage(spacedSchema)
			r.Content = map[string]any{"n": json.Number("10.50"), "big": json.Number("12345678901234567890"), "f": 1.0, "名前": "张伟"}
		}
		if i == 3 {
			r.Time = t0.Add(-time.Hour) // kept late
		}
		mustAdd(t, s, r)
	}
}

// mustVerify verifies s and fails the test on an error.
func mustVerify(t *testing.T, s *Store) Verification {
	t.Helper()
	v, err := s.Verify()
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return v
}

// assertHolds fails the test unless the chain of s holds, with records
// records and the checkpoints given as "first-last,first-last why".
func assertHolds(t *testing.T, s *Store, records int, checkpoints ...string) Verification {
	t.Helper()
	v := mustVerify(t, s)
	if len(v.Problems) > 0 {
		t.Fatalf("the chain does not hold: %+v", v.Problems)
	}
	var got []string
	for _, c := range v.Checkpoints {
		var spans []string
		for _, r := range c.Removed {
			spans = append(spans, fmt.Sprintf("%d-%d", r[0], r[1]))
		}
		got = append(got, strings.Join(spans, ",")+" "+c.Why)
	}
	if v.Records != records || !cmp.Equal(got, checkpoints, cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "|") == strings.Join(b, "|") })) {
		t.Fatalf("verified %d records with checkpoints %q, want %d and %q", v.Records, got, records, checkpoints)
	}
	return v
}

// TestChainHoldsThroughChanges: every way elicitray changes the history
// keeps the chain whole: adds, a delivery settled and a wrapper's account
// after newer records, deletes in the middle and at the end, a prune of
// records that are not in ID order, a clear, and adds after each.
func TestChainHoldsThroughChanges(t *testing.T) {
	lower(t, &pruneBatch, 3)
	s := openStore(t, nil)
	assertHolds(t, s, 0)
	mustAdd(t, s, Record{Time: t0, Server: "github", Mode: "form", Message: "pending", Action: "accept", DecidedBy: "user", Key: "pending", Delivery: DeliveryPending})
	addChainRecords(t, s, 12)
	assertHolds(t, s, 13)

	// The word on record 1's delivery, and the wrapper's account of
	// record 2, come after newer records: they are sealed again.
	mustAdd(t, s, Record{Key: "pending", Source: SourceDelivery, Delivery: "the wrapper ended before it passed the answer on to the server"})
	mustAdd(t, s, Record{Key: "req-0", Source: SourceWrapper, Action: "cancel", DecidedBy: "error", Reason: "the hub was gone"})
	v := assertHolds(t, s, 13)

	// The head is the newest seal, the hash of the newest line.
	var b bytes.Buffer
	if _, err := s.Export(&b, FormatJSONL, Query{}); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(b.String(), "\n"); !strings.HasSuffix(first, `"hash":"`+v.Head+`"}`) {
		t.Errorf("the newest line %s does not end with the head %s", first, v.Head)
	}

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Delete(6))
	must(s.Delete(5))  // joins 6's checkpoint
	must(s.Delete(13)) // the newest
	deleted := []string{"6-6 deleted", "5-5 deleted", "13-13 deleted"}
	assertHolds(t, s, 10, deleted...)
	mustAdd(t, s, Record{Time: t0.Add(time.Hour), Server: "x", Mode: "form", Message: "after", Action: "decline", DecidedBy: "user"})
	assertHolds(t, s, 11, deleted...)

	// The oldest by time: record 5 (ID of req-3, kept late), then 1, 2, 3…
	// in steps of 3 (pruneBatch).
	n, err := s.Prune(PruneOptions{Keep: 6})
	must(err)
	if n != 5 {
		t.Fatalf("pruned %d, want 5", n)
	}
	pruned := append(deleted, "1-3 pruned", "4-4,7-7 pruned")
	assertHolds(t, s, 6, pruned...)
	// A record sealed again now, after the checkpoints.
	mustAdd(t, s, Record{Key: "req-10", Source: SourceWrapper, Action: "cancel", DecidedBy: "error", Reason: "the hub was gone"})
	assertHolds(t, s, 6, pruned...)

	must(s.Clear())
	cleared := append(pruned, "8-12,14-14 cleared")
	assertHolds(t, s, 0, cleared...)
	mustAdd(t, s, Record{Time: t0, Server: "x", Mode: "form", Message: "new", Action: "accept", DecidedBy: "user"})
	assertHolds(t, s, 1, cleared...)
}

// closeStore closes s, failing the test on an error.
// chainFile opens a new history file under t.TempDir with n records of
// addChainRecords, and returns it and its path; the test closes it.
func chainFile(t *testing.T, n int) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	addChainRecords(t, s, n)
	return s, path
}

func closeStore(t *testing.T, s *Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyHexEdited: a record whose text was changed in the file by hand,
// byte by byte as a hex editor does, is named; the others still hold.
func TestVerifyHexEdited(t *testing.T) {
	s, path := chainFile(t, 8)
	r := mustAdd(t, s, Record{Time: t0.Add(time.Hour), Server: "github", Mode: "form", Message: "Deploy to staging?", Action: "decline", DecidedBy: "user"})
	for i := range 3 {
		mustAdd(t, s, Record{Time: t0.Add(2 * time.Hour), Server: "github", Mode: "form", Message: chainTexts[i], Action: "accept", DecidedBy: "user"})
	}
	closeStore(t, s)

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Every copy of the text in the file: bbolt may leave old pages.
	if !bytes.Contains(b, []byte("Deploy to staging?")) {
		t.Fatal("the message is not in the file as it was sent")
	}
	b = bytes.ReplaceAll(b, []byte("Deploy to staging?"), []byte("Deploy to prod!!!?"))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}

	s, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v := mustVerify(t, s)
	want := fmt.Sprintf("record %d does not match its seal: it was changed outside elicitray after it was kept", r.ID)
	if len(v.Problems) != 1 || v.Problems[0].ID != r.ID || v.Problems[0].Text != want {
		t.Fatalf("problems %+v, want one: %q", v.Problems, want)
	}
	if v.Records != 12 {
		t.Errorf("checked %d records, want 12", v.Records)
	}
}

// TestVerifyDeletedOutside: a record taken out of the file with another
// program (bbolt itself, every trace of it) is named as missing, in the
// middle and at the end; so is a checkpoint changed to hide one.
func TestVerifyDeletedOutside(t *testing.T) {
	for _, tt := range []struct {
		name string
		cut  func(tx *bolt.Tx) error
		want string
	}{
		{"in the middle", func(tx *bolt.Tx) error { return cutRecord(tx, 4) },
			"record 4 is missing, and no checkpoint says it was removed: it was deleted outside elicitray"},
		{"two at the end", func(tx *bolt.Tx) error {
			if err := cutRecord(tx, 9); err != nil {
				return err
			}
			return cutRecord(tx, 10)
		}, "records 9 to 10 are missing, and no checkpoint says they were removed: they were deleted outside elicitray"},
		{"behind seals of its own making", func(tx *bolt.Tx) error {
			if err := cutRecord(tx, 4); err != nil {
				return err
			}
			return tx.Bucket(bucketRemoved).Put(idKey(5), gap{first: 4}.encode())
		}, "the seals over records 4 to 4, removed, do not follow the seal before them: the chain was changed outside elicitray"},
		{"behind the right seals, copied, with no checkpoint", func(tx *bolt.Tx) error {
			prev, _ := sealAt(tx, 3)
			hash, _ := sealAt(tx, 4)
			if err := cutRecord(tx, 4); err != nil {
				return err
			}
			return tx.Bucket(bucketRemoved).Put(idKey(5), gap{first: 4, prev: prev, hash: hash}.encode())
		}, "records 4 to 4 were removed, and no sealed checkpoint says so: they were deleted outside elicitray"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, path := chainFile(t, 10)
			closeStore(t, s)
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(tt.cut); err != nil {
				t.Fatal(err)
			}
			db.Close()
			s, err = Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			v := mustVerify(t, s)
			if len(v.Problems) == 0 || v.Problems[0].Text != tt.want {
				t.Fatalf("problems %+v, want first: %q", v.Problems, tt.want)
			}
			// Elicitray goes on keeping decisions after it.
			mustAdd(t, s, Record{Time: t0, Server: "x", Mode: "form", Message: "still kept", Action: "accept", DecidedBy: "user"})
		})
	}
}

// cutRecord deletes record id from the records and ids buckets, as someone
// editing the file with bbolt's own tools would.
func cutRecord(tx *bolt.Tx, id uint64) error {
	k, err := keyOfID(tx, id)
	if err != nil || k == nil {
		return fmt.Errorf("record %d: %v", id, err)
	}
	if err := tx.Bucket(bucketRecords).Delete(k); err != nil {
		return err
	}
	return tx.Bucket(bucketIDs).Delete(idKey(id))
}

// checkExportScript returns the path of docs/history.md's script that
// checks an export, written to a file as a user would save it.
func checkExportScript(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../docs/history.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sh\n(#!/bin/sh\n# check-export.sh.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/history.md has no check-export.sh")
	}
	path := filepath.Join(t.TempDir(), "check-export.sh")
	if err := os.WriteFile(path, m[1], 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExportRecipe: the recipe of docs/history.md, run by hand with sh,
// sed, sha256sum and awk, passes a whole export with checkpoints, giving
// the head that Verify gives, and names what is wrong in an export with a
// decision edited, one taken out and two swapped.
func TestExportRecipe(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("the recipe is a POSIX shell script, and this system has no sh")
	}
	script := checkExportScript(t)
	s := openStore(t, nil)
	addChainRecords(t, s, 14)
	for _, id := range []uint64{1, 2, 9} {
		if err := s.Delete(id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Prune(PruneOptions{Keep: 9}); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, Record{Key: "req-12", Source: SourceWrapper, Action: "cancel", DecidedBy: "error", Reason: "the hub was gone"})
	if err := s.Delete(14); err != nil {
		t.Fatal(err)
	}
	v := mustVerify(t, s)
	if len(v.Problems) > 0 || len(v.Checkpoints) < 2 {
		t.Fatalf("verify: %+v", v)
	}
	var b bytes.Buffer
	if _, err := s.Export(&b, FormatJSONL, Query{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(b.String(), "\n"), "\n")
	run := func(name, export string) string {
		t.Helper()
		f := filepath.Join(t.TempDir(), name+".jsonl")
		if err := os.WriteFile(f, []byte(export), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("sh", script, f).CombinedOutput()
		if strings.HasPrefix(name, "whole") != (err == nil) {
			t.Errorf("%s: the recipe exited %v:\n%s", name, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	want := fmt.Sprintf("the chain holds: %d lines, head %s, checkpoints head %s", len(lines), v.Head, v.CheckpointsHead)
	if got := run("whole", b.String()); got != want {
		t.Errorf("the recipe said %q, want %q", got, want)
	}
	// Newest first or in any order: the recipe sorts by ID.
	var sc []string
	for sc2 := bufio.NewScanner(strings.NewReader(b.String())); sc2.Scan(); {
		sc = append([]string{sc2.Text() + "\n"}, sc...)
	}
	if got := run("whole reversed", strings.Join(sc, "")); got != want {
		t.Errorf("reversed, the recipe said %q, want %q", got, want)
	}

	edited := strings.Replace(b.String(), "部署到生产环境吗", "部署到测试环境吗", 1)
	if got := run("edited", edited); !regexp.MustCompile(`^line \d+: it does not match its hash$`).MatchString(got) {
		t.Errorf("edited: the recipe said %q", got)
	}
	cut := strings.Join(append(append([]string{}, lines[:2]...), lines[3:]...), "")
	if got := run("cut", cut); !strings.Contains(got, "does not follow the one before it") && !strings.Contains(got, "no line for decision") {
		t.Errorf("a line taken out: the recipe said %q", got)
	}
	// The last line is the newest checkpoint: deleted (14) said pruned.
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"why":"deleted"`) {
		t.Fatalf("the last line is not the deletion's checkpoint: %s", last)
	}
	lied := strings.Join(append(append([]string{}, lines[:len(lines)-1]...), strings.Replace(last, `"why":"deleted"`, `"why":"pruned"`, 1)), "")
	if got := run("checkpoint changed", lied); !regexp.MustCompile(`^line \d+: it does not match its hash$`).MatchString(got) {
		t.Errorf("a checkpoint changed: the recipe said %q", got)
	}
	// Seals over a removed decision, with no checkpoint that says so.
	unsaid := strings.Join(lines[:len(lines)-1], "")
	if got := run("checkpoint taken out", unsaid); got != "decision 14 was removed, and no checkpoint says so" {
		t.Errorf("a checkpoint taken out: the recipe said %q", got)
	}
}

// The version 6 fixture: testdata/v6.db was written by the release before
// sealed records (commit c0cb353) with testdata/v6fixture.txt, a test file
// for the history package of that commit: 40 records over 4 servers in
// five scripts, schemas and content, deliveries pending and settled, a
// wrapper's account, a record kept late; records 8, 9 and 40 deleted and 1,
// 2 and 31 pruned. testdata/v6.golden.jsonl is what that release listed.
const (
	v6Fixture       = "testdata/v6.db"
	v6FixtureGolden = "testdata/v6.golden.jsonl"
)

// TestOpenSealsVersion6Fixture: a file of the release before is upgraded
// once, in place: a copy of it as it was is kept beside it, every record
// reads as before, the chain holds with a checkpoint for each run of
// records removed before, and a second Open changes nothing.
func TestOpenSealsVersion6Fixture(t *testing.T) {
	path := copyFile(t, v6Fixture)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertVersion(t, s, schemaVersion)
	bak, err := os.ReadFile(path + ".v6.bak")
	if err != nil || !bytes.Equal(bak, orig) {
		t.Fatalf("the backup is not the file as it was (%v)", err)
	}
	// Private as the history is (Windows has no such modes).
	if info, err := os.Stat(path + ".v6.bak"); err != nil || runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("the backup's mode: %v %v", info, err)
	}
	golden, err := os.ReadFile(v6FixtureGolden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(golden), jsonLines(t, mustList(t, s, Query{Limit: 100}))); diff != "" {
		t.Errorf("records changed in the upgrade (-before +after):\n%s", diff)
	}
	v := assertHolds(t, s, 34, "1-2,8-9,31-31,40-40 "+whyBefore)
	closeStore(t, s)

	s, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if again := assertHolds(t, s, 34, "1-2,8-9,31-31,40-40 "+whyBefore); again.Head != v.Head || again.CheckpointsHead != v.CheckpointsHead {
		t.Errorf("the head moved from %s to %s on a second Open", v.Head, again.Head)
	}
	if entries, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.bak*")); len(entries) != 1 {
		t.Errorf("files beside the history: %v, want the one backup", entries)
	}
}

// TestSealingResumes: an upgrade cut short after its first batch (the
// marker left, as after a kill) finishes at the next Open, and the chain
// holds as if it had run at once.
func TestSealingResumes(t *testing.T) {
	lower(t, &upgradeBatch, 5)
	path := copyFile(t, v6Fixture)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(prepareTx); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := sealStep(tx, time.Now()); return err }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	assertHolds(t, s, 34, "1-2,8-9,31-31,40-40 "+whyBefore)
}

// TestVerifyDamagedPages: a bit flipped in the header of any page of the
// file (its type, its count of elements) makes Verify report a damaged
// file or problems, never end the process: with a hub, verify runs in it.
func TestVerifyDamagedPages(t *testing.T) {
	src := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rs []Record
	for i := range 1500 {
		rs = append(rs, Record{Time: t0.Add(time.Duration(i) * time.Second), Server: []string{"github", "部署"}[i%2], Mode: "form",
			Message: chainTexts[i%len(chainTexts)], Action: "accept", DecidedBy: "user", RequestedSchema: json.RawMessage(spacedSchema)})
	}
	if _, err := s.AddAll(rs); err != nil {
		t.Fatal(err)
	}
	closeStore(t, s)
	clean, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: bbolt keeps a file mapped when it faults opening it,
	// and Windows removes no mapped file until the process ends.
	dir, err := os.MkdirTemp("", "elicitray-damaged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	opened, damaged := 0, 0
	for page := 2; page*4096 < len(clean); page++ { // past the two meta pages
		for _, at := range []int{8, 10} { // the page's flags, its count
			b := bytes.Clone(clean)
			b[page*4096+at] ^= 0x20
			path := filepath.Join(dir, fmt.Sprintf("%d-%d.db", page, at))
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(path, &Options{Timeout: -1})
			if err != nil {
				continue // refused at Open: ErrCorrupt, the old way
			}
			opened++
			if v, err := s.Verify(); err != nil || len(v.Problems) > 0 {
				damaged++
			}
			s.Close()
		}
	}
	if opened == 0 || damaged == 0 {
		t.Fatalf("of the damaged files, %d opened and %d were found damaged by Verify", opened, damaged)
	}
	t.Logf("%d damaged files opened, Verify found %d of them damaged", opened, damaged)
}

// TestResealKeepsBreaks: elicitray sealing a record again (a delivery
// settled) never seals text changed by others: a record after it that was
// edited stays named, and so does the changed record itself when it was
// the one edited.
func TestResealKeepsBreaks(t *testing.T) {
	for _, tt := range []struct {
		name           string
		edited, settle uint64
	}{
		{"an edited record after the settled one", 8, 5},
		{"the settled record edited", 5, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "history.db")
			s, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 10 {
				mustAdd(t, s, Record{Time: t0.Add(time.Duration(i) * time.Minute), Server: "bank", Mode: "form", Message: fmt.Sprintf("Pay 100 EUR to alice #%d?", i+1),
					Action: "accept", DecidedBy: "user", Key: fmt.Sprintf("k%d", i+1), Delivery: DeliveryPending})
			}
			closeStore(t, s)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			msg := fmt.Sprintf("Pay 100 EUR to alice #%d?", tt.edited)
			b = bytes.ReplaceAll(b, []byte(msg), []byte(strings.Replace(msg, "100", "900", 1)))
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			if s, err = Open(path, nil); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			mustAdd(t, s, Record{Key: fmt.Sprintf("k%d", tt.settle), Source: SourceDelivery})
			mustAdd(t, s, Record{Time: t0.Add(time.Hour), Server: "bank", Mode: "form", Message: "after", Action: "accept", DecidedBy: "user"})
			v := mustVerify(t, s)
			want := fmt.Sprintf("record %d does not match its seal: it was changed outside elicitray after it was kept", tt.edited)
			if len(v.Problems) == 0 || v.Problems[0].Text != want {
				t.Fatalf("problems %+v, want first %q", v.Problems, want)
			}
		})
	}
}

// TestSealingAroundDamage: a file of the release before with one record's
// value gone and another's garbage still opens, sealed around them: the
// other records read and hold, and Verify names the two. A link planted
// where the backup goes is left alone; the backup takes the next name.
func TestSealingAroundDamage(t *testing.T) {
	path := copyFile(t, v6Fixture)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		records := tx.Bucket(bucketRecords)
		k20, _ := keyOfID(tx, 20)
		k21, _ := keyOfID(tx, 21)
		if err := records.Delete(k20); err != nil {
			return err
		}
		return records.Put(k21, []byte{valueV4, 0xff, 0xff, 0xff})
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	plant := func() error { return os.Symlink(elsewhere, path+".v6.bak") }
	if runtime.GOOS == "windows" {
		plant = func() error { return os.Mkdir(path+".v6.bak", 0o700) } // links need privileges there
	}
	if err := plant(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	v := mustVerify(t, s)
	var named []uint64
	for _, p := range v.Problems {
		named = append(named, p.ID)
	}
	if !slices.Equal(named, []uint64{20, 21}) || !strings.Contains(v.Problems[0].Text, "cannot be read") {
		t.Errorf("problems %+v, want records 20 and 21 named unreadable", v.Problems)
	}
	if r, err := s.Get(22); err != nil || r.ID != 22 {
		t.Errorf("record 22: %v", err)
	}
	if _, err := os.Lstat(elsewhere); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the planted link's target was written: %v", err)
	}
	if info, err := os.Stat(path + ".v6.1.bak"); err != nil || !info.Mode().IsRegular() {
		t.Errorf("the backup beside the planted link: %v", err)
	}
}

// TestVerifyCheckpointChanged: a checkpoint's why changed in the file with
// a hex editor is named, and so is one taken out with bbolt, whose
// records are then removed with no checkpoint that says so.
func TestVerifyCheckpointChanged(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(t *testing.T, path string)
		want []string
	}{
		{"why changed by hand", func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte(`"why":"deleted"`), []byte(`"why":"cleared"`)), 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"checkpoint 1 does not match its seal: it was changed outside elicitray", "checkpoint 2 does not match its seal: it was changed outside elicitray"}},
		{"one taken out", func(t *testing.T, path string) {
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketCheckpoints).Delete(idKey(1)) }); err != nil {
				t.Fatal(err)
			}
		}, []string{"checkpoint 1 is missing: it was taken out outside elicitray",
			"checkpoint 2 does not follow the one before it: one was changed or taken out outside elicitray",
			"records 4 to 4 were removed, and no sealed checkpoint says so: they were deleted outside elicitray"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, path := chainFile(t, 10)
			for _, id := range []uint64{4, 7} {
				if err := s.Delete(id); err != nil {
					t.Fatal(err)
				}
			}
			closeStore(t, s)
			tt.edit(t, path)
			s, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var got []string
			for _, p := range mustVerify(t, s).Problems {
				got = append(got, p.Text)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

// TestSealedFormIsMarshal: the seal covers a record's line as
// json.Marshal writes it, and sealedForm, which writes its schema apart,
// writes the same bytes: for schemas with spaces, HTML characters, line
// separators and every script, content that names "requestedSchema", a
// message that quotes the stand-in, a schema seen before (the cache) and
// one too big to keep.
func TestSealedFormIsMarshal(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"env":{"type":"string","enum":["prod","staging"]}}}`,
		"{ \"type\" : \"object\",\n\t\"description\": \"<b>a & b</b> \u2028 \u2029\" }",
		`{"type":"object","title":"` + strings.Join(chainTexts, " ") + `"}`,
		`{"type":"object","properties":{"requestedSchema":{"type":"number","default":0}}}`,
		`{"type":"object"}`,
		// Past the size the cache keeps: worked out each time.
		`{"type":"object","description":"` + strings.Repeat("<a & b> ", 20_000) + `"}`,
	}
	prev := sealOf([]byte("the record before"))
	for i, schema := range append(schemas, schemas[1], schemas[0]) {
		r := Record{ID: uint64(i + 1), Time: time.Date(2026, 12, 6, 23, 0, i, 0, time.UTC), Server: "zh-服务",
			ServerInfo: ServerInfo{Name: `"requestedSchema":0`, Version: "1"}, Mode: "form",
			Message: chainTexts[i%len(chainTexts)] + ` "requestedSchema":0`, RequestedSchema: json.RawMessage(schema),
			Action: "accept", Content: map[string]any{"requestedSchema": json.Number("0"), "note": "<&>"}, DecidedBy: "user"}
		got, err := sealedForm(r, prev)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(line{Record: r, Prev: prev.String()})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("schema %d: sealedForm wrote\n%s\nwant (json.Marshal)\n%s", i, got, want)
		}
	}
	// A record without a schema, and one whose schema is not JSON.
	r := Record{ID: 9, Mode: "url", URL: "https://example.com/a?b=<c>", Action: "decline", DecidedBy: "user"}
	if got, _ := sealedForm(r, prev); !bytes.Equal(got, must(json.Marshal(line{Record: r, Prev: prev.String()}))) {
		t.Errorf("a URL-mode record's form changed: %s", got)
	}
	r.RequestedSchema = json.RawMessage(`{"type":`)
	if _, err := sealedForm(r, prev); err == nil {
		t.Error("a schema that is not JSON was sealed")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestAddAllSealsAsAddDoes: AddAll hashes records' lines on other
// goroutines while it encodes the next ones. A batch of 700 records (past
// the 256 it encodes ahead) in every script, with schemas, replays of a
// record pending in the batch, a wrapper's account of a record already
// stored and of one pending, and deliveries settled, is stored and sealed
// byte for byte as the same records added one by one with Add; and the
// chain holds.
func TestAddAllSealsAsAddDoes(t *testing.T) {
	var recs []Record
	for i := range 700 {
		r := Record{Time: t0.Add(time.Duration(i) * time.Second), Server: fmt.Sprintf("srv-%d", i%3), Mode: "form",
			Message: chainTexts[i%len(chainTexts)], Action: "accept", DecidedBy: "user", Key: fmt.Sprintf("k%d", i),
			RequestedSchema: json.RawMessage(benchSchemas[i%len(benchSchemas)]), Content: map[string]any{"n": json.Number(fmt.Sprint(i))}}
		if i%7 == 0 {
			r.Delivery = DeliveryPending
		}
		recs = append(recs, r)
		switch {
		case i%50 == 10: // a replay of a record pending in the batch
			recs = append(recs, recs[len(recs)-3])
		case i%50 == 20: // the wrapper's account of a pending one
			w := recs[len(recs)-2]
			w.Source, w.Action, w.DecidedBy, w.Content = SourceWrapper, "cancel", "error", nil
			recs = append(recs, w)
		case i%50 == 30: // a pending delivery settled
			recs = append(recs, Record{Key: fmt.Sprintf("k%d", i-2), Source: SourceDelivery, Delivery: "the wrapper ended before writing it"})
		}
	}
	one, all := openStore(t, nil), openStore(t, nil)
	// Half the records stored first, so that the batch also amends
	// records it did not add.
	for _, r := range recs[:300] {
		mustAdd(t, one, r)
		mustAdd(t, all, r)
	}
	for _, r := range recs[300:] {
		mustAdd(t, one, r)
	}
	if _, err := all.AddAll(append(slices.Clone(recs[:40]), recs[300:]...)); err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if _, err := one.Export(&a, FormatJSONL, Query{}); err != nil {
		t.Fatal(err)
	}
	if _, err := all.Export(&b, FormatJSONL, Query{}); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("AddAll stored or sealed otherwise than Add:\n%s", cmp.Diff(a.String(), b.String()))
	}
	if n := strings.Count(a.String(), "\n"); n != 700 {
		t.Errorf("the export has %d lines, want 700", n)
	}
	v, err := all.Verify()
	if err != nil || len(v.Problems) > 0 {
		t.Errorf("Verify after AddAll = %v, %+v", err, v.Problems)
	}
}
