package hub

import (
	"slices"
	"strings"

	"github.com/elicitray/elicitray/app/hosts"
)

// suggest returns the names a mistyped name was most likely meant to be
// (hosts.Suggest), or none when name is one of them.
func suggest(name string, names []string) []string {
	if slices.Contains(names, name) {
		return nil
	}
	return hosts.Suggest(name, names)
}

// DidYouMean is "did you mean demo?" for the suggestions of name among
// names, "" for none.
func DidYouMean(name string, names []string) string {
	s := suggest(name, names)
	switch len(s) {
	case 0:
		return ""
	case 1:
		return "did you mean " + s[0] + "?"
	}
	return "did you mean " + strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1] + "?"
}
