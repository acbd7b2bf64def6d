package ui

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/shaping"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/bidi"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
)

// bidiCases are server texts with the order a browser shows them in, from
// the left: words of Arabic and Hebrew spelled as written (Fyne's shaper
// draws each word's letters right to left), everything else as drawn.
var bidiCases = []struct {
	name, text string
	drawn      []string
}{
	{"Arabic words either side of a colon", "ملاحظة: تم النسخ الاحتياطي",
		[]string{"الاحتياطي", " ", "النسخ", " ", "تم", " :", "ملاحظة"}},
	{"Hebrew and Arabic joined by a slash", "שלום / مرحبا",
		[]string{"مرحبا", " / ", "שלום"}},
	{"Hebrew and Arabic sentences", "שלום עולם. / مرحبا بالعالم.",
		[]string{".", "بالعالم", " ", "مرحبا", " / .", "עולם", " ", "שלום"}},
	{"a version number after Arabic", "الإصدار 2.0.1",
		[]string{"2.0.1 ", "الإصدار"}},
	{"Arabic-Indic digits", "الطلب ٤٢ جاهز",
		[]string{"جاهز", " ٤٢ ", "الطلب"}},
	{"a Latin file name inside Arabic", "افتح ملف report.pdf من فضلك",
		[]string{"فضلك", " ", "من", " report.pdf ", "ملف", " ", "افتح"}},
	{"parentheses inside Arabic, mirrored", "مرحبا (عالم) اليوم",
		[]string{"اليوم", " (", "عالم", ") ", "مرحبا"}},
	{"Hebrew with a number and a Latin word", "גרסה 3 של Chrome",
		[]string{"Chrome ", "של", " 3 ", "גרסה"}},
	{"Arabic in an English line, then a bracketed count", "Backup: نسخة احتياطية (2 files)",
		[]string{"Backup: ", "احتياطية", " ", "نسخة", " (2 files)"}},
	{"Arabic between Chinese and a file extension", "文件：ملف.txt",
		[]string{"文件：", "ملف", ".txt"}},
	// Persian writes a zero-width non-joiner inside words: the word is
	// one group, drawn whole (it was two, whose letters the shaper joined
	// across the gap).
	{"a Persian word with a zero-width non-joiner", "نام\u200cخانوادگی",
		[]string{"نام\u200cخانوادگی"}},
	{"Persian words with non-joiners after a Latin label", "A: نام\u200cخانوادگی و می\u200cخواهم",
		[]string{"A: ", "می\u200cخواهم", " ", "و", " ", "نام\u200cخانوادگی"}},
	{"a Persian check box's title", "می\u200cخواهم کشتی",
		[]string{"کشتی", " ", "می\u200cخواهم"}},
	{"English unchanged", "Deploy to production (dry run) v2.0.1", []string{"Deploy to production (dry run) v2.0.1"}},
	{"Chinese unchanged", "服务名：数据库（生产），副本数 3", []string{"服务名：数据库（生产），副本数 3"}},
}

// drawnLeftToRight returns what Fyne draws for one line of bidiText's
// result, from the left: each right-to-left word group, which sits between
// LRMs and which Fyne's shaper draws right to left, as its words in
// reverse, and every other character as it comes.
func drawnLeftToRight(line string) []string {
	var out []string
	add := func(s string, rtl bool) {
		if n := len(out); n > 0 && !rtl && !strings.ContainsFunc(out[n-1], rtlLetter) {
			out[n-1] += s
			return
		}
		out = append(out, s)
	}
	for chunk := range strings.SplitSeq(line, string(lrm)) {
		if !strings.ContainsFunc(chunk, rtlLetter) {
			if chunk != "" {
				add(chunk, false)
			}
			continue
		}
		words := strings.Split(chunk, " ")
		for i := len(words) - 1; i >= 0; i-- {
			add(words[i], true)
			if i > 0 {
				add(" ", false)
			}
		}
	}
	return out
}

func rtlLetter(r rune) bool { c := bidiClass(r); return c == bidi.R || c == bidi.AL }

