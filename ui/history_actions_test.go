package ui

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/history"
)

func TestHistoryExport(t *testing.T) {
	for _, tt := range []struct {
		name       string
		file       string
		filter     func(f *historyFilters)
		wantFormat string
		wantQuery  history.Query
		wantLines  int
		wantStatus string
	}{
		{"JSON Lines", "decisions.jsonl", nil, "jsonl", history.Query{}, 3,
			"3 decisions — Exported 3 decisions to decisions.jsonl."},
		{"CSV by its extension", "Decisions.CSV", nil, "csv", history.Query{}, 3,
			"3 decisions — Exported 3 decisions to Decisions.CSV."},
		{"JSON Lines without an extension", "decisions", nil, "jsonl", history.Query{}, 3,
			"3 decisions — Exported 3 decisions to decisions."},
		{"the filtered rows", "github.csv", func(f *historyFilters) { f.server.SetText("github") }, "csv",
			history.Query{Server: "github"}, 1, "1 of 3 decisions matches — Exported 1 decision to github.csv."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
			if tt.filter != nil {
				tt.filter(h.v.filters)
				h.run()
			}
			path := filepath.Join(t.TempDir(), tt.file)
			var suggested string
			h.export = func(s string) (io.WriteCloser, string) {
				suggested = s
				f, err := os.Create(path)
				if err != nil {
					t.Fatal(err)
				}
				return f, tt.file
			}
			test.Tap(h.v.exportB)
			if suggested != "elicitray-history-2026-01-31.jsonl" {
				t.Errorf("suggested file name %q", suggested)
			}
			if !h.v.exportB.Disabled() {
				t.Error("Export… enabled while an export runs")
			}
			h.run()

			if diff := cmp.Diff([]string{tt.wantFormat}, h.src.exports); diff != "" {
				t.Errorf("formats mismatch (-want +got):\n%s", diff)
			}
			// What Export wrote is in the file, whole.
			want := &strings.Builder{}
			if _, err := h.src.Export(want, tt.wantFormat, tt.wantQuery); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), string(got)); diff != "" {
				t.Errorf("file mismatch (-want +got):\n%s", diff)
			}
			if n := strings.Count(string(got), "\n"); n != tt.wantLines {
				t.Errorf("%d records exported, want %d", n, tt.wantLines)
			}
			if h.v.status.Text != tt.wantStatus {
				t.Errorf("status = %q, want %q", h.v.status.Text, tt.wantStatus)
			}
			if h.v.exportB.Disabled() {
				t.Error("Export… disabled after the export")
			}
			h.noErrors()
		})
	}
}

func TestHistoryExportCancelledWritesNothing(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	h.export = func(string) (io.WriteCloser, string) { return nil, "" }
	test.Tap(h.v.exportB)
	h.run()
	if len(h.src.exports) != 0 {
		t.Errorf("exported %q after the dialog was cancelled", h.src.exports)
	}
	if h.v.status.Text != "3 decisions" {
		t.Errorf("status = %q", h.v.status.Text)
	}
}

// failingWriter fails every write, as a full disk does.
type failingWriter struct{ closed bool }

func (w *failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }
func (w *failingWriter) Close() error              { w.closed = true; return nil }

func TestHistoryExportErrorIsShown(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	fw := &failingWriter{}
	h.export = func(string) (io.WriteCloser, string) { return fw, "full.jsonl" }
	test.Tap(h.v.exportB)
	h.run()
	if len(h.errs) != 1 || !strings.HasPrefix(h.errs[0], "export the history to full.jsonl: ") {
		t.Errorf("errors shown %q", h.errs)
	}
	if !fw.closed {
		t.Error("file not closed after a failed export")
	}
	if h.v.status.Text != "3 decisions" {
		t.Errorf("status = %q", h.v.status.Text)
	}
}

