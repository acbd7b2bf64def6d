package ui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// searchFolder turns text into the form a long list's filter compares
// (choicelist.go): case folded and without diacritics, so that "zur",
// "ZÜR" and "Zür" all find "Zürich", and "sao paulo" finds "São Paulo".
// Not safe for concurrent use (a cases.Caser keeps state): each
// choiceList has its own, used on the Fyne goroutine.
type searchFolder struct {
	fold cases.Caser
}

func newSearchFolder() *searchFolder {
	return &searchFolder{fold: cases.Fold()}
}

// unmarked spells the letters that carry a stroke or are ligatures, which
// Unicode does not decompose into a base letter and a mark: "lodz" finds
// "Łódź", "orsted" finds "Ørsted", "aero" finds "Ærø".
var unmarked = strings.NewReplacer(
	"ł", "l", "Ł", "l", "ø", "o", "Ø", "o", "đ", "d", "Đ", "d", "ħ", "h", "Ħ", "h",
	"æ", "ae", "Æ", "ae", "œ", "oe", "Œ", "oe", "ı", "i", "ŧ", "t", "Ŧ", "t",
)

// key is s folded for comparison. Plain ASCII, most of what servers send,
// takes a fast path: the ui folds every choice of a 10,000-choice list
// when its window opens.
func (f *searchFolder) key(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	// NFD splits "é" into "e" and a combining acute accent (a nonspacing
	// mark, Mn); dropping the marks leaves the base letters.
	var b strings.Builder
	for _, r := range norm.NFD.String(unmarked.Replace(s)) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return f.fold.String(b.String())
}

// words is a filter's text as the folded words that a choice must all
// contain, in any order: "york new" finds "New York".
func (f *searchFolder) words(query string) []string {
	return strings.Fields(f.key(query))
}

// matches reports whether key (from key) contains every one of words.
func matches(key string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(key, w) {
			return false
		}
	}
	return true
}
