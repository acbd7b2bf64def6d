package ui

import (
	"regexp"
	"strconv"

	"github.com/elicitray/elicitray/ui/lang"
)

// A history record keeps, for a decision no person made, the reason the hub
// wrote, in English, once (the CLI prints it as kept). The History window
// shows the reasons the hub writes itself in the user's language:
// reasonMessages turns each into its translation, names and times as
// recorded. A reason not listed (an error quoted from the system) is shown
// as kept. The table follows the hub's sentences (app/hub/policy.go,
// hub.go, remember_hub.go, app/journal/journal.go): TestReasonsTranslated
// makes each one.
var reasonMessages = lang.Sentences{
	{Pattern: regexp.MustCompile(`^all prompts are paused$`), Say: func([]string) string { return lang.L("all prompts are paused") }},
	{Pattern: regexp.MustCompile(`^(.+) is muted until (\S+)$`), Say: func(m []string) string {
		return lang.L("{{.Server}} is muted until {{.Time}}", map[string]any{"Server": m[1], "Time": m[2]})
	}},
	// "1 times": as recorded before it read "1 time".
	{Pattern: regexp.MustCompile(`^(.+) asked more than (\d+) times? in a row; its limit is one prompt every (\S+)$`), Say: func(m []string) string {
		n, _ := strconv.Atoi(m[2])
		return lang.N("{{.Server}} asked more than {{.Count}} times in a row; its limit is one prompt every {{.Every}}", n,
			map[string]any{"Server": m[1], "Count": m[2], "Every": m[3]})
	}},
	{Pattern: regexp.MustCompile(`^nobody answered within (\S+)$`), Say: func(m []string) string {
		return lang.L("nobody answered within {{.Within}}", map[string]any{"Within": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^nobody answered within (\S+): it waited behind other prompts and was never shown$`), Say: func(m []string) string {
		return lang.L("nobody answered within {{.Within}}: it waited behind other prompts and was never shown", map[string]any{"Within": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^the rule for (.+) is (decline|cancel)$`), Say: func(m []string) string {
		return lang.L("the rule for {{.Server}} is {{.Rule}}", map[string]any{"Server": m[1], "Rule": recordTerm(m[2])})
	}},
	{Pattern: regexp.MustCompile(`^the rule for (.+) is (accept-defaults(?:-or-cancel)?), and the form's required fields all have defaults: they were sent$`), Say: func(m []string) string {
		return lang.L("the rule for {{.Server}} is {{.Rule}}, and the form's required fields all have defaults: they were sent",
			map[string]any{"Server": m[1], "Rule": m[2]})
	}},
	{Pattern: regexp.MustCompile("^answered by remembered rule (\\d+) for (.+?): (.+) \\(you chose \"Always answer this way\" on ([^;]+); it holds until ([^;]+); `elicitray rules forget \\d+` undoes it\\)$"), Say: func(m []string) string {
		return lang.L("answered by remembered rule {{.ID}} for {{.Server}}: {{.Answer}} (you chose \"Always answer this way\" on {{.Saved}}; it holds until {{.Until}}; `elicitray rules forget {{.ID}}` undoes it)",
			map[string]any{"ID": m[1], "Server": m[2], "Answer": m[3], "Saved": m[4], "Until": m[5]})
	}},
	{Pattern: regexp.MustCompile(`^the server cancelled the request$`), Say: func([]string) string { return lang.L("the server cancelled the request") }},
	{Pattern: regexp.MustCompile(`^the wrapper stopped$`), Say: func([]string) string { return lang.L("the wrapper stopped") }},
	{Pattern: regexp.MustCompile(`^the wrapper went away \(it crashed or was killed\) before anyone answered; its server got no answer$`), Say: func([]string) string {
		return lang.L("the wrapper went away (it crashed or was killed) before anyone answered; its server got no answer")
	}},
	// The relay's causes for a prompt nobody answered (bridge/relay.go).
	{Pattern: regexp.MustCompile(`^the tool call ended before the answer$`), Say: func([]string) string {
		return lang.L("the tool call ended before the answer")
	}},
	{Pattern: regexp.MustCompile(`^the server could not be reached, so the tool call ended before anyone answered$`), Say: func([]string) string {
		return lang.L("the server could not be reached, so the tool call ended before anyone answered")
	}},
	{Pattern: regexp.MustCompile(`^the host or the server stopped$`), Say: func([]string) string {
		return lang.L("the host or the server stopped")
	}},
	// Also the Delivery of such a prompt: nothing was owed (bridge.ErrServerGone).
	{Pattern: regexp.MustCompile(`^the server exited before anyone answered$`), Say: func([]string) string {
		return lang.L("the server exited before anyone answered")
	}},
	// Why an answer did not reach its server (Record.Delivery: app/hub/hub.go,
	// bridge/relay.go).
	{Pattern: regexp.MustCompile(`^the wrapper ended \(it crashed or was killed\) before it passed the answer on to the server$`), Say: func([]string) string {
		return lang.L("the wrapper ended (it crashed or was killed) before it passed the answer on to the server")
	}},
	{Pattern: regexp.MustCompile(`^the wrapper stopped before the answer was written to the server$`), Say: func([]string) string {
		return lang.L("the wrapper stopped before the answer was written to the server")
	}},
	{Pattern: regexp.MustCompile(`^sending the server a response: (.+)$`), Say: func(m []string) string {
		return lang.L("sending the server a response: {{.Why}}", map[string]any{"Why": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^a message for the server was not sent: its input was already closed \(the host has gone, or the server stopped\)$`), Say: func([]string) string {
		return lang.L("a message for the server was not sent: its input was already closed (the host has gone, or the server stopped)")
	}},
}

// recordReason is a record's reason as the History window shows it: in the
// user's language when the hub wrote it, else as kept.
func recordReason(s string) string {
	said, _ := reasonMessages.Say(s)
	return said
}
