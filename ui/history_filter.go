package ui

import (
	"errors"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/lang"
)

// The choices of the filters; the first of each selects everything.
var (
	historyActions  = []string{"Any action", "accept", "decline", "cancel", "error", "forwarded"}
	historyDeciders = []string{"Decided by anyone", "user", "rule", "timeout", "rate-limit",
		"paused", "muted", "server-cancelled", "host-cancelled", "no-display", "host", "command-line", "error"}
	// historyKinds are the kinds of request (Record.Mode): elicitations of
	// either mode, guarded tool calls and tools' changed definitions.
	historyKinds = []string{"Any kind", "form", "url", "tool call", "tool change"}
)

// The date filter's choices, as historyDates shows them translated.
const (
	dateAll     = "All time"
	dateToday   = "Today"
	dateWeek    = "Last 7 days"
	dateMonth   = "Last 30 days"
	dateBetween = "Between dates…"
)

// dayLayout is how dates are typed in the date filter.
const dayLayout = "2006-01-02"

// historyDates are the date filter's choices, in the user's language.
func historyDates() []string {
	return []string{lang.L(dateAll), lang.L(dateToday), lang.L(dateWeek), lang.L(dateMonth), lang.L(dateBetween)}
}

// firstTranslated is a filter's choices as shown, in the user's language:
// first, which selects everything, then the history's own terms (accept,
// user, form) as the table shows them. A choice is read back by its index.
func firstTranslated(first string, choices []string) []string {
	shown := []string{first}
	for _, c := range choices[1:] {
		shown = append(shown, recordTerm(c))
	}
	return shown
}

// errDayFormat is the date filter's complaint about a date it cannot read.
func errDayFormat() error { return errors.New(lang.L("write dates as YYYY-MM-DD")) }

// historyFilters is the bar above the history table: free text, server,
// action, who decided, the kind of request, and dates.
type historyFilters struct {
	now     func() time.Time
	changed func()
	// relayout lays out again what holds the bar, whose height changed;
	// nil for nothing.
	relayout func()
	quiet    bool // set while clearing: one reload, not one per filter

	text    *closeEntry
	server  *closeSelectEntry
	servers []string // the server choices
	action  *closeSelect
	decided *closeSelect
	kind    *closeSelect
	date    *closeSelect
	from    *closeEntry
	to      *closeEntry
	between *fyne.Container // from and to, shown for dateBetween
	clear   *closeButton
	content *fyne.Container
}

// newHistoryFilters builds the bar; changed is called on the Fyne
// goroutine whenever a filter changes. Its widgets hand Escape and Ctrl+W
// to keys.
func newHistoryFilters(now func() time.Time, changed func(), keys *windowKeys) *historyFilters {
	// Quiet while built: setting the first choices is no change.
	f := &historyFilters{now: now, quiet: true}
	defer func() { f.quiet = false }()
	f.changed = func() {
		if !f.quiet {
			changed()
		}
	}
	f.text = newCloseEntry(keys)
	f.text.PlaceHolder = lang.L("Search messages, servers and tools")
	f.text.ActionItem = widget.NewIcon(theme.SearchIcon())
	f.text.OnChanged = func(string) { f.changed() }

	f.server = newCloseSelectEntry(keys, []string{lang.L(anyServer)})
	f.server.PlaceHolder = lang.L(anyServer)
	f.server.OnChanged = func(s string) {
		if s == lang.L(anyServer) {
			f.server.SetText("") // which is the change
			return
		}
		f.changed()
	}

	f.action = newCloseSelect(keys, firstTranslated(lang.L("Any action"), historyActions), func(string) { f.changed() })
	f.action.SetSelectedIndex(0)
	f.decided = newCloseSelect(keys, firstTranslated(lang.L("Decided by anyone"), historyDeciders), func(string) { f.changed() })
	f.decided.SetSelectedIndex(0)
	f.kind = newCloseSelect(keys, firstTranslated(lang.L("Any kind"), historyKinds), func(string) { f.changed() })
	f.kind.SetSelectedIndex(0)

	day := func(placeholder string) *closeEntry {
		e := newCloseEntry(keys)
		e.PlaceHolder = placeholder
		e.Validator = func(s string) error {
			_, err := parseDay(s)
			return err
		}
		e.OnChanged = func(string) { f.changed() }
		return e
	}
	f.from, f.to = day(lang.L("YYYY-MM-DD")), day(lang.L("YYYY-MM-DD"))
	f.between = container.NewHBox(
		widget.NewLabel(lang.L("From")), fixedWidth(f.from, 160),
		widget.NewLabel(lang.L("to")), fixedWidth(f.to, 160),
		widget.NewLabelWithStyle(lang.L("both days included; leave one empty for no limit"), fyne.TextAlignLeading, fyne.TextStyle{Italic: true}))
	f.between.Hide()
	f.date = newCloseSelect(keys, historyDates(), func(s string) {
		if s == lang.L(dateBetween) {
			f.between.Show()
		} else {
			f.between.Hide()
		}
		if f.relayout != nil {
			f.relayout()
		}
		f.changed()
	})
	f.date.SetSelected(lang.L(dateAll))

	f.clear = newCloseButton(keys, lang.L("Clear filters"), theme.ContentClearIcon(), f.onClear)
	f.clear.Disable()
	right := container.NewHBox(
		fixedWidth(f.server, 160),
		fixedWidth(f.action, 130),
		fixedWidth(f.decided, 180),
		fixedWidth(f.kind, 120),
		fixedWidth(f.date, 150),
		f.clear,
	)
	// The dates go on a line of their own, under the bar, when asked for.
	f.content = container.NewVBox(container.NewBorder(nil, nil, nil, right, f.text), f.between)
	return f
}