func TestBidiTextDrawsVisualOrder(t *testing.T) {
	for _, tt := range bidiCases {
		t.Run(tt.name, func(t *testing.T) {
			got := bidiText(tt.text)
			if !strings.ContainsFunc(tt.text, rtlRune) && got != tt.text {
				t.Fatalf("bidiText(%q) = %q, want it unchanged", tt.text, got)
			}
			if diff := cmp.Diff(tt.drawn, drawnLeftToRight(got)); diff != "" {
				t.Errorf("bidiText(%q) = %+q draws out of order (-want +got):\n%s", tt.text, got, diff)
			}
			if strings.ReplaceAll(got, string(lrm), "") == "" {
				t.Errorf("bidiText(%q) is empty", tt.text)
			}
		})
	}
}

// TestBidiTextLines: each line is a paragraph of its own, reordered alone,
// and an English line keeps its exact text.
func TestBidiTextLines(t *testing.T) {
	got := strings.Split(bidiText("Notes for the release\nملاحظة: تم النسخ"), "\n")
	if got[0] != "Notes for the release" {
		t.Errorf("first line %q, want it unchanged", got[0])
	}
	want := []string{"النسخ", " ", "تم", " :", "ملاحظة"}
	if diff := cmp.Diff(want, drawnLeftToRight(got[1])); diff != "" {
		t.Errorf("second line out of order (-want +got):\n%s", diff)
	}
}

// TestBidiLevelsAgreeWithXText: the direction bidiLevels gives each
// character is the one golang.org/x/text/unicode/bidi resolves (its runs
// do not tell number levels apart, which the table above checks), for the
// table's cases and 20,000 short mixes of Hebrew, Arabic, Latin, both
// kinds of digits, punctuation, a mark and a tab. Not for brackets: x/text
// can give the two brackets of a pair different directions ("(2 files)"
// after Arabic: "(" right to left, ")" left to right), which N0 never
// does; Pango draws "(2 files)" left to right whole, as bidiLevels has it.
func TestBidiLevelsAgreeWithXText(t *testing.T) {
	texts := []string{}
	for _, tt := range bidiCases {
		if !strings.Contains(tt.text, "(2 files)") {
			texts = append(texts, tt.text)
		}
	}
	alphabet := []rune("abשלمر12٣٤ .,:/-+%$#!?،؛\u064e\t")
	rng := rand.New(rand.NewPCG(24, 24))
	for range 20_000 {
		r := make([]rune, 1+rng.IntN(10))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(r))
	}
	for _, text := range texts {
		line := []rune(text)
		levels := bidiLevels(line, -1)
		var p bidi.Paragraph
		if _, err := p.SetString(text); err != nil {
			t.Fatal(err)
		}
		o, err := p.Order()
		if err != nil {
			t.Fatal(err)
		}
		for i := range o.NumRuns() {
			run := o.Run(i)
			start, end := run.Pos()
			for k := start; k <= end; k++ {
				if got := levels[k]%2 == 1; got != (run.Direction() == bidi.RightToLeft) && !trailingSpace(line, k) {
					t.Fatalf("%+q: %q at %d has level %d; x/text says %v", text, line[k], k, levels[k], run.Direction())
				}
			}
		}
	}
}

// trailingSpace: x/text leaves out UAX #9 L1, which sets spaces at the end
// of a line to the paragraph's level.
func trailingSpace(line []rune, k int) bool {
	return strings.TrimRight(string(line[k:]), " ") == ""
}

func FuzzBidiText(f *testing.F) {
	for _, tt := range bidiCases {
		f.Add(tt.text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := bidiText(s)
		// Nothing is lost or added but marks: every character is drawn.
		strip := func(s string) []rune {
			r := []rune(strings.Map(func(r rune) rune {
				if r == lrm {
					return -1
				}
				return min(r, mirror(r))
			}, s))
			slices.Sort(r)
			return r
		}
		if !slices.Equal(strip(got), strip(s)) {
			t.Errorf("bidiText(%q) = %q has other characters", s, got)
		}
	})
}

