package ui

import (
	"encoding/json"
	"fmt"
	"log"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
)

// HistorySource is where the history window reads decisions: the hub's
// history store, or a fake in tests.
type HistorySource interface {
	// List returns the records q selects, newest first.
	List(q history.Query) ([]history.Record, error)
	// Get returns one record by ID.
	Get(id uint64) (history.Record, error)
}

// historyPage is how many records the window loads at a time; "Older…"
// loads the next page.
const historyPage = 200

// ShowHistory opens the history window: the decisions newest first, a text
// filter, Refresh, and the details of the selected decision. It must be
// called on the Fyne goroutine; src is read on it too, so its methods must
// be quick (a local file). The returned window can be brought forward with
// RequestFocus instead of opening a second one.
func ShowHistory(a fyne.App, src HistorySource) fyne.Window {
	w := a.NewWindow("elicitray — history")
	v := newHistoryView(src, func(doing string, err error) { showError(w, doing, err) })
	w.SetContent(v.content)
	w.Resize(fyne.NewSize(1240, 680))
	w.CenterOnScreen()
	w.Show()
	v.onRefresh()
	w.Canvas().Focus(v.filter)
	return w
}

// showError tells the user, in one sentence in a dialog over w, that doing
// failed, and logs the detail. It is the only way ui shows errors.
func showError(w fyne.Window, doing string, err error) {
	log.Printf("ui: %s: %v", doing, err)
	dialog.ShowInformation("elicitray", sentence(fmt.Errorf("could not %s: %w", doing, err)), w)
}

// historyColumns are the table's columns, with their widths.
var historyColumns = []struct {
	title string
	width float32
}{
	{"Time", 172},
	{"Server", 95},
	{"Tool", 100},
	{"Message", 185},
	{"Action", 65},
	{"Decided by", 85},
	{"Answered in", 108},
}

// historyView is the content of the history window.
type historyView struct {
	src     HistorySource
	onError func(doing string, err error)

	records []history.Record
	more    bool // the last page was full: older records may exist

	filter   *widget.Entry
	refresh  *widget.Button
	older    *widget.Button
	status   *widget.Label
	table    *widget.Table
	detail   *historyDetail
	content  fyne.CanvasObject
	selected int // row shown in detail, -1 for none
}

func newHistoryView(src HistorySource, onError func(doing string, err error)) *historyView {
	v := &historyView{src: src, onError: onError, selected: -1}
	v.content = v.build()
	return v
}

func (v *historyView) build() fyne.CanvasObject {
	v.filter = widget.NewEntry()
	v.filter.PlaceHolder = "Filter: text in the message, server, tool or server name"
	v.filter.OnChanged = func(string) { v.onRefresh() }
	v.refresh = widget.NewButton("Refresh", v.onRefresh)
	v.older = widget.NewButton("Older…", v.onOlder)
	v.older.Disable()
	v.status = widget.NewLabel("")

	v.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(v.records), len(historyColumns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(v.cellText(id.Row, id.Col))
		},
	)
	v.table.ShowHeaderColumn = false
	v.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		if id.Row == -1 && id.Col >= 0 && id.Col < len(historyColumns) {
			l.SetText(historyColumns[id.Col].title)
			l.TextStyle.Bold = true
			l.Refresh()
		}
	}
	for i, c := range historyColumns {
		v.table.SetColumnWidth(i, c.width)
	}
	v.table.OnSelected = func(id widget.TableCellID) { v.onSelect(id.Row) }

	v.detail = newHistoryDetail()

	top := container.NewBorder(nil, nil, nil, v.refresh, v.filter)
	bottom := container.NewBorder(nil, nil, nil, v.older, v.status)
	list := container.NewBorder(top, bottom, nil, nil, v.table)
	split := container.NewHSplit(list, container.NewVScroll(v.detail.content))
	split.Offset = 0.67
	return split
}

// cellText is what the table shows in a cell.
func (v *historyView) cellText(row, col int) string {
	if row < 0 || row >= len(v.records) {
		return ""
	}
	r := &v.records[row]
	switch col {
	case 0:
		return formatTime(r.Time)
	case 1:
		return r.Server
	case 2:
		return r.Tool
	case 3:
		return firstLine(r.Message, 80)
	case 4:
		return r.Action
	case 5:
		return r.DecidedBy
	case 6:
		return formatElapsed(r.Elapsed)
	}
	return ""
}

// query is the Query for the first page under the current filter.
func (v *historyView) query() history.Query {
	return history.Query{Text: strings.TrimSpace(v.filter.Text), Limit: historyPage}
}

// onRefresh reloads the newest page under the current filter.
func (v *historyView) onRefresh() {
	rs, err := v.src.List(v.query())
	if err != nil {
		v.onError("read the history", err)
		return
	}
	v.records = rs
	v.more = len(rs) == historyPage
	v.showList()
}

// onOlder appends the next page of older records.
func (v *historyView) onOlder() {
	if len(v.records) == 0 {
		return
	}
	q := v.query()
	q.Before = v.records[len(v.records)-1].ID
	rs, err := v.src.List(q)
	if err != nil {
		v.onError("read older history", err)
		return
	}
	v.records = append(v.records, rs...)
	v.more = len(rs) == historyPage
	v.showList()
}

