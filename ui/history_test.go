package ui

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/lang"
)

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
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string","enum":["Red","Green"],"default":"Green"}}}`),
			Action:          "decline", DecidedBy: "user", Elapsed: 65 * time.Second,
		},
		{
			ID: 1, Time: t0, Server: "everything", Mode: "form", Message: "Pick a colour",
			Action: "cancel", DecidedBy: "timeout", Reason: "no answer within 10 min",
			Elapsed: 10 * time.Minute,
		},
	}
}

// confirmCall is a question the window asked through its confirm seam.
type confirmCall struct {
	title, message, ok string
	done               func(bool)
}

// historyHarness is a history view on a 1240×680 test window whose jobs
// wait in a queue until run, so that a test sees the window between a
// search starting and its result, and nothing runs on another goroutine.
type historyHarness struct {
	t        *testing.T
	v        *historyView
	w        fyne.Window
	src      *fakeHistory
	jobs     []func()
	errs     []string
	confirms []confirmCall
	// export answers the save dialog: nil cancels it.
	export func(suggested string) (io.WriteCloser, string)
	now    time.Time
}

func newHistoryHarness(t *testing.T, src *fakeHistory) *historyHarness {
	t.Helper()
	h := &historyHarness{t: t, src: src, now: t0.Add(3 * time.Hour)}
	h.open(src)
	return h
}

// open shows the history window over src, its first page loaded.
func (h *historyHarness) open(src HistorySource) {
	h.t.Helper()
	test.NewTempApp(h.t)
	h.v = newHistoryView(src, h.options())
	h.w = test.NewTempWindow(h.t, h.v.content)
	h.w.Resize(fyne.NewSize(1240, 680))
	h.v.reload()
	h.run()
}

func (h *historyHarness) options() historyOptions {
	return historyOptions{
		onError: func(doing string, err error) { h.errs = append(h.errs, doing+": "+err.Error()) },
		spawn:   func(f func()) { h.jobs = append(h.jobs, f) },
		confirm: func(title, message, ok string, done func(bool)) {
			h.confirms = append(h.confirms, confirmCall{title, message, ok, done})
		},
		chooseExport: func(suggested string, done func(io.WriteCloser, string)) {
			if h.export == nil {
				return
			}
			if w, name := h.export(suggested); w != nil {
				done(w, name)
			}
		},
		now: func() time.Time { return h.now },
	}
}

// run runs the queued jobs, and those they queue, in order.
func (h *historyHarness) run() {
	for len(h.jobs) > 0 {
		f := h.jobs[0]
		h.jobs = h.jobs[1:]
		f()
	}
}

// rows reads the table the way it renders: every row through the list's
// update function.
func (h *historyHarness) rows() [][]string {
	n := h.v.list.Length()
	out := make([][]string, n)
	for i := range n {
		r := newHistoryRow()
		h.v.list.UpdateItem(i, r)
		out[i] = r.texts()
	}
	return out
}

// column is one column of rows.
func (h *historyHarness) column(col int) []string {
	var out []string
	for _, r := range h.rows() {
		out = append(out, r[col])
	}
	return out
}

// noErrors fails the test if the window showed an error.
func (h *historyHarness) noErrors() {
	h.t.Helper()
	if len(h.errs) != 0 {
		h.t.Errorf("errors shown: %q", h.errs)
	}
}

// lastConfirm is the last question asked, failing if none was.
func (h *historyHarness) lastConfirm() confirmCall {
	h.t.Helper()
	if len(h.confirms) == 0 {
		h.t.Fatal("no confirmation asked")
	}
	return h.confirms[len(h.confirms)-1]
}

func TestHistoryListsNewestFirst(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	want := [][]string{
		{formatTime(t0.Add(2 * time.Hour)), "github", "create_repo", "Name for the new repository?", "accept", "user", "4.2 s"},
		{formatTime(t0.Add(time.Hour)), "everything", "", "Configure the export", "decline", "user", "1 min 5 s"},
		// No person answered: the 10 minutes the window waited are no
		// time to answer.
		{formatTime(t0), "everything", "", "Pick a colour", "cancel", "timeout", ""},
	}
	if diff := cmp.Diff(want, h.rows()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if got := h.v.status.Text; got != "3 decisions" {
		t.Errorf("status = %q", got)
	}
	if !h.v.deleteB.Disabled() || h.v.exportB.Disabled() || h.v.clearB.Disabled() {
		t.Errorf("Delete… enabled %v, Export… %v, Clear all… %v; want a selection first for Delete only",
			!h.v.deleteB.Disabled(), !h.v.exportB.Disabled(), !h.v.clearB.Disabled())
	}
	h.noErrors()
}

func TestHistoryEmpty(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory())
	if got := h.v.status.Text; got != "No decisions recorded yet." {
		t.Errorf("status = %q", got)
	}
	if !h.v.exportB.Disabled() || !h.v.clearB.Disabled() {
		t.Error("Export… or Clear all… enabled with nothing to act on")
	}
}

