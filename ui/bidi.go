package ui

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"golang.org/x/text/unicode/bidi"

	"github.com/elicitray/elicitray/chars"
)

// Fyne 2.7 draws a line's text in runs (go-text's shaping.Segmenter splits
// it by direction, script and font) placed left to right in the order the
// runs come in the string, and only within a run does the shaper put
// right-to-left letters right to left. The Unicode Bidirectional Algorithm
// (UAX #9 L2) also reverses the order of the runs of a right-to-left
// stretch, which Fyne never does, so "ملاحظة: تم", whose colon comes from
// another font than its letters, showed its two words swapped. See
// docs/bidi.md. bidiText hands Fyne a string whose runs, drawn in string
// order, are in the algorithm's visual order.

// lrm (LEFT-TO-RIGHT MARK) is strong, invisible and zero-width: around a
// right-to-left word it keeps Fyne's own bidi from joining that word with
// anything else in a run, which Fyne would again draw in the wrong order.
const lrm = '\u200E'

// bidiText returns server text (without bidi controls: see elicit.Visible)
// as Fyne must be given it to draw each line in the visual order of the
// Unicode Bidirectional Algorithm, each line ("\n") a paragraph whose
// direction is its first strong letter's (UAX #9 P2–P3, as a browser's
// dir="auto"). A line with no right-to-left letter or Arabic digit is
// returned as it is, so English and Chinese text never changes. The result
// is for drawing only: what is stored or sent back stays s. Wrap text
// before (prewrap), never after: a line broken after reordering would
// start with its logical end. Give it text as written, once: its result
// put through it again would be reordered twice (a result may be quoted
// whole inside other text, which its marks keep apart).
func bidiText(s string) string {
	if !strings.ContainsFunc(s, rtlRune) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		if strings.ContainsFunc(line, rtlRune) {
			lines[i] = visualLine([]rune(line), -1)
		}
	}
	return strings.Join(lines, "\n")
}

// bidiWrapped is bidiText for s broken into lines for width (prewrap):
// each line is reordered with the direction of the paragraph it was
// broken from, as UAX #9 reorders lines, not its own first letter's, so
// that the Arabic that starts the second line of an English paragraph
// stays where a reader of the paragraph expects it.
func bidiWrapped(s string, width, size float32, style fyne.TextStyle) string {
	paras := strings.Split(s, "\n")
	for i, para := range paras {
		if !strings.ContainsFunc(para, rtlRune) {
			paras[i] = prewrap(para, width, size, style)
			continue
		}
		level := paragraphLevel([]rune(para))
		// A line reordered may measure a little wider than as written
		// (the marks that keep its pieces apart, a font's rounding):
		// broken again a little narrower until every line fits, or Fyne
		// would break it again from its left.
		for try := width; ; {
			lines := strings.Split(prewrap(para, try, size, style), "\n")
			over := float32(0)
			for j, line := range lines {
				// A line of a right-to-left paragraph is laid out right to
				// left even when it holds no right-to-left letter: "以色列。"
				// ending an Arabic paragraph draws its full stop at the left.
				if level == 1 || strings.ContainsFunc(line, rtlRune) {
					lines[j] = visualLine([]rune(line), level)
				}
				over = max(over, fyne.MeasureText(lines[j], size, style).Width-width)
			}
			paras[i] = strings.Join(lines, "\n")
			if over <= 0 || try <= width/2 {
				break
			}
			try -= over
		}
	}
	return strings.Join(paras, "\n")
}

// bidiSentence is bidiText for a sentence of elicitray's own that quotes
// server text: its paragraph runs left to right, as the window's language
// does, whatever script the quoted text starts with ("اسم الخادم is
// required." keeps its full stop at the end), where bidiText would take
// the direction of the first letter.
func bidiSentence(s string) string {
	if !strings.ContainsFunc(s, rtlRune) {
		return s
	}
	return bidiText(string(lrm) + s)
}

// rtlRune reports whether r is a right-to-left letter or an Arabic digit:
// the only characters that make the bidi algorithm reorder anything.
func rtlRune(r rune) bool {
	if r < 0x0590 {
		return false
	}
	switch bidiClass(r) {
	case bidi.R, bidi.AL, bidi.AN:
		return true
	}
	return false
}

