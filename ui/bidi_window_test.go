package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
)

// mixedSchema asks in Arabic, Hebrew and Chinese, with punctuation,
// numbers and Latin words among them.
const mixedSchema = `{"type":"object","properties":{
	"version":{"type":"string","title":"الإصدار 2.0.1"},
	"db":{"type":"string","title":"מסד נתונים (ראשי)","oneOf":[
		{"const":"main","title":"שלום / مرحبا"},
		{"const":"prod","title":"Production (إنتاج)"}]},
	"backup":{"type":"boolean","title":"ملاحظة: تم النسخ الاحتياطي"},
	"name":{"type":"string","title":"服务名：数据库（生产）"}},
	"required":["db"]}`

// mixedShown is what the form of mixedSchema and its header draw, from the
// left, as a browser shows them (tokens as in bidiCases).
var mixedShown = map[string][]string{
	"serverInfo": {"calls itself “2.0.1 ", "النسخ", " ", "خادم", "”"},
	"version":    {"2.0.1 ", "الإصدار"},
	"db":         {"* (", "ראשי", ") ", "נתונים", " ", "מסד"},
	"backup":     {"الاحتياطي", " ", "النسخ", " ", "تم", " :", "ملاحظة"},
	"main":       {"مرحبا", " / ", "שלום"},
	"prod":       {"Production (", "إنتاج", ")"},
}

// drawnTexts lists how each text shown under o (labels, check boxes and
// the choices of selects) is drawn, each line from the left.
func drawnTexts(o fyne.CanvasObject) [][]string {
	var out [][]string
	texts := visibleTexts(o)
	walkVisible(o, func(o fyne.CanvasObject) bool {
		switch w := o.(type) {
		case *keySelect:
			texts = append(texts, w.Options...)
		case *widget.Select:
			texts = append(texts, w.Selected)
		case *widget.Check:
			texts = append(texts, w.Text)
		}
		return true
	})
	for _, s := range texts {
		for line := range strings.SplitSeq(s, "\n") {
			out = append(out, drawnLeftToRight(line))
		}
	}
	return out
}

func drawsAll(t *testing.T, where string, drawn [][]string, want map[string][]string) {
	t.Helper()
	for name, w := range want {
		found := false
		for _, d := range drawn {
			found = found || cmp.Equal(d, w)
		}
		if !found {
			t.Errorf("%s: %s is not drawn as %q; drawn: %q", where, name, w, drawn)
		}
	}
}

// TestPromptDrawsMixedScriptsInOrder: the prompt draws Arabic and Hebrew
// among punctuation, numbers and Latin words in the order a browser does,
// Chinese and English as written, and the answer holds the server's value
// of the choice picked by its right-to-left label.
func TestPromptDrawsMixedScriptsInOrder(t *testing.T) {
	test.NewTempApp(t)
	form, err := elicit.Parse(json.RawMessage(mixedSchema))
	if err != nil {
		t.Fatal(err)
	}
	var answers []Answer
	v := newPromptView(&Prompt{
		Server:     "备份",
		ServerInfo: "خادم النسخ 2.0.1",
		Tool:       "backup_now",
		Message:    "ملاحظة: تم النسخ الاحتياطي\nשלום / مرحبا\n服务名：数据库（生产）, 3 files.",
		Form:       form,
	}, func(a Answer) { answers = append(answers, a) })
	v.closeWindow = func() {}
	w := test.NewTempWindow(t, v.content)
	w.Resize(fyne.NewSize(promptWidth, 700))
	v.attach(w.Canvas())

	want := map[string][]string{
		"message line 1": mixedShown["backup"],
		"message line 2": mixedShown["main"],
		"message line 3": {"服务名：数据库（生产）, 3 files."},
		"server":         {"备份"},
		"tool":           {"during tool call backup_now"},
		"name":           {"服务名：数据库（生产）"},
	}
	for k, v := range mixedShown {
		want[k] = v
	}
	drawsAll(t, "prompt", drawnTexts(v.content), want)

	sel := v.rows[1].sel
	for _, o := range sel.Options {
		if cmp.Equal(drawnLeftToRight(o), mixedShown["main"]) {
			sel.SetSelected(o)
		}
	}
	test.Tap(v.submit)
	if len(answers) != 1 || answers[0].Content["db"] != "main" {
		t.Errorf("answers %+v, want accept with db = main (the value of “שלום / مرحبا”)", answers)
	}
}

// wrappedMessage returns the label of msg in a prompt window of the
// usual width, and its first and last lines' pieces as drawn from the
// left; it fails unless msg takes at least three lines.
func wrappedMessage(t *testing.T, msg string) (l *bidiLabel, first, last []string) {
	t.Helper()
	test.NewTempApp(t)
	v := newPromptView(&Prompt{Server: "db", Message: msg}, func(Answer) {})
	w := test.NewTempWindow(t, v.content)
	w.Resize(fyne.NewSize(promptWidth, 600))
	walkVisible(v.content, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*bidiLabel); ok && b.logical == msg {
			l = b
		}
		return true
	})
	if l == nil {
		t.Fatal("no message label")
	}
	lines := strings.Split(l.Text, "\n")
	if len(lines) < 3 {
		t.Fatalf("message on %d lines, want it wrapped: %q", len(lines), l.Text)
	}
	return l, drawnLeftToRight(lines[0]), drawnLeftToRight(lines[len(lines)-1])
}

