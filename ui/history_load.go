package ui

// Loading the history window's rows: the jobs that read pages, count and
// refresh, and where the table is scrolled. See historyView.

import (
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/lang"
)

// onFilterChanged reads the filters again: a valid change reloads.
func (v *historyView) onFilterChanged() {
	v.notice = ""
	v.reload()
}

// reload replaces the rows with the first page of what the filters select.
func (v *historyView) reload() {
	q, err := v.filters.query()
	if err != nil {
		v.queryErr = sentence(err)
		v.showStatus()
		return
	}
	v.queryErr = ""
	v.filters.showClear(q != history.Query{})
	v.startLoad(q, historyPage, false)
}

// resync reads the rows again, as many as are loaded (up to maxKeep),
// keeping those in view: rows changed where no page looked.
func (v *historyView) resync() {
	v.startLoad(v.q, min(max(len(v.rows.ids), historyPage), maxKeep), true)
}

// maxKeep is the most rows a load reads again to keep the rows in view
// (after a deletion elsewhere): more, and the table starts over at the top.
const maxKeep = 25 * historyPage

// startLoad replaces the rows with the first keep rows q selects, in a
// job, then counts them.
func (v *historyView) startLoad(q history.Query, keep int, keepView bool) {
	v.gen++
	v.q = q
	v.total = -1
	if q == (history.Query{}) {
		v.all = -1
	}
	v.loadKeep, v.loadKeepsView = keep, keepView
	v.loadAgain = true
	v.busy = lang.L("Loading…")
	if q != (history.Query{}) {
		v.busy = lang.L("Searching…")
	}
	v.showStatus()
	v.kickLoad()
}

// kickLoad starts the wanted load unless one runs: a search over a large
// history reads all of it, and typing in the filter must not start one
// per key.
func (v *historyView) kickLoad() {
	if v.loading || !v.loadAgain {
		return
	}
	v.loading, v.loadAgain = true, false
	gen, q, keep := v.gen, v.q, v.loadKeep
	var view *viewAnchor
	if v.loadKeepsView {
		view = v.anchor()
	}
	v.opts.spawn(func() {
		var rs []history.Record
		var err error
		for len(rs) < keep {
			pq := q
			pq.Limit = historyPage
			if n := len(rs); n > 0 {
				pq.Before = rs[n-1].ID
			}
			var page []history.Record
			page, err = v.src.List(pq)
			rs = append(rs, page...)
			if err != nil || len(page) < historyPage {
				break
			}
		}
		fyne.Do(func() { v.loaded(gen, rs, keep, view, err) })
	})
}

// loaded shows the rows a load read.
func (v *historyView) loaded(gen int, rs []history.Record, keep int, view *viewAnchor, err error) {
	v.loading = false
	defer v.kickLoad()
	if gen != v.gen {
		return
	}
	defer v.changedSince()
	v.busy = ""
	if err != nil {
		v.rows.reset()
		v.list.Refresh()
		v.showStatus()
		v.opts.onError(lang.L("read the history"), err)
		return
	}
	// Reading rows again keeps the rows in view; new filters show the top.
	// The selected record stays selected while it is among the rows.
	v.rows.reset()
	v.rows.appendPage(rs, keep)
	v.notePage(rs)
	v.list.UnselectAll()
	v.list.Refresh()
	v.list.ScrollToOffset(v.offsetOf(view))
	v.rows.evict(v.visibleRows())
	v.reselect()
	v.showStatus()
	v.startCount()
}

// startCount counts what the rows show, and all records, in a job.
func (v *historyView) startCount() {
	v.recount = true
	v.kickCount()
}

func (v *historyView) kickCount() {
	if v.counting || !v.recount {
		return
	}
	v.counting, v.recount = true, false
	gen, q, version := v.gen, v.q, v.rows.version
	v.opts.spawn(func() {
		total, err := v.src.CountQuery(q)
		all := total
		if err == nil && q != (history.Query{}) {
			all, err = v.src.CountQuery(history.Query{})
		}
		fyne.Do(func() { v.counted(gen, version, total, all, err) })
	})
}

