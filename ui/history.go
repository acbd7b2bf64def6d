package ui

import (
	"errors"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/lang"
)

// HistorySource is where the history window reads and deletes decisions:
// the hub's *history.Store, or a fake in tests. The window calls Get,
// Delete and CountQuery of the zero Query on the Fyne goroutine, so those
// must be quick (a local file is); List, other counts, Clear and Export
// run on goroutines of their own, at most one of each kind at a time. Every
// method must be safe for concurrent use.
type HistorySource interface {
	// List returns the records q selects, newest first, at most q.Limit;
	// q.Before selects only records older than that ID, q.After only
	// newer ones. A Before or After ID that no longer exists fails with an
	// error wrapping history.ErrNotFound.
	List(q history.Query) ([]history.Record, error)
	// Get returns one record by ID.
	Get(id uint64) (history.Record, error)
	// CountQuery returns how many records q selects, ignoring q.Limit,
	// q.Before and q.After. It must be quick for the zero Query.
	CountQuery(q history.Query) (int, error)
	// Delete removes one record; history.ErrNotFound when it is gone.
	Delete(id uint64) error
	// Clear removes every record.
	Clear() error
	// Export writes every record q selects to w in format
	// (history.FormatJSONL or history.FormatCSV) and returns how many.
	Export(w io.Writer, format string, q history.Query) (int, error)
}

var _ HistorySource = (*history.Store)(nil)

// serverLister is what a HistorySource may also offer: the names of the
// servers that have records, for the server filter's choices. Without it
// the choices are the servers of the records loaded so far.
type serverLister interface {
	Servers() ([]string, error)
}

// HistoryWindow is an open history window.
type HistoryWindow struct {
	win  fyne.Window
	view *historyView
}

// ShowHistory opens the history window and returns it: every decision,
// newest first, in a table that reads its rows a page at a time as it
// scrolls; filters by text, server, action, who decided and date; the
// selected decision in full beside it (its message, the form as it was
// shown with the values answered, secrets masked, and the answer); and
// Export…, Delete… and Clear all…. Escape (while no dialog is open) and
// Ctrl+W close it, wherever the focus is. It must be called on the Fyne
// goroutine. The window can be brought forward with RequestFocus instead
// of opening a second one; Changed shows decisions added or deleted since.
func ShowHistory(a fyne.App, src HistorySource) *HistoryWindow {
	return showHistory(a, src, nil)
}

// showHistory is ShowHistory with the seams of historyOptions.
func showHistory(a fyne.App, src HistorySource, opts *historyOptions) *HistoryWindow {
	w := a.NewWindow(lang.L("elicitray — history"))
	o := opts.withDefaults(w)
	v := newHistoryView(src, o)
	w.SetContent(v.content)
	v.keys.close = w.Close
	v.keys.bind(w.Canvas())
	if a.Icon() != nil {
		w.SetIcon(a.Icon())
	}
	w.Resize(fyne.NewSize(1240, 680))
	w.CenterOnScreen()
	w.Show()
	v.reload()
	w.Canvas().Focus(v.filters.text)
	return &HistoryWindow{win: w, view: v}
}

// Window returns the window, to show, focus or close it.
func (w *HistoryWindow) Window() fyne.Window { return w.win }

// OfferMenu adds Menu… to the window's bottom left, which calls open: on
// a desktop with no tray icon, the way from History (what the app
// launcher opens) to the tray's items (ShowMenu). Called again, it
// replaces open.
func (w *HistoryWindow) OfferMenu(open func()) {
	w.view.menuB.OnTapped = open
	w.view.menuB.Show()
	w.view.bottom.Refresh() // laid out again, with the button's room
}

// Changed tells the window that decisions were added or deleted elsewhere.
// Any goroutine may call it. New decisions the filters select appear on
// top; the selection and the rows in view stay where they are when
// possible.
func (w *HistoryWindow) Changed() { fyne.Do(w.view.onChanged) }

// showError tells the user, in one sentence in a dialog over w, that doing
// failed, and logs the detail. It is the only way ui shows errors.
func showError(w fyne.Window, doing string, err error) {
	log.Printf("ui: %s: %v", doing, err)
	dialog.ShowInformation("elicitray", lang.L("Could not {{.Doing}}: {{.Error}}.", map[string]any{"Doing": doing, "Error": err}), w)
}

