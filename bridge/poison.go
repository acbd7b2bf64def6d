package bridge

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/elicitray/elicitray/ui/lang"
)

// A tool's description is read by the model, not only by the person, and
// "tool poisoning" hides instructions to the model in it: to ignore what
// it was told, to read a private file and pass it on, to keep it from the
// user. The window that tells of a changed definition flags such text in
// what the change added (suspicions), so that the person sees why a change
// may matter more than its wording suggests. The phrases are the common
// ones of published attacks, in English, Chinese and Arabic; they flag,
// they decide nothing: the person does.

// instructionPhrases are what reads as an order to the model rather than a
// description of the tool, each with what the window calls it. They are
// matched in the text folded (NFKC, lower case, blanks as one space,
// Arabic as foldArabic spells it), so that full-width letters, a line
// break, vowel marks or a tatweel inside do not hide them. Go's \b knows
// only ASCII words: an Arabic word starts after a non-letter, and may
// carry the conjunction و or ف; a verb ends at a non-letter, after a
// pronoun (ه, ها, هم) at most, so that انسخ ("copy") is not انس ("forget").
// What the window calls each kind (phraseSaid says it in a language).
const (
	saysIgnore      = "tells the AI to ignore its instructions"
	saysKeepFromYou = "asks the AI to keep something from you"
	saysTags        = "has tags that speak to the AI (<IMPORTANT>, <system>…)"
	saysDoElse      = "tells the AI to do something else when it uses the tool"
	saysSecrets     = "names private files or secrets"
)

