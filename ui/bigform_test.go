package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// bigSchema is a requestedSchema of n fields "f0", "f1"… titled "Field
// 0"…, each with a description of two lines, of five kinds in turn: text,
// a whole number from 0 to 10, a boolean, a single select of three and a
// multi select of three. With required, every text field is required.
func bigSchema(n int, required bool) string {
	props := make([]string, n)
	var req []string
	for i := range props {
		var kind string
		switch i % 5 {
		case 0:
			kind = `"type":"string"`
			req = append(req, fmt.Sprintf(`"f%d"`, i))
		case 1:
			kind = `"type":"integer","minimum":0,"maximum":10`
		case 2:
			kind = `"type":"boolean"`
		case 3:
			kind = `"type":"string","enum":["a","b","c"]`
		case 4:
			kind = `"type":"array","items":{"type":"string","enum":["x","y","z"]}`
		}
		props[i] = fmt.Sprintf(`"f%d":{%s,"title":"Field %d","description":"What field %d is for: where it shows `+
			`on the record, who reads it, and what happens when it is left empty."}`, i, kind, i, i)
	}
	s := `{"type":"object","properties":{` + strings.Join(props, ",") + `}`
	if required {
		s += `,"required":[` + strings.Join(req, ",") + `]`
	}
	return s + "}"
}

