package config

import (
	"regexp"

	"github.com/elicitray/elicitray/ui/lang"
)

// configMessages are the mistakes configcheck.go finds in config.toml
// (ConfigProblem.Message), written in English for hub.log.
var messages = lang.Sentences{
	{Pattern: regexp.MustCompile(`^the file is not TOML: (.*)$`), Say: func(m []string) string {
		return lang.L("the file is not TOML: {{.Detail}}", map[string]any{"Detail": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^must be a list of tool names or patterns in quotes, like \["delete_\*", "deploy"\], not (.+)$`), Say: func(m []string) string {
		return lang.L(`must be a list of tool names or patterns in quotes, like ["delete_*", "deploy"], not {{.Value}}`, map[string]any{"Value": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^must list tool names or patterns in quotes, like "delete_\*", not (.+)$`), Say: func(m []string) string {
		return lang.L(`must list tool names or patterns in quotes, like "delete_*", not {{.Value}}`, map[string]any{"Value": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^must be a table \(a \[section\]\), not (.+)$`), Say: func(m []string) string {
		return lang.L("must be a table (a [section]), not {{.Value}}", map[string]any{"Value": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^must be a duration in quotes, like "10m" or "90s", not (.+)$`), Say: func(m []string) string {
		return lang.L(`must be a duration in quotes, like "10m" or "90s", not {{.Value}}`, map[string]any{"Value": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^(".*") is not a duration like "10m" or "90s"$`), Say: func(m []string) string {
		return lang.L(`{{.Value}} is not a duration like "10m" or "90s"`, map[string]any{"Value": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^cannot be negative: (.+)$`), Say: func(m []string) string {
		return lang.L("cannot be negative: {{.Value}}", map[string]any{"Value": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^must be a whole number, not (.+)$`), Say: func(m []string) string {
		return lang.L("must be a whole number, not {{.Value}}", map[string]any{"Value": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^must be (\d+) or more, not (-?\d+)$`), Say: func(m []string) string {
		return lang.L("must be {{.Least}} or more, not {{.Value}}", map[string]any{"Least": m[1], "Value": m[2]})
	}},
	{Pattern: regexp.MustCompile(`^must be true or false \(without quotes\), not (.+)$`), Say: func(m []string) string {
		return lang.L("must be true or false (without quotes), not {{.Value}}", map[string]any{"Value": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^is not a setting elicitray knows; it is ignored \(see the README's Configuration\)$`), Say: func([]string) string {
		return lang.L("is not a setting elicitray knows; it is ignored (see the README's Configuration)")
	}},
	{Pattern: regexp.MustCompile(`^(.+) is not one of (.+)$`), Say: func(m []string) string {
		return lang.L("{{.Value}} is not one of {{.Rules}}", map[string]any{"Value": m[1], "Rules": m[2]})
	}},
}

// Shown is the problem as doctor and a notification show it: String's
// parts, the line and the mistake in the user's language (hub.log keeps
// String's English). A mistake not listed in configMessages reads as
// written.
func (p Problem) Shown() string {
	msg, _ := messages.Say(p.Message)
	var prefix string
	if p.Line > 0 {
		prefix = lang.L("line {{.Line}}: ", map[string]any{"Line": p.Line})
	}
	if p.Table != "" {
		prefix += p.Table + ": "
	}
	if p.Key != "" {
		prefix += p.Key + " "
	}
	return prefix + msg
}
