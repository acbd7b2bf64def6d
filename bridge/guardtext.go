package bridge

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
)

// What the approval window of a guarded call says (guard.go): the tool,
// its title and description, and the call's arguments as text a person
// reads, bounded, without control characters, secrets masked.

// Bounds on the text a guarded call's arguments become (argumentsText):
// a window that stays readable whatever the host sends.
const (
	guardMaxValue       = 200  // characters of one value shown
	guardMaxLines       = 40   // arguments shown, nested ones each counted
	guardMaxDepth       = 4    // levels of nested objects and arrays opened
	guardMaxDescription = 1000 // characters of the tool's description shown
)

// guardMessage is what the window says of a guarded call: the tool, its
// title and description (server-controlled text, bounded), and its
// arguments (argumentsText).
func guardMessage(name string, info toolInfo, args json.RawMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The host asks to run the tool %s", strconv.Quote(name))
	if t := cleanLine(info.title, guardMaxValue); t != "" && t != name {
		fmt.Fprintf(&b, " (%s)", t)
	}
	b.WriteString(". It runs only if you approve it.\n")
	if d := cleanText(info.description, guardMaxDescription); d != "" {
		b.WriteString("\nWhat the server says it does:\n")
		b.WriteString(d)
		b.WriteString("\n")
	}
	b.WriteString("\n")
	b.WriteString(argumentsText(args))
	return strings.TrimRight(b.String(), "\n")
}

// argumentsText renders a call's arguments for a person: one line per
// argument, nested objects and arrays indented, every value bounded
// (guardMax…), and the values of secret-looking names, and values that
// look like secrets themselves, masked (PROTOCOL.md §6: sensitive
// information is not shown).
func argumentsText(args json.RawMessage) string {
	if len(args) == 0 || string(args) == "null" {
		return "No arguments."
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return "Arguments (not valid JSON, shown as sent):\n" + cleanText(string(args), guardMaxValue)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "Arguments (not an object):\n" + renderValue(v)
	}
	if len(obj) == 0 {
		return "No arguments."
	}
	a := &argWriter{}
	a.b.WriteString("Arguments:\n")
	a.object(obj, 0)
	if a.left > 0 {
		fmt.Fprintf(&a.b, "… and %d more not shown\n", a.left)
	}
	return a.b.String()
}

// argWriter writes arguments, counting lines against guardMaxLines.
type argWriter struct {
	b     strings.Builder
	lines int
	left  int // lines not written for the bound
}

func (a *argWriter) line(depth int, name, text string) {
	if a.lines >= guardMaxLines {
		a.left++
		return
	}
	a.lines++
	a.b.WriteString(strings.Repeat("  ", depth+1))
	a.b.WriteString(cleanLine(name, 80))
	a.b.WriteString(":")
	if text != "" {
		a.b.WriteString(" " + text)
	}
	a.b.WriteString("\n")
}

func (a *argWriter) object(obj map[string]any, depth int) {
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		a.member(k, obj[k], depth)
	}
}

func (a *argWriter) member(name string, v any, depth int) {
	if secretName(name) {
		a.line(depth, name, masked(v))
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if depth+1 >= guardMaxDepth || len(x) == 0 {
			a.line(depth, name, renderValue(x))
			return
		}
		a.line(depth, name, "")
		a.object(x, depth+1)
	case []any:
		if depth+1 >= guardMaxDepth || len(x) == 0 {
			a.line(depth, name, renderValue(x))
			return
		}
		a.line(depth, name, fmt.Sprintf("(%d items)", len(x)))
		for i, item := range x {
			a.member(fmt.Sprintf("[%d]", i), item, depth+1)
		}
	default:
		a.line(depth, name, renderValue(v))
	}
}

// renderValue is one value as JSON text, bounded, masked when it looks
// like a secret.
func renderValue(v any) string {
	if s, ok := v.(string); ok && secretValue(s) {
		return masked(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "(not shown)"
	}
	return cleanLine(string(b), guardMaxValue)
}

// masked stands for a secret value: never its text, nor its length.
func masked(any) string { return "•••••• (hidden: looks secret)" }

// secretNames are the parts of argument names whose values are masked
// (compared without case, '_' and '-').
var secretNames = []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "accesskey",
	"privatekey", "credential", "authorization", "cookie", "sessionid", "clientsecret", "bearer"}

func secretName(name string) bool {
	n := strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(name))
	for _, s := range secretNames {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// secretPrefixes start values that are secrets by their shape: API keys
// and tokens of common services, authorization headers, private keys.
var secretPrefixes = []string{"sk-", "sk_live_", "rk_live_", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-",
	"xoxb-", "xoxp-", "xoxa-", "AKIA", "ASIA", "AIza", "Bearer ", "Basic ", "-----BEGIN"}

func secretValue(s string) bool {
	for _, p := range secretPrefixes {
		if strings.HasPrefix(s, p) && len(s) > len(p)+8 {
			return true
		}
	}
	// A JSON Web Token: three base64url parts, the first a JSON object.
	return strings.HasPrefix(s, "eyJ") && strings.Count(s, ".") == 2 && !strings.ContainsAny(s, " \n")
}

// cleanLine is s on one line, at most max characters: control and
// format characters (which could reorder or hide text) become U+FFFD
// (elicit.Marked: but for the joiners of an emoji ZWJ sequence), line
// breaks spaces.
func cleanLine(s string, max int) string {
	return bound(elicit.Marked(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))), max)
}

// cleanText is cleanLine keeping line breaks (at most a few blank lines).
func cleanText(s string, max int) string {
	s = elicit.Marked(strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\t", " "))
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return bound(strings.TrimSpace(s), max)
}

// bound cuts s to max characters, saying how many more there were.
func bound(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := chars.Count(s)
	if n <= max {
		return s
	}
	return s[:chars.Index(s, max)] + fmt.Sprintf("… (%d more characters)", n-max)
}