// twoFonts resolves right-to-left letters to one font and everything else
// to another, as Fyne's font map does with its theme font, which has no
// Arabic or Hebrew, and a system font that has them.
type twoFonts struct{ latin, rtl font.Face }

func (f *twoFonts) ResolveFace(r rune) *font.Face {
	if rtlLetter(r) || unicode.Is(unicode.Mn, r) {
		return &f.rtl
	}
	return &f.latin
}

// fyneDraws returns the characters of s from the left as Fyne 2.7's
// painter (internal/painter/font.go, walkString) places them: go-text's
// Segmenter splits s into runs by direction, script and font, the runs are
// drawn one after another from the left in the order they come, and the
// shaper puts a right-to-left run's characters right to left.
func fyneDraws(s string) string {
	runes := []rune(s)
	in := shaping.Input{Text: runes, RunEnd: len(runes), Direction: di.DirectionLTR}
	var b strings.Builder
	for _, run := range (&shaping.Segmenter{}).Split(in, &twoFonts{}) {
		part := slices.Clone(runes[run.RunStart:run.RunEnd])
		if run.Direction.Progression() == di.TowardTopLeft {
			slices.Reverse(part)
		}
		b.WriteString(strings.ReplaceAll(string(part), string(lrm), ""))
	}
	return b.String()
}

// visualChars returns drawn tokens (see bidiCases) as characters from the
// left.
func visualChars(tokens []string) string {
	var b strings.Builder
	for _, tok := range tokens {
		r := []rune(tok)
		if strings.ContainsFunc(tok, rtlLetter) {
			slices.Reverse(r)
		}
		b.WriteString(string(r))
	}
	return b.String()
}

// TestFyneDrawsBidiTextInOrder: given bidiText's result, Fyne's own
// segmentation draws each case in the browser's order; given the text as
// written, it swaps words wherever punctuation, digits or another script
// split a right-to-left stretch into runs (issue 24).
func TestFyneDrawsBidiTextInOrder(t *testing.T) {
	for _, tt := range bidiCases {
		t.Run(tt.name, func(t *testing.T) {
			want := visualChars(tt.drawn)
			if got := fyneDraws(bidiText(tt.text)); got != want {
				t.Errorf("Fyne draws bidiText(%q) as %q, want %q", tt.text, got, want)
			}
		})
	}
	raw := "ملاحظة: تم النسخ الاحتياطي"
	if fyneDraws(raw) == visualChars(bidiCases[0].drawn) {
		t.Errorf("Fyne draws %q in order by itself: the workaround is no longer needed", raw)
	}
}

// TestBidiSentenceRunsLeftToRight: elicitray's own sentence that starts
// with a server's right-to-left title reads left to right, as the window's
// language does: the title first, the English after it, the full stop last
// (bidiText alone takes the title's direction and puts the full stop first).
func TestBidiSentenceRunsLeftToRight(t *testing.T) {
	for _, tt := range []struct{ sentence, title, tail string }{
		{"اسم الخادم is required.", "اسم الخادم", " is required."},
		{"שם השרת must be at most 10.", "שם השרת", " must be at most 10."},
	} {
		got := bidiSentence(tt.sentence)
		at := strings.Index(got, tt.title)
		if !strings.HasSuffix(got, tt.tail) || at < 0 || at > strings.Index(got, tt.tail) {
			t.Errorf("bidiSentence(%q) = %q, want the title, then %q", tt.sentence, got, tt.tail)
		}
		if !strings.HasPrefix(strings.TrimLeft(bidiText(tt.sentence), string(lrm)), ".") {
			t.Errorf("bidiText(%q) = %q: it no longer starts with the full stop, so this test tells nothing apart", tt.sentence, bidiText(tt.sentence))
		}
	}
	if got := bidiSentence("Name is required."); got != "Name is required." {
		t.Errorf("an English sentence became %q", got)
	}
}