func bidiClass(r rune) bidi.Class {
	p, _ := bidi.LookupRune(r)
	return p.Class()
}

// piece is a stretch of a line that Fyne draws as one run: a
// right-to-left word group of one script, given in logical order (the
// shaper reverses it), or a single other character.
type piece struct {
	text  []rune
	level int8
	rtl   bool // a word group Fyne shapes right to left
}

// visualLine returns one line for Fyne, of a paragraph of level para (0
// left to right, 1 right to left, -1 its first strong letter's): its
// pieces in visual order from
// the left, each right-to-left word group between LRMs, and an LRM first
// so that Fyne takes the line as left to right and draws it as given: a
// lone character of a right-to-left stretch is then drawn left to right,
// which for one character is the same but for its mirroring.
func visualLine(line []rune, para int8) string {
	levels := bidiLevels(line, para)
	// Where each character (an emoji sequence, a letter and its accents)
	// ends: it moves as a whole (UAX #9 L3), never reversed inside.
	ends := make([]bool, len(line)+1)
	n := 0
	for c := range chars.All(string(line)) {
		n += utf8.RuneCountInString(c)
		ends[n] = true
	}
	var pieces []piece
	for i := 0; i < len(line); {
		j, rtl := i+1, levels[i]%2 == 1 && wordRune(line[i])
		if rtl {
			j = groupEnd(line, levels, i)
		}
		for j < len(line) && !ends[j] {
			j++
		}
		pieces = append(pieces, piece{text: line[i:j], level: levels[i], rtl: rtl})
		i = j
	}
	reorder(pieces)
	var b strings.Builder
	b.WriteRune(lrm)
	for _, p := range pieces {
		switch {
		case p.rtl:
			b.WriteRune(lrm)
			b.WriteString(string(p.text))
			b.WriteRune(lrm)
		case p.level%2 == 1:
			// A character of a right-to-left stretch drawn left to right:
			// its mirror image, as UAX #9 L4 asks ("(" shows as ")").
			b.WriteRune(mirror(p.text[0]))
			b.WriteString(string(p.text[1:]))
		default:
			b.WriteString(string(p.text))
		}
	}
	return b.String()
}

// wordRune reports whether r belongs in a right-to-left word group: a
// letter or mark of a script of its own (Hebrew, Arabic…; marks belong to
// their letter), the Arabic tatweel, which joins letters, or a zero-width
// non-joiner or joiner, which Persian writes inside everyday words
// (نام‌خانوادگی, می‌خواهم). A word split there was drawn as two runs
// side by side, and the shaper, which looks past the marks between them,
// joined the last letter of the one on the left to the first of the other:
// a final ی drawn as a medial one.
func wordRune(r rune) bool {
	return r == '\u0640' || r == '\u200c' || r == '\u200d' || unicode.In(r, unicode.L, unicode.M) && !unicode.Is(unicode.Common, r)
}

// groupEnd returns the end of the word group starting at i: letters of
// line[i]'s script and marks, at its level, with the spaces between its
// words. The group stops at anything Fyne could take from another font
// (punctuation, digits, another script), which would split the run.
func groupEnd(line []rune, levels []int8, i int) int {
	script := scriptOf(line[i])
	end := i + 1
	for j := i + 1; j < len(line) && levels[j] == levels[i]; j++ {
		r := line[j]
		if r == ' ' {
			continue
		}
		if !wordRune(r) || scriptOf(r) != script && !unicode.Is(unicode.Inherited, r) {
			break
		}
		end = j + 1
	}
	return end
}

