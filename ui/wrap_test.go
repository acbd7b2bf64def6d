package ui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// TestPrewrapKeepsMarksOffLineStarts (issue 24): Chinese broken into lines
// never starts a line with a full stop or comma (a new user saw
// "。在高峰时段…"), and no line break falls inside a character (an emoji
// family, a letter and its accent).
func TestPrewrapKeepsMarksOffLineStarts(t *testing.T) {
	test.NewTempApp(t)
	size := theme.TextSize()
	text := strings.Repeat("重启结账服务。在高峰时段，连接池耗尽；请确认！", 6) + strings.Repeat("👩‍👩‍👧‍👦e\u0301", 20)
	han := fyne.MeasureText("服", size, fyne.TextStyle{}).Width
	for cols := 3; cols <= 14; cols++ {
		for _, line := range strings.Split(prewrap(text, han*float32(cols), size, fyne.TextStyle{}), "\n") {
			first, _ := utf8.DecodeRuneInString(line)
			if strings.ContainsRune("。，；！", first) {
				t.Errorf("at %d characters a line, a line starts with %q: %q", cols, first, line)
			}
			if strings.HasPrefix(line, "\u200D") || strings.HasPrefix(line, "\u0301") || strings.HasSuffix(line, "\u200D") {
				t.Errorf("at %d characters a line, a line break falls inside a character: %q", cols, line)
			}
		}
	}
}

// TestPrewrapKeepsIndentation: a message broken into lines (it holds
// right-to-left or Chinese text) keeps each line's indentation and the
// spacing between its words, and its no-break spaces (a YAML-like
// message with one Hebrew name lost its shape: a break-it session's
// finding).
func TestPrewrapKeepsIndentation(t *testing.T) {
	test.NewTempApp(t)
	msg := "services:\n  api:\n    replicas: 3\n  db:\n    owner:  שרה\n    size:\u00a010 GB"
	if got := prewrap(msg, 2000, theme.TextSize(), fyne.TextStyle{}); got != msg {
		t.Errorf("prewrap changed a message that fits:\n%q\nwant\n%q", got, msg)
	}
	size := theme.TextSize()
	narrow := fyne.MeasureText("    replicas: 3", size, fyne.TextStyle{}).Width * 1.1
	for _, line := range strings.Split(prewrap("    replicas: 3 and more words to wrap here", narrow, size, fyne.TextStyle{}), "\n")[1:] {
		if strings.HasPrefix(line, " ") || strings.HasSuffix(line, " ") {
			t.Errorf("a broken line keeps the spacing at its break: %q", line)
		}
	}
}
