package ui

import (
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/ui/lang"
)

// longList is the most choices a select shows as short ones are shown: a
// drop-down for a single select, a check box each for a multi select. A
// select with more gets a choiceList, a filter entry above a scrolling
// list. Twenty is about what a drop-down beside the form shows without
// scrolling, and more check boxes than that push the rest of the form out
// of view; past it, people find a choice faster by typing part of it.
const longList = 20

// maxCheckBoxes is the most check boxes a form shows for its short multi
// selects; a form that would have more shows all of its multi selects as
// lists. 500 multi selects of 20 choices, 10,000 check boxes, took about
// 3 s to open; as lists, under 1 s.
const maxCheckBoxes = 1000

// checkBoxes is how many check boxes the multi selects of form would have
// as short lists.
func checkBoxes(form *elicit.Form) int {
	n := 0
	for _, f := range form.Fields {
		if f.Kind == elicit.KindMultiSelect && len(f.Options) <= longList {
			n += len(f.Options)
		}
	}
	return n
}

// asList reports whether f is shown as a choiceList, in a form whose short
// multi selects would have checks check boxes.
func asList(f *elicit.Field, checks int) bool {
	switch f.Kind {
	case elicit.KindSelect:
		return len(f.Options) > longList
	case elicit.KindMultiSelect:
		return len(f.Options) > longList || checks > maxCheckBoxes
	}
	return false
}

// listPage is how many whole rows a choiceList shows at once, and how far
// Page Up and Page Down move; it shows half a row more, so that it looks
// like what it is, a list that scrolls.
const listPage = 7

// statusNames is how many chosen labels the status line of a multi select
// names before "and N more".
const statusNames = 3

// choiceList is a single or multi select of more than longList choices
// (issue 10: lists of 10,000). Typing in its filter entry narrows the list
// to the choices whose label or value holds every word typed, whatever the
// case and accents (search.go); the list is a widget.List, which makes
// widgets only for the rows in view. A status line under it says how many
// choices match and what is chosen, so a choice filtered out of view is
// still seen to be chosen.
//
// Keyboard (the rest of the prompt's keys work as in any field): in the
// filter, typing filters, Down (or Tab) goes to the list, Return submits.
// In the list, Up and Down move the highlight (Up from the first row goes
// back to the filter), Page Up, Page Down, Home and End move by a page or
// to an end; Space picks the highlighted choice (a multi select ticks or
// unticks it; an optional single select unpicks it when picked again);
// Return picks it in a single select and submits, and submits a multi
// select, as Return does on a check box; typing a letter goes back to the
// filter with it. A click picks as Space does.
//
// Choices are kept by their index in Field.Options, so a filter never
// changes what is chosen, and the answer lists a multi select's values in
// schema order, as the check boxes do.
type choiceList struct {
	f     *elicit.Field
	keys  *promptKeys
	multi bool

	folder *searchFolder
	search []string // the search key of each of f.Options: its label and value, folded
	labels []string // what each of f.Options is shown as (optionLabels)
	query  string   // the filter's text when it was last applied
	shown  []int    // the indexes into f.Options the filter matches, in schema order
	picked []bool   // by index into f.Options
	count  int      // how many are picked
	// cursor is the highlighted row, an index into shown, or -1 when
	// shown is empty. It is highlighted while the list has the focus.
	cursor int
	// rowHeight is a row's, separator included; scrolledTo the list's
	// scroll offset after it last scrolled to the cursor, to tell whether
	// the user scrolled it since.
	rowHeight, scrolledTo float32

	// changed is called after the user picked or unpicked a choice;
	// onFocus when the filter or the list gets the keyboard focus.
	changed func()
	onFocus func()

	filter *choiceFilter
	list   *choiceRows
	status *widget.Label
	// The icons of a row: picked and not.
	on, off fyne.Resource
}