// counted shows the counts; counts of rows that changed since are asked
// again.
func (v *historyView) counted(gen int, version uint64, total, all int, err error) {
	v.counting = false
	defer v.kickCount()
	if gen != v.gen {
		return
	}
	if err != nil {
		v.opts.onError(lang.L("count the decisions"), err)
		return
	}
	if version != v.rows.version {
		v.recount = true
		return
	}
	v.total, v.all = total, all
	v.showStatus()
}

// loadMore reads the page after the last row, in a job.
func (v *historyView) loadMore() {
	if !v.canPage() {
		return
	}
	v.paging = true
	gen := v.gen
	q := v.q
	q.Limit = historyPage
	q.Before = v.rows.ids[len(v.rows.ids)-1]
	v.opts.spawn(func() {
		rs, err := v.src.List(q)
		fyne.Do(func() { v.paged(gen, len(v.rows.ids), q.Before, rs, err) })
	})
}

// canPage reports whether a page may be read now: none is being read, no
// load is under way or wanted, and none failed since the last load.
func (v *historyView) canPage() bool {
	return !v.paging && !v.loading && !v.loadAgain && v.pageFailed != v.gen && len(v.rows.ids) > 0
}

// fetch reads again the page of row, whose record was evicted, in a job:
// from the row above it, so that reaching any loaded row takes one List.
func (v *historyView) fetch(row int) {
	if !v.canPage() {
		return
	}
	start := row - row%historyPage
	// Only what is missing: the rows above it in its page may be cached.
	for start < row {
		if _, ok := v.rows.peek(v.rows.ids[start]); !ok {
			break
		}
		start++
	}
	v.paging = true
	gen := v.gen
	q := v.q
	q.Limit = historyPage
	if start > 0 {
		q.Before = v.rows.ids[start-1]
	}
	v.opts.spawn(func() {
		rs, err := v.src.List(q)
		fyne.Do(func() { v.paged(gen, start, q.Before, rs, err) })
	})
}

// paged merges a page read from row start (after the record before) into
// the rows.
func (v *historyView) paged(gen, start int, before uint64, rs []history.Record, err error) {
	v.paging = false
	if gen != v.gen {
		return
	}
	if errors.Is(err, history.ErrNotFound) {
		// The row the page starts after was deleted elsewhere.
		v.resync()
		return
	}
	if err != nil {
		// Once: every row in view would ask again.
		v.pageFailed = gen
		v.opts.onError(lang.L("read the history"), err)
		return
	}
	// The rows may have changed while the page was read: start from the
	// row after the one the page was read after.
	if before == 0 {
		start = 0
	} else if i := v.rows.index(before); i >= 0 {
		start = i + 1
	} else {
		v.resync()
		return
	}
	v.rows.merge(start, rs, historyPage)
	v.notePage(rs)
	v.rows.evict(v.visibleRows())
	v.afterRowsChanged()
}

// onChanged reads what was added above the first row, in a job, and
// checks the rows in view.
func (v *historyView) onChanged() {
	if v.loading || v.loadAgain || v.refreshing {
		// The load under way may have read the rows before the change.
		v.changedAgain = true
		return
	}
	if v.queryErr != "" {
		return // the filters select nothing until the dates are fixed
	}
	if len(v.rows.ids) == 0 {
		v.startLoad(v.q, historyPage, true)
		return
	}
	v.refreshing = true
	gen := v.gen
	after := v.q
	after.Limit = historyPage
	after.After = v.rows.ids[0]
	// The page of the first row in view, read again: it shows whether rows
	// in view were deleted.
	first := v.firstVisibleRow()
	view := v.q
	view.Limit = historyPage
	if first > 0 {
		view.Before = v.rows.ids[first-1]
	}
	v.opts.spawn(func() {
		news, err := v.src.List(after)
		var inView []history.Record
		if err == nil {
			inView, err = v.src.List(view)
		}
		fyne.Do(func() { v.refreshed(gen, after.After, view.Before, news, inView, err) })
	})
}