// historyOptions are the window's seams; tests replace them. A nil field
// means the default.
type historyOptions struct {
	// onError shows an error; default showError over the window.
	onError func(doing string, err error)
	// spawn runs work off the Fyne goroutine; default go f().
	spawn func(f func())
	// confirm asks a yes/no question with ok as the yes button; default a
	// confirmation dialog over the window.
	confirm func(title, message, ok string, done func(bool))
	// chooseExport asks where to export, suggesting a file name; done gets
	// the file opened for writing and its name, and is not called when the
	// user cancels. Default a save dialog.
	chooseExport func(suggested string, done func(w io.WriteCloser, name string))
	// now is the clock of the date filters; default the package's now.
	now func() time.Time
}

func (o *historyOptions) withDefaults(w fyne.Window) historyOptions {
	var out historyOptions
	if o != nil {
		out = *o
	}
	if out.onError == nil {
		out.onError = func(doing string, err error) { showError(w, doing, err) }
	}
	if out.spawn == nil {
		out.spawn = func(f func()) { go f() }
	}
	if out.confirm == nil {
		out.confirm = func(title, message, ok string, done func(bool)) {
			d := dialog.NewConfirm(title, message, done, w)
			d.SetConfirmText(ok)
			d.SetDismissText(lang.L("Cancel"))
			d.SetConfirmImportance(widget.DangerImportance)
			d.Show()
		}
	}
	if out.chooseExport == nil {
		out.chooseExport = func(suggested string, done func(io.WriteCloser, string)) {
			d := dialog.NewFileSave(func(uw fyne.URIWriteCloser, err error) {
				if err != nil {
					showError(w, lang.L("choose where to export"), err)
					return
				}
				if uw == nil {
					return // the user cancelled
				}
				// The history is private (DESIGN.md), and so is an export of it.
				if uw.URI().Scheme() == "file" {
					_ = os.Chmod(uw.URI().Path(), 0o600)
				}
				done(uw, uw.URI().Name())
			}, w)
			d.SetFileName(suggested)
			d.SetFilter(storage.NewExtensionFileFilter([]string{".jsonl", ".csv"}))
			d.SetConfirmText(lang.L("Export"))
			d.Resize(fyne.NewSize(820, 540))
			d.Show()
		}
	}
	if out.now == nil {
		out.now = now
	}
	return out
}

// historyPage is how many records one List call reads: the rows load a
// page at a time as the table scrolls.
const historyPage = 200

// historyColumn is a column of the table: its title and width; the
// message column (width 0) takes what the others leave.
type historyColumn struct {
	title string
	width float32
}

// historyColumns are the table's columns.
var historyColumns = []historyColumn{
	{"Time", 152},
	{"Server", 104},
	{"Tool", 104},
	{"Message", 0},
	{"Action", 78},
	{"Decided by", 112},
	{"Answered in", 108},
}

// historyView is the content of the history window, without the window,
// so that tests can drive it on a test canvas.
//
// Rows: rows holds the IDs of every row loaded so far, newest first, and a
// bounded cache of their records. The table's length is the number of rows
// loaded; a row near the end asks for the next page (List with Before the
// last ID), a row whose record was evicted asks for its page again (List
// with Before the ID of the row above it), so reaching any loaded row costs
// one List call, never a walk from the top.
//
// Jobs: work off the Fyne goroutine runs in jobs (spawn), one of each kind
// at a time: a load (filters changed, or the rows must be read again), a
// count, a page (next page or an evicted one), a refresh (Changed). Each
// carries the generation it started in; the results of an older one
// (filters changed since) are dropped.
type historyView struct {
	src  HistorySource
	opts historyOptions

	gen  int           // bumped when the rows are replaced
	q    history.Query // what the rows show; Limit, Before and After unset
	rows historyRows

	total, all int // how many q selects and how many records exist; -1 unknown
	queryErr   string

	loading, loadAgain bool   // a load runs; another is wanted after it
	loadKeep           int    // how many rows the wanted load reads
	loadKeepsView      bool   // the wanted load keeps the rows in view (else: back to the top)
	counting, recount  bool   // a count runs; another is wanted after it
	paging             bool   // a page runs
	pageFailed         int    // the generation in which reading a page failed: no more tries in it
	refreshing         bool   // a refresh (Changed) runs
	changedAgain       bool   // Changed was called while one ran
	exporting          bool   // an export runs
	busy               string // the status while a load or clearing runs ("Searching…")
	notice             string // what just happened, after the counts ("Decision deleted.")

	selected uint64          // ID of the record in the detail pane; 0 for none
	rowH     float32         // see rowHeight; 0 until measured
	servers  map[string]bool // the server filter's choices

	filters *historyFilters
	list    *historyList
	header  *historyHeader
	// cols are the columns' widths, which the header's handles change;
	// rowWidgets are the rows the list made, laid out again when they do.
	cols        *columnWidths
	rowWidgets  []*historyRow
	tableScroll *container.Scroll
	status      *widget.Label
	exportB     *closeButton
	deleteB     *closeButton
	clearB      *closeButton
	menuB       *closeButton    // Menu…, shown by OfferMenu
	bottom      *fyne.Container // the bar menuB, the status and the buttons are in
	// keys close the window on Escape and Ctrl+W; its close is set by
	// showHistory (a no-op on a test canvas until a test sets it).
	keys    *windowKeys
	detail  *historyDetail
	content fyne.CanvasObject
}