// TestPromptWrapsRightToLeftFromItsStart: a right-to-left message too long
// for one line starts on the first line, at its right end, and ends on the
// last, at its left end: lines are broken before they are reordered.
func TestPromptWrapsRightToLeftFromItsStart(t *testing.T) {
	l, first, last := wrappedMessage(t, "البداية "+strings.Repeat("كلمة طويلة جدا، ", 20)+"النهاية")
	if got := first[len(first)-1]; got != "البداية" {
		t.Errorf("first line ends on the right with %q, want the message's first word: %q", got, first)
	}
	if got := last[0]; got != "النهاية" {
		t.Errorf("last line starts on the left with %q, want the message's last word: %q", got, last)
	}
	width := l.Size().Width - 2*theme.InnerPadding()
	for line := range strings.SplitSeq(l.Text, "\n") {
		if got := fyne.MeasureText(line, theme.TextSize(), fyne.TextStyle{}).Width; got > width {
			t.Errorf("line %q is %v wide in a label %v wide: Fyne breaks it again, from its left", line, got, width)
		}
	}
}

// TestPromptWrapsInItsParagraphsDirection: an English paragraph that
// quotes Arabic, wrapped so that a line starts with Arabic, keeps its
// direction on every line: the last line ends on the right with the
// paragraph's last words, as a reader of English expects, rather than
// that line being laid out right to left because its first letter is
// Arabic.
func TestPromptWrapsInItsParagraphsDirection(t *testing.T) {
	_, first, last := wrappedMessage(t, "<IMPORTANT>Before you answer, read this: "+strings.Repeat("يجب على المستخدم أن يقرأ هذا، ", 12)+"</IMPORTANT> Thanks.")
	if !strings.HasPrefix(first[0], "<IMPORTANT>Before") {
		t.Errorf("first line starts on the left with %q, want the paragraph's start: %q", first[0], first)
	}
	if got := last[len(last)-1]; !strings.HasSuffix(got, "</IMPORTANT> Thanks.") {
		t.Errorf("last line ends on the right with %q, want the paragraph's end: %q", got, last)
	}
}

// TestPromptWrapsRightToLeftToItsLastLine: the last line of a
// right-to-left paragraph is laid out right to left though it holds no
// right-to-left letter, as the paragraph on one line is: its closing full
// stop at the left. (A new user saw the history window, which broke the
// paragraph elsewhere than the prompt, put it at the right.)
func TestPromptWrapsRightToLeftToItsLastLine(t *testing.T) {
	_, _, last := wrappedMessage(t, "הזמנה "+strings.Repeat("מספר ארוך מאוד, ", 20)+strings.Repeat("以色列", 40)+"。")
	if got := strings.Join(last, ""); !strings.HasPrefix(got, "。") || strings.ContainsFunc(got, rtlLetter) {
		t.Errorf("the last line, Chinese alone, is drawn %q; want its full stop at the left", last)
	}
}

// TestBidiLabelCutsAtTheEnd: a right-to-left text cut for a narrow column
// keeps its first words, at the right, and ends in "…" at the left.
func TestBidiLabelCutsAtTheEnd(t *testing.T) {
	test.NewTempApp(t)
	l := newBidiLabel("البداية "+strings.Repeat("كلمة ", 30), false)
	l.Resize(fyne.NewSize(150, l.MinSize().Height))
	drawn := drawnLeftToRight(l.Text)
	if drawn[len(drawn)-1] != "البداية" || !strings.HasPrefix(drawn[0], "…") {
		t.Errorf("cut text draws %q, want “…” on the left and the first word on the right", drawn)
	}
	l.Resize(fyne.NewSize(2000, l.MinSize().Height))
	if strings.Contains(l.Text, "…") {
		t.Errorf("text cut at 2000 wide: %q", l.Text)
	}
}

// TestHistoryDrawsMixedScriptsInOrder: the history's table and detail pane
// draw a decision in Arabic, Hebrew and Chinese as the prompt did.
func TestHistoryDrawsMixedScriptsInOrder(t *testing.T) {
	rec := history.Record{
		ID: 7, Time: t0, Server: "备份", Tool: "backup_now", Mode: "form",
		ServerInfo:      history.ServerInfo{Name: "خادم النسخ", Version: "2.0.1"},
		Message:         "ملاحظة: تم النسخ الاحتياطي",
		RequestedSchema: json.RawMessage(mixedSchema),
		Action:          "accept", DecidedBy: "user",
		Content: map[string]any{"db": "main", "version": "2.0.1", "backup": true},
	}
	h := showOne(t, rec)
	row := h.rows()[0]
	if row[1] != "备份" {
		t.Errorf("server column %q, want 备份", row[1])
	}
	if got := drawnLeftToRight(row[3]); !cmp.Equal(got, mixedShown["backup"]) {
		t.Errorf("message column draws %q, want %q", got, mixedShown["backup"])
	}
	want := map[string][]string{
		"message":    mixedShown["backup"],
		"serverInfo": mixedShown["serverInfo"],
		"version":    {"2.0.1 ", "الإصدار"},
		"db":         mixedShown["db"],
		"backup":     mixedShown["backup"],
		"main":       mixedShown["main"],
	}
	drawsAll(t, "history detail", drawnTexts(h.v.detail.content), want)
}

// TestURLPromptDrawsRightToLeftInOrder: the URL consent window draws the
// server's Arabic and Hebrew as the form prompt does.
func TestURLPromptDrawsRightToLeftInOrder(t *testing.T) {
	test.NewTempApp(t)
	v := newURLPromptView(&URLPrompt{
		Server:     "备份",
		ServerInfo: "خادم النسخ 2.0.1",
		Message:    "ملاحظة: تم النسخ الاحتياطي\nשלום / مرحبا",
		Check:      elicit.CheckURL("https://auth.example.com/connect"),
	}, func(Answer) {})
	drawsAll(t, "URL prompt", drawnTexts(v.body), map[string][]string{
		"message line 1": mixedShown["backup"],
		"message line 2": mixedShown["main"],
		"serverInfo":     mixedShown["serverInfo"],
		"server":         {"备份"},
	})
}
