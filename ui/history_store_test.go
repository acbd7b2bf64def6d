package ui

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/history/historytest"
	"github.com/elicitray/elicitray/ui/lang"
)

// storeHarness is the history window over store, its first page shown.
func storeHarness(t *testing.T, store *history.Store) *historyHarness {
	t.Helper()
	h := &historyHarness{t: t, now: t0}
	h.open(store)
	return h
}

// exportAs exports with Export… to a new file of that name and returns
// what it holds once the export is done.
func (h *historyHarness) exportAs(name string) []byte {
	h.t.Helper()
	path := filepath.Join(h.t.TempDir(), name)
	h.export = func(string) (io.WriteCloser, string) {
		f, err := os.Create(path)
		if err != nil {
			h.t.Fatal(err)
		}
		return f, name
	}
	test.Tap(h.v.exportB)
	h.run()
	b, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

// TestHistoryWithTheStore drives the window over a real history file: the
// paging, the live updates, deleting, exporting and clearing agree with
// what history.Store does.
func TestHistoryWithTheStore(t *testing.T) {
	store, err := history.Open(filepath.Join(t.TempDir(), "history.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	const n = 1000
	for i := range n {
		r := synthRecord(uint64(i + 1))
		r.ID = 0
		if _, err := store.Add(r); err != nil {
			t.Fatal(err)
		}
	}

	h := storeHarness(t, store)
	if got := h.v.status.Text; got != "1,000 decisions" {
		t.Errorf("status = %q", got)
	}
	// Scrolling to the end loads every row, in order.
	for !h.v.rows.end {
		h.scrollToRow(len(h.v.rows.ids) - 5)
	}
	if len(h.v.rows.ids) != n || h.v.rows.ids[0] != n || h.v.rows.ids[n-1] != 1 {
		t.Fatalf("%d rows from %d to %d", len(h.v.rows.ids), h.v.rows.ids[0], h.v.rows.ids[len(h.v.rows.ids)-1])
	}

	// Deleted elsewhere while in view, and added: both seen.
	h.scrollToRow(500)
	top := h.firstShown()
	gone := h.v.rows.ids[h.v.firstVisibleRow()+2]
	if err := store.Delete(gone); err != nil {
		t.Fatal(err)
	}
	added, err := store.Add(history.Record{Time: t0.Add(2000 * time.Minute), Server: "new", Mode: "form", Message: "Fresh", Action: "accept", DecidedBy: "user"})
	if err != nil {
		t.Fatal(err)
	}
	h.v.onChanged()
	h.run()
	if h.v.rows.ids[0] != added.ID || h.v.rows.index(gone) >= 0 || h.firstShown() != top {
		t.Errorf("after Changed: first row %d (want %d), deleted row at %d, top in view %d (want %d)",
			h.v.rows.ids[0], added.ID, h.v.rows.index(gone), h.firstShown(), top)
	}
	if got := h.v.status.Text; got != "1,000 decisions" {
		t.Errorf("status = %q", got)
	}

	// Filtered, exported as CSV.
	h.v.filters.server.SetText("server-1")
	h.run()
	m, err := store.CountQuery(history.Query{Server: "server-1"})
	if err != nil || m < 300 {
		t.Fatalf("CountQuery = %d, %v", m, err)
	}
	if got, want := h.v.status.Text, fmt.Sprintf("%d of 1,000 decisions match", m); got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
	b := h.exportAs("out.csv")
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != m+1 || !strings.HasPrefix(lines[0], "time,id,server") {
		t.Errorf("CSV has %d lines, first %q", len(lines), lines[0])
	}
	if got, want := h.v.status.Text, fmt.Sprintf("%d of 1,000 decisions match — Exported %d decisions to out.csv.", m, m); got != want {
		t.Errorf("status = %q, want %q", got, want)
	}

	// Deleting the selected row deletes the record.
	h.v.list.Select(0)
	id := h.v.selected
	test.Tap(h.v.deleteB)
	h.lastConfirm().done(true)
	if _, err := store.Get(id); err == nil {
		t.Errorf("record %d still in the store", id)
	}
	if slices.Contains(h.v.rows.ids, id) {
		t.Errorf("record %d still shown", id)
	}

	test.Tap(h.v.filters.clear)
	h.run()
	test.Tap(h.v.clearB)
	if got, want := h.lastConfirm().message, fmt.Sprintf("Delete all %s decisions in the history? This cannot be undone.", lang.Thousands(n-1)); got != want {
		t.Errorf("asked %q, want %q", got, want)
	}
	h.lastConfirm().done(true)
	h.run()
	if c, _ := store.Count(); c != 0 || len(h.v.rows.ids) != 0 {
		t.Errorf("after Clear all: %d records in the store, %d rows", c, len(h.v.rows.ids))
	}
	h.noErrors()
}

// TestHistoryUnreadableRecord: a record the history file cannot give back
// (a damaged page, say) is a row of its own that says so, between the
// others, which show as ever. Selecting it says what happened and what to
// do; an export writes the others and says it left it out; Delete removes
// it. Before, the window showed an error instead of any row, and neither
// exporting nor deleting could get past it.
func TestHistoryUnreadableRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	store, err := history.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, msg := range []string{"部署到生产环境？", "هل تريد النشر؟", "Ship 🚢 v2?"} {
		if _, err := store.Add(history.Record{Time: t0.Add(time.Duration(i) * time.Minute), Server: "部署", Mode: "form",
			Message: msg, Action: "accept", DecidedBy: "user"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if err := historytest.Damage(path, 2, historytest.CutShort); err != nil {
		t.Fatal(err)
	}
	if store, err = history.Open(path, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })

	h := storeHarness(t, store)
	rows := h.rows()
	if len(rows) != 3 || rows[0][3] != "Ship 🚢 v2?" || rows[2][3] != "部署到生产环境？" {
		t.Fatalf("rows %q; want all three, the damaged one between the others", rows)
	}
	if got := rows[1]; got[0] != formatTime(t0.Add(time.Minute)) || got[3] != "Cannot be read: the history file is damaged here." || got[4] != "unreadable" {
		t.Errorf("the damaged record's row shows %q", got)
	}
	if got := h.v.status.Text; got != "3 decisions" {
		t.Errorf("status = %q", got)
	}

	h.v.list.Select(1)
	if !strings.Contains(strings.Join(visibleTexts(h.v.detail.content), "\n"), "This decision cannot be read: the history file is damaged where it is kept.") || h.v.deleteB.Disabled() {
		t.Errorf("selected, the damaged record shows %q (Delete… enabled: %v)", strings.Join(visibleTexts(h.v.detail.content), "\n"), !h.v.deleteB.Disabled())
	}

	got := h.exportAs("decisions.jsonl")
	if n := strings.Count(string(got), "\n"); n != 2 || !strings.Contains(string(got), "部署到生产环境？") || !strings.Contains(string(got), "Ship 🚢 v2?") {
		t.Errorf("the export holds %d lines: %s; want the two others", n, got)
	}
	if want := "3 decisions — Exported 2 decisions to decisions.jsonl. Those marked unreadable could not be read and were left out."; h.v.status.Text != want {
		t.Errorf("status after the export = %q, want %q", h.v.status.Text, want)
	}
	h.noErrors()

	test.Tap(h.v.deleteB)
	c := h.lastConfirm()
	if c.message != "Delete this decision from the history? This cannot be undone." {
		t.Errorf("Delete… asks %q", c.message)
	}
	c.done(true)
	h.run()
	if n, err := store.CountQuery(history.Query{}); err != nil || n != 2 {
		t.Errorf("after Delete the store holds %d, %v; want the 2 others", n, err)
	}
	if got := h.column(3); !slices.Equal(got, []string{"Ship 🚢 v2?", "部署到生产环境？"}) {
		t.Errorf("rows after Delete %q", got)
	}
	h.noErrors()
}