func newHistoryView(src HistorySource, opts historyOptions) *historyView {
	v := &historyView{src: src, opts: opts, total: -1, all: -1, servers: map[string]bool{}, keys: &windowKeys{close: func() {}}}
	v.rows.reset()
	v.content = v.build()
	return v
}

func (v *historyView) build() fyne.CanvasObject {
	v.filters = newHistoryFilters(v.opts.now, v.onFilterChanged, v.keys)

	v.cols = newColumnWidths()
	v.list = newHistoryList(
		func() int { return len(v.rows.ids) },
		func() fyne.CanvasObject {
			r := newHistoryRowIn(v.cols)
			v.rowWidgets = append(v.rowWidgets, r)
			return r
		},
		func(id widget.ListItemID, o fyne.CanvasObject) { v.updateRow(id, o.(*historyRow)) },
		v.onDelete,
		v.keys,
	)
	v.list.OnSelected = v.onSelect
	v.header = newHistoryHeader(v.cols, v.onColumnsResized)

	v.status = widget.NewLabel("")
	v.status.Truncation = fyne.TextTruncateEllipsis
	v.exportB = newCloseButton(v.keys, lang.L("Export…"), theme.DocumentSaveIcon(), v.onExport)
	v.deleteB = newCloseButton(v.keys, lang.L("Delete…"), theme.DeleteIcon(), v.onDelete)
	v.clearB = newCloseButton(v.keys, lang.L("Clear all…"), nil, v.onClear)
	v.deleteB.Disable()
	v.clearB.Disable()
	v.exportB.Disable()
	buttons := container.NewHBox(v.exportB, v.deleteB, v.clearB)
	v.menuB = newCloseButton(v.keys, lang.L("Menu…"), theme.MenuIcon(), nil)
	v.menuB.Hide()
	v.bottom = container.NewBorder(nil, nil, v.menuB, buttons, v.status)

	v.detail = newHistoryDetail()
	// Columns dragged wider than the table scroll sideways, header and
	// rows together; the rows scroll up and down in the list.
	v.tableScroll = container.NewHScroll(container.NewBorder(v.header.box, nil, nil, nil, v.list))
	split := container.NewHSplit(v.tableScroll, v.detail.content)
	split.Offset = 0.7
	root := container.NewBorder(v.filters.content, v.bottom, nil, nil, split)
	v.filters.relayout = root.Refresh
	return container.New(&tableShare{split: split, cols: v.cols, auto: split.Offset}, root)
}

// tableShare lays out the history view, giving the table the share of
// the split its columns need to show whole beside the detail pane: 0.7 of
// the width, more where the columns need it (English's widest Action text
// took the last column past the pane's edge), at most 0.8. Once the user
// drags the divider (the offset is no longer the one set here), the split
// is theirs.
type tableShare struct {
	split *container.Split
	cols  *columnWidths
	auto  float64 // the offset last set here
}

func (l *tableShare) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if l.split.Offset == l.auto && size.Width > 0 {
		// The divider and the panes' padding take a little of the width.
		need := l.cols.total() + 4*theme.Padding()
		l.auto = min(0.8, max(0.7, float64(need/size.Width)))
		l.split.Offset = l.auto
	}
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l *tableShare) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

// onColumnsResized lays the rows out again after the user dragged a
// column's edge in the header.
func (v *historyView) onColumnsResized() {
	for _, r := range v.rowWidgets {
		r.Refresh() // its minimum size, which Fyne keeps, changed
		r.box.Refresh()
	}
	v.list.Refresh()
	// The table is as wide as its columns, or the view when they fit.
	s := v.tableScroll
	s.Content.Resize(s.Content.MinSize().Max(s.Size()))
	s.Refresh()
}

