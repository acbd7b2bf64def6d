package ui

import (
	"strings"
	"testing"
	"unicode"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// TestURLMessagesTranslated: each warning and refusal bridge/elicit writes
// about a link, made here from a real link, reads in Chinese in the URL
// consent window and the History pane for a Chinese user, and in English as
// elicit wrote it.
func TestURLMessagesTranslated(t *testing.T) {
	han := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
	}
	for _, raw := range []string{
		"https://user@example.com/",
		"https://exаmple.com/", // a Cyrillic а among Latin letters
		"https://例子.测试/",
		"https://192.0.2.1/",
		"https://printer.local/",
		"http://example.com/",
		"https://example.com:8443/",
	} {
		t.Run(raw, func(t *testing.T) {
			c := elicit.CheckURL(raw)
			if len(c.Warnings) == 0 {
				t.Fatalf("elicit gives %q no warning", raw)
			}
			for _, w := range c.Warnings {
				withLocale(t, map[string]string{"LANG": "C"})
				if got := urlWarning(w); got != w {
					t.Errorf("in English %q, want %q as elicit wrote it", got, w)
				}
				withLocale(t, map[string]string{"LANG": "zh_CN.UTF-8"})
				if got := urlWarning(w); !han(got) {
					t.Errorf("a Chinese user reads %q: it is not in urlWarnings", got)
				}
			}
		})
	}
	for _, raw := range []string{
		"https://exa mple.com/",
		"ftp://example.com/",
		"example.com/path",
		"https:///path",
		"https://example.com:99999/",
		"https://[fe80::1%25eth0]/",
		"https://exa_mple.com/",
		"https://example.123/",
		"https://%zz/",
		"https://example.com/" + strings.Repeat("a", 9000),
		"https://example.com/\xff",
	} {
		t.Run(raw[:min(len(raw), 40)], func(t *testing.T) {
			c := elicit.CheckURL(raw)
			if c.Refused == nil {
				t.Fatalf("elicit does not refuse %q", raw)
			}
			withLocale(t, map[string]string{"LANG": "C"})
			if got, want := urlRefusal(c.Refused), sentence(c.Refused); got != want {
				t.Errorf("in English %q, want %q as before", got, want)
			}
			withLocale(t, map[string]string{"LANG": "zh_CN.UTF-8"})
			got := urlRefusal(c.Refused)
			if rest := strings.TrimPrefix(got, "链接被拒绝："); rest == got || !han(rest) {
				t.Errorf("a Chinese user reads %q: %q is not in urlRefusals", got, c.Refused)
			}
		})
	}
}
