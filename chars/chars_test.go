package chars

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// The scripts every helper is tried on (issue 24): text that servers write
// for their users, where a cut by bytes or runes showed broken characters
// or split an emoji, and padding by runes shifted a terminal's columns.
const (
	chinese    = "服务名"
	arabic     = "مرحبا بالعالم"
	hebrew     = "שלום עולם"
	devanagari = "नमस्ते"  // vowel signs and a virama, marks joined to the letter before
	thumbs     = "👍🏽"      // a skin-tone modifier: two runes, one character
	family     = "👩‍👩‍👧‍👦" // a ZWJ sequence: seven runes, one character
	flags      = "🇯🇵🇫🇷"    // regional indicator pairs: four runes, two characters
	ecole      = "e\u0301cole"
	mixed      = "Deploy 数据库 👍🏽 now"
)

func TestCountWidth(t *testing.T) {
	for _, tt := range []struct {
		s            string
		count, width int
	}{
		{"", 0, 0},
		{"github", 6, 6},
		{chinese, 3, 6},
		{arabic, 13, 13},
		{hebrew, 9, 9},
		{devanagari, 4, 4},
		{thumbs, 1, 2},
		{family, 1, 2},
		{flags, 2, 4},
		{ecole, 5, 5},
		{mixed, 16, 20},
	} {
		t.Run(tt.s, func(t *testing.T) {
			if got := Count(tt.s); got != tt.count {
				t.Errorf("Count = %d, want %d", got, tt.count)
			}
			if got := Width(tt.s); got != tt.width {
				t.Errorf("Width = %d, want %d", got, tt.width)
			}
		})
	}
}

func TestCapitalize(t *testing.T) {
	for _, tt := range []struct{ s, want string }{
		{"", ""},
		{"copies must be at most 10.", "Copies must be at most 10."},
		{chinese + " is required.", chinese + " is required."},
		{arabic, arabic},
		{hebrew, hebrew},
		{devanagari, devanagari},
		{thumbs + " ok", thumbs + " ok"},
		{family, family},
		{ecole, "E\u0301cole"},
		{"émile", "Émile"},
		{"ǆungla", "ǅungla"}, // the title case letter, not Ǆ
		{"élan " + chinese, "Élan " + chinese},
		{"1 field", "1 field"},
	} {
		t.Run(tt.s, func(t *testing.T) {
			if got := Capitalize(tt.s); got != tt.want {
				t.Errorf("Capitalize(%q) = %q, want %q", tt.s, got, tt.want)
			}
		})
	}
}

func TestAll(t *testing.T) {
	all := All(mixed + family + flags + ecole)
	want := []string{"D", "e", "p", "l", "o", "y", " ", "数", "据", "库", " ", thumbs, " ", "n", "o", "w", family, "🇯🇵", "🇫🇷", "e\u0301", "c", "o", "l", "e"}
	for range 2 { // a sequence that can be ranged over again
		var got []string
		for c := range all {
			got = append(got, c)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the characters (-want +got):\n%s", diff)
		}
	}
}

func TestIndex(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{chinese, 2, "服务"},
		{arabic, 5, "مرحبا"},
		{hebrew, 4, "שלום"},
		{devanagari, 3, "नमस्"},
		{thumbs + "x", 1, thumbs},
		{family + family, 1, family},
		{flags, 1, "🇯🇵"},
		{ecole, 1, "e\u0301"},
		{mixed, 99, mixed},
		{mixed, 0, ""},
	} {
		t.Run(fmt.Sprint(tt.s, tt.n), func(t *testing.T) {
			if got := tt.s[:Index(tt.s, tt.n)]; got != tt.want {
				t.Errorf("the first %d characters of %q are %q, want %q", tt.n, tt.s, got, tt.want)
			}
		})
	}
}

