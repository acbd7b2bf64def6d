package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/lang"
)

// minMessageWidth is the least width of the message column; the window's
// width beyond the other columns goes to it.
const minMessageWidth = 140

// minColumnWidth is the least width a column can be dragged to: room for
// an ellipsis and a letter or two.
const minColumnWidth = 40

// columnWidths are the widths of one table's columns. The user changes
// them by dragging the handles on the header's column edges (issue 9: Tool
// and Message were cut with no way to see more). The message column takes
// the width the others leave, and at least its own: minMessageWidth until
// the user drags it wider. Columns wider together than the table scroll
// sideways (historyView.tableScroll). The header and every row of a table
// share one; the Fyne goroutine reads and changes it.
type columnWidths struct {
	w       []float32 // by column; for the message column, its least width
	msg     int       // the message column's index
	dragged []bool    // by column: the user set its width (fit leaves it)
}

// fitColumns are the columns that grow to the widest text of the rows
// loaded (fit), up to maxFitWidth, by title, with the name each row
// shows: server and tool names, which are short but often longer than the
// column's first width ("pick_environment").
var fitColumns = map[string]func(*history.Record) string{
	"Server": func(r *history.Record) string { return r.Server },
	"Tool":   func(r *history.Record) string { return r.Tool },
}

// maxFitWidth is the widest fit makes a column (about 20 letters); wider
// text is cut with an ellipsis, and the detail pane shows it whole. The
// message column, which takes the rest, already has little room beside the
// detail pane: fit must not take much more.
const maxFitWidth = 180

