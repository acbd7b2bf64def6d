package app

import (
	"slices"
	"strings"
)

// suggest returns the names a mistyped name was most likely meant to be:
// those within two edits of it (as cobra suggests commands), or that it
// is a prefix of, nearest first; none when name is one of them.
func suggest(name string, names []string) []string {
	type near struct {
		name string
		d    int
	}
	var found []near
	lower := strings.ToLower(name)
	for _, n := range names {
		if n == name {
			return nil
		}
		d := editDistance(lower, strings.ToLower(n))
		if d <= 2 || (len(name) >= 2 && strings.HasPrefix(strings.ToLower(n), lower)) {
			found = append(found, near{n, d})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return a.d - b.d })
	out := make([]string, 0, len(found))
	for _, f := range found {
		if !slices.Contains(out, f.name) {
			out = append(out, f.name)
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// didYouMean is "did you mean demo?" for the suggestions of name among
// names, "" for none.
func didYouMean(name string, names []string) string {
	s := suggest(name, names)
	switch len(s) {
	case 0:
		return ""
	case 1:
		return "did you mean " + s[0] + "?"
	}
	return "did you mean " + strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1] + "?"
}
