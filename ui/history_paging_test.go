package ui

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/history"
)

// scrollToRow scrolls the table so that row is at its top, and runs the
// jobs that asks for.
func (h *historyHarness) scrollToRow(row int) {
	h.v.list.ScrollToOffset(float32(row) * h.v.rowHeight())
	h.run()
}

// firstShown is the ID of the record in the top row in view, as drawn.
func (h *historyHarness) firstShown() uint64 {
	return h.v.rows.ids[h.v.firstVisibleRow()]
}

func TestHistoryMillionRowsReadOnlyPagesInView(t *testing.T) {
	const n = 1_000_000
	src := newBigHistory(n)
	h := newHistoryHarness(t, src)

	if got := h.v.status.Text; got != "1,000,000 decisions" {
		t.Errorf("status = %q", got)
	}
	if diff := cmp.Diff([]history.Query{{Limit: historyPage}}, src.lists); diff != "" {
		t.Errorf("first List calls mismatch (-want +got):\n%s", diff)
	}
	if len(src.counts) != 1 {
		t.Errorf("%d counts, want 1 (the whole history, cheap)", len(src.counts))
	}
	if got := h.rows()[0][3]; got != "Question number 1000000" {
		t.Errorf("first row %q, want the newest", got)
	}

	// Scrolling to the end of what is loaded, five times, reads the five
	// next pages, each from the last row loaded: one List call each.
	for page := 1; page <= 5; page++ {
		h.scrollToRow(len(h.v.rows.ids) - 10)
		if got, want := len(h.v.rows.ids), (page+1)*historyPage; got != want {
			t.Fatalf("after scrolling to the end %d times: %d rows loaded, want %d", page, got, want)
		}
	}
	if got := len(src.lists); got != 6 {
		t.Errorf("%d List calls to show 1,200 rows, want 6", got)
	}
	for i, q := range src.lists[1:] {
		want := history.Query{Limit: historyPage, Before: uint64(n - (i+1)*historyPage + 1)}
		if q != want {
			t.Errorf("List call %d = %+v, want %+v", i+2, q, want)
		}
	}
	if src.listed != 6*historyPage {
		t.Errorf("%d records read for 1,200 rows", src.listed)
	}
	h.inViewLoaded("scrolling to the end")
}

// inViewLoaded fails the test if a row in view waits for its record.
func (h *historyHarness) inViewLoaded(after string) {
	h.t.Helper()
	from := h.v.firstVisibleRow()
	for i := from; i < min(from+10, len(h.v.rows.ids)); i++ {
		r := newHistoryRow()
		h.v.list.UpdateItem(i, r)
		if got := r.texts()[0]; got == "…" {
			h.t.Errorf("row %d still loading after %s", i, after)
		}
	}
	h.run()
}

func TestHistoryJumpReadsOnePage(t *testing.T) {
	src := newBigHistory(1_000_000)
	h := newHistoryHarness(t, src)
	h.v.rows.max = 2 * historyPage // evict early
	for len(h.v.rows.ids) < 10*historyPage {
		h.scrollToRow(len(h.v.rows.ids) - 10)
	}
	if got := len(h.v.rows.cache); got > 2*h.v.rows.max {
		t.Errorf("%d records cached with 2,000 rows loaded, want at most %d", got, 2*h.v.rows.max)
	}

	reads := 0
	for _, row := range []int{0, 1234, 450, 1700, 10, 777} {
		lists, listed := len(src.lists), src.listed
		h.scrollToRow(row)
		calls := src.lists[lists:]
		reads += len(calls)
		if len(calls) > 1 {
			t.Errorf("jumping to row %d took %d List calls %+v, want at most one", row, len(calls), calls)
		}
		for _, q := range calls {
			if q.Before == 0 && row >= historyPage {
				t.Errorf("jumping to row %d read from the top", row)
			}
			if q.Limit != historyPage {
				t.Errorf("jumping to row %d read %d records at once", row, q.Limit)
			}
		}
		if src.listed-listed > historyPage {
			t.Errorf("jumping to row %d read %d records", row, src.listed-listed)
		}
		if got, want := h.firstShown(), uint64(1_000_000-row); got != want {
			t.Errorf("after jumping to row %d the top row is record %d, want %d", row, got, want)
		}
		h.inViewLoaded("a jump")
	}
	if reads < 3 {
		t.Errorf("only %d of the jumps read a page: records were not evicted", reads)
	}
	if got := len(h.v.rows.cache); got > 2*h.v.rows.max {
		t.Errorf("%d records cached after jumping, want at most %d", got, 2*h.v.rows.max)
	}
	h.noErrors()
}

