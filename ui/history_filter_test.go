package ui

import (
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/history"
)

// lastQuery is the last List query, without its paging.
func (h *historyHarness) lastQuery() history.Query {
	h.t.Helper()
	if len(h.src.lists) == 0 {
		h.t.Fatal("no List call")
	}
	q := h.src.lists[len(h.src.lists)-1]
	q.Limit = 0
	return q
}

func TestHistoryFiltersBuildTheQuery(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.Local) }
	// The harness's clock: 2026-01-31 12:00 UTC.
	today := time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC).Local()
	midnight := day(today.Year(), today.Month(), today.Day())
	for _, tt := range []struct {
		name       string
		set        func(f *historyFilters)
		want       history.Query
		wantRows   []string // servers of the rows, in order
		wantStatus string
		// unset: the filters are all back to selecting everything (the
		// server filter's text empty, showing its placeholder).
		unset bool
	}{
		{
			name:       "text",
			set:        func(f *historyFilters) { test.Type(f.text, "EXPORT") },
			want:       history.Query{Text: "EXPORT"},
			wantRows:   []string{"everything"},
			wantStatus: "1 of 3 decisions matches",
		},
		{
			name:       "server",
			set:        func(f *historyFilters) { f.server.SetText("everything") },
			want:       history.Query{Server: "everything"},
			wantRows:   []string{"everything", "everything"},
			wantStatus: "2 of 3 decisions match",
		},
		{
			name:       "server typed in another case",
			set:        func(f *historyFilters) { test.Type(f.server, "Everything") },
			want:       history.Query{Server: "everything"},
			wantRows:   []string{"everything", "everything"},
			wantStatus: "2 of 3 decisions match",
		},
		{
			name: "any server chosen after one",
			set: func(f *historyFilters) {
				f.server.SetText("everything")
				f.server.SetText(anyServer) // the drop-down's first choice
			},
			want:     history.Query{},
			wantRows: []string{"github", "everything", "everything"},
			unset:    true,
		},
		{
			name:       "action",
			set:        func(f *historyFilters) { f.action.SetSelected("decline") },
			want:       history.Query{Action: "decline"},
			wantRows:   []string{"everything"},
			wantStatus: "1 of 3 decisions matches",
		},
		{
			name:       "decided by",
			set:        func(f *historyFilters) { f.decided.SetSelected("timeout") },
			want:       history.Query{DecidedBy: "timeout"},
			wantRows:   []string{"everything"},
			wantStatus: "1 of 3 decisions matches",
		},
		{
			name:       "kind",
			set:        func(f *historyFilters) { f.kind.SetSelected("form") },
			want:       history.Query{Mode: "form"},
			wantRows:   []string{"github", "everything", "everything"},
			wantStatus: "3 of 3 decisions match",
		},
		{
			name:       "kind none",
			set:        func(f *historyFilters) { f.kind.SetSelected("tool call") },
			want:       history.Query{Mode: "tool call"},
			wantStatus: "No decisions match these filters.",
		},
		{
			name: "several",
			set: func(f *historyFilters) {
				f.server.SetText("everything")
				f.action.SetSelected("cancel")
				test.Type(f.text, "colour")
			},
			want:       history.Query{Server: "everything", Action: "cancel", Text: "colour"},
			wantRows:   []string{"everything"},
			wantStatus: "1 of 3 decisions matches",
		},
		{
			name:       "today",
			set:        func(f *historyFilters) { f.date.SetSelected(dateToday) },
			want:       history.Query{Since: midnight},
			wantRows:   []string{"github", "everything", "everything"},
			wantStatus: "3 of 3 decisions match",
		},
		{
			name:     "last 7 days",
			set:      func(f *historyFilters) { f.date.SetSelected(dateWeek) },
			want:     history.Query{Since: midnight.AddDate(0, 0, -6)},
			wantRows: []string{"github", "everything", "everything"},
		},
		{
			name:     "last 30 days",
			set:      func(f *historyFilters) { f.date.SetSelected(dateMonth) },
			want:     history.Query{Since: midnight.AddDate(0, 0, -29)},
			wantRows: []string{"github", "everything", "everything"},
		},
		{
			name: "between dates, both days whole",
			set: func(f *historyFilters) {
				f.date.SetSelected(dateBetween)
				test.Type(f.from, "2026-01-01")
				test.Type(f.to, "2026-01-30")
			},
			want:       history.Query{Since: day(2026, 1, 1), Until: day(2026, 1, 31)},
			wantRows:   nil,
			wantStatus: "No decisions match these filters.",
		},
		{
			name: "from a date on",
			set: func(f *historyFilters) {
				f.date.SetSelected(dateBetween)
				test.Type(f.from, "2026-01-31")
			},
			want:     history.Query{Since: day(2026, 1, 31)},
			wantRows: []string{"github", "everything", "everything"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
			h.now = today
			tt.set(h.v.filters)
			h.run()
			if diff := cmp.Diff(tt.want, h.lastQuery()); diff != "" {
				t.Errorf("query mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRows, h.column(1)); diff != "" {
				t.Errorf("rows mismatch (-want +got):\n%s", diff)
			}
			if tt.wantStatus != "" && h.v.status.Text != tt.wantStatus {
				t.Errorf("status = %q, want %q", h.v.status.Text, tt.wantStatus)
			}
			if tt.unset {
				if h.v.filters.server.Text != "" || !h.v.filters.clear.Disabled() {
					t.Errorf("no filter should be left: server filter %q, Clear filters enabled %v", h.v.filters.server.Text, !h.v.filters.clear.Disabled())
				}
				return
			}
			if h.v.filters.clear.Disabled() {
				t.Error("Clear filters disabled with a filter set")
			}

			test.Tap(h.v.filters.clear)
			h.run()
			if diff := cmp.Diff(history.Query{}, h.lastQuery()); diff != "" {
				t.Errorf("query after Clear filters mismatch (-want +got):\n%s", diff)
			}
			if n := len(h.rows()); n != 3 {
				t.Errorf("%d rows after Clear filters, want 3", n)
			}
			if !h.v.filters.clear.Disabled() {
				t.Error("Clear filters enabled with no filter set")
			}
			h.noErrors()
		})
	}
}