func TestHistoryDeleteAsksFirst(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	h.v.list.Select(1)
	test.Tap(h.v.deleteB)
	c := h.lastConfirm()
	wantMsg := "Delete the decision on everything’s request of " + formatTime(sampleRecords()[1].Time) +
		" from the history? This cannot be undone."
	if c.title != "Delete this decision?" || c.message != wantMsg || c.ok != "Delete" {
		t.Errorf("asked %q / %q / %q", c.title, c.message, c.ok)
	}
	c.done(false)
	if len(h.src.deletes) != 0 || len(h.rows()) != 3 {
		t.Fatalf("deleted %v without confirmation", h.src.deletes)
	}

	test.Tap(h.v.deleteB)
	h.lastConfirm().done(true)
	if diff := cmp.Diff([]uint64{2}, h.src.deletes); diff != "" {
		t.Errorf("deletes mismatch (-want +got):\n%s", diff)
	}
	if got := h.column(1); !slices.Equal(got, []string{"github", "everything"}) {
		t.Errorf("rows after delete %q", got)
	}
	// The next (older) decision takes the selection.
	if h.v.selected != 1 || h.v.detail.rec == nil || h.v.detail.rec.ID != 1 {
		t.Errorf("selected %d after deleting, want 1", h.v.selected)
	}
	if got := h.v.status.Text; got != "2 decisions — Decision deleted." {
		t.Errorf("status = %q", got)
	}

	// The last row deleted: the one above takes the selection.
	test.Tap(h.v.deleteB)
	h.lastConfirm().done(true)
	if h.v.selected != 3 {
		t.Errorf("selected %d after deleting the last row, want 3", h.v.selected)
	}
	test.Tap(h.v.deleteB)
	h.lastConfirm().done(true)
	if h.v.selected != 0 || h.v.detail.rec != nil || !h.v.deleteB.Disabled() {
		t.Errorf("after deleting everything: selected %d, Delete… enabled %v", h.v.selected, !h.v.deleteB.Disabled())
	}
	h.run()
	if got := h.v.status.Text; got != "No decisions recorded yet. — Decision deleted." {
		t.Errorf("status = %q", got)
	}
	h.noErrors()
}

func TestHistoryDeleteErrorKeepsTheRow(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	h.v.list.Select(0)
	h.src.err = errors.New("disk is read-only")
	test.Tap(h.v.deleteB)
	h.lastConfirm().done(true)
	if diff := cmp.Diff([]string{"delete the decision: disk is read-only"}, h.errs); diff != "" {
		t.Errorf("errors mismatch (-want +got):\n%s", diff)
	}
	if n := h.v.list.Length(); n != 3 || h.v.selected != 3 {
		t.Errorf("%d rows, selected %d after a failed delete", n, h.v.selected)
	}
}

func TestHistoryClearAllAsksFirst(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	h.v.list.Select(0)
	test.Tap(h.v.clearB)
	c := h.lastConfirm()
	if c.title != "Clear the history?" || c.message != "Delete all 3 decisions in the history? This cannot be undone." || c.ok != "Clear all" {
		t.Errorf("asked %q / %q / %q", c.title, c.message, c.ok)
	}
	c.done(false)
	h.run()
	if h.src.clears != 0 || len(h.rows()) != 3 {
		t.Fatal("cleared without confirmation")
	}

	test.Tap(h.v.clearB)
	h.lastConfirm().done(true)
	h.run()
	if h.src.clears != 1 {
		t.Errorf("Clear called %d times, want once", h.src.clears)
	}
	if n := len(h.rows()); n != 0 {
		t.Errorf("%d rows after Clear all", n)
	}
	if h.v.detail.rec != nil || h.v.selected != 0 {
		t.Error("details of a cleared decision still shown")
	}
	if got := h.v.status.Text; got != "No decisions recorded yet. — History cleared." {
		t.Errorf("status = %q", got)
	}
	if !h.v.clearB.Disabled() || !h.v.exportB.Disabled() || !h.v.deleteB.Disabled() {
		t.Error("buttons enabled with nothing left")
	}
	h.noErrors()
}

func TestHistoryClearAllWithFiltersSaysAll(t *testing.T) {
	h := newHistoryHarness(t, newBigHistory(12_345))
	h.v.filters.server.SetText("server-1")
	h.run()
	test.Tap(h.v.clearB)
	want := "Delete all 12,345 decisions in the history, not only those the filters show? This cannot be undone."
	if got := h.lastConfirm().message; got != want {
		t.Errorf("asked %q, want %q", got, want)
	}
}

func TestHistoryDeleteKeyAsksToo(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	h.v.list.Select(0)
	h.w.Canvas().Focus(h.v.list)
	pressKey(h.w.Canvas(), fyne.KeyDelete)
	if got := h.lastConfirm().title; got != "Delete this decision?" {
		t.Errorf("asked %q", got)
	}
	if len(h.src.deletes) != 0 {
		t.Error("deleted before the answer")
	}
}
