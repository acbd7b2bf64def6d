package ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
)

// places is the choices of a long list: "Place 00000" (value "p00000") to
// "Place 09999", except five real names at known places, with accents,
// strokes and a value that differs from its label.
func places(n int) []elicit.Option {
	opts := make([]elicit.Option, n)
	for i := range opts {
		opts[i] = elicit.Option{Value: fmt.Sprintf("p%05d", i), Label: fmt.Sprintf("Place %05d", i)}
	}
	for i, o := range map[int]elicit.Option{
		1234: {Value: "ch-zrh", Label: "Zürich"},
		5000: {Value: "br-sao", Label: "São Paulo"},
		7777: {Value: "pl-lod", Label: "Łódź"},
		8888: {Value: "de-str", Label: "Straße des 17. Juni"},
		9999: {Value: "us-nyc", Label: "New York"},
	} {
		if i < n {
			opts[i] = o
		}
	}
	return opts
}

// choiceSchema is a requestedSchema of one select offering opts: a titled
// single select "city" (oneOf), or a titled multi select "cities" (anyOf),
// with extra keywords such as `"maxItems":2`.
func choiceSchema(opts []elicit.Option, multi, required bool, extra string) string {
	var items []string
	for _, o := range opts {
		b, _ := json.Marshal(map[string]string{"const": o.Value, "title": o.Label})
		items = append(items, string(b))
	}
	name, field := "city", `{"type":"string","title":"City","oneOf":[`+strings.Join(items, ",")+`]`+extra+`}`
	if multi {
		name, field = "cities", `{"type":"array","title":"Cities","items":{"anyOf":[`+strings.Join(items, ",")+`]}`+extra+`}`
	}
	req := ""
	if required {
		req = `,"required":["` + name + `"]`
	}
	return `{"type":"object","properties":{"` + name + `":` + field + `}` + req + `}`
}

// newSchemaHarness is newHarness for a requestedSchema given as text.
func newSchemaHarness(t *testing.T, schema string) *promptHarness {
	t.Helper()
	test.NewTempApp(t)
	form, err := elicit.Parse(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("elicit.Parse: %v", err)
	}
	h := &promptHarness{t: t}
	h.v = newPromptView(&Prompt{Server: "travel", Message: "Where to?", Form: form},
		func(a Answer) { h.answers = append(h.answers, a) })
	h.v.closeWindow = func() { h.closed++ }
	h.w = test.NewTempWindow(t, h.v.content)
	h.w.Resize(fyne.NewSize(560, 700))
	h.c = h.w.Canvas()
	h.v.attach(h.c)
	h.v.focusFirst()
	return h
}

// list is the choiceList of field name, failing when it has none.
func (h *promptHarness) list(name string) *choiceList {
	h.t.Helper()
	c := h.row(name).choices
	if c == nil {
		h.t.Fatalf("field %q is not shown as a filterable list", name)
	}
	return c
}

// filterTo types text into the list's filter after selecting what it
// holds, as a user replacing the filter does.
func (h *promptHarness) filterTo(name, text string) {
	h.t.Helper()
	c := h.list(name)
	h.c.Focus(c.filter)
	c.filter.TypedShortcut(&fyne.ShortcutSelectAll{})
	c.filter.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
	test.Type(c.filter, text)
}

// keys presses each key in turn on whatever has the focus.
func (h *promptHarness) keys(keys ...fyne.KeyName) {
	for _, k := range keys {
		h.press(k)
	}
}

// rowsShown is what the list shows, top to bottom: each row drawn, "[x]"
// when picked, "[ ]" when not, and "›" before the highlighted one.
func rowsShown(c *choiceList) []string {
	var rows []*choiceRow
	walkVisible(c.list, func(o fyne.CanvasObject) bool {
		if r, ok := o.(*choiceRow); ok {
			rows = append(rows, r)
			return false
		}
		return true
	})
	d := fyne.CurrentApp().Driver()
	sort.Slice(rows, func(i, j int) bool {
		return d.AbsolutePositionForObject(rows[i]).Y < d.AbsolutePositionForObject(rows[j]).Y
	})
	out := []string{}
	bottom := d.AbsolutePositionForObject(c.list).Y + c.list.Size().Height
	for _, r := range rows {
		if d.AbsolutePositionForObject(r).Y >= bottom {
			continue // below the list's edge: not in view
		}
		mark := "[ ] "
		if r.icon.Resource == c.on {
			mark = "[x] "
		}
		if r.bg.Visible() {
			mark = "› " + mark
		}
		out = append(out, mark+r.label.Text)
	}
	return out
}

