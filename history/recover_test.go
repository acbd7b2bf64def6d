package history

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A Now for OpenOrRecover's file names: 2026-11-30 07:01:02 local time.
var recoverNow = time.Date(2026, 11, 30, 7, 1, 2, 0, time.Local)

// damagedFiles returns ways a history file can be unreadable, each a
// function that damages the file at path.
func damagedFiles() []struct {
	name   string
	damage func(t *testing.T, path string)
} {
	write := func(b []byte) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	// history writes a real history of n records at path.
	history := func(t *testing.T, path string, n int) {
		s, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := bulkAdd(s, benchRecords(n, 1)); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	garbage := make([]byte, 64<<10)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	return []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"not a bbolt file", write(garbage)},
		{"a few bytes of text", write([]byte("hello, history\n"))},
		{"one page of zeros", write(make([]byte, 4096))},
		{"cut short", func(t *testing.T, path string) {
			history(t, path, 5000)
			if err := os.Truncate(path, fileSize(t, path)/2); err != nil {
				t.Fatal(err)
			}
		}},
		{"cut inside the meta pages", func(t *testing.T, path string) {
			history(t, path, 10)
			if err := os.Truncate(path, 5000); err != nil {
				t.Fatal(err)
			}
		}},
		{"both meta pages fail their checksum", func(t *testing.T, path string) {
			history(t, path, 10)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The meta pages are the first two pages: change a byte of each
			// (the page count, past the page header and the root bucket),
			// so that neither matches its checksum.
			for _, page := range []int{0, 4096} {
				b[page+16+40] ^= 0xff
			}
			write(b)(t, path)
		}},
		{"a bbolt file of something else", func(t *testing.T, path string) {
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("widgets"))
				if err != nil {
					return err
				}
				return b.Put([]byte("a"), []byte("b"))
			}); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}},
		{"a version that is not a number", func(t *testing.T, path string) {
			history(t, path, 10)
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(func(tx *bolt.Tx) error {
				return tx.Bucket(bucketMeta).Put(keyVersion, []byte("two"))
			}); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}},
	}
}

func TestOpenDamagedFile(t *testing.T) {
	for _, tt := range damagedFiles() {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "history.db")
			tt.damage(t, path)
			damaged, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}

			s, err := Open(path, nil)
			if !errors.Is(err, ErrCorrupt) {
				if s != nil {
					s.Close()
				}
				t.Fatalf("Open: err = %v, want ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, damaged) {
				t.Errorf("Open changed the unreadable file (err %v)", err)
			}

			s, movedTo, err := OpenOrRecover(path, &Options{Now: func() time.Time { return recoverNow }})
			if err != nil {
				t.Fatalf("OpenOrRecover: %v", err)
			}
			defer s.Close()
			if want := path + ".corrupt-20261130-070102"; movedTo != want {
				t.Errorf("OpenOrRecover moved the file to %q, want %q", movedTo, want)
			}
			if moved, err := os.ReadFile(movedTo); err != nil || !bytes.Equal(moved, damaged) {
				t.Errorf("the file moved aside is not the unreadable file as it was (err %v)", err)
			}
			if n, err := s.Count(); err != nil || n != 0 {
				t.Errorf("new history has %d records, %v; want an empty one", n, err)
			}
			if r := mustAdd(t, s, Record{Time: t0, Server: "github"}); r.ID != 1 {
				t.Errorf("first record of the new history has ID %d, want 1", r.ID)
			}
		})
	}
}

func TestOpenOrRecoverNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "history.db")
	opts := &Options{Now: func() time.Time { return recoverNow }}
	base := path + ".corrupt-20261130-070102"
	for i, want := range []string{base, base + "-2", base + "-3"} {
		content := []byte(strings.Repeat("garbage ", 100) + string(rune('a'+i)))
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		s, movedTo, err := OpenOrRecover(path, opts)
		if err != nil {
			t.Fatalf("OpenOrRecover %d: %v", i+1, err)
		}
		s.Close()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if movedTo != want {
			t.Errorf("recovery %d moved the file to %q, want %q", i+1, movedTo, want)
		}
		if got, err := os.ReadFile(movedTo); err != nil || !bytes.Equal(got, content) {
			t.Errorf("recovery %d: %s does not hold the file it moved (err %v)", i+1, movedTo, err)
		}
	}
}

func TestOpenOrRecoverLeavesOtherErrors(t *testing.T) {
	t.Run("readable file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "history.db")
		s, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		mustAdd(t, s, Record{Time: t0, Server: "github"})
		s.Close()
		s, movedTo, err := OpenOrRecover(path, nil)
		if err != nil || movedTo != "" {
			t.Fatalf("OpenOrRecover = %q, %v; want the file opened where it is", movedTo, err)
		}
		defer s.Close()
		if n, _ := s.Count(); n != 1 {
			t.Errorf("Count = %d, want the 1 record kept", n)
		}
	})
	t.Run("file in use", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "history.db")
		holder, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Close()
		s, movedTo, err := OpenOrRecover(path, &Options{Timeout: 50 * time.Millisecond})
		if !errors.Is(err, ErrLocked) || movedTo != "" || s != nil {
			t.Errorf("OpenOrRecover of a locked file = %v, %q, %v; want ErrLocked and nothing moved", s, movedTo, err)
		}
		assertOnlyFile(t, path)
	})
	t.Run("newer version", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "history.db")
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Update(func(tx *bolt.Tx) error { return writeVersion(tx, 99) }); err != nil {
			t.Fatal(err)
		}
		db.Close()
		s, movedTo, err := OpenOrRecover(path, nil)
		if !errors.Is(err, ErrNewerVersion) || movedTo != "" || s != nil {
			t.Errorf("OpenOrRecover of a newer file = %v, %q, %v; want ErrNewerVersion and nothing moved", s, movedTo, err)
		}
		assertOnlyFile(t, path)
	})
}

// assertOnlyFile checks that path is the only file in its directory.
func assertOnlyFile(t *testing.T, path string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != filepath.Base(path) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only %s", names, filepath.Base(path))
	}
}