// newChoiceList makes the list for f, a KindSelect or KindMultiSelect
// field, with initial (the field's default: a string or []string, else
// nil) chosen.
func newChoiceList(f *elicit.Field, keys *promptKeys, initial any, changed func()) *choiceList {
	c := &choiceList{
		f:       f,
		keys:    keys,
		multi:   f.Kind == elicit.KindMultiSelect,
		folder:  newSearchFolder(),
		search:  make([]string, len(f.Options)),
		labels:  optionLabels(f.Options),
		shown:   make([]int, len(f.Options)),
		picked:  make([]bool, len(f.Options)),
		changed: changed,
	}
	for i, o := range f.Options {
		c.search[i] = c.folder.key(o.Label) + "\n" + c.folder.key(o.Value)
		c.shown[i] = i
	}
	var chosen []string
	switch v := initial.(type) {
	case string:
		chosen = []string{v}
	case []string:
		chosen = v
	}
	if len(chosen) > 0 {
		index := make(map[string]int, len(f.Options))
		for i, o := range f.Options {
			index[o.Value] = i
		}
		for _, v := range chosen {
			if i, ok := index[v]; ok {
				c.set(i, true)
			}
		}
	}
	c.cursor = c.startRow()
	if c.multi {
		c.on = theme.NewPrimaryThemedResource(theme.CheckButtonCheckedIcon())
		c.off = theme.CheckButtonIcon()
	} else {
		c.on = theme.NewPrimaryThemedResource(theme.RadioButtonCheckedIcon())
		c.off = theme.RadioButtonIcon()
	}
	return c
}

// build returns the filter, the list and the status line, top to bottom.
func (c *choiceList) build() fyne.CanvasObject {
	c.filter = newChoiceFilter(c)
	c.filter.PlaceHolder = lang.N("Type to filter {{.Count}} choices", len(c.f.Options), lang.Count(len(c.f.Options)))
	c.filter.OnChanged = c.applyFilter

	c.list = newChoiceRows(c)
	// A fixed height: the list neither jumps as a filter narrows it nor
	// grows with its choices.
	c.rowHeight = newChoiceRow(c).MinSize().Height + theme.Padding() // and the separator
	// On the entries' background, so that where the list ends shows when
	// a filter leaves a few rows.
	height := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	height.CornerRadius = theme.InputRadiusSize()
	height.SetMinSize(fyne.NewSize(0, (listPage+0.5)*c.rowHeight))

	c.status = widget.NewLabel("")
	c.status.SizeName = theme.SizeNameCaptionText
	c.showStatus()
	return container.NewVBox(c.filter, container.NewStack(height, c.list), c.status)
}

// startRow is where the highlight starts in shown: on the first choice
// picked, if the filter shows it, else on the first row; -1 when nothing
// is shown.
func (c *choiceList) startRow() int {
	if len(c.shown) == 0 {
		return -1
	}
	for row, i := range c.shown {
		if c.picked[i] {
			return row
		}
	}
	return 0
}

// applyFilter shows the choices that hold every word of text.
func (c *choiceList) applyFilter(text string) {
	if text == c.query {
		return
	}
	words := c.folder.words(text)
	// Typing on narrows what is shown already: no need to look at the
	// rest. (A longer text holds the words of the shorter, or longer ones.)
	from := c.shown
	if !strings.HasPrefix(text, c.query) || len(c.query) == 0 {
		from = nil
	}
	c.query = text
	var shown []int
	if from == nil {
		shown = make([]int, 0, len(c.f.Options))
		for i, key := range c.search {
			if matches(key, words) {
				shown = append(shown, i)
			}
		}
	} else {
		shown = from[:0:0]
		for _, i := range from {
			if matches(c.search[i], words) {
				shown = append(shown, i)
			}
		}
	}
	c.shown = shown
	c.cursor = c.startRow()
	c.list.Refresh()
	c.scrollToCursor()
	c.showStatus()
}

// scrollToCursor scrolls the list to show the highlighted row, and notes
// where it scrolled to.
func (c *choiceList) scrollToCursor() {
	if c.cursor >= 0 {
		c.list.ScrollTo(c.cursor)
	}
	c.scrolledTo = c.list.GetScrollOffset()
}

