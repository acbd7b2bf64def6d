package app

import (
	"regexp"

	"fyne.io/fyne/v2/lang"

	"github.com/elicitray/elicitray/app/autostart"
)

// The sentences doctor takes from elsewhere, where they are written in
// English for the log and other commands too (session.go, app/autostart),
// in the user's language; one not listed reads as written.

// sessionFroms are where a desktop session was found (desktopSession.From).
var sessionFroms = []struct {
	re  *regexp.Regexp
	say func(m []string) string
}{
	{regexp.MustCompile(`^this login session$`), func([]string) string { return lang.L("this login session") }},
	{regexp.MustCompile(`^this process's environment$`), func([]string) string { return lang.L("this process's environment") }},
	{regexp.MustCompile(`^the systemd user manager's environment$`), func([]string) string {
		return lang.L("the systemd user manager's environment")
	}},
	{regexp.MustCompile(`^the environment of (.*) \(pid (\d+)\), which started this one$`), func(m []string) string {
		return lang.L("the environment of {{.Command}} (pid {{.PID}}), which started this one", map[string]any{"Command": m[1], "PID": m[2]})
	}},
	{regexp.MustCompile(`^the environment of (.*) \(pid (\d+)\), a process of yours$`), func(m []string) string {
		return lang.L("the environment of {{.Command}} (pid {{.PID}}), a process of yours", map[string]any{"Command": m[1], "PID": m[2]})
	}},
	{regexp.MustCompile(`^logind session (\S+) \((.*)\)$`), func(m []string) string {
		return lang.L("logind session {{.ID}} ({{.Type}})", map[string]any{"ID": m[1], "Type": m[2]})
	}},
}

// sessionFrom is from, a desktopSession's From, in the user's language.
func sessionFrom(from string) string {
	for _, f := range sessionFroms {
		if m := f.re.FindStringSubmatch(from); m != nil {
			return f.say(m)
		}
	}
	return from
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
