package ui

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/ui/lang"
)

// bridge/elicit says what is wrong with a value in English ("must be at
// most 100"), for the log and the host as much as for the window, and knows
// nothing of Fyne (STYLE.md §1). elicitMessages turns each message it writes
// into the sentence under the field in the user's language; a message not
// listed here is shown as elicit wrote it. The table must follow elicit's
// messages (value.go, number.go, format.go): TestFieldMessagesTranslated
// makes each one and fails on one left in English.
var elicitMessages = []struct {
	re *regexp.Regexp
	// say is the sentence for field (its label) and the message's
	// submatches.
	say func(field string, m []string) string
}{
	{regexp.MustCompile(`^is required$`), func(f string, _ []string) string {
		return lang.L("{{.Field}} is required.", fieldData(f))
	}},
	{regexp.MustCompile(`^must be text$`), func(f string, _ []string) string {
		return lang.L("{{.Field}} must be text.", fieldData(f))
	}},
	{regexp.MustCompile(`^must be a whole number$`), func(f string, _ []string) string {
		return lang.L("{{.Field}} must be a whole number.", fieldData(f))
	}},
	{regexp.MustCompile(`^must be a number such as 3\.14$`), func(f string, _ []string) string {
		return lang.L("{{.Field}} must be a number such as 3.14.", fieldData(f))
	}},
	{regexp.MustCompile(`^must be true or false$`), func(f string, _ []string) string {
		return lang.L("{{.Field}} must be true or false.", fieldData(f))
	}},
	{regexp.MustCompile(`^must be one of the choices$`), func(f string, _ []string) string {
		return lang.L("{{.Field}} must be one of the choices.", fieldData(f))
	}},
	{regexp.MustCompile(`^must be a list of choices$`), func(f string, _ []string) string {
		return lang.L("{{.Field}} must be a list of choices.", fieldData(f))
	}},
	{regexp.MustCompile(`^is too large$`), func(f string, _ []string) string {
		return lang.L("{{.Field}} is too large.", fieldData(f))
	}},
	{regexp.MustCompile(`^is too small$`), func(f string, _ []string) string {
		return lang.L("{{.Field}} is too small.", fieldData(f))
	}},
	{regexp.MustCompile(`^has too many digits$`), func(f string, _ []string) string {
		return lang.L("{{.Field}} has too many digits.", fieldData(f))
	}},
	{regexp.MustCompile(`^must be at least (\d+) characters?$`), func(f string, m []string) string {
		n, _ := strconv.Atoi(m[1])
		return lang.N("{{.Field}} must be at least {{.Count}} characters.", n, fieldData(f, "Count", m[1]))
	}},
	{regexp.MustCompile(`^must be at most (\d+) characters?$`), func(f string, m []string) string {
		n, _ := strconv.Atoi(m[1])
		return lang.N("{{.Field}} must be at most {{.Count}} characters.", n, fieldData(f, "Count", m[1]))
	}},
	{regexp.MustCompile(`^must match the pattern (.+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must match the pattern {{.Pattern}}.", fieldData(f, "Pattern", m[1]))
	}},
	{regexp.MustCompile(`^must be at least (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be at least {{.Min}}.", fieldData(f, "Min", m[1]))
	}},
	{regexp.MustCompile(`^must be more than (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be more than {{.Min}}.", fieldData(f, "Min", m[1]))
	}},
	{regexp.MustCompile(`^must be at most (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be at most {{.Max}}.", fieldData(f, "Max", m[1]))
	}},
	{regexp.MustCompile(`^must be less than (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be less than {{.Max}}.", fieldData(f, "Max", m[1]))
	}},
	{regexp.MustCompile(`^must be a multiple of (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be a multiple of {{.Step}}.", fieldData(f, "Step", m[1]))
	}},
	// The formats' messages give an example, which stays as it is.
	{regexp.MustCompile(`^must be a valid email address such as (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be a valid email address such as {{.Example}}.", fieldData(f, "Example", m[1]))
	}},
	{regexp.MustCompile(`^must be a full web address such as (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be a full web address such as {{.Example}}.", fieldData(f, "Example", m[1]))
	}},
	{regexp.MustCompile(`^must be a date such as (\S+) \(year-month-day\)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be a date such as {{.Example}} (year-month-day).", fieldData(f, "Example", m[1]))
	}},
	{regexp.MustCompile(`^must be a date and time such as (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be a date and time such as {{.Example}}.", fieldData(f, "Example", m[1]))
	}},
	{regexp.MustCompile(`^must be a time such as (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be a time such as {{.Example}}.", fieldData(f, "Example", m[1]))
	}},
	{regexp.MustCompile(`^must be a UUID such as (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be a UUID such as {{.Example}}.", fieldData(f, "Example", m[1]))
	}},
	{regexp.MustCompile(`^must be an IPv4 address such as (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be an IPv4 address such as {{.Example}}.", fieldData(f, "Example", m[1]))
	}},
	{regexp.MustCompile(`^must be an IPv6 address such as (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be an IPv6 address such as {{.Example}}.", fieldData(f, "Example", m[1]))
	}},
	{regexp.MustCompile(`^must be a host name such as (\S+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be a host name such as {{.Example}}.", fieldData(f, "Example", m[1]))
	}},
	{regexp.MustCompile(`^must be a duration such as (\S+) \(ISO 8601\)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be a duration such as {{.Example}} (ISO 8601).", fieldData(f, "Example", m[1]))
	}},
	{regexp.MustCompile(`^must be a valid (.+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}} must be a valid {{.Format}}.", fieldData(f, "Format", m[1]))
	}},
	{regexp.MustCompile(`^choose at least (\d+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}}: choose at least {{.Min}}.", fieldData(f, "Min", m[1]))
	}},
	{regexp.MustCompile(`^choose at most (\d+)$`), func(f string, m []string) string {
		return lang.L("{{.Field}}: choose at most {{.Max}}.", fieldData(f, "Max", m[1]))
	}},
	{regexp.MustCompile(`^(".*") is not one of the choices$`), func(f string, m []string) string {
		return lang.L("{{.Field}}: {{.Value}} is not one of the choices.", fieldData(f, "Value", m[1]))
	}},
	{regexp.MustCompile(`^(".*") is chosen twice$`), func(f string, m []string) string {
		return lang.L("{{.Field}}: {{.Value}} is chosen twice.", fieldData(f, "Value", m[1]))
	}},
}

// elicitSentence is the sentence under a field for elicit's message msg
// about the field labelled label, in the user's language; false when msg
// is not one elicitMessages knows.
func elicitSentence(label, msg string) (string, bool) {
	for _, e := range elicitMessages {
		if m := e.re.FindStringSubmatch(msg); m != nil {
			return e.say(label, m), true
		}
	}
	return "", false
}

// fieldData is a sentence's template data: the field's label, its first
// letter upper case as it starts the sentence (a rune, not a byte: a label
// may be 服务名), and pairs of further names and values.
func fieldData(label string, pairs ...string) map[string]any {
	d := map[string]any{"Field": chars.Capitalize(label)}
	for i := 0; i+1 < len(pairs); i += 2 {
		d[pairs[i]] = pairs[i+1]
	}
	return d
}

// formMessages are elicit's messages about a whole form (content.go), after
// ErrInvalidContent's text.
var formMessages = lang.Sentences{
	{Pattern: regexp.MustCompile(`^fill in at least (\d+) fields?$`), Say: func(m []string) string {
		n, _ := strconv.Atoi(m[1])
		return lang.N("Content does not fit the requestedSchema: fill in at least {{.Count}} fields.", n, map[string]any{"Count": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^fill in at most (\d+) fields?$`), Say: func(m []string) string {
		n, _ := strconv.Atoi(m[1])
		return lang.N("Content does not fit the requestedSchema: fill in at most {{.Count}} fields.", n, map[string]any{"Count": m[1]})
	}},
}

// formSentence is the hint for err, Content's error about the whole form,
// in the user's language.
func formSentence(err error) string {
	msg := strings.TrimPrefix(err.Error(), elicit.ErrInvalidContent.Error()+": ")
	if said, ok := formMessages.Say(msg); ok {
		return said
	}
	return sentence(err)
}
