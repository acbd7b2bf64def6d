package ui

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/history"
)

// fakeHistory is a HistorySource over a slice kept newest first, filtering
// on Text the way history.Query documents it.
type fakeHistory struct {
	records []history.Record
	err     error
	queries []history.Query
}

func (f *fakeHistory) List(q history.Query) ([]history.Record, error) {
	f.queries = append(f.queries, q)
	if f.err != nil {
		return nil, f.err
	}
	var out []history.Record
	older := q.Before == 0
	for _, r := range f.records {
		if !older {
			older = r.ID == q.Before
			continue
		}
		text := strings.ToLower(r.Message + "\n" + r.Server + "\n" + r.Tool + "\n" + r.ServerInfo.Name)
		if q.Text != "" && !strings.Contains(text, strings.ToLower(q.Text)) {
			continue
		}
		out = append(out, r)
		if q.Limit > 0 && len(out) == q.Limit {
			break
		}
	}
	return out, nil
}

func (f *fakeHistory) Get(id uint64) (history.Record, error) {
	for _, r := range f.records {
		if r.ID == id {
			return r, nil
		}
	}
	return history.Record{}, errors.New("no such record")
}

var t0 = time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC)

func sampleRecords() []history.Record {
	return []history.Record{
		{
			ID: 3, Time: t0.Add(2 * time.Hour), Server: "github",
			ServerInfo: history.ServerInfo{Name: "github-mcp", Version: "1.2.0"},
			Tool:       "create_repo", Mode: "form",
			Message:         "Name for the new repository?\nIt will be private.",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Repository name"},"private":{"type":"boolean"}},"required":["name"]}`),
			Action:          "accept", Content: map[string]any{"name": "widgets", "private": true},
			DecidedBy: "user", Elapsed: 4200 * time.Millisecond,
		},
		{
			ID: 2, Time: t0.Add(time.Hour), Server: "everything",
			ServerInfo: history.ServerInfo{Name: "mcp-servers/everything", Version: "2.0.0"},
			Mode:       "form", Message: "Configure the export",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string","enum":["Red","Green"]}}}`),
			Action:          "decline", DecidedBy: "user", Elapsed: 65 * time.Second,
		},
		{
			ID: 1, Time: t0, Server: "everything", Mode: "form", Message: "Pick a colour",
			Action: "cancel", DecidedBy: "timeout", Reason: "no answer within 10 min",
			Elapsed: 10 * time.Minute,
		},
	}
}

func newHistoryHarness(t *testing.T, src *fakeHistory) (*historyView, *[]string) {
	t.Helper()
	test.NewTempApp(t)
	var errs []string
	v := newHistoryView(src, func(doing string, err error) { errs = append(errs, doing+": "+err.Error()) })
	w := test.NewTempWindow(t, v.content)
	w.Resize(w.Content().MinSize().AddWidthHeight(400, 300))
	v.onRefresh()
	return v, &errs
}

// rows reads the table the way it renders: every cell through its update
// function.
func rows(v *historyView) [][]string {
	n, cols := v.table.Length()
	out := make([][]string, n)
	for r := range n {
		for c := range cols {
			l := v.table.CreateCell().(*widget.Label)
			v.table.UpdateCell(widget.TableCellID{Row: r, Col: c}, l)
			out[r] = append(out[r], l.Text)
		}
	}
	return out
}