// TestPromptBigForm: a form of 500 fields opens in a window that fits on
// the screen, its form scrolls, Tab reaches every field in order and
// scrolls it into view, and Return submits what was typed, in every field.
func TestPromptBigForm(t *testing.T) {
	a := test.NewTempApp(t)
	form, err := elicit.Parse([]byte(bigSchema(elicit.MaxFields, false)))
	if err != nil {
		t.Fatal(err)
	}
	var answers []Answer
	pw := ShowPrompt(a, &Prompt{Server: "crm", Message: "Update the record.", Form: form}, func(an Answer) { answers = append(answers, an) })
	defer pw.Close()
	v := pw.view
	pw.arm() // the key guard's end: this test is not about it
	c := pw.win.Canvas()
	if size := c.Size(); size.Width > 560 || size.Height > 720 {
		t.Errorf("window %v: a 500-field form must fit on a screen (560×720 at most)", size)
	}
	if h := pw.win.Content().MinSize().Height; h > 720 {
		t.Errorf("content at least %v tall: the form should scroll instead", h)
	}
	if view, all := v.scroll.Size().Height, v.form.MinSize().Height; all < 20*view {
		t.Errorf("form %v tall in a view of %v: the fields are not all there", all, view)
	}

	// Tab from the first field through every focusable one, up to the
	// mute box; each is in view when it has the focus.
	row := map[fyne.Focusable]int{}
	var want []int
	for i, r := range v.rows {
		for _, f := range focusablesOf(r) {
			row[f] = i
			want = append(want, i)
		}
	}
	var got []int
	out := 0
	d := fyne.CurrentApp().Driver()
	top := d.AbsolutePositionForObject(v.scroll).Y
	for f := c.Focused(); f != fyne.Focusable(v.mute); f = c.Focused() {
		i, ok := row[f]
		if !ok {
			t.Fatalf("Tab reached %T, not a field, after %d fields", f, len(got))
		}
		got = append(got, i)
		o := f.(fyne.CanvasObject)
		if y := d.AbsolutePositionForObject(o).Y; y < top || y+o.Size().Height > top+v.scroll.Size().Height {
			out++
		}
		if len(got) > len(want) {
			t.Fatal("Tab goes round and round")
		}
		test.FocusNext(c)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tab order mismatch (-want +got):\n%s", diff)
	}
	if out > 0 {
		t.Errorf("%d fields were out of view when Tab gave them the focus", out)
	}

	// Fill in one field of each kind at the start, the middle and the end.
	typeIn := func(name, text string) {
		e := rowNamed(t, v, name).entry
		c.Focus(e)
		test.Type(e, text)
	}
	typeIn("f0", "first")
	typeIn("f251", "7")
	typeIn("f495", "last")
	test.Tap(rowNamed(t, v, "f497").check)
	rowNamed(t, v, "f498").sel.SetSelected("b")
	test.Tap(rowNamed(t, v, "f499").multi[2])
	c.Focus(rowNamed(t, v, "f496").entry)
	test.Type(c.Focused(), "3")
	pressKey(c, fyne.KeyReturn)

	wantContent := map[string]any{"f0": "first", "f251": json.Number("7"), "f495": "last", "f496": json.Number("3"), "f498": "b", "f499": []string{"z"}}
	for i := 2; i < elicit.MaxFields; i += 5 {
		wantContent[fmt.Sprintf("f%d", i)] = i == 497 // every box is sent; one is ticked
	}
	if len(answers) != 1 {
		t.Fatalf("got %d answers %+v, want one", len(answers), answers)
	}
	if diff := cmp.Diff(Answer{Action: "accept", Content: wantContent}, answers[0]); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestPromptBigFormKeys: Escape, Alt+D and Return work at the end of a
// 500-field form as at its start, and the key guard holds there too.
func TestPromptBigFormKeys(t *testing.T) {
	for _, tt := range []struct {
		name  string
		key   fyne.KeyName
		short fyne.Shortcut
		want  string
	}{
		{"Escape cancels", fyne.KeyEscape, nil, "cancel"},
		{"Alt+D declines", "", declineShortcut, "decline"},
		{"Return submits", fyne.KeyReturn, nil, "accept"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newSchemaHarness(t, bigSchema(elicit.MaxFields, false))
			clock := &fakeClock{t: time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC)}
			h.v.now = clock.now
			h.v.armedAt = clock.t.Add(keyGuard)
			h.c.Focus(h.row("f495").entry)
			send := func() {
				if tt.short != nil {
					h.shortcut(tt.short)
				} else {
					h.press(tt.key)
				}
			}
			send()
			if len(h.answers) != 0 {
				t.Fatalf("a key pressed as the window appeared answered it: %+v", h.answers)
			}
			clock.t = clock.t.Add(keyGuard)
			send()
			if got := h.only().Action; got != tt.want {
				t.Errorf("action = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPromptBigFormHint: the hint beside the buttons of a form with a
// hundred fields to fix says how many, then names the first few.
func TestPromptBigFormHint(t *testing.T) {
	h := newSchemaHarness(t, bigSchema(elicit.MaxFields, true))
	if got, want := h.v.hint.Text, "To submit, fix 100 fields: “Field 0”, “Field 5”, “Field 10”, “Field 15”, “Field 20”, …"; got != want {
		t.Errorf("hint = %q, want %q", got, want)
	}
	before := h.v.form.MinSize().Height
	h.press(fyne.KeyReturn) // shows every error, goes to the first
	if h.c.Focused() != h.row("f0").entry {
		t.Errorf("Return on the invalid form: focus on %T, want Field 0", h.c.Focused())
	}
	if len(h.answers) != 0 {
		t.Errorf("an invalid form was answered: %+v", h.answers)
	}
	// The form grows by the error lines, so that the scroll still
	// reaches its last field, and shrinks again as they go.
	shown := h.v.form.MinSize().Height
	if line := h.row("f0").errLabel.MinSize().Height; shown < before+100*line {
		t.Errorf("with 100 error lines of %v the form is %v tall, was %v", line, shown, before)
	}
	test.Type(h.row("f0").entry, "x")
	if got := h.v.form.MinSize().Height; got >= shown {
		t.Errorf("an error line gone, the form is %v tall, was %v", got, shown)
	}
}

// focusablesOf lists the widgets of r that Tab stops at, in order.
func focusablesOf(r *fieldRow) []fyne.Focusable {
	switch {
	case r.entry != nil:
		return []fyne.Focusable{r.entry}
	case r.check != nil:
		return []fyne.Focusable{r.check}
	case r.sel != nil:
		return []fyne.Focusable{r.sel}
	case r.choices != nil:
		return []fyne.Focusable{r.choices.filter, r.choices.list}
	}
	var out []fyne.Focusable
	for _, c := range r.multi {
		out = append(out, c)
	}
	return out
}

// rowNamed is the row of field name in v.
func rowNamed(t *testing.T, v *promptView, name string) *fieldRow {
	t.Helper()
	for _, r := range v.rows {
		if r.f.Name == name {
			return r
		}
	}
	t.Fatalf("no field %q", name)
	return nil
}
