package app

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/history"
)

// TestJournalTellsTheUser: while history.db is held by another process the
// hub's decisions go to the spool, and the user is told so — the tray line
// and a notification — and told again when every decision is in history.
func TestJournalTellsTheUser(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "history.db")
	_, release := holdLockUntil(t, path)
	var mu sync.Mutex
	var told []string
	j, _ := openJournal(path, &spool{dir: filepath.Join(dir, "spool"), role: "hub"}, t.Logf)
	j.told = func(st journalState) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, st.problem()+" | "+storageNotice(st))
	}
	defer j.close()
	if _, err := j.Store(); err == nil || !strings.Contains(err.Error(), "is in use by another process (pid ") {
		t.Fatalf("Store with the file locked: %v", err)
	}
	for _, key := range []string{"k1", "k2"} {
		if err := j.keep(history.Record{Server: "github", Message: "Deploy?", Action: "accept", DecidedBy: "user", Key: key}); err != nil {
			t.Fatalf("keep: %v (the spool should take it)", err)
		}
	}
	if n := countSpool(filepath.Join(dir, "spool")); n != 2 {
		t.Errorf("%d records in the spool, want 2", n)
	}
	release()
	j.flush()
	st, err := j.Store()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Count(); n != 3 { // the holder's record and the two
		t.Errorf("history has %d records, want 3", n)
	}
	locked := "the history file " + path + " is in use by another process (pid "
	mu.Lock()
	defer mu.Unlock()
	if len(told) != 3 {
		t.Fatalf("told %d times, want 3: %q", len(told), told)
	}
	for i, want := range []string{"1 decision waiting in the spool, not yet in history: " + locked, "2 decisions waiting in the spool, not yet in history: " + locked} {
		if !strings.HasPrefix(told[i], want) || !strings.Contains(told[i], "| History cannot be written now: ") {
			t.Errorf("told[%d] = %q, want it to start %q", i, told[i], want)
		}
	}
	if diff := cmp.Diff(" | History is saving again: every decision is in it.", told[2]); diff != "" {
		t.Errorf("once saved, mismatch (-want +got):\n%s", diff)
	}
}