// TestOwnWordsAmongRightToLeftTitles: elicitray's words beside a
// server's right-to-left ones keep their order (found by a new user, with
// a Hebrew server): the fields to fix are named in the form's order, not
// last first, and the range after a Hebrew description ends with its own
// full stop, not with one at the line's far left.
func TestOwnWordsAmongRightToLeftTitles(t *testing.T) {
	hint := bidiSentence(fixHint([]string{"שם", "עיר", "📦 حزمة", "Zoë"}))
	if got, want := drawnLeftToRight(hint), []string{"To submit, fix: “", "שם", "”, “", "עיר", "”, “📦 ", "حزمة", "”, “Zoë”"}; !cmp.Equal(got, want) {
		t.Errorf("the hint is drawn %q, want %q", got, want)
	}
	lo, hi := json.Number("1"), json.Number("12")
	f := &elicit.Field{Name: "guests", Kind: elicit.KindInteger, Description: "מספר האורחים", Minimum: &lo, Maximum: &hi}
	if got, want := drawnLeftToRight(bidiText(helpText(f))), []string{"Whole number, 1 to 12. — ", "האורחים", " ", "מספר"}; !cmp.Equal(got, want) {
		t.Errorf("the help line is drawn %q, want %q", got, want)
	}
	f.Description = "How many guests (אורחים)"
	if got, want := drawnLeftToRight(bidiText(helpText(f))), []string{"How many guests (", "אורחים", ") — Whole number, 1 to 12."}; !cmp.Equal(got, want) {
		t.Errorf("the help line is drawn %q, want %q", got, want)
	}
}

// TestBidiTextMirrors: in a right-to-left stretch every mirrored character
// is drawn as its mirror image, comparisons and all brackets alike: "المبلغ
// ≥ 1000" drawn with its sign as written read as "≤ 1000" (a break-it
// session's finding).
func TestBidiTextMirrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"المبلغ ≥ 1000", "1000 ≤ المبلغ"},
		{"הסכום ≤ 500", "500 ≥ הסכום"},
		{"「שלום」 עולם", "עולם 「שלום」"},
		{"《مرحبا》", "《مرحبا》"},
		{"x ∈ אבג", "x ∈ אבג"},
	} {
		if got := strings.ReplaceAll(bidiText(tt.in), string(lrm), ""); got != tt.want {
			t.Errorf("bidiText(%q) draws %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestBidiTextKeepsCharactersWhole: an emoji sequence or a mark on
// punctuation inside right-to-left text moves as one character, never
// reversed inside (👍🏽 showed as a swatch beside a yellow thumb).
func TestBidiTextKeepsCharactersWhole(t *testing.T) {
	for _, c := range []string{"👍🏽", "👩‍👩‍👧‍👦", "🏳️‍🌈", "#️⃣", "!\u0301"} {
		in := "שלום " + c + " עולם"
		if got := bidiText(in); !strings.Contains(got, c) {
			t.Errorf("bidiText(%q) = %q: %q is not whole", in, got, c)
		}
	}
}

// TestVersionAfterRightToLeftName: what a server calls itself, a name
// that ends in Persian and its version, is drawn with the version after
// the name, in the prompt's header and the history's detail pane (it was
// drawn inside it: “多言語テスト・0.0.1 سرور آزمایشی”, a new user's
// finding).
func TestVersionAfterRightToLeftName(t *testing.T) {
	si := bridge.ServerInfo{Name: "多言語テスト・سرور آزمایشی", Version: "0.0.1"}
	want := []string{"calls itself “多言語テスト・", "آزمایشی", " ", "سرور", " 0.0.1”"}
	for where, called := range map[string]string{
		"prompt":  Called(si),
		"history": serverInfoText(history.ServerInfo(si)),
	} {
		line := bidiSentence("calls itself “" + called + "”")
		if diff := cmp.Diff(want, drawnLeftToRight(line)); diff != "" {
			t.Errorf("%s: %+q draws out of order (-want +got):\n%s", where, line, diff)
		}
	}
	if got := Called(bridge.ServerInfo{Name: "everything", Version: "2.0.0"}); got != "everything 2.0.0" {
		t.Errorf("Called = %q, want the name and version as they are", got)
	}
}