func (v *historyView) showList() {
	v.selected = -1
	v.table.UnselectAll()
	v.table.Refresh()
	v.detail.show(nil)
	if v.more {
		v.older.Enable()
	} else {
		v.older.Disable()
	}
	switch {
	case len(v.records) == 0 && v.filter.Text != "":
		v.status.SetText("No decisions match “" + strings.TrimSpace(v.filter.Text) + "”.")
	case len(v.records) == 0:
		v.status.SetText("No decisions recorded yet.")
	case len(v.records) == 1:
		v.status.SetText("1 decision")
	default:
		v.status.SetText(fmt.Sprintf("%d decisions", len(v.records)))
	}
}

// onSelect shows the record of row in the detail pane, read afresh.
func (v *historyView) onSelect(row int) {
	if row < 0 || row >= len(v.records) || row == v.selected {
		return
	}
	v.selected = row
	rec, err := v.src.Get(v.records[row].ID)
	if err != nil {
		v.onError("read this decision", err)
		return
	}
	v.detail.show(&rec)
}

// historyDetail is the pane showing one record.
type historyDetail struct {
	empty   *widget.Label
	form    *widget.Form
	server  *widget.Label
	info    *widget.Label
	tool    *widget.Label
	time    *widget.Label
	message *widget.Label
	fields  *widget.Label
	action  *widget.Label
	answer  *widget.Label
	decided *widget.Label
	reason  *widget.Label
	elapsed *widget.Label
	content fyne.CanvasObject
}

func newHistoryDetail() *historyDetail {
	d := &historyDetail{}
	wrapped := func() *widget.Label {
		l := widget.NewLabel("")
		l.Wrapping = fyne.TextWrapWord
		return l
	}
	d.empty = widget.NewLabel("Select a decision to see it here.")
	d.server = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.info, d.tool, d.time, d.message, d.fields = wrapped(), wrapped(), wrapped(), wrapped(), wrapped()
	d.action, d.decided, d.reason, d.elapsed = wrapped(), wrapped(), wrapped(), wrapped()
	d.answer = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	d.answer.Wrapping = fyne.TextWrapBreak
	d.form = widget.NewForm(
		widget.NewFormItem("Server", d.server),
		widget.NewFormItem("Calls itself", d.info),
		widget.NewFormItem("Tool", d.tool),
		widget.NewFormItem("Time", d.time),
		widget.NewFormItem("Message", d.message),
		widget.NewFormItem("Fields", d.fields),
		widget.NewFormItem("Action", d.action),
		widget.NewFormItem("Content", d.answer),
		widget.NewFormItem("Decided by", d.decided),
		widget.NewFormItem("Reason", d.reason),
		widget.NewFormItem("Time to answer", d.elapsed),
	)
	d.content = container.NewVBox(d.empty, d.form)
	d.show(nil)
	return d
}

// show fills the pane with r, or empties it for nil.
func (d *historyDetail) show(r *history.Record) {
	if r == nil {
		d.form.Hide()
		d.empty.Show()
		return
	}
	d.server.SetText(r.Server)
	d.info.SetText(serverInfoText(r.ServerInfo))
	d.tool.SetText(orDash(r.Tool))
	d.time.SetText(formatTime(r.Time))
	// Server text is untrusted: plain labels only.
	d.message.SetText(r.Message)
	d.fields.SetText(schemaFieldsText(r))
	d.action.SetText(r.Action)
	d.answer.SetText(contentText(r.Content))
	d.decided.SetText(r.DecidedBy)
	d.reason.SetText(orDash(r.Reason))
	d.elapsed.SetText(formatElapsed(r.Elapsed))
	d.empty.Hide()
	d.form.Show()
	d.form.Refresh()
}

// serverInfoText is what the server calls itself: "title (name) version".
func serverInfoText(si history.ServerInfo) string {
	var parts []string
	switch {
	case si.Title != "" && si.Name != "" && si.Title != si.Name:
		parts = append(parts, si.Title+" ("+si.Name+")")
	case si.Name != "":
		parts = append(parts, si.Name)
	case si.Title != "":
		parts = append(parts, si.Title)
	}
	if si.Version != "" {
		parts = append(parts, si.Version)
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, " ")
}

// schemaFieldsText lists the requested fields by label, one a line, with
// the property name when it differs and a * when required; the URL for URL
// mode.
func schemaFieldsText(r *history.Record) string {
	if r.Mode == "url" {
		return "URL: " + r.URL
	}
	if len(r.RequestedSchema) == 0 {
		return "—"
	}
	form, err := elicit.Parse(r.RequestedSchema)
	if err != nil {
		return sentence(fmt.Errorf("the requested schema could not be read: %w", err))
	}
	if len(form.Fields) == 0 {
		return "(no fields)"
	}
	lines := make([]string, 0, len(form.Fields))
	for _, f := range form.Fields {
		s := f.Label()
		if f.Title != "" && f.Title != f.Name {
			s += " (" + f.Name + ")"
		}
		if f.Required {
			s += " *"
		}
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n")
}

// contentText is the answer's content as indented JSON.
func contentText(c map[string]any) string {
	if c == nil {
		return "—"
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Sprint(c)
	}
	return string(b)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// formatTime shows t in local time to the second.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// formatElapsed shows a time to answer the way people say it: "0.8 s",
// "12 s", "2 min 5 s", "1 h 3 min".
func formatElapsed(d time.Duration) string {
	switch {
	case d <= 0:
		return "—"
	case d < 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%d min %d s", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%d h %d min", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// firstLine is the first non-empty line of s, cut to n runes with "…".
func firstLine(s string, n int) string {
	first := ""
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			first = line
			break
		}
	}
	rs := []rune(first)
	if len(rs) > n {
		return string(rs[:n-1]) + "…"
	}
	return first
}