// updateRow fills row with the record of row id, asking for its page when
// it is not cached and for the next page when id is near the end.
func (v *historyView) updateRow(id int, row *historyRow) {
	if id < 0 || id >= len(v.rows.ids) {
		row.clear()
		return
	}
	if !v.rows.end && id >= len(v.rows.ids)-historyPage/2 {
		v.loadMore()
	}
	rec, ok := v.rows.get(v.rows.ids[id])
	if !ok {
		row.loading()
		v.fetch(id)
		return
	}
	row.show(rec)
}

// notePage takes in a page of records loaded: their servers for the
// filter (noteServers), and the widths their server and tool names want
// (columnWidths.fit).
func (v *historyView) notePage(rs []history.Record) {
	v.noteServers(rs)
	if v.cols.fit(rs) && v.tableScroll != nil {
		v.header.box.Refresh()
		v.onColumnsResized()
	}
}

// noteServers adds the servers of rs to the server filter's choices.
func (v *historyView) noteServers(rs []history.Record) {
	added := false
	for i := range rs {
		if s := rs[i].Server; s != "" && !v.servers[s] {
			// A copy: the name shares its record's memory (history
			// reads a record's texts as one string), which the view
			// would otherwise keep for its life.
			v.servers[strings.Clone(s)] = true
			added = true
		}
	}
	if !added {
		return
	}
	if sl, ok := v.src.(serverLister); ok {
		if names, err := sl.Servers(); err == nil {
			for _, s := range names {
				v.servers[s] = true
			}
		}
	}
	v.filters.setServers(v.servers)
}

// onSelect shows the record of row in the detail pane, read afresh.
func (v *historyView) onSelect(row int) {
	if row < 0 || row >= len(v.rows.ids) {
		return
	}
	id := v.rows.ids[row]
	if id == v.selected {
		return
	}
	rec, err := v.src.Get(id)
	if errors.Is(err, history.ErrUnreadable) {
		// Shown as what it is, and deletable: the rest of the history is
		// not held up by it (history.Record.Unreadable).
		rec, err = history.Record{ID: id, Unreadable: err.Error()}, nil
		if listed, ok := v.rows.peek(id); ok && listed.Unreadable != "" {
			rec = listed
		}
	}
	if err != nil {
		if errors.Is(err, history.ErrNotFound) {
			v.notice = lang.L("That decision was deleted.")
			v.showStatus()
			v.onChanged()
			return
		}
		v.opts.onError(lang.L("read this decision"), err)
		return
	}
	v.selected = id
	v.detail.show(&rec)
	v.deleteB.Enable()
}

// onDelete deletes the selected decision once the user confirms.
func (v *historyView) onDelete() {
	id := v.selected
	if id == 0 {
		return
	}
	msg := lang.L("Delete this decision from the history? This cannot be undone.")
	if rec, ok := v.rows.peek(id); ok && rec.Unreadable == "" {
		msg = lang.L("Delete the decision on {{.Server}}’s request of {{.Time}} from the history? This cannot be undone.",
			map[string]any{"Server": chars.Cut(oneLine(rec.Server), maxLabel), "Time": formatTime(rec.Time)})
	}
	v.opts.confirm(lang.L("Delete this decision?"), msg, lang.L("Delete"),
		func(ok bool) {
			if ok {
				v.deleteRecord(id)
			}
		})
}

// deleteRecord deletes the record id and its row; the next row (older)
// takes the selection.
func (v *historyView) deleteRecord(id uint64) {
	if err := v.src.Delete(id); err != nil && !errors.Is(err, history.ErrNotFound) {
		v.opts.onError(lang.L("delete the decision"), err)
		return
	}
	row := v.rows.index(id)
	v.notice = lang.L("Decision deleted.")
	if v.selected == id {
		v.selected = 0
		v.list.UnselectAll()
		v.detail.show(nil)
		v.deleteB.Disable()
	}
	if row < 0 {
		v.showStatus()
		return
	}
	offset := v.list.GetScrollOffset()
	v.rows.remove(row)
	if v.total > 0 {
		v.total--
	}
	if v.all > 0 {
		v.all--
	}
	v.list.Refresh()
	v.list.ScrollToOffset(offset)
	if n := len(v.rows.ids); n > 0 {
		v.list.Select(min(row, n-1))
		v.list.ScrollToOffset(offset)
	}
	v.showStatus()
}

