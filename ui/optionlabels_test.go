package ui

import (
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestOptionLabelsTellChoicesApart: two choices that share a long start
// were both shown "Deploy the payments service to the production
// Kubernetes cl…", and two of the same title both "Do nothing": the user
// could not tell them apart, and since a Fyne Select picks by its text,
// choosing the second sent the first's value ("real", "drop_db").
func TestOptionLabelsTellChoicesApart(t *testing.T) {
	pre := "Deploy the payments service to the production Kubernetes cluster in eu-west-1 region "
	for _, tt := range []struct {
		name, field, pick, want string
	}{
		{"long titles", `{"type":"string","oneOf":[{"const":"real","title":"` + pre + `(FOR REAL, irreversible)"},{"const":"dry","title":"` + pre + `(dry run only)"}]}`, "dry run only", "dry"},
		{"same titles", `{"type":"string","enum":["drop_db","noop"],"enumNames":["Do nothing","Do nothing"]}`, "noop", "noop"},
		{"a choice titled (none)", `{"type":"string","oneOf":[{"const":"a","title":"(none)"},{"const":"b","title":"B"}]}`, "(a)", "a"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := true
			if tt.name == "a choice titled (none)" {
				req = false
			}
			h := newSchemaHarness(t, schemaOf("t", tt.field, req))
			sel := h.row("t").sel
			seen := map[string]bool{}
			pick := ""
			for _, o := range sel.Options {
				if seen[o] {
					t.Errorf("two choices are shown as %q", o)
				}
				seen[o] = true
				if len([]rune(o)) > maxLabel+maxLabel/2+4 {
					t.Errorf("choice shown as %q: too long", o)
				}
				if strings.Contains(o, tt.pick) {
					pick = o
				}
			}
			if pick == "" {
				t.Fatalf("no choice shows %q: %q", tt.pick, sel.Options)
			}
			sel.SetSelected(pick)
			h.press(fyne.KeyReturn)
			h.v.onSubmit()
			if got := h.only().Content["t"]; got != tt.want {
				t.Errorf("chose %q, sent %v, want %q", pick, got, tt.want)
			}
		})
	}
}

// TestOptionLabelsLongList: the rows of a long list and its "chosen:" line
// keep the end of a long title too.
func TestOptionLabelsLongList(t *testing.T) {
	pre := "Deploy the payments service to the production Kubernetes cluster in eu-west-1 region "
	var b strings.Builder
	b.WriteString(`{"type":"string","oneOf":[`)
	for i := 0; i < 30; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"const":"v` + itoaUI(i) + `","title":"` + pre + `(variant ` + itoaUI(i) + `)"}`)
	}
	b.WriteString("]}")
	labels := optionLabels(newSchemaHarness(t, schemaOf("t", b.String(), true)).row("t").f.Options)
	seen := map[string]bool{}
	for _, l := range labels {
		if seen[l] {
			t.Errorf("two rows read %q", l)
		}
		seen[l] = true
	}
	if !strings.HasSuffix(labels[17], "(variant 17)") {
		t.Errorf("row 17 reads %q: its end is cut", labels[17])
	}
}

func itoaUI(i int) string { return strconv.Itoa(i) }

// schemaOf is a requestedSchema of one field, name, required or not.
func schemaOf(name, field string, required bool) string {
	req := ""
	if required {
		req = `,"required":["` + name + `"]`
	}
	return `{"type":"object","properties":{"` + name + `":` + field + `}` + req + `}`
}