func TestHistoryChangedPutsNewRecordsOnTopKeepingTheView(t *testing.T) {
	src := newBigHistory(5000)
	h := newHistoryHarness(t, src)
	h.scrollToRow(150)
	h.v.list.Select(152)
	selected := h.v.selected
	top := h.firstShown()
	gets := len(src.gets)

	for range 3 {
		src.add(synthRecord(src.top + 1))
	}
	h.v.onChanged()
	h.run()

	if got := h.firstShown(); got != top {
		t.Errorf("rows in view moved: top row is record %d, was %d", got, top)
	}
	if h.v.selected != selected || h.v.rows.ids[155] != selected {
		t.Errorf("selection is record %d at row %d, want record %d at row 155", h.v.selected, h.v.rows.index(h.v.selected), selected)
	}
	if len(src.gets) != gets {
		t.Errorf("the selected record was read again")
	}
	if got := h.v.rows.ids[:3]; !slices.Equal(got, []uint64{5003, 5002, 5001}) {
		t.Errorf("first rows %v, want the new records", got)
	}
	if got := h.v.status.Text; got != "5,003 decisions" {
		t.Errorf("status = %q", got)
	}

	// At the top, the new ones show.
	h.scrollToRow(0)
	src.add(synthRecord(src.top + 1))
	h.v.onChanged()
	h.run()
	if got := h.firstShown(); got != 5004 {
		t.Errorf("top row is record %d, want the new 5004", got)
	}
	h.noErrors()
}

func TestHistoryChangedRemovesRowsDeletedElsewhere(t *testing.T) {
	src := newBigHistory(1000)
	h := newHistoryHarness(t, src)
	h.scrollToRow(100)
	src.deleted[1000-105] = true // in view
	src.deleted[1000-3] = true   // above, on the first page
	h.v.onChanged()
	h.run()
	if i := h.v.rows.index(1000 - 105); i >= 0 {
		t.Errorf("record deleted elsewhere still shown at row %d", i)
	}
	if got := h.v.status.Text; got != "998 decisions" {
		t.Errorf("status = %q", got)
	}

	// The row above the rows in view deleted: they are read again.
	top := h.firstShown()
	src.deleted[h.v.rows.ids[h.v.firstVisibleRow()-1]] = true
	h.v.onChanged()
	h.run()
	if got := h.firstShown(); got != top {
		t.Errorf("top row in view is record %d, was %d", got, top)
	}
	if i := h.v.rows.index(1000 - 3); i >= 0 {
		t.Errorf("record deleted elsewhere still shown at row %d", i)
	}
	h.noErrors()
}

func TestHistoryChangedDuringALoadIsNotLost(t *testing.T) {
	src := newFakeHistory(sampleRecords()...)
	h := newHistoryHarness(t, src)
	h.v.onFilterChanged() // a load is queued
	src.add(history.Record{Time: t0.Add(5 * time.Hour), Server: "late", Action: "accept", DecidedBy: "user"})
	h.v.onChanged()
	h.run()
	if got := h.column(1); !slices.Equal(got, []string{"late", "github", "everything", "everything"}) {
		t.Errorf("servers %q, want the late one on top", got)
	}
}

func TestHistoryRowsMerge(t *testing.T) {
	rec := func(ids ...uint64) []history.Record {
		var out []history.Record
		for _, id := range ids {
			out = append(out, history.Record{ID: id})
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		ids     []uint64
		start   int
		page    []history.Record
		limit   int
		want    []uint64
		end     bool
		changed bool
	}{
		{"same", []uint64{9, 8, 7, 6}, 1, rec(8, 7), 2, []uint64{9, 8, 7, 6}, false, false},
		{"extends", []uint64{9, 8}, 2, rec(7, 6), 2, []uint64{9, 8, 7, 6}, false, false},
		{"reaches the end", []uint64{9, 8}, 2, rec(7), 2, []uint64{9, 8, 7}, true, false},
		{"deleted in the page", []uint64{9, 8, 7, 6, 5}, 1, rec(8, 6), 2, []uint64{9, 8, 6, 5}, false, true},
		{"deleted at the end", []uint64{9, 8, 7, 6}, 1, rec(8), 2, []uint64{9, 8}, true, true},
		{"added among", []uint64{9, 7, 6}, 1, rec(8, 7), 2, []uint64{9, 8, 7, 6}, false, true},
		{"from the top", []uint64{9, 8, 7}, 0, rec(10, 9), 2, []uint64{10, 9, 8, 7}, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r historyRows
			r.reset()
			r.ids = slices.Clone(tt.ids)
			r.merge(tt.start, tt.page, tt.limit)
			if diff := cmp.Diff(tt.want, r.ids); diff != "" {
				t.Errorf("rows mismatch (-want +got):\n%s", diff)
			}
			if r.end != tt.end {
				t.Errorf("end = %v, want %v", r.end, tt.end)
			}
			if changed := r.version != 0; changed != tt.changed {
				t.Errorf("seen as a change: %v, want %v", changed, tt.changed)
			}
		})
	}
}
