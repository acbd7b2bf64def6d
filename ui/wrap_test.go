package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/google/go-cmp/cmp"
)

// TestPrewrap: a field's help text is broken into lines that fit the
// window it opens in, at spaces, and inside a word only where it has to
// (text without spaces); no word is lost or changed, and paragraphs stay.
func TestPrewrap(t *testing.T) {
	test.NewTempApp(t)
	size, style := theme.CaptionTextSize(), fyne.TextStyle{Italic: true}
	const width = 300
	for _, tt := range []struct {
		name, text string
		wantLines  int // at least
	}{
		{"short", "How many printed copies", 1},
		{"prose", strings.Repeat("The name as it should appear on the report, with every title. ", 6), 4},
		{"no spaces", strings.Repeat("这是一个很长的中文说明文字没有空格", 4), 3},
		{"a word longer than a line", "see https://example.com/" + strings.Repeat("a", 120) + " for more", 3},
		{"paragraphs", "First paragraph.\nSecond paragraph.", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := prewrap(tt.text, width, size, style)
			lines := strings.Split(got, "\n")
			if len(lines) < tt.wantLines {
				t.Errorf("%d lines, want at least %d:\n%s", len(lines), tt.wantLines, got)
			}
			for _, l := range lines {
				if w := fyne.MeasureText(l, size, style).Width; w > width {
					t.Errorf("line %q is %v wide, more than %v", l, w, width)
				}
			}
			// The same text, read again: words joined as they were, and
			// the breaks inside a word taken out.
			join := func(s string) string {
				return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
			}
			if strings.Contains(tt.text, " ") && !strings.Contains(tt.name, "longer") {
				if diff := cmp.Diff(join(tt.text), join(got)); diff != "" {
					t.Errorf("text changed (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(strings.Join(strings.Fields(tt.text), ""), strings.Join(strings.Fields(got), "")); diff != "" {
				t.Errorf("characters changed (-want +got):\n%s", diff)
			}
		})
	}
}