// TestChoiceListFilter: typing in a long list's filter shows only the
// choices whose label or value holds every word typed, whatever the case
// and accents, and says how many match.
func TestChoiceListFilter(t *testing.T) {
	h := newSchemaHarness(t, choiceSchema(places(10000), false, true, ""))
	c := h.list("city")
	if got := h.c.Focused(); got != c.filter {
		t.Fatalf("focused %T at open, want the list's filter", got)
	}
	for _, tt := range []struct {
		query      string
		wantRows   []string // nil: only the status is checked
		wantStatus string
	}{
		{"zur", []string{"[ ] Zürich"}, "1 of 10,000 match · nothing chosen"},
		{"ZÜRICH", []string{"[ ] Zürich"}, "1 of 10,000 match · nothing chosen"},
		{"sao paulo", []string{"[ ] São Paulo"}, "1 of 10,000 match · nothing chosen"},
		{"lodz", []string{"[ ] Łódź"}, "1 of 10,000 match · nothing chosen"},
		{"strasse", []string{"[ ] Straße des 17. Juni"}, "1 of 10,000 match · nothing chosen"},
		{"york new", []string{"[ ] New York"}, "1 of 10,000 match · nothing chosen"},
		{"us-nyc", []string{"[ ] New York"}, "1 of 10,000 match · nothing chosen"}, // the value
		{"place 0999", []string{"[ ] Place 00999", "[ ] Place 09990", "[ ] Place 09991", "[ ] Place 09992",
			"[ ] Place 09993", "[ ] Place 09994", "[ ] Place 09995", "[ ] Place 09996"}, "10 of 10,000 match · nothing chosen"},
		{"qqq", []string{}, "No choice matches “qqq” · nothing chosen"},
		{"", nil, "10,000 choices · nothing chosen"},
	} {
		t.Run(tt.query, func(t *testing.T) {
			h.filterTo("city", tt.query)
			if got := c.status.Text; got != tt.wantStatus {
				t.Errorf("status = %q, want %q", got, tt.wantStatus)
			}
			if tt.wantRows == nil {
				return
			}
			if diff := cmp.Diff(tt.wantRows, rowsShown(c)); diff != "" {
				t.Errorf("rows shown mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// Typed one letter at a time, as people type, and back.
	h.filterTo("city", "")
	for _, r := range "new y" {
		test.Type(c.filter, string(r))
	}
	if diff := cmp.Diff([]string{"[ ] New York"}, rowsShown(c)); diff != "" {
		t.Errorf("typed letter by letter, rows mismatch (-want +got):\n%s", diff)
	}
	c.filter.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
	c.filter.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
	if got, want := c.status.Text, "1 of 10,000 match · nothing chosen"; got != want {
		t.Errorf("after deleting back to %q: status %q, want %q", c.filter.Text, got, want)
	}
}

// TestChoiceListKeyboardSingle: a long single select is picked and
// submitted from the keyboard alone: type, go down into the list, move,
// pick, submit.
func TestChoiceListKeyboardSingle(t *testing.T) {
	for _, tt := range []struct {
		name  string
		query string
		keys  []fyne.KeyName
		want  Answer
	}{
		{"Down, Space, Return", "zur", []fyne.KeyName{fyne.KeyDown, fyne.KeySpace, fyne.KeyReturn},
			Answer{Action: "accept", Content: map[string]any{"city": "ch-zrh"}}},
		{"Return picks the highlighted choice and submits", "york", []fyne.KeyName{fyne.KeyDown, fyne.KeyReturn},
			Answer{Action: "accept", Content: map[string]any{"city": "us-nyc"}}},
		{"arrows move the highlight", "place 0999", []fyne.KeyName{fyne.KeyDown, fyne.KeyDown, fyne.KeyDown, fyne.KeyUp, fyne.KeyDown, fyne.KeySpace, fyne.KeyReturn},
			Answer{Action: "accept", Content: map[string]any{"city": "p09991"}}},
		{"End and Page Up", "place 0999", []fyne.KeyName{fyne.KeyDown, fyne.KeyEnd, fyne.KeyPageUp, fyne.KeySpace, fyne.KeyReturn},
			Answer{Action: "accept", Content: map[string]any{"city": "p09991"}}}, // 10 rows: the last, 9, less a page of 7
		{"a second pick replaces the first", "place 0999", []fyne.KeyName{fyne.KeyDown, fyne.KeySpace, fyne.KeyDown, fyne.KeySpace, fyne.KeyReturn},
			Answer{Action: "accept", Content: map[string]any{"city": "p09990"}}},
		{"Escape in the list cancels", "zur", []fyne.KeyName{fyne.KeyDown, fyne.KeySpace, fyne.KeyEscape},
			Answer{Action: "cancel"}},
		{"Return in the filter submits, with nothing picked nothing is sent", "zur", []fyne.KeyName{fyne.KeyReturn},
			Answer{}}, // required and unpicked: not submitted
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newSchemaHarness(t, choiceSchema(places(10000), false, true, ""))
			test.Type(h.c.Focused(), tt.query) // the filter has the focus at open
			h.keys(tt.keys...)
			if tt.want.Action == "" {
				if len(h.answers) != 0 {
					t.Fatalf("answered %+v with the required city not chosen", h.answers)
				}
				if got := h.row("city").errLabel.Text; got != "City is required." {
					t.Errorf("error under the list = %q, want %q", got, "City is required.")
				}
				return
			}
			if diff := cmp.Diff(tt.want, h.only()); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChoiceListHighlight: the list shows which row the keys act on, Up
// from the first row goes back to the filter, and a letter typed in the
// list goes on the end of the filter.
func TestChoiceListHighlight(t *testing.T) {
	h := newSchemaHarness(t, choiceSchema(places(10000), false, true, ""))
	c := h.list("city")
	test.Type(c.filter, "place 0999")
	h.keys(fyne.KeyDown, fyne.KeyDown, fyne.KeySpace)
	want := []string{"[ ] Place 00999", "› [x] Place 09990", "[ ] Place 09991", "[ ] Place 09992",
		"[ ] Place 09993", "[ ] Place 09994", "[ ] Place 09995", "[ ] Place 09996"}
	if diff := cmp.Diff(want, rowsShown(c)); diff != "" {
		t.Errorf("rows mismatch (-want +got):\n%s", diff)
	}
	if got, want := c.status.Text, "10 of 10,000 match · chosen: Place 09990"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
	h.keys(fyne.KeyUp, fyne.KeyUp)
	if h.c.Focused() != c.filter {
		t.Fatalf("Up from the first row: focus on %T, want the filter", h.c.Focused())
	}
	if rows := rowsShown(c); strings.HasPrefix(rows[0], "›") {
		t.Errorf("the list still shows a highlight without the focus: %q", rows)
	}
	h.keys(fyne.KeyDown)
	test.Type(h.c.Focused(), "5") // in the list
	if h.c.Focused() != c.filter || c.filter.Text != "place 09995" {
		t.Errorf("a letter typed in the list: filter %q (focused %T), want %q in the focused filter", c.filter.Text, h.c.Focused(), "place 09995")
	}
	if diff := cmp.Diff([]string{"[ ] Place 09995"}, rowsShown(c)); diff != "" {
		t.Errorf("rows mismatch (-want +got):\n%s", diff)
	}
}

// TestChoiceListClick: a click picks a row; a click on another row of a
// single select picks that one instead; an optional single select is
// emptied by a click on its choice.
func TestChoiceListClick(t *testing.T) {
	h := newSchemaHarness(t, choiceSchema(places(10000), false, false, ""))
	c := h.list("city")
	h.filterTo("city", "place 0999")
	h.clickRow(c, "Place 09993")
	h.clickRow(c, "Place 09991")
	if got, want := c.status.Text, "10 of 10,000 match · chosen: Place 09991"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
	h.clickRow(c, "Place 09991")
	if got, want := c.status.Text, "10 of 10,000 match · nothing chosen"; got != want {
		t.Errorf("after clicking the choice again: status = %q, want %q", got, want)
	}
	h.clickRow(c, "Place 09994")
	test.Tap(h.v.submit)
	if diff := cmp.Diff(Answer{Action: "accept", Content: map[string]any{"city": "p09994"}}, h.only()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// clickRow taps the row of the list labelled label, as a click does.
func (h *promptHarness) clickRow(c *choiceList, label string) {
	h.t.Helper()
	var target fyne.Tappable
	walkVisible(c.list, func(o fyne.CanvasObject) bool {
		if tp, ok := o.(fyne.Tappable); ok && target == nil {
			if w, ok := o.(fyne.Widget); ok {
				for _, child := range test.WidgetRenderer(w).Objects() {
					if r, ok := child.(*choiceRow); ok && r.label.Text == label {
						target = tp
					}
				}
			}
		}
		return true
	})
	if target == nil {
		h.t.Fatalf("no row %q shown; rows: %q", label, rowsShown(c))
	}
	test.Tap(target)
}

// TestChoiceListMultiKeepsChoicesAcrossFilters: what is ticked in a long
// multi select stays ticked whatever the filter shows, the status line
// counts and names it, and the answer lists it in schema order.
func TestChoiceListMultiKeepsChoicesAcrossFilters(t *testing.T) {
	h := newSchemaHarness(t, choiceSchema(places(10000), true, false, ""))
	c := h.list("cities")
	h.filterTo("cities", "york")
	h.keys(fyne.KeyDown, fyne.KeySpace)
	h.filterTo("cities", "zur")
	h.keys(fyne.KeyDown, fyne.KeySpace)
	h.filterTo("cities", "place 0999")
	h.keys(fyne.KeyDown, fyne.KeyDown, fyne.KeySpace, fyne.KeyDown, fyne.KeySpace, fyne.KeySpace) // ticked and unticked
	if got, want := c.status.Text, "10 of 10,000 match · 3 chosen: Zürich, Place 09990, New York"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
	h.filterTo("cities", "")
	if got, want := c.status.Text, "10,000 choices · 3 chosen: Zürich, Place 09990, New York"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
	h.filterTo("cities", "york")
	if diff := cmp.Diff([]string{"[x] New York"}, rowsShown(c)); diff != "" {
		t.Errorf("New York after filtering it out and back: (-want +got):\n%s", diff)
	}
	h.filterTo("cities", "sao")
	h.keys(fyne.KeyDown, fyne.KeySpace, fyne.KeyReturn) // Return submits a multi select
	want := Answer{Action: "accept", Content: map[string]any{"cities": []string{"ch-zrh", "br-sao", "p09990", "us-nyc"}}}
	if diff := cmp.Diff(want, h.only()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestChoiceListMultiLimits: minItems and maxItems hold in a long multi
// select as with check boxes: too few or too many shows the error under
// the list and keeps Submit off; the status line says how many to choose.
func TestChoiceListMultiLimits(t *testing.T) {
	h := newSchemaHarness(t, choiceSchema(places(10000), true, true, `,"minItems":2,"maxItems":3`))
	c := h.list("cities")
	if got, want := c.status.Text, "10,000 choices · 0 chosen (choose 2 to 3)"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
	h.filterTo("cities", "place 0999")
	h.keys(fyne.KeyDown, fyne.KeySpace)
	r := h.row("cities")
	for _, step := range []struct {
		keys       []fyne.KeyName
		wantErr    string // "" means none shown and Submit enabled
		wantStatus string
	}{
		{nil, "Cities: choose at least 2.", "10 of 10,000 match · 1 chosen (choose 2 to 3): Place 00999"},
		{[]fyne.KeyName{fyne.KeyDown, fyne.KeySpace}, "", "10 of 10,000 match · 2 chosen (choose 2 to 3): Place 00999, Place 09990"},
		{[]fyne.KeyName{fyne.KeyDown, fyne.KeySpace, fyne.KeyDown, fyne.KeySpace}, "Cities: choose at most 3.",
			"10 of 10,000 match · 4 chosen (choose 2 to 3): Place 00999, Place 09990, Place 09991 and 1 more"},
		{[]fyne.KeyName{fyne.KeySpace}, "", "10 of 10,000 match · 3 chosen (choose 2 to 3): Place 00999, Place 09990, Place 09991"},
	} {
		h.keys(step.keys...)
		if got := c.status.Text; got != step.wantStatus {
			t.Errorf("status = %q, want %q", got, step.wantStatus)
		}
		shown := ""
		if r.errLabel.Visible() {
			shown = r.errLabel.Text
		}
		if shown != step.wantErr {
			t.Errorf("error under the list = %q, want %q", shown, step.wantErr)
		}
		if got := h.v.submit.Disabled(); got != (step.wantErr != "") {
			t.Errorf("Submit disabled = %v with error %q", got, step.wantErr)
		}
	}
	h.keys(fyne.KeyReturn)
	want := Answer{Action: "accept", Content: map[string]any{"cities": []string{"p00999", "p09990", "p09991"}}}
	if diff := cmp.Diff(want, h.only()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestChoiceListDefaults: the schema's default is chosen at open, and the
// list starts its highlight there.
func TestChoiceListDefaults(t *testing.T) {
	h := newSchemaHarness(t, choiceSchema(places(10000), false, true, `,"default":"pl-lod"`))
	c := h.list("city")
	if got, want := c.status.Text, "10,000 choices · chosen: Łódź"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
	h.keys(fyne.KeyDown)
	if rows := rowsShown(c); !contains(rows, "› [x] Łódź") {
		t.Errorf("the list opened away from its default: %q", rows)
	}
	h.keys(fyne.KeyDown, fyne.KeySpace, fyne.KeyUp, fyne.KeyReturn) // move on, pick, back up: Return picks Łódź again
	if diff := cmp.Diff(Answer{Action: "accept", Content: map[string]any{"city": "pl-lod"}}, h.only()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestChoiceListThreshold: up to longList choices keep today's look, a
// drop-down or check boxes; more get the filterable list.
func TestChoiceListThreshold(t *testing.T) {
	for _, tt := range []struct {
		n     int
		multi bool
		want  string
	}{
		{longList, false, "drop-down"},
		{longList + 1, false, "list"},
		{longList, true, "check boxes"},
		{longList + 1, true, "list"},
	} {
		t.Run(fmt.Sprintf("%d multi %v", tt.n, tt.multi), func(t *testing.T) {
			h := newSchemaHarness(t, choiceSchema(places(tt.n), tt.multi, false, ""))
			r := h.v.rows[0]
			got := ""
			switch {
			case r.choices != nil:
				got = "list"
			case r.sel != nil:
				got = "drop-down"
			case len(r.multi) == tt.n:
				got = "check boxes"
			}
			if got != tt.want {
				t.Errorf("%d choices shown as %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}

// TestChoiceListPromptKeys: the prompt's keys work from the list and its
// filter as from any field, key guard included.
func TestChoiceListPromptKeys(t *testing.T) {
	for _, tt := range []struct {
		name  string
		focus func(c *choiceList) fyne.Focusable
		key   fyne.KeyName
		short fyne.Shortcut
		want  string
	}{
		{"Escape in the filter", func(c *choiceList) fyne.Focusable { return c.filter }, fyne.KeyEscape, nil, "cancel"},
		{"Escape in the list", func(c *choiceList) fyne.Focusable { return c.list }, fyne.KeyEscape, nil, "cancel"},
		{"Alt+D in the filter", func(c *choiceList) fyne.Focusable { return c.filter }, "", declineShortcut, "decline"},
		{"Alt+D in the list", func(c *choiceList) fyne.Focusable { return c.list }, "", declineShortcut, "decline"},
		{"Return in the filter", func(c *choiceList) fyne.Focusable { return c.filter }, fyne.KeyReturn, nil, "accept"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newSchemaHarness(t, choiceSchema(places(1000), true, false, ""))
			h.c.Focus(tt.focus(h.list("cities")))
			if tt.short != nil {
				h.shortcut(tt.short)
			} else {
				h.press(tt.key)
			}
			if got := h.only().Action; got != tt.want {
				t.Errorf("action = %q, want %q", got, tt.want)
			}
		})
	}

	h := newSchemaHarness(t, choiceSchema(places(1000), false, false, ""))
	clock := &fakeClock{}
	h.v.now = clock.now
	h.v.armedAt = clock.t.Add(keyGuard)
	h.keys(fyne.KeyDown, fyne.KeyReturn, fyne.KeyEscape)
	if len(h.answers) != 0 {
		t.Fatalf("keys pressed as the window appeared answered it: %+v", h.answers)
	}
	clock.t = clock.t.Add(keyGuard)
	h.keys(fyne.KeyReturn)
	if diff := cmp.Diff(Answer{Action: "accept", Content: map[string]any{"city": "p00000"}}, h.only()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestChoiceListTabOrder: Tab goes from the filter to the list and on to
// the next field.
func TestChoiceListTabOrder(t *testing.T) {
	list := strings.TrimSuffix(strings.TrimPrefix(choiceSchema(places(100), false, false, ""), `{"type":"object","properties":{"city":`), "}}")
	h := newSchemaHarness(t, `{"type":"object","properties":{"name":{"type":"string"},"city":`+list+`,"note":{"type":"string"}}}`)
	c := h.list("city")
	names := map[fyne.Focusable]string{h.row("name").entry: "name", c.filter: "filter", c.list: "list", h.row("note").entry: "note"}
	var got []string
	for range 4 {
		got = append(got, names[h.c.Focused()])
		test.FocusNext(h.c)
	}
	if diff := cmp.Diff([]string{"name", "filter", "list", "note"}, got); diff != "" {
		t.Errorf("Tab order mismatch (-want +got):\n%s", diff)
	}
}

// TestHistoryDetailLongLists: the history pane shows a decision on long
// lists with what was chosen, not a check box for each of 10,000 choices.
func TestHistoryDetailLongLists(t *testing.T) {
	single := strings.TrimSuffix(strings.TrimPrefix(choiceSchema(places(10000), false, true, ""), `{"type":"object","properties":{`), `},"required":["city"]}`)
	multi := strings.TrimSuffix(strings.TrimPrefix(choiceSchema(places(10000), true, false, ""), `{"type":"object","properties":{`), `}}`)
	h := showOne(t, history.Record{
		ID: 8, Time: t0, Server: "travel", Mode: "form", Message: "Where to?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{` + single + `,` + multi + `}}`),
		Action:          "accept",
		Content:         map[string]any{"city": "ch-zrh", "cities": []any{"us-nyc", "br-sao"}},
		DecidedBy:       "user",
	})
	d := h.v.detail
	if diff := cmp.Diff(map[string]string{"City": "Zürich", "Cities": "São Paulo, New York"}, fieldTexts(d)); diff != "" {
		t.Errorf("form mismatch (-want +got):\n%s", diff)
	}
	shown := visibleTexts(d.content)
	if !contains(shown, "2 of 10,000 choices chosen") {
		t.Errorf("pane does not say how many were chosen; it shows %q", shown)
	}
	for _, f := range d.fields {
		if n := len(f.multi); f.f.Name == "cities" && n != 2 {
			t.Errorf("pane shows %d check boxes for the cities, want the 2 chosen", n)
		}
	}
}

// TestChoiceListManyCheckBoxes: a form whose short multi selects would
// need more than maxCheckBoxes check boxes shows them all as lists, which
// open much faster; up to it, they stay check boxes.
func TestChoiceListManyCheckBoxes(t *testing.T) {
	multis := func(fields int) string {
		var values []string
		for c := 'a'; c < 'a'+20; c++ {
			values = append(values, fmt.Sprintf("%q", string(c)))
		}
		props := make([]string, fields)
		for i := range props {
			props[i] = fmt.Sprintf(`"m%d":{"type":"array","items":{"enum":[%s]}}`, i, strings.Join(values, ","))
		}
		return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	}
	for _, tt := range []struct {
		fields    int
		wantLists bool
	}{
		{maxCheckBoxes / 20, false},
		{maxCheckBoxes/20 + 1, true},
	} {
		t.Run(fmt.Sprint(tt.fields), func(t *testing.T) {
			h := newSchemaHarness(t, multis(tt.fields))
			for _, r := range h.v.rows {
				if got := r.choices != nil; got != tt.wantLists {
					t.Fatalf("%d multi selects of 20: %s shown as a list: %v, want %v", tt.fields, r.f.Name, got, tt.wantLists)
				}
			}
		})
	}
}

// TestChoiceListScrolledByWheel: after the user scrolls the list with the
// mouse wheel, a click picks the row clicked without the list jumping, and
// the keys start from the rows in view, not from where the list was.
func TestChoiceListScrolledByWheel(t *testing.T) {
	h := newSchemaHarness(t, choiceSchema(places(10000), true, false, ""))
	c := h.list("cities")
	c.list.ScrollToOffset(100 * c.rowHeight) // the wheel
	h.clickRow(c, "Place 00102")
	if got := c.list.GetScrollOffset(); got != 100*c.rowHeight {
		t.Errorf("the list moved from %v to %v on a click", 100*c.rowHeight, got)
	}
	if got, want := c.status.Text, "10,000 choices · 1 chosen: Place 00102"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}

	c.list.ScrollToOffset(5000 * c.rowHeight)
	h.c.Focus(c.filter)
	h.keys(fyne.KeyDown, fyne.KeySpace) // into the list, where it was scrolled to
	if got, want := c.status.Text, "10,000 choices · 2 chosen: Place 00102, São Paulo"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
}