// refreshed puts the records added since on top and merges the page in
// view.
func (v *historyView) refreshed(gen int, top, before uint64, news, inView []history.Record, err error) {
	v.refreshing = false
	defer v.changedSince()
	if gen != v.gen {
		return
	}
	switch {
	case errors.Is(err, history.ErrNotFound):
		// The first row, or the one above the rows in view, was deleted.
		v.resync()
		return
	case err != nil:
		v.opts.onError(lang.L("read the history"), err)
		return
	case len(news) == historyPage:
		// A page or more was added: what lies between is unknown.
		v.resync()
		return
	case len(v.rows.ids) == 0 || v.rows.ids[0] != top:
		v.resync()
		return
	}
	offset := v.list.GetScrollOffset()
	v.rows.prepend(news)
	v.notePage(news)
	if len(news) > 0 && offset > 0 {
		// Rows in view stay put; at the top, the new ones show.
		offset += float32(len(news)) * v.rowHeight()
	}
	start := 0
	if before != 0 {
		if start = v.rows.index(before) + 1; start == 0 {
			v.resync()
			return
		}
	}
	v.rows.merge(start, inView, historyPage)
	v.rows.evict(v.visibleRows())
	if v.total >= 0 {
		v.total += len(news)
	}
	if v.all >= 0 {
		v.all += len(news)
	}
	v.list.Refresh()
	v.list.ScrollToOffset(offset)
	v.afterRowsChanged()
	v.startCount()
}

// changedSince runs what a Changed during a load or a refresh asked for.
func (v *historyView) changedSince() {
	if v.changedAgain && !v.loading && !v.loadAgain && !v.refreshing {
		v.changedAgain = false
		v.onChanged()
	}
}

// afterRowsChanged shows the rows again, with the selection where its
// record now is.
func (v *historyView) afterRowsChanged() {
	offset := v.list.GetScrollOffset()
	v.list.Refresh()
	v.reselect()
	v.list.ScrollToOffset(offset)
	v.showStatus()
}

// reselect selects the row of the record in the detail pane, wherever it
// moved, or empties the pane when it is not among the rows.
func (v *historyView) reselect() {
	if v.selected == 0 {
		return
	}
	i := v.rows.index(v.selected)
	if i < 0 {
		v.selected = 0
		v.list.UnselectAll()
		v.detail.show(nil)
		v.deleteB.Disable()
		return
	}
	offset := v.list.GetScrollOffset()
	v.list.Select(i) // onSelect sees the same record and keeps the pane
	v.list.ScrollToOffset(offset)
}

// viewAnchor is where the table was scrolled: the record in its top row,
// and how far that row was scrolled past.
type viewAnchor struct {
	id     uint64
	offset float32 // the list's scroll offset
	past   float32 // of the top row
}

// anchor is where the table is scrolled now; nil at the top.
func (v *historyView) anchor() *viewAnchor {
	offset := v.list.GetScrollOffset()
	if offset <= 0 || len(v.rows.ids) == 0 {
		return nil
	}
	first := v.firstVisibleRow()
	return &viewAnchor{id: v.rows.ids[first], offset: offset, past: offset - float32(first)*v.rowHeight()}
}

// offsetOf is the scroll offset that puts a's record back in the top row,
// or a's offset when that record is gone; 0 for nil.
func (v *historyView) offsetOf(a *viewAnchor) float32 {
	if a == nil {
		return 0
	}
	if i := v.rows.index(a.id); i >= 0 {
		return float32(i)*v.rowHeight() + a.past
	}
	return a.offset
}

// rowHeight is the height of a row and its separator, as the list lays
// them out.
func (v *historyView) rowHeight() float32 {
	if v.rowH == 0 {
		v.rowH = newHistoryRow().MinSize().Height + theme.Padding()
	}
	return v.rowH
}

// firstVisibleRow is the row at the top of the table.
func (v *historyView) firstVisibleRow() int {
	first := int(v.list.GetScrollOffset() / v.rowHeight())
	return min(max(first, 0), max(len(v.rows.ids)-1, 0))
}

// visibleRows is the range of rows in view, half a page either side.
func (v *historyView) visibleRows() (from, to int) {
	first := v.firstVisibleRow()
	n := int(v.list.Size().Height/v.rowHeight()) + 1
	return max(first-historyPage/2, 0), first + n + historyPage/2
}