func TestHistoryRowsShowServerTextOnOneVisibleLine(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(history.Record{
		ID: 1, Time: t0, Server: "pay\u202Ements", Tool: "charge\tcard", Action: "accept",
		Message: "\n\n  Pay   invoice-\u202Efdp.exe  now?\nsecond line", DecidedBy: "user",
	}))
	got := h.rows()[0]
	if got[1] != "payments" || got[2] != "charge card" || got[3] != "Pay invoice-fdp.exe now?" {
		t.Errorf("row shows server %q, tool %q, message %q", got[1], got[2], got[3])
	}
}

func TestHistoryErrorsGoToTheHelper(t *testing.T) {
	src := newFakeHistory(sampleRecords()...)
	src.err = errors.New("history file is in use by another process")
	h := newHistoryHarness(t, src)
	want := []string{"read the history: history file is in use by another process"}
	if diff := cmp.Diff(want, h.errs); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if n := len(h.rows()); n != 0 {
		t.Errorf("%d rows shown after a failed read", n)
	}
}

func TestShowHistoryError(t *testing.T) {
	a := test.NewTempApp(t)
	var jobs []func()
	src := newFakeHistory()
	src.err = errors.New("boom")
	hw := showHistory(a, src, &historyOptions{spawn: func(f func()) { jobs = append(jobs, f) }})
	w := hw.Window()
	t.Cleanup(w.Close)
	for len(jobs) > 0 {
		f := jobs[0]
		jobs = jobs[1:]
		f()
	}
	var shown []string
	for _, o := range w.Canvas().Overlays().List() {
		shown = append(shown, visibleTexts(o)...)
	}
	if !contains(shown, "Could not read the history: boom.") {
		t.Errorf("error dialog not shown; overlay texts %q", shown)
	}
	if w.Title() != "elicitray — history" {
		t.Errorf("title %q", w.Title())
	}
}

func TestShowHistoryChangedShowsNewDecisions(t *testing.T) {
	a := test.NewTempApp(t)
	var jobs []func()
	run := func() {
		for len(jobs) > 0 {
			f := jobs[0]
			jobs = jobs[1:]
			f()
		}
	}
	src := newFakeHistory(sampleRecords()...)
	hw := showHistory(a, src, &historyOptions{spawn: func(f func()) { jobs = append(jobs, f) }})
	t.Cleanup(hw.Window().Close)
	run()
	if got := hw.view.list.Length(); got != 3 {
		t.Fatalf("%d rows, want 3", got)
	}
	src.add(history.Record{Time: t0.Add(4 * time.Hour), Server: "linear", Message: "Close the issue?", Action: "accept", DecidedBy: "user"})
	hw.Changed()
	run()
	if got := hw.view.list.Length(); got != 4 {
		t.Fatalf("%d rows after Changed, want 4", got)
	}
	r := newHistoryRow()
	hw.view.list.UpdateItem(0, r)
	if got := r.texts()[1]; got != "linear" {
		t.Errorf("first row is %q, want the new linear decision", got)
	}
	if got := hw.view.status.Text; got != "4 decisions" {
		t.Errorf("status = %q", got)
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
		{"tabs\tand   spaces", "tabs and spaces"},
		{strings.Repeat("x", 100), strings.Repeat("x", 79) + "…"},
		{strings.Repeat("数据库", 30), strings.Repeat("数据库", 26) + "数…"},
		{strings.Repeat("👩‍👩‍👧‍👦", 90), strings.Repeat("👩‍👩‍👧‍👦", 79) + "…"},
		{strings.Repeat("नमस्ते", 30), strings.Repeat("नमस्ते", 19) + "नमस्…"},
		{"\n\n", ""},
	} {
		if got := firstLine(tt.in, 80); got != tt.want {
			t.Errorf("firstLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12345, "12,345"},
		{1000000, "1,000,000"}, {-1234, "-1,234"},
	} {
		if got := lang.Thousands(tt.n); got != tt.want {
			t.Errorf("Thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