// query is the Query the filters select, or why they select nothing yet
// (a date that is not one).
func (f *historyFilters) query() (history.Query, error) {
	q := history.Query{
		Text:   strings.TrimSpace(f.text.Text),
		Server: f.serverName(),
	}
	if i := f.action.SelectedIndex(); i > 0 {
		q.Action = historyActions[i]
	}
	if i := f.decided.SelectedIndex(); i > 0 {
		q.DecidedBy = historyDeciders[i]
	}
	if i := f.kind.SelectedIndex(); i > 0 {
		q.Mode = historyKinds[i]
	}
	t := f.now().Local()
	today := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.Local)
	switch f.date.Selected {
	case lang.L(dateToday):
		q.Since = today
	case lang.L(dateWeek):
		q.Since = today.AddDate(0, 0, -6)
	case lang.L(dateMonth):
		q.Since = today.AddDate(0, 0, -29)
	case lang.L(dateBetween):
		from, err := parseDay(f.from.Text)
		if err != nil {
			return history.Query{}, err
		}
		to, err := parseDay(f.to.Text)
		if err != nil {
			return history.Query{}, err
		}
		if !from.IsZero() && !to.IsZero() && to.Before(from) {
			return history.Query{}, errors.New(lang.L("the end date is before the start date"))
		}
		q.Since = from
		if !to.IsZero() {
			q.Until = to.AddDate(0, 0, 1) // the whole last day
		}
	}
	return q, nil
}

// parseDay reads a date typed as YYYY-MM-DD as midnight local time; the
// zero time for no text.
func parseDay(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(dayLayout, s, time.Local)
	if err != nil {
		return time.Time{}, errDayFormat()
	}
	return t, nil
}

// anyServer is the server filter's first choice, and its placeholder:
// choosing it empties the filter.
const anyServer = "Any server"

// setServers offers names as the server filter's choices, sorted, after
// anyServer.
func (f *historyFilters) setServers(names map[string]bool) {
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	slices.Sort(list)
	f.servers = list
	f.server.SetOptions(append([]string{lang.L(anyServer)}, list...))
}

// serverName is the server the filter names: the text typed or chosen, as
// the server spells it when it is one of the choices in another case
// ("GitHub" for github), since a user types a name as they remember it.
func (f *historyFilters) serverName() string {
	typed := strings.TrimSpace(f.server.Text)
	if slices.Contains(f.servers, typed) {
		return typed
	}
	for _, s := range f.servers {
		if strings.EqualFold(s, typed) {
			return s
		}
	}
	return typed
}

// showClear enables "Clear filters" when a filter is set.
func (f *historyFilters) showClear(any bool) {
	if any || f.date.Selected == lang.L(dateBetween) {
		f.clear.Enable()
	} else {
		f.clear.Disable()
	}
}

// onClear sets every filter back to selecting everything, then reloads
// once.
func (f *historyFilters) onClear() {
	f.quiet = true
	f.text.SetText("")
	f.server.SetText("")
	f.action.SetSelectedIndex(0)
	f.decided.SetSelectedIndex(0)
	f.kind.SetSelectedIndex(0)
	f.from.SetText("")
	f.to.SetText("")
	f.date.SetSelected(lang.L(dateAll))
	f.quiet = false
	f.changed()
}

// fixedWidth gives o the width w and its own height.
func fixedWidth(o fyne.CanvasObject, w float32) fyne.CanvasObject {
	return container.New(&widthLayout{w: w}, o)
}

// widthLayout makes its objects w wide.
type widthLayout struct{ w float32 }

func (l *widthLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l *widthLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(l.w, h)
}