func TestCut(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{chinese, 3, chinese},
		{chinese, 2, "服…"},
		{arabic, 6, "مرحبا…"},
		{hebrew, 5, "שלום…"},
		{devanagari, 3, "नम…"}, // never न and a lone vowel sign
		{thumbs + thumbs + thumbs, 2, thumbs + "…"},
		{family + family + family, 2, family + "…"},
		{flags + flags, 3, flags + "…"},
		{ecole, 2, "e\u0301…"},
		{mixed, 9, "Deploy 数…"},
		{mixed, 16, mixed},
	} {
		t.Run(fmt.Sprint(tt.s, tt.n), func(t *testing.T) {
			got := Cut(tt.s, tt.n)
			if got != tt.want {
				t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
			if Count(got) > tt.n {
				t.Errorf("Cut(%q, %d) has %d characters", tt.s, tt.n, Count(got))
			}
		})
	}
}

func TestCutMiddle(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"Deploy to production (dry run only)", 12, "Deploy…only)"},
		{chinese + chinese, 4, "服…务名"},
		{arabic, 6, "مرح…لم"},
		{hebrew, 6, "שלו…לם"},
		{devanagari, 3, "न…ते"},
		{thumbs + "ab" + family, 3, thumbs + "…" + family},
		{flags + "x" + flags, 3, "🇯🇵…🇫🇷"},
		{ecole + ecole, 6, "e\u0301co…le"},
		{mixed, 2, "D…"},
		{mixed, 16, mixed},
	} {
		t.Run(fmt.Sprint(tt.s, tt.n), func(t *testing.T) {
			got := CutMiddle(tt.s, tt.n)
			if got != tt.want {
				t.Errorf("CutMiddle(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
		})
	}
}

func TestCutWidth(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{chinese, 6, chinese},
		{chinese, 5, "服务…"},
		{chinese, 4, "服…"}, // 务 does not fit in the 2 columns left: it goes whole
		{arabic, 6, "مرحبا…"},
		{hebrew, 5, "שלום…"},
		{devanagari, 3, "नम…"},
		{thumbs + thumbs, 3, thumbs + "…"},
		{family + family, 4, family + family},
		{family + family + "x", 4, family + "…"},
		{flags, 3, "🇯🇵…"},
		{ecole, 3, "e\u0301c…"},
		{mixed, 12, "Deploy 数据…"},
	} {
		t.Run(fmt.Sprint(tt.s, tt.n), func(t *testing.T) {
			got := CutWidth(tt.s, tt.n)
			if got != tt.want {
				t.Errorf("CutWidth(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
			if Width(got) > tt.n {
				t.Errorf("CutWidth(%q, %d) is %d columns wide", tt.s, tt.n, Width(got))
			}
		})
	}
}

func TestPad(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{chinese, 8, chinese + "  "},
		{arabic, 15, arabic + "  "},
		{hebrew, 10, hebrew + " "},
		{devanagari, 6, devanagari + "  "},
		{thumbs, 3, thumbs + " "},
		{family, 3, family + " "},
		{flags, 5, flags + " "},
		{ecole, 6, ecole + " "},
		{mixed, 10, mixed},
	} {
		t.Run(fmt.Sprint(tt.s, tt.n), func(t *testing.T) {
			if got := Pad(tt.s, tt.n); got != tt.want {
				t.Errorf("Pad(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
		})
	}
}

// TestBytes: a log line's byte budget never ends inside a character, which
// printed as "\xe6\x9c" (or half an emoji) at the end of a quoted preview.
func TestBytes(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{chinese, 8, "服务"},
		{chinese, 9, chinese},
		{arabic, 5, "مر"},
		{hebrew, 3, "ש"},
		{devanagari, 8, "नम"},
		{devanagari, 9, "नम"}, // स without its virama is not a character here
		{"ok " + thumbs, 6, "ok "},
		{"ok " + family, 24, "ok "},
		{flags, 9, "🇯🇵"},
		{ecole, 2, ""},
		{ecole, 3, "e\u0301"},
		{"a\xff\xfeb", 2, "a\xff"},
	} {
		t.Run(fmt.Sprint(tt.s, tt.n), func(t *testing.T) {
			if got := Bytes(tt.s, tt.n); got != tt.want {
				t.Errorf("Bytes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
			if got := Bytes([]byte(tt.s), tt.n); string(got) != tt.want {
				t.Errorf("Bytes([]byte(%q), %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
		})
	}
}

// TestColumns: a table of server names in every script lines up in a
// terminal: each column starts at the same display column on every line,
// which text/tabwriter, counting runes, got wrong after 数据库 and emoji.
func TestColumns(t *testing.T) {
	var out bytes.Buffer
	c := NewColumns(&out)
	fmt.Fprintln(c, "ID\tSERVER\tMESSAGE")
	for i, name := range []string{"github", "数据库", arabic, hebrew, devanagari, thumbs, family, flags, ecole} {
		fmt.Fprintf(c, "%d\t%s\tDeploy?\n", i+1, name)
	}
	fmt.Fprintln(c, "one cell ends the block")
	fmt.Fprintln(c, "x\ty")
	if out.Len() != 0 {
		t.Fatalf("wrote before Flush: %q", out.String())
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for i, l := range lines[:10] {
		at := strings.LastIndex(l, "\t")
		if at >= 0 {
			t.Fatalf("line %d keeps a tab: %q", i, l)
		}
		msg := strings.Index(l, "MESSAGE")
		if msg < 0 {
			msg = strings.Index(l, "Deploy?")
		}
		if w := Width(l[:msg]); w != 2+2+Width(arabic)+2 {
			t.Errorf("line %d: the third column starts at column %d, want %d:\n%s", i, w, 2+2+Width(arabic)+2, out.String())
		}
	}
	if diff := cmp.Diff([]string{"one cell ends the block", "x  y"}, lines[10:]); diff != "" {
		t.Errorf("the lines after the block (-want +got):\n%s", diff)
	}
	if !utf8.ValidString(out.String()) {
		t.Errorf("not UTF-8: %q", out.String())
	}
}

// FuzzCut: whatever the text, a cut keeps to its limit, starts the text as
// it was, and never ends inside a character: the characters kept and the
// characters left out add up to the text's own.
func FuzzCut(f *testing.F) {
	for _, s := range []string{chinese, arabic, hebrew, devanagari, thumbs, family, flags, ecole, mixed, "a\xff\xfeb"} {
		f.Add(s+s+s, 4)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = (n%64+64)%64 + 1 // 1 to 64
		whole := func(kept string) {
			t.Helper()
			if !strings.HasPrefix(s, kept) || Count(kept)+Count(s[len(kept):]) != Count(s) {
				t.Errorf("%q is not a start of %q that ends between characters", kept, s)
			}
		}
		if got := Cut(s, n); Count(got) > n {
			t.Errorf("Cut(%q, %d) = %q, %d characters", s, n, got, Count(got))
		} else {
			whole(strings.TrimSuffix(got, Ellipsis))
		}
		if got := CutWidth(s, n); Width(got) > n {
			t.Errorf("CutWidth(%q, %d) = %q, %d columns", s, n, got, Width(got))
		} else {
			whole(strings.TrimSuffix(got, Ellipsis))
		}
		if got := CutMiddle(s, n); Count(got) > n {
			t.Errorf("CutMiddle(%q, %d) = %q, %d characters", s, n, got, Count(got))
		}
		whole(s[:Index(s, n)])
		whole(Bytes(s, n))
		if len(Bytes(s, n)) > n {
			t.Errorf("Bytes(%q, %d) = %q, more than %d bytes", s, n, Bytes(s, n), n)
		}
	})
}

// TestCapitalizeLeavesNamesAlone: a first word that already has a capital
// after its start is a name as its owner writes it (a break-it session saw
// "IPhone model is required."); nothing is cut to a limit of zero.
func TestCapitalizeLeavesNamesAlone(t *testing.T) {
	for in, want := range map[string]string{"iPhone model": "iPhone model", "eBay": "eBay", "name": "Name", "ǆungla x": "ǅungla x"} {
		if got := Capitalize(in); got != want {
			t.Errorf("Capitalize(%q) = %q, want %q", in, got, want)
		}
	}
	if Cut("abc", 0) != "" || CutMiddle("abc", 0) != "" || CutWidth("abc", 0) != "" {
		t.Error("a cut to nothing left something")
	}
}
