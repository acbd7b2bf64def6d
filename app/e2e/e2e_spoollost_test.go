//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/journal"
)

// TestFaultSpoolRemoved (issue 25): the spool directory is removed, or
// moved away, while decisions wait in it for a locked history — two of a
// hub that has stopped since, three of the running hub's. The hub writes
// its own three again from memory, at the spool's own path (not into the
// file it still has open, moved away with its directory), and tells the
// two it cannot recover: in `status`, in hub.log and in a note in history;
// once the lock is gone, history has every decision the hub still had. A
// spool directory replaced by a symbolic link is not written through: the
// hub keeps the three and the note in memory, and says so.
func TestFaultSpoolRemoved(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		away    func(dir string) error
		waiting string // what status says of the three and the note
		spooled int    // what the spool's path holds then
	}{
		{"removed", os.RemoveAll, "4 decisions waiting in the spool", 4},
		{"moved", func(dir string) error { return os.Rename(dir, dir+".orig") }, "4 decisions waiting in the spool", 4},
		{"symlink", func(dir string) error {
			elsewhere := t.TempDir()
			if err := os.Rename(dir, dir+".orig"); err != nil {
				return err
			}
			return os.Symlink(elsewhere, dir)
		}, "4 decisions not saved", 0},
	} {
		t.Run(tc.name, func(t *testing.T) { testSpoolGone(t, tc.away, tc.waiting, tc.spooled) })
	}
}

// testSpoolGone is TestFaultSpoolRemoved with away taking the spool
// directory away.
func testSpoolGone(t *testing.T, away func(dir string) error, waiting string, spooled int) {
	d := newParallelDesktop(t)
	_, release := testkit.HoldLock(t, d.paths.History)
	answer := func(fh *faultHost, n int, tag string) {
		ask := fh.ask(t, n, tag)
		for range n {
			win, _ := d.window()
			d.answer(win, "Return")
		}
		if got := d.received(ask); len(got) != n || slices.ContainsFunc(got, func(a string) bool { return a != "accept" }) {
			t.Fatalf("the server got %v, want %d accepts", got, n)
		}
	}
	// A first hub spools two decisions, and stops.
	answer(d.connectFault("first", nil), 2, "first")
	first := d.hubPID()
	quit := exec.Command(testkit.Binary(t), "quit")
	quit.Env = d.env
	if out, err := quit.CombinedOutput(); err != nil {
		t.Fatalf("quit: %v: %s", err, out)
	}
	d.waitFor("the first hub gone", func() bool {
		return syscall.Kill(first, 0) != nil || zombie(strconv.Itoa(first))
	})
	// Another wrapper starts a second hub, which spools three.
	answer(d.connectFault("second", nil), 3, "second")
	if st := d.status(); !strings.Contains(st, "5 decisions waiting in the spool") {
		t.Fatalf("status before the spool is removed:\n%s", st)
	}

	if err := away(journal.SpoolDir(d.paths)); err != nil {
		t.Fatal(err)
	}
	st := d.status() // the hub looks at its spool now
	// Waiting: the three written again, and the note of the two lost.
	for _, want := range []string{"2 decisions lost: the spool was removed or changed before they reached history",
		waiting} {
		if !strings.Contains(st, want) {
			t.Errorf("status after the spool was removed does not say %q:\n%s", want, st)
		}
	}
	// The hub may have looked at its spool while it was being moved (it
	// looks every 5 seconds while anything waits) and told the loss in
	// two lines: together they tell it all.
	hubLog, _ := os.ReadFile(d.paths.HubLog)
	again, lost := 0, 0
	for _, m := range regexp.MustCompile(`lost \d+ decisions? before history took them \(its directory was removed, or a file deleted or replaced\); (\d+) were still in memory and were written again, (\d+) are lost`).FindAllStringSubmatch(string(hubLog), -1) {
		a, _ := strconv.Atoi(m[1])
		l, _ := strconv.Atoi(m[2])
		again, lost = again+a, lost+l
	}
	if again != 3 || lost != 2 {
		t.Errorf("hub.log tells %d written again and %d lost, want 3 and 2:\n%s", again, lost, hubLog)
	}

	if n := journal.CountSpool(journal.SpoolDir(d.paths)); n != spooled {
		t.Errorf("the spool directory holds %d decisions, want %d", n, spooled)
	}

	release()
	d.status() // the hub tries history again now
	recs := d.history("--limit", "100")
	got := map[string]string{}
	for _, r := range recs {
		got[r.Message] = r.Action
	}
	want := map[string]string{"Deploy?": "accept", "second #0": "accept", "second #1": "accept", "second #2": "accept",
		fmt.Sprintf("2 decisions lost: the spool %s was removed or changed before they reached history, and no copy was left", journal.SpoolDir(d.paths)): "error"}
	for msg, action := range want {
		if got[msg] != action {
			t.Errorf("history has %q as %q, want %q; it has %v", msg, got[msg], action, got)
		}
	}
	if len(recs) != len(want) {
		t.Errorf("history has %d records, want %d: %v", len(recs), len(want), got)
	}
	list := d.historyText("list")
	if !strings.Contains(list, "2 decisions lost") {
		t.Errorf("history list does not show the note:\n%s", list)
	}
}
