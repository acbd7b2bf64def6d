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
