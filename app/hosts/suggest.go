package hosts

import (
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Suggest returns the candidates a mistyped name was most likely meant to
// be, as cobra suggests commands: those within two edits of it (case
// ignored), or that start with it, nearest first; nil for none. A candidate
// equal to name is not suggested; one that differs only in case is. The `elicitray` commands that take a host, server or
// configured name all suggest with it.
func Suggest(name string, candidates []string) []string {
	type near struct {
		name string
		d    int
	}
	var found []near
	lower := strings.ToLower(name)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if c == name || slices.ContainsFunc(found, func(f near) bool { return f.name == c }) {
			continue
		}
		d := levenshtein.ComputeDistance(lower, lc)
		if d <= 2 || (len(lower) >= 2 && strings.HasPrefix(lc, lower)) {
			found = append(found, near{c, d})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return a.d - b.d })
	var out []string
	for _, f := range found {
		out = append(out, f.name)
	}
	return out
}
