package lang

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Count is the template data of a translated count (N's "{{.Count}}
// decisions"): n with commas between groups of three digits (Thousands).
func Count(n int) map[string]any { return map[string]any{"Count": Thousands(n)} }

// CountText is n with thousands separators and the noun that fits:
// "1 decision", "1,234 decisions". The CLI writes counts with it too.
func CountText(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}

// Thousands writes n with commas between groups of three digits.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	digits := strings.TrimPrefix(s, "-")
	var b strings.Builder
	b.WriteString(s[:len(s)-len(digits)])
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Bytes is a size for people, in binary units with one decimal: "512 B",
// "64.0 KiB", "59.5 GiB".
func Bytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	div, unit := int64(1024), 0
	for m := n / 1024; m >= 1024 && unit < 5; m /= 1024 {
		div *= 1024
		unit++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[unit])
}

// Sentences translate sentences that other parts of elicitray write in
// English, for hub.log, the host or the command line as much as for a
// window (bridge/elicit's field and link messages, the hub's reasons,
// doctor's findings from elsewhere): the first whose pattern matches says
// the sentence in the user's language, with what the pattern captured
// quoted as written.
type Sentences []Sentence

// Sentence is one sentence's pattern, anchored at both ends, and its
// translation from the pattern's submatches (L with a constant key).
type Sentence struct {
	Pattern *regexp.Regexp
	Say     func(m []string) string
}

// Say is s in the user's language, and whether a pattern matched: s
// itself when none did.
func (ss Sentences) Say(s string) (string, bool) {
	for _, t := range ss {
		if m := t.Pattern.FindStringSubmatch(s); m != nil {
			return t.Say(m), true
		}
	}
	return s, false
}
