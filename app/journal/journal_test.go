package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/history"
)

// TestJournalTellsTheUser: while history.db is held by another process the
// hub's decisions go to the spool, and the user is told so — the tray line
// and a notification — and told again when every decision is in history.
func TestJournalTellsTheUser(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "history.db")
	_, release := testkit.HoldLock(t, path)
	var mu sync.Mutex
	var told []string
	j, _ := Open(path, &Spool{Dir: filepath.Join(dir, "spool"), Role: "hub"}, t.Logf)
	j.Told = func(st State) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, st.Problem()+" | "+st.Notice())
	}
	defer j.Close()
	if _, err := j.Store(); err == nil || !strings.Contains(err.Error(), "is in use by another process (pid ") {
		t.Fatalf("Store with the file locked: %v", err)
	}
	for _, key := range []string{"k1", "k2"} {
		if err := j.Keep(history.Record{Server: "github", Message: "Deploy?", Action: "accept", DecidedBy: "user", Key: key}); err != nil {
			t.Fatalf("keep: %v (the spool should take it)", err)
		}
	}
	if n := CountSpool(filepath.Join(dir, "spool")); n != 2 {
		t.Errorf("%d records in the spool, want 2", n)
	}
	release()
	j.Flush()
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

// TestHistoryFileOfAnotherUserRefused: a history.db another user made in
// place of the user's (an ELICITRAY_HOME in a shared directory), or a link
// of the user's to such a file, is not written: the decisions would land
// where that user reads them. They are spooled, and the reason is given.
func TestHistoryFileOfAnotherUserRefused(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("a file of another user needs root to make (chown); not run")
	}
	dir := t.TempDir()
	planted := filepath.Join(dir, "planted.db")
	if err := os.WriteFile(planted, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(planted, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := CheckHistoryPath(planted); err == nil || !errors.Is(err, paths.ErrUntrusted) {
		t.Errorf("a history file of uid 65534: %v, want it refused", err)
	}
	link := filepath.Join(dir, "history.db")
	if err := os.Symlink(planted, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckHistoryPath(link); err == nil || !errors.Is(err, paths.ErrUntrusted) {
		t.Errorf("the user's link to a file of uid 65534: %v, want it refused", err)
	}
	j, _ := Open(link, &Spool{Dir: filepath.Join(dir, "spool"), Role: "hub"}, t.Logf)
	defer j.Close()
	if err := j.Keep(history.Record{Server: "s", Action: "decline", Key: "k1"}); err != nil {
		t.Fatalf("keep: %v", err)
	}
	if st := j.State(); st.Spooled != 1 || !strings.Contains(st.Why, "uid 65534") {
		t.Errorf("state %+v, want the decision spooled and the reason given", st)
	}
	if fi, _ := os.Stat(planted); fi.Size() != 0 {
		t.Errorf("the planted file was written: %d bytes", fi.Size())
	}
}