// showStatus says how many choices the filter shows and which are chosen.
func (c *choiceList) showStatus() {
	var b strings.Builder
	switch n := len(c.shown); {
	case len(c.folder.words(c.query)) == 0:
		b.WriteString(lang.N("{{.Count}} choices", len(c.f.Options), lang.Count(len(c.f.Options))))
	case n == 0:
		b.WriteString(lang.L("No choice matches “{{.Query}}”", map[string]any{"Query": bidiText(chars.Cut(oneLine(c.query), maxLabel))}))
	default:
		b.WriteString(lang.L("{{.Shown}} of {{.All}} match", map[string]any{"Shown": lang.Thousands(n), "All": lang.Thousands(len(c.f.Options))}))
	}
	b.WriteString(" · ")
	chosen := c.chosenLabels(statusNames + 1)
	switch {
	case !c.multi && c.count == 0:
		b.WriteString(lang.L("nothing chosen"))
	case !c.multi:
		b.WriteString(lang.L("chosen: {{.Choice}}", map[string]any{"Choice": chosen[0]}))
	default:
		b.WriteString(lang.N("{{.Count}} chosen", c.count, lang.Count(c.count)))
		if r := itemsRange(c.f); r != "" {
			b.WriteString(" (" + r + ")")
		}
		if c.count > 0 {
			b.WriteString(lang.L(": ") + strings.Join(chosen[:min(len(chosen), statusNames)], lang.L(", ")))
		}
		if c.count > statusNames {
			b.WriteString(lang.N(" and {{.Count}} more", c.count-statusNames, lang.Count(c.count-statusNames)))
		}
	}
	c.status.Text = b.String()
	cutIfWide(c.status)
	c.status.Refresh()
}