// scriptOf returns the name of r's script, "" for none of those listed.
func scriptOf(r rune) string {
	for _, name := range []string{"Hebrew", "Arabic", "Syriac", "Thaana", "Nko", "Samaritan", "Mandaic", "Adlam", "Hanifi_Rohingya", "Yezidi"} {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return ""
}

// reorder puts pieces in visual order: from the highest level down to the
// lowest odd one, every stretch at that level or higher is reversed
// (UAX #9 L2).
func reorder(pieces []piece) {
	var hi, lo int8 = 0, 127
	for _, p := range pieces {
		hi = max(hi, p.level)
		if p.level%2 == 1 {
			lo = min(lo, p.level)
		}
	}
	for lvl := hi; lvl >= lo; lvl-- {
		for i := 0; i < len(pieces); {
			if pieces[i].level < lvl {
				i++
				continue
			}
			j := i
			for j < len(pieces) && pieces[j].level >= lvl {
				j++
			}
			for a, z := i, j-1; a < z; a, z = a+1, z-1 {
				pieces[a], pieces[z] = pieces[z], pieces[a]
			}
			i = j
		}
	}
}

// mirrors pairs the mirrored characters (Bidi_Mirrored) that are no
// brackets and that server text commonly holds: comparisons, set and
// order signs, quotation marks. A "≤ 1000" drawn unmirrored in Arabic
// reads as its opposite. Brackets come from x/text's bidi data (mirror).
var mirrors = map[rune]rune{
	'<': '>', '>': '<', '«': '»', '»': '«', '‹': '›', '›': '‹',
	'≤': '≥', '≥': '≤', '≦': '≧', '≧': '≦', '≪': '≫', '≫': '≪', '≮': '≯', '≯': '≮', '≰': '≱', '≱': '≰',
	'≲': '≳', '≳': '≲', '≺': '≻', '≻': '≺', '≼': '≽', '≽': '≼', '∈': '∋', '∋': '∈', '∉': '∌', '∌': '∉',
	'⊂': '⊃', '⊃': '⊂', '⊆': '⊇', '⊇': '⊆', '⊄': '⊅', '⊅': '⊄', '⩽': '⩾', '⩾': '⩽', '＜': '＞', '＞': '＜',
}

// mirror is r's mirror image (Bidi_Mirroring_Glyph): a bracket's other
// half (x/text's Bidi_Paired_Bracket: "(" and ")", "「" and "」", "⟨" and
// "⟩"…), a sign of mirrors, else r.
func mirror(r rune) rune {
	if m, ok := mirrors[r]; ok {
		return m
	}
	if p, _ := bidi.LookupRune(r); p.IsBracket() {
		m, _ := utf8.DecodeRuneInString(bidi.ReverseString(string(r)))
		return m
	}
	return r
}

// paragraphLevel returns the level of the paragraph p by its first strong
// letter (UAX #9 P2–P3): 0 for left to right, 1 for right to left, and -1
// when it has none.
func paragraphLevel(p []rune) int8 {
	for _, r := range p {
		switch bidiClass(r) {
		case bidi.L:
			return 0
		case bidi.R, bidi.AL:
			return 1
		}
	}
	return -1
}

// bidiLevels returns the embedding level of each rune of a paragraph by
// the rules of UAX #9 for text without explicit embeddings (elicit.Visible
// removed them): P2–P3 (unless para, the paragraph's level, is given:
// 0 or 1), W1–W7, N1–N2, I1–I2 and L1's reset of trailing white space.
func bidiLevels(line []rune, para int8) []int8 {
	orig := make([]bidi.Class, len(line))
	t := make([]bidi.Class, len(line))
	for i, r := range line {
		orig[i] = bidiClass(r)
	}
	if para < 0 {
		para = paragraphLevel(line)
	}
	para = max(para, 0)
	sos := bidi.L
	if para == 1 {
		sos = bidi.R
	}
	prev, strong := sos, sos
	for i, c := range orig {
		if c == bidi.NSM { // W1
			c = prev
		}
		switch c {
		case bidi.L, bidi.R, bidi.AL:
			strong = c
		case bidi.EN:
			if strong == bidi.AL { // W2
				c = bidi.AN
			}
		}
		prev = c
		if c == bidi.AL { // W3
			c = bidi.R
		}
		t[i] = c
	}
	for i := 1; i+1 < len(t); i++ { // W4
		a, z := t[i-1], t[i+1]
		if t[i] == bidi.ES && a == bidi.EN && z == bidi.EN || t[i] == bidi.CS && a == z && (a == bidi.EN || a == bidi.AN) {
			t[i] = a
		}
	}
	for i := 0; i < len(t); { // W5
		j := i
		for j < len(t) && t[j] == bidi.ET {
			j++
		}
		if j > i && (i > 0 && t[i-1] == bidi.EN || j < len(t) && t[j] == bidi.EN) {
			for k := i; k < j; k++ {
				t[k] = bidi.EN
			}
		}
		i = max(j, i+1)
	}
	strong = sos
	for i, c := range t {
		switch c {
		case bidi.ES, bidi.ET, bidi.CS: // W6
			t[i] = bidi.ON
		case bidi.L, bidi.R:
			strong = c
		case bidi.EN:
			if strong == bidi.L { // W7
				t[i] = bidi.L
			}
		}
	}
	pairBrackets(line, t, sos)
	// N1–N2: a run of neutrals between two strong types that agree (numbers
	// count as right to left) takes theirs, else the paragraph's.
	side := func(i int) bidi.Class {
		if i < 0 || i >= len(t) {
			return sos
		}
		if t[i] == bidi.L {
			return bidi.L
		}
		return bidi.R
	}
	for i := 0; i < len(t); {
		if strongOrNumber(t[i]) {
			i++
			continue
		}
		j := i
		for j < len(t) && !strongOrNumber(t[j]) {
			j++
		}
		c := sos
		if side(i-1) == side(j) {
			c = side(j)
		}
		for k := i; k < j; k++ {
			t[k] = c
		}
		i = j
	}
	levels := make([]int8, len(t))
	for i, c := range t { // I1–I2
		switch {
		case para == 0 && c == bidi.R:
			levels[i] = 1
		case para == 0 && (c == bidi.EN || c == bidi.AN):
			levels[i] = 2
		case para == 1 && c != bidi.R:
			levels[i] = 2
		default:
			levels[i] = para
		}
	}
	// L1: white space before a tab and at the line's end, and the tab,
	// take the paragraph's level.
	trailing := true
	for i := len(orig) - 1; i >= 0; i-- {
		switch orig[i] {
		case bidi.S:
			levels[i], trailing = para, true
		case bidi.WS, bidi.BN:
			if trailing {
				levels[i] = para
			}
		default:
			trailing = false
		}
	}
	return levels
}

func strongOrNumber(c bidi.Class) bool {
	return c == bidi.L || c == bidi.R || c == bidi.EN || c == bidi.AN
}

// pairBrackets gives the brackets of each pair in t (classes after W7) the
// direction N0 says, for the brackets in mirrors: "(2 files)" after Arabic
// in an English line stays one English stretch, where N1 alone would send
// its "(" to the Arabic side.
func pairBrackets(line []rune, t []bidi.Class, e bidi.Class) {
	type open struct {
		close rune
		at    int
	}
	var stack []open
	var pairs [][2]int
	for i, r := range line {
		if t[i] != bidi.ON {
			continue
		}
		if p, _ := bidi.LookupRune(r); p.IsOpeningBracket() && len(stack) < 63 {
			stack = append(stack, open{mirror(r), i})
			continue
		}
		for k := len(stack) - 1; k >= 0; k-- { // BD16
			if stack[k].close == r {
				pairs = append(pairs, [2]int{stack[k].at, i})
				stack = stack[:k]
				break
			}
		}
	}
	slices.SortFunc(pairs, func(a, b [2]int) int { return a[0] - b[0] })
	dir := func(c bidi.Class) bidi.Class {
		switch c {
		case bidi.L:
			return bidi.L
		case bidi.R, bidi.EN, bidi.AN:
			return bidi.R
		}
		return bidi.ON
	}
	for _, p := range pairs {
		inside := bidi.ON
		for k := p[0] + 1; k < p[1] && inside != e; k++ {
			if d := dir(t[k]); d != bidi.ON {
				inside = d
			}
		}
		if inside == bidi.ON {
			continue
		}
		if inside != e { // only the opposite direction inside: as before it
			before := e
			for k := p[0] - 1; k >= 0; k-- {
				if d := dir(t[k]); d != bidi.ON {
					before = d
					break
				}
			}
			if before != inside {
				inside = e
			}
		}
		t[p[0]], t[p[1]] = inside, inside
	}
}
