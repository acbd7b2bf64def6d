package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// The prompt benchmarks (make bench-ui) measure what a user waits for with
// forms at elicitray's limits (issue 10): a window opening, a filter
// narrowing a long list, a key typed in a big form. They run on Fyne's
// test driver, which measures and lays out text as the desktop one does
// but draws nothing; elicit.Parse, which the hub runs before, is
// BenchmarkParseTitledChoices in bridge/elicit.

// benchForm parses schema for a benchmark.
func benchForm(b *testing.B, schema string) *elicit.Form {
	b.Helper()
	form, err := elicit.Parse([]byte(schema))
	if err != nil {
		b.Fatal(err)
	}
	return form
}

// benchOpen is the time ShowPrompt takes to build, lay out and show a
// window for form, the window closed again each time. The focus comes half
// a second later, as the window arms (keyGuard): not measured.
func benchOpen(b *testing.B, form *elicit.Form) {
	a := test.NewTempApp(b)
	for b.Loop() {
		pw := ShowPrompt(a, &Prompt{Server: "bench", Message: "Choose.", Form: form}, func(Answer) {})
		pw.Close()
	}
}

// BenchmarkOpen10000Choices opens a window with a single select of
// 10,000 titled choices.
func BenchmarkOpen10000Choices(b *testing.B) {
	benchOpen(b, benchForm(b, choiceSchema(places(elicit.MaxSelectOptions), false, true, "")))
}

// BenchmarkOpen500Fields opens a window with a form of 500 fields of five
// kinds, each with a title and a description.
func BenchmarkOpen500Fields(b *testing.B) {
	benchOpen(b, benchForm(b, bigSchema(elicit.MaxFields, false)))
}

// BenchmarkFilter10000Choices applies a filter to a list of 10,000
// choices, as typing a letter does: the list narrows (or widens back, one
// time in three) and the status line says how many match.
func BenchmarkFilter10000Choices(b *testing.B) {
	a := test.NewTempApp(b)
	form := benchForm(b, choiceSchema(places(elicit.MaxSelectOptions), true, false, ""))
	pw := ShowPrompt(a, &Prompt{Server: "bench", Message: "Choose.", Form: form}, func(Answer) {})
	defer pw.Close()
	pw.arm()
	c := pw.view.rows[0].choices
	queries := []string{"place 09", "zürich", ""}
	i := 0
	for b.Loop() {
		c.filter.SetText(queries[i%len(queries)])
		i++
	}
	if c.status.Text == "" {
		b.Fatal("no status shown")
	}
}

// BenchmarkType500Fields types a letter into a form of 500 fields and
// deletes it, two keys: after each the whole form is checked again and
// Submit and the hint updated.
func BenchmarkType500Fields(b *testing.B) {
	a := test.NewTempApp(b)
	form := benchForm(b, bigSchema(elicit.MaxFields, true))
	pw := ShowPrompt(a, &Prompt{Server: "bench", Message: "Fill in.", Form: form}, func(Answer) {})
	defer pw.Close()
	pw.arm()
	e := pw.view.rows[len(pw.view.rows)-5].entry // f495, a text field
	pw.win.Canvas().Focus(e)
	for b.Loop() {
		e.TypedRune('a')
		e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
	}
}

// BenchmarkTab500Fields moves the focus to the next field of a form of
// 500, as Tab does: the form scrolls to show it.
func BenchmarkTab500Fields(b *testing.B) {
	a := test.NewTempApp(b)
	form := benchForm(b, bigSchema(elicit.MaxFields, false))
	pw := ShowPrompt(a, &Prompt{Server: "bench", Message: "Fill in.", Form: form}, func(Answer) {})
	defer pw.Close()
	pw.arm()
	c := pw.win.Canvas()
	for b.Loop() {
		test.FocusNext(c)
	}
}
