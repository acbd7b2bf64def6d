package hosts

import "strings"

// Suggest returns the candidates close to name, as cobra suggests commands:
// within two edits (case ignored), or starting with it.
func Suggest(name string, candidates []string) []string {
	var out []string
	lower := strings.ToLower(name)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == lower {
			continue
		}
		if distance(lower, lc) <= 2 || (lower != "" && strings.HasPrefix(lc, lower)) {
			out = append(out, c)
		}
	}
	return out
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
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
