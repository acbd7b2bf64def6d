package ui

import (
	"strconv"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
)

// optionLabels returns the label each choice of opts is shown with: one
// line, at most maxLabel characters, and never the same as another
// choice's. A label too long is cut in its middle, keeping its start and
// its end: choices often share a long start and differ at the end
// ("Deploy … to production (dry run only)" and "… (FOR REAL)"), and cut at
// the end they looked the same. Choices still shown alike (the same
// title, or the same start and end) get their value after the label, and
// the position as a last resort: the user must be able to tell which one
// is chosen, and a Fyne Select picks by its text, so two equal texts sent
// the first one's value whichever was chosen.
func optionLabels(opts []elicit.Option) []string {
	labels := make([]string, len(opts))
	seen := make(map[string]int, len(opts))
	for i, o := range opts {
		labels[i] = bidiText(chars.CutMiddle(oneLine(o.Label), maxLabel))
		seen[labels[i]]++
	}
	dup := false
	for _, n := range seen {
		dup = dup || n > 1
	}
	if !dup {
		return labels
	}
	again := make(map[string]int, len(opts))
	for i, o := range opts {
		if seen[labels[i]] > 1 {
			v := chars.CutMiddle(oneLine(o.Value), maxLabel/2)
			labels[i] = bidiText(chars.CutMiddle(oneLine(o.Label), maxLabel-chars.Count(v)-3) + " (" + v + ")")
		}
		again[labels[i]]++
	}
	for i := range labels {
		if again[labels[i]] > 1 {
			labels[i] += " #" + strconv.Itoa(i+1)
		}
	}
	return labels
}
