package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
)

// minMessageWidth is the least width of the message column; the window's
// width beyond the other columns goes to it.
const minMessageWidth = 140

// columnsLayout places one object per history column, left to right, at
// the columns' widths; the message column stretches.
type columnsLayout struct{}

func (columnsLayout) widths(total float32) []float32 {
	fixed := float32(0)
	for _, c := range historyColumns {
		fixed += c.width
	}
	out := make([]float32, len(historyColumns))
	for i, c := range historyColumns {
		out[i] = c.width
		if c.width == 0 {
			out[i] = max(total-fixed, minMessageWidth)
		}
	}
	return out
}

func (l columnsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	x := float32(0)
	for i, w := range l.widths(size.Width) {
		if i >= len(objs) {
			break
		}
		objs[i].Move(fyne.NewPos(x, 0))
		objs[i].Resize(fyne.NewSize(w, size.Height))
		x += w
	}
}

func (l columnsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	w := float32(0)
	for _, c := range l.widths(0) {
		w += c
	}
	return fyne.NewSize(w, h)
}

// historyList is the table: a list of historyRows that deletes the
// selected decision (after asking) on the Delete key and hands Escape to
// its window. Up and Down move, Space selects, as in any Fyne list.
type historyList struct {
	widget.List
	onDelete func()
	keys     *windowKeys
}

func newHistoryList(length func() int, update func(widget.ListItemID, fyne.CanvasObject), onDelete func(), keys *windowKeys) *historyList {
	l := &historyList{onDelete: onDelete, keys: keys}
	l.Length = length
	l.CreateItem = func() fyne.CanvasObject { return newHistoryRow() }
	l.UpdateItem = update
	l.ExtendBaseWidget(l)
	return l
}

// TypedKey handles Delete and Escape; the list the other keys.
func (l *historyList) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyDelete:
		l.onDelete()
	case fyne.KeyEscape:
		l.keys.escape()
	default:
		l.List.TypedKey(ev)
	}
}

// newHistoryHeader is the row of column titles above the table.
func newHistoryHeader() fyne.CanvasObject {
	objs := make([]fyne.CanvasObject, len(historyColumns))
	for i, c := range historyColumns {
		objs[i] = boldLabel(c.title)
	}
	return inColumns(objs)
}

// inColumns lays objs out as the table's columns.
func inColumns(objs []fyne.CanvasObject) *fyne.Container {
	return &fyne.Container{Layout: columnsLayout{}, Objects: objs}
}

// historyRow is one row of the table: a label per column.
type historyRow struct {
	widget.BaseWidget
	cells []*widget.Label
	box   *fyne.Container
}

func newHistoryRow() *historyRow {
	r := &historyRow{}
	objs := make([]fyne.CanvasObject, len(historyColumns))
	for i := range historyColumns {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		r.cells = append(r.cells, l)
		objs[i] = l
	}
	r.box = inColumns(objs)
	r.ExtendBaseWidget(r)
	return r
}

func (r *historyRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(r.box)
}

// texts is what the row shows, column by column.
func (r *historyRow) texts() []string {
	out := make([]string, len(r.cells))
	for i, c := range r.cells {
		out[i] = c.Text
	}
	return out
}

// show fills the row with rec.
func (r *historyRow) show(rec history.Record) {
	for i, text := range rowTexts(&rec) {
		c := r.cells[i]
		imp := widget.MediumImportance
		if historyColumns[i].title == "Action" {
			imp = actionImportance(rec.Action)
		}
		if c.Text != text || c.Importance != imp {
			c.Importance = imp
			c.Text = text
			c.Refresh()
		}
	}
}

// loading shows a row whose record is being read.
func (r *historyRow) loading() {
	r.clear()
	r.cells[0].SetText("…")
}

// clear empties the row.
func (r *historyRow) clear() {
	for _, c := range r.cells {
		if c.Text != "" || c.Importance != widget.MediumImportance {
			c.Text = ""
			c.Importance = widget.MediumImportance
			c.Refresh()
		}
	}
}

// rowTexts is what a row shows for rec, column by column: server text made
// visible and kept to one line (the detail pane shows all of it).
func rowTexts(rec *history.Record) []string {
	vis := func(s string) string {
		s, _ = elicit.Visible(s)
		return s
	}
	return []string{
		formatTime(rec.Time),
		clip(oneLine(vis(rec.Server)), 200),
		clip(oneLine(vis(rec.Tool)), 200),
		firstLine(vis(head(rec.Message, 4096)), 200),
		rec.Action,
		rec.DecidedBy,
		formatElapsed(rec.Elapsed),
	}
}

// actionImportance colours an action: accept green, decline amber, error
// red, cancel and others plain.
func actionImportance(action string) widget.Importance {
	switch action {
	case actionAccept:
		return widget.SuccessImportance
	case actionDecline:
		return widget.WarningImportance
	case "error":
		return widget.DangerImportance
	}
	return widget.MediumImportance
}

// head is at most the first n bytes of s: a row shows one line of a
// message that may be a megabyte long, and is drawn at every scroll.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
