package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestEntryDrawsRightToLeftInOrder (issue 24): a field whose text holds
// Arabic or Hebrew (the server's default, or what the user typed) shows it
// in a browser's order while the field is not being edited, and the entry
// itself while it is, so that the cursor is where the user sees it; the
// value sent is the text as typed.
func TestEntryDrawsRightToLeftInOrder(t *testing.T) {
	const note = "ملاحظة: تم النسخ الاحتياطي"
	h := rememberHarness(t, `{"type":"object","properties":{
		"first":{"type":"string","title":"First"},
		"note":{"type":"string","title":"Note","default":"`+note+`"}}}`, Prompt{})
	r := h.row("note")
	if !r.bidi.cover.Visible() || r.bidi.cover.Text != bidiText(note) {
		t.Fatalf("the unfocused field shows %q (cover visible %v), want %q", r.bidi.cover.Text, r.bidi.cover.Visible(), bidiText(note))
	}
	if th, ok := r.bidi.under.Theme.(appTheme); !ok || !th.hideText {
		t.Error("the entry's own text is drawn under the ordered text")
	}
	h.c.Focus(r.entry)
	if r.bidi.cover.Visible() {
		t.Error("the ordered text covers the entry being edited")
	}
	h.c.Focus(h.row("first").entry)
	if !r.bidi.cover.Visible() {
		t.Error("the field left again shows its text out of order")
	}
	if h.row("first").bidi.cover.Visible() {
		t.Error("an empty field is covered")
	}
	test.Tap(h.v.submit)
	if got := h.only().Content["note"]; got != note {
		t.Errorf("the server got %q, want its default as written", got)
	}
}