// fit widens each of fitColumns the user did not drag to the widest name
// of recs as its cell shows it (nameCell), and reports whether any grew.
// Columns only grow, so that rows do not jump as pages load.
func (c *columnWidths) fit(recs []history.Record) bool {
	grew := false
	for i, col := range historyColumns {
		name, ok := fitColumns[col.title]
		if !ok || c.dragged[i] {
			continue
		}
		for j := range recs {
			w := fyne.MeasureText(nameCell(name(&recs[j])), theme.TextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding()
			if w = min(w, maxFitWidth); w > c.w[i] {
				c.w[i], grew = w, true
			}
		}
	}
	return grew
}

// newColumnWidths is the columns' widths as historyColumns says.
func newColumnWidths() *columnWidths {
	c := &columnWidths{w: make([]float32, len(historyColumns)), dragged: make([]bool, len(historyColumns))}
	for i, col := range historyColumns {
		c.w[i] = col.width
		switch {
		case col.width == 0:
			c.msg, c.w[i] = i, minMessageWidth
		case col.title == "Action":
			c.w[i] = max(col.width, widestAction())
		}
	}
	return c
}

// widestAction is how wide the Action column must be for its longest text
// in the user's language ("decline, unconfirmed"), so that the mark of
// an answer its server never got is read in the list, not cut off.
func widestAction() float32 {
	w := float32(0)
	for _, action := range []string{actionAccept, actionDecline, actionCancel} {
		for _, delivery := range []string{history.DeliveryPending, "not delivered"} {
			text := actionText(&history.Record{Action: action, Delivery: delivery})
			w = max(w, fyne.MeasureText(text, theme.TextSize(), fyne.TextStyle{}).Width)
		}
	}
	return w + 2*theme.InnerPadding()
}

// widths is every column's width in a table total wide.
func (c *columnWidths) widths(total float32) []float32 {
	others := float32(0)
	for i, w := range c.w {
		if i != c.msg {
			others += w
		}
	}
	out := append([]float32(nil), c.w...)
	out[c.msg] = max(total-others, c.w[c.msg])
	return out
}

// set makes column i w wide, or its least width.
func (c *columnWidths) set(i int, w float32) {
	least := float32(minColumnWidth)
	if i == c.msg {
		least = minMessageWidth
	}
	c.w[i] = max(w, least)
	c.dragged[i] = true
}

// columnsLayout places one object per history column, left to right, at
// the columns' widths.
type columnsLayout struct{ cols *columnWidths }

func (l columnsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	x := float32(0)
	for i, w := range l.cols.widths(size.Width) {
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
	return fyne.NewSize(l.cols.total(), h)
}

// total is how wide the columns are together, the message at its least.
func (c *columnWidths) total() float32 {
	w := float32(0)
	for _, cw := range c.widths(0) {
		w += cw
	}
	return w
}

// historyList is the table: a list of historyRows that deletes the
// selected decision (after asking) on the Delete key and hands Escape to
// its window. Up and Down move, Space selects, as in any Fyne list.
type historyList struct {
	widget.List
	onDelete func()
	keys     *windowKeys
}

func newHistoryList(length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject), onDelete func(), keys *windowKeys) *historyList {
	l := &historyList{onDelete: onDelete, keys: keys}
	l.Length = length
	l.CreateItem = create
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

// historyHeader is the row of column titles above the table, with a
// handle on the right edge of each column but the last that the user drags
// to make the column wider or narrower.
type historyHeader struct {
	cols    *columnWidths
	titles  []*widget.Label
	handles []*columnHandle
	box     *fyne.Container
	// resized is called after a drag moved a column's edge.
	resized func()
}

// handleWidth is how wide the strip is that takes a drag on a column's
// edge.
const handleWidth = 10

func newHistoryHeader(cols *columnWidths, resized func()) *historyHeader {
	h := &historyHeader{cols: cols, resized: resized}
	var objs []fyne.CanvasObject
	for _, c := range historyColumns {
		l := widget.NewLabelWithStyle(columnTitle(c.title), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		l.Truncation = fyne.TextTruncateEllipsis
		h.titles = append(h.titles, l)
		objs = append(objs, l)
	}
	for i := range len(historyColumns) - 1 {
		hd := newColumnHandle(h, i)
		h.handles = append(h.handles, hd)
		objs = append(objs, hd)
	}
	h.box = &fyne.Container{Layout: headerLayout{h}, Objects: objs}
	return h
}

// headerLayout places the titles in their columns and each handle over
// the edge after its column.
type headerLayout struct{ h *historyHeader }

func (l headerLayout) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	x := float32(0)
	for i, w := range l.h.cols.widths(size.Width) {
		l.h.titles[i].Move(fyne.NewPos(x, 0))
		l.h.titles[i].Resize(fyne.NewSize(w, size.Height))
		x += w
		if i < len(l.h.handles) {
			l.h.handles[i].Move(fyne.NewPos(x-handleWidth/2, 0))
			l.h.handles[i].Resize(fyne.NewSize(handleWidth, size.Height))
		}
	}
}

func (l headerLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	objs := make([]fyne.CanvasObject, len(l.h.titles))
	for i, t := range l.h.titles {
		objs[i] = t
	}
	return columnsLayout{l.h.cols}.MinSize(objs)
}

// columnHandle is the drag handle on the right edge of column col: a thin
// line, with the resize cursor over it.
type columnHandle struct {
	widget.BaseWidget
	header *historyHeader
	col    int

	// While a drag lasts: the column's width when it began, and how far
	// the pointer went since.
	dragging     bool
	start, moved float32
}

func newColumnHandle(h *historyHeader, col int) *columnHandle {
	hd := &columnHandle{header: h, col: col}
	hd.ExtendBaseWidget(hd)
	return hd
}

// Cursor shows that the edge can be dragged sideways.
func (hd *columnHandle) Cursor() desktop.Cursor { return desktop.HResizeCursor }

// Dragged moves the column's edge with the pointer.
func (hd *columnHandle) Dragged(ev *fyne.DragEvent) {
	cols := hd.header.cols
	if !hd.dragging {
		// From the width on screen: the message column's may be more
		// than its least.
		hd.dragging = true
		hd.start, hd.moved = cols.widths(hd.header.box.Size().Width)[hd.col], 0
	}
	hd.moved += ev.Dragged.DX
	cols.set(hd.col, hd.start+hd.moved)
	hd.header.box.Refresh()
	if hd.header.resized != nil {
		hd.header.resized()
	}
}

// DragEnd ends the drag.
func (hd *columnHandle) DragEnd() { hd.dragging = false }

func (hd *columnHandle) CreateRenderer() fyne.WidgetRenderer {
	line := canvas.NewRectangle(theme.Color(theme.ColorNameSeparator))
	return &handleRenderer{line: line}
}

// handleRenderer draws a handle as a line down its middle, inside the
// padding.
type handleRenderer struct{ line *canvas.Rectangle }

func (r *handleRenderer) Layout(size fyne.Size) {
	pad := theme.Padding()
	r.line.Move(fyne.NewPos(size.Width/2-0.5, pad))
	r.line.Resize(fyne.NewSize(1, max(size.Height-2*pad, 0)))
}

func (r *handleRenderer) MinSize() fyne.Size { return fyne.NewSize(handleWidth, 0) }

func (r *handleRenderer) Refresh() {
	r.line.FillColor = theme.Color(theme.ColorNameSeparator)
	r.line.Refresh()
}

func (r *handleRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.line} }

func (r *handleRenderer) Destroy() {}

// historyRow is one row of the table: a label per column.
type historyRow struct {
	widget.BaseWidget
	cells []*bidiLabel
	box   *fyne.Container
}

// newHistoryRow is a row with the columns' widths as historyColumns says.
func newHistoryRow() *historyRow { return newHistoryRowIn(newColumnWidths()) }

// newHistoryRowIn is a row whose columns are cols wide.
func newHistoryRowIn(cols *columnWidths) *historyRow {
	r := &historyRow{}
	objs := make([]fyne.CanvasObject, len(historyColumns))
	for i := range historyColumns {
		l := newBidiLabel("", false)
		r.cells = append(r.cells, l)
		objs[i] = l
	}
	r.box = &fyne.Container{Layout: columnsLayout{cols}, Objects: objs}
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
		switch {
		case historyColumns[i].title == "Action" && rec.Unreadable != "":
			imp = widget.DangerImportance
		case historyColumns[i].title == "Action":
			imp = actionImportance(rec.Action)
		}
		if c.logical != text || c.Importance != imp {
			c.Importance = imp
			c.SetText(text)
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
		if c.logical != "" || c.Importance != widget.MediumImportance {
			c.Importance = widget.MediumImportance
			c.SetText("")
		}
	}
}

// rowTexts is what a row shows for rec, column by column: server text made
// visible and kept to one line (the detail pane shows all of it).
func rowTexts(rec *history.Record) []string {
	if rec.Unreadable != "" {
		return []string{formatTime(rec.Time), nameCell(rec.Server), "", lang.L(unreadableRow), lang.L("unreadable"), "", ""}
	}
	msg, _ := elicit.Visible(chars.Bytes(rec.Message, 4096))
	return []string{
		formatTime(rec.Time),
		nameCell(rec.Server),
		nameCell(rec.Tool),
		// A row shows one line of a message that may be a megabyte long,
		// and is drawn at every scroll: only its start is looked at.
		firstLine(msg, 200),
		actionText(rec),
		recordTerm(rec.DecidedBy),
		answeredIn(rec),
	}
}

// unreadableRow is the message cell of a record that cannot be read
// (history.Record.Unreadable), and unreadableDetail what the detail pane
// says of it.
const (
	unreadableRow    = "Cannot be read: the history file is damaged here."
	unreadableDetail = "This decision cannot be read: the history file is damaged where it is kept. The other decisions are not affected. Delete removes it; `elicitray history verify` checks the whole file."
)

// nameCell is a server's or a tool's name as its row's cell shows it.
func nameCell(name string) string {
	name, _ = elicit.Visible(name)
	return chars.Cut(oneLine(name), 200)
}

// answeredIn is a row's time to answer: "" for a decision no person made.
func answeredIn(rec *history.Record) string {
	if d, ok := rec.AnsweredIn(); ok {
		return formatElapsed(d)
	}
	return ""
}

// actionText is a record's action as its row shows it: marked when the
// server did not get it, or not for sure (Record.Delivery).
func actionText(rec *history.Record) string {
	action := map[string]any{"Action": recordTerm(rec.Action)}
	switch {
	case rec.Delivered():
		return recordTerm(rec.Action)
	case rec.Delivery == history.DeliveryPending:
		return lang.L("{{.Action}}, unconfirmed", action)
	}
	return lang.L("{{.Action}}, unsent", action)
}

// deliveryText says whether the server got a record's answer, for the
// detail pane.
func deliveryText(rec *history.Record) string {
	switch {
	case rec.Delivered():
		return lang.L("yes")
	case rec.Delivery == history.DeliveryPending:
		return lang.L("not confirmed: sent to the wrapper, which has not said it wrote the answer to the server")
	}
	var c textCleaner
	return lang.L("no: {{.Why}}", map[string]any{"Why": recordReason(c.clean(rec.Delivery))})
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

// columnTitle is a column's title (historyColumns) in the user's language.
func columnTitle(title string) string {
	switch title {
	case "Time":
		return lang.L("Time")
	case "Server":
		return lang.L("Server")
	case "Tool":
		return lang.L("Tool")
	case "Message":
		return lang.L("Message")
	case "Action":
		return lang.L("Action")
	case "Decided by":
		return lang.L("Decided by")
	case "Answered in":
		return lang.L("Answered in")
	}
	return title
}

// recordTerm is a history record's action, decider or kind (accept, user,
// url) as the window shows it, in the user's language; the record, the
// filters' query and the command line keep the terms themselves.
func recordTerm(term string) string {
	switch term {
	case "form":
		return lang.L("form")
	case "accept":
		return lang.L("accept")
	case "decline":
		return lang.L("decline")
	case "cancel":
		return lang.L("cancel")
	case "error":
		return lang.L("error")
	case "forwarded":
		return lang.L("forwarded")
	case "user":
		return lang.L("user")
	case "rule":
		return lang.L("rule")
	case "timeout":
		return lang.L("timeout")
	case "rate-limit":
		return lang.L("rate-limit")
	case "paused":
		return lang.L("paused")
	case "muted":
		return lang.L("muted")
	case "server-cancelled":
		return lang.L("server-cancelled")
	case "host-cancelled":
		return lang.L("host-cancelled")
	case "no-display":
		return lang.L("no-display")
	case "host":
		return lang.L("host")
	case "command-line":
		return lang.L("command-line")
	case "url":
		return lang.L("url")
	case "tool call":
		return lang.L("tool call")
	case "tool change":
		return lang.L("tool change")
	}
	return term
}