// chosenLabels lists the labels of the first n choices picked, as shown.
func (c *choiceList) chosenLabels(n int) []string {
	var out []string
	for i, p := range c.picked {
		if p {
			out = append(out, c.labels[i])
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// itemsRange is how many choices a multi select takes, "choose 1 to 3",
// or "" when any number will do.
func itemsRange(f *elicit.Field) string {
	lo, hi := f.MinItems, f.MaxItems
	if lo != nil && *lo == 0 {
		lo = nil // "at least 0" says nothing
	}
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return lang.L("choose {{.Min}}", map[string]any{"Min": *lo})
	case lo != nil && hi != nil:
		return lang.L("choose {{.Min}} to {{.Max}}", map[string]any{"Min": *lo, "Max": *hi})
	case lo != nil:
		return lang.L("choose at least {{.Min}}", map[string]any{"Min": *lo})
	case hi != nil:
		return lang.L("choose at most {{.Max}}", map[string]any{"Max": *hi})
	}
	return ""
}

// toggle picks or unpicks the choice on row (an index into shown): a multi
// select ticks or unticks it; a single select picks it instead of the
// choice before, or, when it is optional, unpicks it when it was picked.
func (c *choiceList) toggle(row int) {
	if row < 0 || row >= len(c.shown) {
		return
	}
	i := c.shown[row]
	switch {
	case c.multi:
		c.set(i, !c.picked[i])
	case c.picked[i] && c.f.Required:
		return // a required single select keeps its choice until another is picked
	case c.picked[i]:
		c.set(i, false)
	default:
		for j, p := range c.picked {
			if p {
				c.set(j, false)
			}
		}
		c.set(i, true)
	}
	c.list.Refresh()
	c.showStatus()
	c.changed()
}

// set picks or unpicks option i.
func (c *choiceList) set(i int, on bool) {
	if c.picked[i] == on {
		return
	}
	c.picked[i] = on
	if on {
		c.count++
	} else {
		c.count--
	}
}

// onReturn is Return in the list: a single select picks the highlighted
// choice (if it is not picked already) and submits; a multi select submits.
func (c *choiceList) onReturn() {
	if !c.multi && c.cursor >= 0 && !c.picked[c.shown[c.cursor]] && c.keys.typing() {
		c.toggle(c.cursor)
	}
	c.keys.submit()
}

// moveTo highlights row (clamped to the rows shown) and scrolls it into view.
func (c *choiceList) moveTo(row int) {
	if len(c.shown) == 0 {
		return
	}
	old := c.cursor
	c.cursor = max(0, min(row, len(c.shown)-1))
	c.list.RefreshItem(old)
	c.list.RefreshItem(c.cursor)
	c.scrollToCursor()
}

// value is the field's typed value: the picked choice's value, the values
// picked in schema order, or nil when nothing is picked.
func (c *choiceList) value() any {
	if c.count == 0 {
		return nil
	}
	vals := make([]string, 0, c.count)
	for i, p := range c.picked {
		if p {
			vals = append(vals, c.f.Options[i].Value)
		}
	}
	if !c.multi {
		return vals[0]
	}
	return vals
}

// choiceFilter is a choiceList's filter entry: a keyEntry (Escape, Alt+D,
// Return submits) whose Down arrow goes to the list.
type choiceFilter struct {
	keyEntry
	c *choiceList
}

func newChoiceFilter(c *choiceList) *choiceFilter {
	e := &choiceFilter{c: c}
	e.keys = c.keys
	e.onFocus = func() {
		if c.onFocus != nil {
			c.onFocus()
		}
	}
	e.OnSubmitted = func(string) { c.keys.submit() }
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey takes Down and Page Down to the list; the rest is a keyEntry's.
func (e *choiceFilter) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyDown, fyne.KeyPageDown:
		e.keys.handling(ev.Name)
		if c := fyne.CurrentApp().Driver().CanvasForObject(e); c != nil {
			c.Focus(e.c.list)
		}
		return
	}
	e.keyEntry.TypedKey(ev)
}

// FocusGained leaves the filter's text as it is, unlike a field's
// keyEntry, which selects it: typing more narrows the filter further.
func (e *choiceFilter) FocusGained() {
	e.Entry.FocusGained()
	e.onFocus()
}

// choiceRows is a choiceList's list of the choices shown. It keeps its
// own highlight (choiceList.cursor) rather than widget.List's, which a
// filter cannot move back into the rows left; and it passes the prompt's
// keys on (see promptKeys).
type choiceRows struct {
	widget.List
	c       *choiceList
	focused bool
}

func newChoiceRows(c *choiceList) *choiceRows {
	l := &choiceRows{c: c}
	l.Length = func() int { return len(c.shown) }
	l.CreateItem = func() fyne.CanvasObject { return newChoiceRow(c) }
	l.UpdateItem = func(row widget.ListItemID, o fyne.CanvasObject) {
		o.(*choiceRow).show(row, l.focused && row == c.cursor)
	}
	// A click: pick, and let the row be clicked again (widget.List would
	// keep it selected).
	l.OnSelected = func(row widget.ListItemID) {
		l.UnselectAll()
		if !c.keys.clicking() {
			return // a click meant for another window (keyGuard)
		}
		c.cursor = row
		c.toggle(row)
	}
	l.ExtendBaseWidget(l)
	return l
}

// FocusGained highlights the current row, in view; or, when the user
// scrolled the list since it was last there, the first row in view: the
// keys start where the user looks, and a click (which focuses the list
// first) picks its row without the list jumping away and back.
func (l *choiceRows) FocusGained() {
	c := l.c
	l.focused = true
	if c.cursor < 0 {
		c.cursor = c.startRow()
	}
	if off := l.GetScrollOffset(); off != c.scrolledTo && c.cursor >= 0 {
		c.cursor = min(int(math.Ceil(float64(off/c.rowHeight))), len(c.shown)-1)
	}
	c.scrollToCursor()
	if c.cursor >= 0 {
		l.RefreshItem(c.cursor)
	}
	if c.onFocus != nil {
		c.onFocus()
	}
}

// FocusLost takes the highlight off.
func (l *choiceRows) FocusLost() {
	l.focused = false
	if l.c.cursor >= 0 {
		l.RefreshItem(l.c.cursor)
	}
}

// KeyDown records the press for the prompt's guard.
func (l *choiceRows) KeyDown(ev *fyne.KeyEvent) { l.c.keys.keyDown(ev) }

// KeyUp lets the prompt act on a released key.
func (l *choiceRows) KeyUp(ev *fyne.KeyEvent) { l.c.keys.keyUp(ev) }

// TypedKey moves the highlight, picks, and passes Escape and Return on
// (see choiceList for the keys).
func (l *choiceRows) TypedKey(ev *fyne.KeyEvent) {
	c := l.c
	c.keys.handling(ev.Name)
	switch ev.Name {
	case fyne.KeyEscape:
		c.keys.escape()
	case fyne.KeyReturn, fyne.KeyEnter:
		c.onReturn()
	case fyne.KeySpace:
		if c.keys.typing() {
			c.toggle(c.cursor)
		}
	case fyne.KeyDown:
		c.moveTo(c.cursor + 1)
	case fyne.KeyUp:
		if c.cursor <= 0 {
			l.focusFilter()
			return
		}
		c.moveTo(c.cursor - 1)
	case fyne.KeyPageDown:
		c.moveTo(c.cursor + listPage)
	case fyne.KeyPageUp:
		c.moveTo(c.cursor - listPage)
	case fyne.KeyHome:
		c.moveTo(0)
	case fyne.KeyEnd:
		c.moveTo(len(c.shown) - 1)
	}
}

// TypedRune takes a letter typed in the list back to the filter, where it
// goes on the end of the text. Space picks (TypedKey), and types nothing.
func (l *choiceRows) TypedRune(r rune) {
	if r == ' ' {
		return
	}
	l.focusFilter()
	l.c.filter.CursorColumn = len([]rune(l.c.filter.Text))
	l.c.filter.TypedRune(r)
}

func (l *choiceRows) focusFilter() {
	if c := fyne.CurrentApp().Driver().CanvasForObject(l); c != nil {
		c.Focus(l.c.filter)
	}
}

// choiceRow is one row of a choiceList: the picked mark (a check box or a
// radio button, drawn, not a widget of its own: the row is clicked as a
// whole) and the label, on a background that shows the highlight.
type choiceRow struct {
	widget.BaseWidget
	c     *choiceList
	bg    *canvas.Rectangle
	icon  *widget.Icon
	label *widget.Label
}

func newChoiceRow(c *choiceList) *choiceRow {
	r := &choiceRow{c: c}
	r.bg = canvas.NewRectangle(theme.Color(theme.ColorNameFocus))
	r.bg.CornerRadius = theme.SelectionRadiusSize()
	r.bg.Hide()
	r.icon = widget.NewIcon(c.off)
	r.label = widget.NewLabel("")
	r.ExtendBaseWidget(r)
	return r
}

// CreateRenderer lays the row out.
func (r *choiceRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewStack(r.bg, container.NewBorder(nil, nil, r.icon, nil, r.label)))
}

// show makes the row show the choice on row of the list, highlighted or not.
func (r *choiceRow) show(row int, highlighted bool) {
	c := r.c
	if row < 0 || row >= len(c.shown) {
		return
	}
	i := c.shown[row]
	// Row labels are laid out again as the list scrolls: Fyne's ellipsis
	// only where it is needed (cutIfWide).
	r.label.Text = c.labels[i]
	cutIfWide(r.label)
	r.label.Refresh()
	res := c.off
	if c.picked[i] {
		res = c.on
	}
	r.icon.SetResource(res)
	if highlighted {
		r.bg.FillColor = theme.Color(theme.ColorNameFocus)
		r.bg.Show()
	} else {
		r.bg.Hide()
	}
	r.bg.Refresh()
}