func TestHistoryBadDatesSayHowToWriteThem(t *testing.T) {
	for _, tt := range []struct {
		from, to string
		want     string
		rows     int // what the last readable dates selected
	}{
		{"31/01/2026", "", "Write dates as YYYY-MM-DD.", 3},
		{"", "2026-02-30", "Write dates as YYYY-MM-DD.", 3},
		{"2026-02-01", "2026-01-01", "The end date is before the start date.", 0}, // from February on
	} {
		t.Run(tt.from+"_"+tt.to, func(t *testing.T) {
			h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
			f := h.v.filters
			f.date.SetSelected(dateBetween)
			h.run()
			lists := len(h.src.lists)
			test.Type(f.from, tt.from)
			test.Type(f.to, tt.to)
			h.run()
			if h.v.status.Text != tt.want {
				t.Errorf("status = %q, want %q", h.v.status.Text, tt.want)
			}
			for _, q := range h.src.lists[lists:] {
				if !q.Since.IsZero() && !q.Until.IsZero() && q.Until.Before(q.Since) {
					t.Errorf("listed with an empty range %+v", q)
				}
			}
			// The rows stay until the dates can be read.
			if n := len(h.rows()); n != tt.rows {
				t.Errorf("%d rows with unreadable dates, want the %d shown before", n, tt.rows)
			}
		})
	}
}

func TestHistoryDatesShowOnlyBetween(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	f := h.v.filters
	if f.between.Visible() {
		t.Error("date entries shown for All time")
	}
	f.date.SetSelected(dateBetween)
	if !f.between.Visible() {
		t.Error("date entries hidden for Between dates…")
	}
	f.date.SetSelected(dateWeek)
	if f.between.Visible() {
		t.Error("date entries shown for Last 7 days")
	}
}

func TestHistorySearchRunsAsAJobOneAtATime(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	lists := len(h.src.lists)
	test.Type(h.v.filters.text, "col")
	if got := h.v.status.Text; got != "Searching…" {
		t.Errorf("status while searching = %q", got)
	}
	if got := len(h.src.lists); got != lists {
		t.Errorf("%d List calls on the Fyne goroutine while typing", got-lists)
	}
	h.run()
	var texts []string
	for _, q := range h.src.lists[lists:] {
		texts = append(texts, q.Text)
	}
	// The first key's search ran; the next two waited and made one.
	if diff := cmp.Diff([]string{"c", "col"}, texts); diff != "" {
		t.Errorf("searches mismatch (-want +got):\n%s", diff)
	}
	if got := h.column(1); !slices.Equal(got, []string{"everything"}) {
		t.Errorf("rows %q", got)
	}
	if got := h.v.status.Text; got != "1 of 3 decisions matches" {
		t.Errorf("status = %q", got)
	}
}

func TestHistoryServerChoicesComeFromTheRows(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	if diff := cmp.Diff([]string{"everything", "github"}, h.v.filters.servers); diff != "" {
		t.Errorf("server choices mismatch (-want +got):\n%s", diff)
	}
}

func TestHistoryServerChoicesFromTheSource(t *testing.T) {
	src := &listingHistory{fakeHistory: newFakeHistory(sampleRecords()...), servers: []string{"zeta", "github", "everything"}}
	h := &historyHarness{t: t, src: src.fakeHistory, now: t0}
	h.open(src)
	if diff := cmp.Diff([]string{"everything", "github", "zeta"}, h.v.filters.servers); diff != "" {
		t.Errorf("server choices mismatch (-want +got):\n%s", diff)
	}
}

// listingHistory is a fake that also lists its servers.
type listingHistory struct {
	*fakeHistory
	servers []string
}

func (l *listingHistory) Servers() ([]string, error) { return l.servers, nil }