func TestHistoryListsNewestFirst(t *testing.T) {
	v, errs := newHistoryHarness(t, &fakeHistory{records: sampleRecords()})
	want := [][]string{
		{formatTime(t0.Add(2 * time.Hour)), "github", "create_repo", "Name for the new repository?", "accept", "user", "4.2 s"},
		{formatTime(t0.Add(time.Hour)), "everything", "", "Configure the export", "decline", "user", "1 min 5 s"},
		{formatTime(t0), "everything", "", "Pick a colour", "cancel", "timeout", "10 min 0 s"},
	}
	if diff := cmp.Diff(want, rows(v)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if got := v.status.Text; got != "3 decisions" {
		t.Errorf("status = %q", got)
	}
	if len(*errs) != 0 {
		t.Errorf("errors shown: %q", *errs)
	}
}

func TestHistoryFilter(t *testing.T) {
	for _, tt := range []struct {
		filter     string
		wantIDs    []string // servers of the rows, in order
		wantStatus string
	}{
		{"", []string{"github", "everything", "everything"}, "3 decisions"},
		{"github", []string{"github"}, "1 decision"},
		{"EXPORT", []string{"everything"}, "1 decision"},
		{"colour", []string{"everything"}, "1 decision"},
		{"nothing like it", nil, "No decisions match “nothing like it”."},
	} {
		t.Run(tt.filter, func(t *testing.T) {
			v, _ := newHistoryHarness(t, &fakeHistory{records: sampleRecords()})
			test.Type(v.filter, tt.filter)
			var got []string
			for _, r := range rows(v) {
				got = append(got, r[1])
			}
			if diff := cmp.Diff(tt.wantIDs, got); diff != "" {
				t.Errorf("rows mismatch (-want +got):\n%s", diff)
			}
			if v.status.Text != tt.wantStatus {
				t.Errorf("status = %q, want %q", v.status.Text, tt.wantStatus)
			}
		})
	}
}

func TestHistorySelectShowsDetails(t *testing.T) {
	v, errs := newHistoryHarness(t, &fakeHistory{records: sampleRecords()})
	if v.detail.form.Visible() {
		t.Error("details shown before any selection")
	}
	v.table.Select(widget.TableCellID{Row: 0, Col: 3})
	d := v.detail
	got := map[string]string{
		"server":  d.server.Text,
		"info":    d.info.Text,
		"tool":    d.tool.Text,
		"time":    d.time.Text,
		"message": d.message.Text,
		"fields":  d.fields.Text,
		"action":  d.action.Text,
		"content": d.answer.Text,
		"decided": d.decided.Text,
		"reason":  d.reason.Text,
		"elapsed": d.elapsed.Text,
	}
	want := map[string]string{
		"server":  "github",
		"info":    "github-mcp 1.2.0",
		"tool":    "create_repo",
		"time":    formatTime(t0.Add(2 * time.Hour)),
		"message": "Name for the new repository?\nIt will be private.",
		"fields":  "Repository name (name) *\nprivate",
		"action":  "accept",
		"content": "{\n  \"name\": \"widgets\",\n  \"private\": true\n}",
		"decided": "user",
		"reason":  "—",
		"elapsed": "4.2 s",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if !d.form.Visible() {
		t.Error("details not visible after selecting a row")
	}

	v.table.Select(widget.TableCellID{Row: 2, Col: 0})
	if d.reason.Text != "no answer within 10 min" || d.decided.Text != "timeout" || d.answer.Text != "—" {
		t.Errorf("third row shows reason %q, decided by %q, content %q", d.reason.Text, d.decided.Text, d.answer.Text)
	}
	if len(*errs) != 0 {
		t.Errorf("errors shown: %q", *errs)
	}
}

func TestHistoryRefreshShowsNewRecords(t *testing.T) {
	src := &fakeHistory{records: sampleRecords()[1:]}
	v, _ := newHistoryHarness(t, src)
	if n := len(rows(v)); n != 2 {
		t.Fatalf("%d rows, want 2", n)
	}
	src.records = sampleRecords()
	test.Tap(v.refresh)
	if got := rows(v)[0][1]; got != "github" {
		t.Errorf("first row after Refresh is %q, want the new github record", got)
	}
}

func TestHistoryOlderLoadsNextPage(t *testing.T) {
	src := &fakeHistory{}
	for i := historyPage + 5; i > 0; i-- {
		src.records = append(src.records, history.Record{ID: uint64(i), Time: t0.Add(time.Duration(i) * time.Second), Server: "s", Action: "cancel"})
	}
	v, _ := newHistoryHarness(t, src)
	if n := len(rows(v)); n != historyPage {
		t.Fatalf("%d rows on the first page, want %d", n, historyPage)
	}
	if v.older.Disabled() {
		t.Fatal("Older… disabled with more records to show")
	}
	test.Tap(v.older)
	if n := len(rows(v)); n != historyPage+5 {
		t.Errorf("%d rows after Older…, want %d", n, historyPage+5)
	}
	if !v.older.Disabled() {
		t.Error("Older… still enabled after the last page")
	}
	if got := src.queries[len(src.queries)-1].Before; got != 6 {
		t.Errorf("Older… asked for records before ID %d, want 6", got)
	}
}

func TestHistoryErrorsGoToTheHelper(t *testing.T) {
	src := &fakeHistory{err: errors.New("history file is in use by another process")}
	v, errs := newHistoryHarness(t, src)
	want := []string{"read the history: history file is in use by another process"}
	if diff := cmp.Diff(want, *errs); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if n := len(rows(v)); n != 0 {
		t.Errorf("%d rows shown after a failed read", n)
	}
}

func TestShowHistoryError(t *testing.T) {
	a := test.NewTempApp(t)
	w := ShowHistory(a, &fakeHistory{err: errors.New("boom")})
	t.Cleanup(w.Close)
	var shown []string
	for _, o := range w.Canvas().Overlays().List() {
		shown = append(shown, visibleTexts(o)...)
	}
	if !contains(shown, "Could not read the history: boom.") {
		t.Errorf("error dialog not shown; overlay texts %q", shown)
	}
}

func TestFormatElapsed(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "—"},
		{800 * time.Millisecond, "0.8 s"},
		{4200 * time.Millisecond, "4.2 s"},
		{12 * time.Second, "12 s"},
		{125 * time.Second, "2 min 5 s"},
		{63 * time.Minute, "1 h 3 min"},
	} {
		if got := formatElapsed(tt.d); got != tt.want {
			t.Errorf("formatElapsed(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{"one line", "one line"},
		{"\n  first\nsecond", "first"},
		{strings.Repeat("x", 100), strings.Repeat("x", 79) + "…"},
		{"\n\n", ""},
	} {
		if got := firstLine(tt.in, 80); got != tt.want {
			t.Errorf("firstLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