var instructionPhrases = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\b(ignore|disregard|forget|override)\b[^.\n]{0,30}\b(previous|prior|above|earlier|preceding|all|other|system)\b[^.\n]{0,20}\b(instructions?|prompts?|rules|messages|guidelines)\b`),
		saysIgnore},
	{regexp.MustCompile(`\b(ignore|disregard|forget)\b[^.\n]{0,10}\beverything\b[^.\n]{0,30}\b(told|said|above|before|instructed)\b`),
		saysIgnore},
	{regexp.MustCompile(`忽略(之前|以上|先前|前面|上面|所有)[^。]{0,10}(指令|指示|提示)`), saysIgnore},
	{regexp.MustCompile(`\b(do not|don't|never)\b[^.\n]{0,20}\b(tell|inform|mention|show|reveal|notify)\b[^.\n]{0,10}\b(the )?user\b|\bwithout (telling|informing|notifying|asking) the user\b|\bthe user (must not|should not|shouldn't) (know|see|be told)\b|\b(keep|hide) (this|it|that)\b[^.\n]{0,20}\bfrom the user\b`),
		saysKeepFromYou},
	{regexp.MustCompile(`不要(告诉|通知|提醒)用户`), saysKeepFromYou},
	{regexp.MustCompile(foldArabic(`(?:^|\P{L})[وف]?(?:تجاهل|انس|أهمل)(?:ه|ها|هم)?\P{L}[^.؟!\n]{0,20}(?:(?:كل|جميع)[^.؟!\n]{0,10}(?:التعليمات|الأوامر|التوجيهات|الإرشادات)|(?:التعليمات|الأوامر|التوجيهات|الإرشادات)[^.؟!\n]{0,10}(?:السابقة|أعلاه|الأخرى|الأصلية)|كل ما (?:قيل|سبق))`)),
		saysIgnore},
	{regexp.MustCompile(foldArabic(`(?:^|\P{L})[وف]?لا\s+(?:تخبر|تعلم|تبلغ|تذكر|تظهر|تكشف)(?:ه|ها|هم)?\P{L}[^.؟!\n]{0,20}(?:المستخدم|للمستخدم)|(?:^|\P{L})(?:دون|بدون)\s+(?:إخبار|إعلام|علم|إبلاغ|معرفة)\s+المستخدم`)),
		saysKeepFromYou},
	{regexp.MustCompile(`<\s*/?\s*(important|system|instructions?|secret)\s*>|\[\s*(system|instructions?)\s*\]`),
		saysTags},
	{regexp.MustCompile(`\b(before|after|when) (using|calling|running|you use|you call)\b[^.\n]{0,40}\b(read|send|include|pass|upload|fetch|cat|attach)\b`),
		saysDoElse},
	{regexp.MustCompile(`(调用|使用|运行)[^。]{0,8}(之前|以前|前|之后|后|时)[^。]{0,20}(读取|发送|上传|附上|传入|包含)`),
		saysDoElse},
	{regexp.MustCompile(foldArabic(`(?:^|\P{L})(?:قبل|بعد|عند)\s+(?:استخدام|استدعاء|تشغيل)[^.؟!\n]{0,40}\P{L}[وف]?(?:اقرأ|أرسل|أرفق|مرر|حمل|ضمن|أضف)(?:\P{L}|$)`)),
		saysDoElse},
	{regexp.MustCompile(`~/\.ssh|\bid_(rsa|ed25519|ecdsa|dsa)\b|\.aws/credentials|/etc/(passwd|shadow)|\bmcp\.json\b|\.npmrc|\.netrc|(^|[\s/~])\.env\b|\bprivate keys?\b|\bseed phrase\b`),
		saysSecrets},
}

// blankRun is how many blank characters in a row (spaces, line breaks and
// characters that draw nothing) the window calls a run that can push text
// out of view.
const blankRun = 40

// suspicions returns, as phrases of a sentence in say's language, what in
// the lines a change added or rewrote (the "+" lines of its account: a
// description is one line, all of it) reads as instructions to the model:
// each kind once, in the order of instructionPhrases, then a long run of
// blank characters.
func suspicions(account string, say lang.Speaker) []string {
	var added strings.Builder
	for line := range strings.Lines(account) {
		if rest, ok := strings.CutPrefix(line, "+"); ok {
			added.WriteString(rest)
		}
	}
	text := added.String()
	// Characters that draw nothing (a zero-width space, a soft hyphen)
	// split no word a person reads: they are dropped before matching.
	visible := strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Cf) || r == '\u034F' {
			return -1
		}
		return r
	}, text)
	folded := foldArabic(strings.Join(strings.Fields(strings.ToLower(norm.NFKC.String(visible))), " "))
	var found []string
	for _, p := range instructionPhrases {
		if p.re.MatchString(folded) && !slices.Contains(found, p.what) {
			found = append(found, p.what)
		}
	}
	out := make([]string, 0, len(found)+1)
	for _, what := range found {
		out = append(out, phraseSaid(what, say))
	}
	if n := longestBlankRun(text); n >= blankRun {
		out = append(out, say.N("has a run of {{.Count}} blank characters, which can push what follows out of view", n, map[string]any{"Count": n}))
	}
	return out
}

// phraseSaid is what, one of instructionPhrases' kinds, in say's language.
func phraseSaid(what string, say lang.Speaker) string {
	switch what {
	case saysIgnore:
		return say.L(saysIgnore)
	case saysKeepFromYou:
		return say.L(saysKeepFromYou)
	case saysTags:
		return say.L(saysTags)
	case saysDoElse:
		return say.L(saysDoElse)
	}
	return say.L(saysSecrets)
}

// foldArabic is s with the Arabic spellings a reader takes for one word
// spelt one way: the vowel and other marks (harakat, the dagger alef) and
// the tatweel that stretches a word dropped, an alef carrying a hamza or a
// madda (أ إ آ ٱ) as a bare alef, and alef maqsura (ى) as ya (ي). Ta
// marbuta (ة) stays itself: as ha (ه) it would read as a pronoun, تذكرة
// ("a ticket") as تذكره ("mention it"). Only for matching: the window shows
// the text as it came.
func foldArabic(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case 'أ', 'إ', 'آ', 'ٱ':
			return 'ا'
		case 'ى':
			return 'ي'
		case '\u0640', '\u0670':
			return -1
		}
		if r >= '\u064B' && r <= '\u065F' {
			return -1
		}
		return r
	}, s)
}

// longestBlankRun returns the length, in characters, of the longest run of
// characters in s that show nothing: white space, format and control
// characters, and the fillers that draw a blank.
func longestBlankRun(s string) int {
	most, run := 0, 0
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.In(r, unicode.Cf, unicode.Cc) || strings.ContainsRune("\u034F\u2800\u3164\u115F\u1160\uFFA0", r) {
			run++
			most = max(most, run)
		} else {
			run = 0
		}
	}
	return most
}

// SuspicionsSaid is the paragraph the windows add for what suspicions
// found in account, a change's account (toolpins.Diff), "" for nothing:
// the change window, a changed tool's call window and Settings.
func SuspicionsSaid(account string, say lang.Speaker) string {
	found := suspicions(account, say)
	if len(found) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(say.L("Be careful: the new definition reads as instructions to the AI rather than a description of the tool. It:"))
	for _, f := range found {
		b.WriteString("\n• ")
		b.WriteString(f)
	}
	return b.String()
}