// onClear deletes every decision once the user confirms.
func (v *historyView) onClear() {
	n := v.all
	if n < 0 {
		var err error
		if n, err = v.src.CountQuery(history.Query{}); err != nil {
			v.opts.onError(lang.L("count the decisions"), err)
			return
		}
	}
	msg := lang.N("Delete all {{.Count}} decisions in the history? This cannot be undone.", n, lang.Count(n))
	if v.q != (history.Query{}) {
		msg = lang.N("Delete all {{.Count}} decisions in the history, not only those the filters show? This cannot be undone.", n, lang.Count(n))
	}
	v.opts.confirm(lang.L("Clear the history?"), msg, lang.L("Clear all"), func(ok bool) {
		if ok {
			v.clearAll()
		}
	})
}

// clearAll deletes every record, in a job, and shows the empty history.
func (v *historyView) clearAll() {
	v.gen++ // rows and pages under way are void
	v.busy = lang.L("Clearing…")
	v.clearB.Disable()
	v.showStatus()
	v.opts.spawn(func() {
		err := v.src.Clear()
		fyne.Do(func() {
			v.busy = ""
			if err != nil {
				v.opts.onError(lang.L("clear the history"), err)
			} else {
				v.notice = lang.L("History cleared.")
				v.selected = 0
				v.detail.show(nil)
				v.deleteB.Disable()
			}
			v.reload()
		})
	})
}

// onExport asks where to export the rows the filters select, then writes
// them there in a job: JSON Lines, or CSV for a .csv file.
func (v *historyView) onExport() {
	q := v.q
	name := "elicitray-history-" + v.opts.now().Format("2006-01-02") + ".jsonl"
	v.opts.chooseExport(name, func(w io.WriteCloser, name string) {
		format := history.FormatJSONL
		if strings.EqualFold(filepath.Ext(name), ".csv") {
			format = history.FormatCSV
		}
		v.exporting = true
		v.notice = lang.L("Exporting…")
		v.showStatus()
		v.opts.spawn(func() {
			n, err := v.src.Export(w, format, q)
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			fyne.Do(func() {
				v.exporting = false
				if err != nil && !errors.Is(err, history.ErrUnreadable) {
					v.notice = ""
					v.showStatus()
					v.opts.onError(lang.L("export the history to {{.File}}", map[string]any{"File": name}), err)
					return
				}
				v.notice = lang.N("Exported {{.Count}} decisions to {{.File}}.", n, map[string]any{"Count": lang.Thousands(n), "File": name})
				if err != nil {
					// Every record but those it could not read: said, with
					// the rows that show which (history.Record.Unreadable).
					v.notice += " " + lang.L("Those marked unreadable could not be read and were left out.")
				}
				v.showStatus()
			})
		})
	})
}

// showStatus says how many decisions there are, what is under way and
// what just happened, and enables the buttons that can act.
func (v *historyView) showStatus() {
	var parts []string
	switch {
	case v.queryErr != "":
		parts = append(parts, v.queryErr)
	case v.busy != "":
		parts = append(parts, v.busy)
	case v.total < 0 && v.q != (history.Query{}):
		parts = append(parts, lang.L("Searching…"))
	case v.total < 0:
		parts = append(parts, lang.N("{{.Count}} decisions loaded", len(v.rows.ids), lang.Count(len(v.rows.ids))))
	case v.q == (history.Query{}) && v.total == 0:
		parts = append(parts, lang.L("No decisions recorded yet."))
	case v.q == (history.Query{}):
		parts = append(parts, lang.N("{{.Count}} decisions", v.total, lang.Count(v.total)))
	case v.total == 0:
		parts = append(parts, lang.L("No decisions match these filters."))
	default:
		s := lang.N("{{.Count}} decisions match", v.total, lang.Count(v.total))
		if v.all >= 0 {
			// The verb agrees with the matches; the count after "of" is of all.
			s = lang.N("{{.Count}} of {{.All}} match", v.total, map[string]any{"Count": lang.Thousands(v.total),
				"All": lang.N("{{.Count}} decisions", v.all, lang.Count(v.all))})
		}
		parts = append(parts, s)
	}
	if v.notice != "" {
		parts = append(parts, v.notice)
	}
	v.status.SetText(strings.Join(parts, " — "))
	if v.all > 0 || (v.all < 0 && len(v.rows.ids) > 0) {
		v.clearB.Enable()
	} else {
		v.clearB.Disable()
	}
	if len(v.rows.ids) > 0 && !v.exporting {
		v.exportB.Enable()
	} else {
		v.exportB.Disable()
	}
}
