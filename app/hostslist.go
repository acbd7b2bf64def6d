package app

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/elicitray/elicitray/app/hosts"
	"github.com/elicitray/elicitray/chars"
)

// `elicitray hosts list`: one screen for people, --json for scripts.

// hostsList is `hosts list`.
func hostsList(w io.Writer, f hostsFlags) error {
	env, err := f.env()
	if err != nil {
		return err
	}
	var reports []hosts.HostReport
	if f.config != "" {
		loc, err := configLocation(f)
		if err != nil {
			return err
		}
		r := hosts.Report(loc, true)
		if r.Err != nil {
			// A file named on the command line that cannot be read is the
			// command failing (exit 1), as for wrap; the survey of every
			// host below shows a broken file among the others instead.
			return r.Err
		}
		reports = []hosts.HostReport{r}
	} else {
		reports = hosts.Survey(env)
	}
	if f.asJSON {
		return writeHostsJSON(w, reports)
	}
	shared := sharedNames(env, reports)
	tw := chars.NewColumns(w)
	var missing []string
	var unwrapped, shown bool
	for i, r := range reports {
		if !r.Installed {
			if i == 0 || reports[i-1].Host != r.Host {
				missing = append(missing, r.Title)
			}
			continue
		}
		// Scopes beyond the user's show only when there is something in
		// them (the local scope shares ~/.claude.json with the user's).
		if r.Scope != "user" && r.Host != "file" && (!r.Exists || (len(r.Entries) == 0 && r.Err == nil)) {
			continue
		}
		if shown {
			fmt.Fprintln(tw)
		}
		shown = true
		title := r.Title
		if r.Scope != "" {
			title += " (" + r.Scope + ")"
		}
		if r.Host == "file" {
			fmt.Fprintln(tw, displayText(tildePath(r.Path, env.Home)))
		} else {
			fmt.Fprintf(tw, "%s — %s\n", title, displayText(tildePath(r.Path, env.Home)))
		}
		switch {
		case r.Err != nil:
			fmt.Fprintf(tw, "  cannot read it: %v\n", displayText(tildeErr(r.Err, env.Home)))
		case !r.Exists:
			fmt.Fprintln(tw, "  no config file yet")
		case len(r.Entries) == 0:
			fmt.Fprintln(tw, "  no servers")
		}
		for _, e := range r.Entries {
			unwrapped = unwrapped || e.Wrappable()
			detail := entryDetail(e, r)
			if other, ok := shared[entryID(r.Location, e)]; ok {
				detail += fmt.Sprintf("  (runs as %s, the name of another server in %s: elicitray takes the two for one; rename one)",
					displayKey(e.Name), displayText(other))
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", displayKey(e.Key), e.State, detail)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !shown && f.config == "" {
		fmt.Fprintln(w, "No MCP host elicitray knows is installed for this user.")
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "\nNot installed: %s.\n", strings.Join(missing, ", "))
	}
	if unwrapped {
		fmt.Fprintln(w, "\n`elicitray hosts wrap HOST --all` puts elicitray in front of a host's servers (a backup\nof the file is made first); `elicitray hosts unwrap HOST --all` takes it out again.")
	}
	return nil
}

// entryDetail is the last column of `hosts list`: what the entry runs.
func entryDetail(e hosts.Entry, r hosts.HostReport) string {
	switch e.State {
	case hosts.StateRemote:
		s := displayText(e.URL) + headerNames(e)
		if e.Note != "" {
			s += "  (cannot be wrapped: " + displayText(e.Note) + ")"
		}
		return s
	case hosts.StateUnsupported:
		return e.Note
	case hosts.StateNotWrapped:
		return shellJoin(e.Server)
	}
	s := shellJoin(e.Server)
	switch {
	case e.URL != "":
		s = displayText(e.URL) + headerNames(e)
	case s == "":
		s = "(no server command after wrap)"
	}
	if !e.BinaryExists {
		fix := "elicitray hosts wrap " + r.Host + " " + shellJoin([]string{e.Key})
		if r.Host == "file" {
			fix = "elicitray hosts wrap --config " + shellJoin([]string{r.Path}) + " " + shellJoin([]string{e.Key})
		}
		return s + fmt.Sprintf("  (through %s, which no longer exists: `%s` points it at this binary)", displayText(e.Binary), fix)
	}
	return s + "  (through " + displayText(e.Binary) + ")"
}

// headerNames is "  (headers: A, B)" for an entry that sends headers: their
// names only, as their values are often secrets.
func headerNames(e hosts.Entry) string {
	if len(e.Headers) == 0 {
		return ""
	}
	return "  (headers: " + strings.Join(displayAll(e.Headers), ", ") + ")"
}

// hostsJSON is one config file in `hosts list --json`.
type hostsJSON struct {
	hosts.HostReport
	Error string `json:"error,omitempty"`
}

func writeHostsJSON(w io.Writer, reports []hosts.HostReport) error {
	out := make([]hostsJSON, len(reports))
	for i, r := range reports {
		out[i].HostReport = r
		if r.Entries == nil {
			out[i].Entries = []hosts.Entry{}
		}
		if r.Err != nil {
			out[i].Error = r.Err.Error()
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// tildePath shows a path under home as ~/….
func tildePath(path, home string) string {
	if home != "" && home != "/" && strings.HasPrefix(path, home+string(filepath.Separator)) {
		return "~" + path[len(home):]
	}
	return path
}

func tildeErr(err error, home string) string {
	if home == "" || home == "/" {
		return err.Error()
	}
	return strings.ReplaceAll(err.Error(), home+string(filepath.Separator), "~"+string(filepath.Separator))
}

// shellJoin writes a command line as a shell would read it back: words
// with spaces or shell characters in single quotes, and words with a
// character a terminal would act on or hide (see unsafeRune) in ANSI-C
// quotes, $'a\u202eb', which bash and zsh read back.
func shellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		switch {
		case strings.ContainsFunc(w, unsafeRune) || !utf8.ValidString(w):
			out[i] = "$'" + escapeText(w, true) + "'"
		case w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`!*?[]{}()<>|&;#~"):
			out[i] = w
		default:
			out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// displayText is s as `hosts list` and doctor show a key, a URL or a path
// from a config: as it is, unless it holds a character a terminal would act
// on or hide (see unsafeRune), which is then written as \u202e (and a
// backslash as \\, so that the escapes read one way only). A key such as
// "a\u202eb" printed raw turns the rest of the line around.
func displayText(s string) string {
	if !strings.ContainsFunc(s, unsafeRune) && utf8.ValidString(s) {
		return s
	}
	return escapeText(s, false)
}

// displayKey is displayText of a server's key, and "" for the empty one.
func displayKey(key string) string {
	if key == "" {
		return `""`
	}
	return displayText(key)
}

// escapeText escapes backslashes and unsafe runes with \u (invalid UTF-8
// bytes with \x), and with quote single quotes too.
func escapeText(s string, quote bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\ufffd"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\'' && quote:
			b.WriteString(`\'`)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafeRune reports whether r is a control character (C0, DEL, C1: tab and
// newline included, which would break the columns), a line or paragraph
// separator, or a bidirectional formatting character (U+061C, U+200E,
// U+200F, U+202A–U+202E, U+2066–U+2069), which reorders what follows it
// on the screen ("Trojan Source", CVE-2021-42574).
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\u061c' ||
		r == '\u200e' || r == '\u200f' || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}
