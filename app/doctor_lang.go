package app

import (
	"regexp"

	"github.com/elicitray/elicitray/app/autostart"
	"github.com/elicitray/elicitray/ui/lang"
)

// The sentences doctor takes from elsewhere, where they are written in
// English for the log and other commands too (session.go, app/autostart),
// in the user's language; one not listed reads as written.

// sessionFroms are where a desktop session was found (desktopSession.From).
var sessionFroms = lang.Sentences{
	{Pattern: regexp.MustCompile(`^this login session$`), Say: func([]string) string { return lang.L("this login session") }},
	{Pattern: regexp.MustCompile(`^this process's environment$`), Say: func([]string) string { return lang.L("this process's environment") }},
	{Pattern: regexp.MustCompile(`^the systemd user manager's environment$`), Say: func([]string) string {
		return lang.L("the systemd user manager's environment")
	}},
	{Pattern: regexp.MustCompile(`^the environment of (.*) \(pid (\d+)\), which started this one$`), Say: func(m []string) string {
		return lang.L("the environment of {{.Command}} (pid {{.PID}}), which started this one", map[string]any{"Command": m[1], "PID": m[2]})
	}},
	{Pattern: regexp.MustCompile(`^the environment of (.*) \(pid (\d+)\), a process of yours$`), Say: func(m []string) string {
		return lang.L("the environment of {{.Command}} (pid {{.PID}}), a process of yours", map[string]any{"Command": m[1], "PID": m[2]})
	}},
	{Pattern: regexp.MustCompile(`^logind session (\S+) \((.*)\)$`), Say: func(m []string) string {
		return lang.L("logind session {{.ID}} ({{.Type}})", map[string]any{"ID": m[1], "Type": m[2]})
	}},
}

// sessionFrom is from, a desktopSession's From, in the user's language.
func sessionFrom(from string) string {
	said, _ := sessionFroms.Say(from)
	return said
}

// autostartSentence is st.Sentence() in the user's language: the same
// cases, in the same order.
func autostartSentence(st autostart.State) string {
	d := map[string]any{"Where": st.Where, "Exe": st.Exe}
	switch {
	case !st.On:
		return lang.L("autostart off: the hub starts with the first prompt, or `elicitray autostart on` starts it at login ({{.Where}}).", d)
	case st.Missing:
		return lang.L("autostart on, but {{.Where}} starts {{.Exe}}, which is gone: run `elicitray autostart on` to start this elicitray instead.", d)
	case !st.Current && st.SameExe:
		return lang.L("autostart on, for this elicitray with another ELICITRAY_HOME ({{.Where}}): `elicitray autostart on` writes it for this one.", d)
	case !st.Current && st.Exe != "":
		return lang.L("autostart on, for another elicitray: {{.Where}} starts {{.Exe}} (`elicitray autostart on` points it at this one).", d)
	case !st.Current:
		return lang.L("autostart on, but {{.Where}} was changed by hand: `elicitray autostart on` writes it anew.", d)
	}
	return lang.L("autostart on: {{.Where}} starts the hub when you log in.", d)
}

// runDirMessages are checkRunDir's refusals of the hub's directory
// (trust.go), written in English for the log and the wrapper's errors.
var runDirMessages = lang.Sentences{
	{Pattern: regexp.MustCompile(`^the hub's directory (.+) is a symbolic link \(to (.*)\), not a directory of your own$`), Say: func(m []string) string {
		return lang.L("the hub's directory {{.Dir}} is a symbolic link (to {{.Target}}), not a directory of your own", map[string]any{"Dir": m[1], "Target": m[2]})
	}},
	{Pattern: regexp.MustCompile(`^the hub's directory (.+) is not a directory$`), Say: func(m []string) string {
		return lang.L("the hub's directory {{.Dir}} is not a directory", map[string]any{"Dir": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^the hub's directory (.+) belongs to (.+), not to you \((.+)\)$`), Say: func(m []string) string {
		return lang.L("the hub's directory {{.Dir}} belongs to {{.Owner}}, not to you ({{.Me}})", map[string]any{"Dir": m[1], "Owner": m[2], "Me": m[3]})
	}},
	{Pattern: regexp.MustCompile(`^the hub's directory (.+) is open to other users \((.+)\)$`), Say: func(m []string) string {
		return lang.L("the hub's directory {{.Dir}} is open to other users ({{.Why}})", map[string]any{"Dir": m[1], "Why": m[2]})
	}},
}

// runDirRefusal is checkRunDir's refusal, without its ErrUntrusted tail, in
// the user's language.
func runDirRefusal(s string) string {
	said, _ := runDirMessages.Say(s)
	return said
}
