package ui

import (
	"errors"
	"regexp"
	"strings"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/ui/lang"
)

// bridge/elicit warns about a link, or refuses it, in English, for the log
// and the host as much as for the window (url.go). urlWarnings and
// urlRefusals turn each sentence it writes into the user's language; one
// not listed is shown as elicit wrote it. TestURLMessagesTranslated makes
// each one from a real link.
var urlWarnings = lang.Sentences{
	{Pattern: regexp.MustCompile(`^The link contains a user name before “@”; the site it opens is (.*), not (.*)\.$`), Say: func(m []string) string {
		return lang.L("The link contains a user name before “@”; the site it opens is {{.Site}}, not {{.User}}.", map[string]any{"Site": m[1], "User": m[2]})
	}},
	{Pattern: regexp.MustCompile(`^The site's name mixes alphabets \((.*)\), a common disguise\.$`), Say: func(m []string) string {
		// The scripts' Unicode names, as elicit joins them.
		return lang.L("The site's name mixes alphabets ({{.Scripts}}), a common disguise.", map[string]any{"Scripts": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^The site's name uses international characters: (.*) is also written (.*)\.$`), Say: func(m []string) string {
		return lang.L("The site's name uses international characters: {{.Shown}} is also written {{.ASCII}}.", map[string]any{"Shown": m[1], "ASCII": m[2]})
	}},
	{Pattern: regexp.MustCompile(`^The link goes to an IP address instead of a named site\.$`), Say: func([]string) string {
		return lang.L("The link goes to an IP address instead of a named site.")
	}},
	{Pattern: regexp.MustCompile(`^The link goes to a name on this computer or network \((.*)\)\.$`), Say: func(m []string) string {
		return lang.L("The link goes to a name on this computer or network ({{.Host}}).", map[string]any{"Host": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^The link is not encrypted \(http, not https\)\.$`), Say: func([]string) string {
		return lang.L("The link is not encrypted (http, not https).")
	}},
	{Pattern: regexp.MustCompile(`^The link uses an unusual port \(:(.*)\)\.$`), Say: func(m []string) string {
		return lang.L("The link uses an unusual port (:{{.Port}}).", map[string]any{"Port": m[1]})
	}},
}

// urlWarning is warning, one of elicit's URLCheck.Warnings, in the user's
// language.
func urlWarning(warning string) string {
	said, _ := urlWarnings.Say(warning)
	return said
}

var urlRefusals = lang.Sentences{
	{Pattern: regexp.MustCompile(`^it is (\d+) bytes long; elicitray opens links of at most (\d+) bytes$`), Say: func(m []string) string {
		return lang.L("it is {{.Size}} bytes long; elicitray opens links of at most {{.Max}} bytes", map[string]any{"Size": m[1], "Max": m[2]})
	}},
	{Pattern: regexp.MustCompile(`^it is not valid UTF-8 text$`), Say: func([]string) string {
		return lang.L("it is not valid UTF-8 text")
	}},
	{Pattern: regexp.MustCompile(`^it contains a space or an invisible control character \((.*)\)$`), Say: func(m []string) string {
		return lang.L("it contains a space or an invisible control character ({{.Char}})", map[string]any{"Char": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^it is not a valid URL \((.*)\)$`), Say: func(m []string) string {
		return lang.L("it is not a valid URL ({{.Error}})", map[string]any{"Error": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^elicitray opens only https and http links, and this one names no scheme$`), Say: func([]string) string {
		return lang.L("elicitray opens only https and http links, and this one names no scheme")
	}},
	{Pattern: regexp.MustCompile(`^elicitray opens only https and http links, not (.*): links$`), Say: func(m []string) string {
		return lang.L("elicitray opens only https and http links, not {{.Scheme}}: links", map[string]any{"Scheme": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^it names no site \(the host is missing\)$`), Say: func([]string) string {
		return lang.L("it names no site (the host is missing)")
	}},
	{Pattern: regexp.MustCompile(`^its port (.*) is not a valid port number$`), Say: func(m []string) string {
		return lang.L("its port {{.Port}} is not a valid port number", map[string]any{"Port": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^its address (.*) is not an IPv6 address a browser can open$`), Say: func(m []string) string {
		return lang.L("its address {{.Host}} is not an IPv6 address a browser can open", map[string]any{"Host": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^its site name “(.*)” is not a valid domain name$`), Say: func(m []string) string {
		return lang.L("its site name “{{.Host}}” is not a valid domain name", map[string]any{"Host": m[1]})
	}},
	{Pattern: regexp.MustCompile(`^its site name “(.*)” ends in a number but is not an IP address$`), Say: func(m []string) string {
		return lang.L("its site name “{{.Host}}” ends in a number but is not an IP address", map[string]any{"Host": m[1]})
	}},
}

// urlRefusal is the sentence for a refused link (URLCheck.Refused) in the
// user's language.
func urlRefusal(err error) string {
	if !errors.Is(err, elicit.ErrURLRefused) {
		return sentence(err)
	}
	reason := strings.TrimPrefix(err.Error(), elicit.ErrURLRefused.Error()+": ")
	reason, _ = urlRefusals.Say(reason)
	return lang.L("Link refused: {{.Reason}}.", map[string]any{"Reason": reason})
}
