package bridge

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

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
	var c cleaner
	fmt.Fprintf(&b, "The host asks to run the tool %s", strconv.Quote(c.line(name, guardMaxValue)))
	if t := c.line(info.title, guardMaxValue); t != "" && t != name {
		fmt.Fprintf(&b, " (%s)", t)
	}
	b.WriteString(". It runs only if you approve it.\n")
	if info.changed != "" {
		// Before the rest: it is why this call waits, and the warning
		// first, in the lines the window shows without scrolling.
		if said := SuspicionsSaid(info.changed); said != "" {
			b.WriteString("\n" + said + "\n")
		}
		b.WriteString("\nThe server changed this tool's definition since you first saw it, and you have not accepted the change; until you do (elicitray tools accept), each call waits for you here.\n")
		b.WriteString("What changed:\n")
		b.WriteString(c.text(info.changed, guardMaxDescription))
		b.WriteString("\n")
	}
	if d := c.text(info.description, guardMaxDescription); d != "" {
		b.WriteString("\nWhat the server says it does:\n")
		b.WriteString(d)
		b.WriteString("\n")
	}
	b.WriteString("\n")
	b.WriteString(argumentsText(args, &c))
	if c.hidden > 0 {
		b.WriteString("\nIn this call's text " + c.hiddenSaid())
	}
	return strings.TrimRight(b.String(), "\n")
}

// ChangeMessage is what the window that tells of a changed tool
// definition says (ModeToolChange): the change, cleaned and bounded as a
// guarded call's text is.
func ChangeMessage(name, account string) string {
	var b strings.Builder
	var c cleaner
	fmt.Fprintf(&b, "The server changed the definition of its tool %s since you first saw it. A server can do so to make a tool you trust ask for more than it did.\n\n", strconv.Quote(c.line(name, guardMaxValue)))
	// Before the change itself, which may be long: the window shows it
	// without scrolling.
	if said := SuspicionsSaid(account); said != "" {
		b.WriteString(said + "\n\n")
	}
	b.WriteString("What changed:\n")
	b.WriteString(c.text(account, guardMaxDescription))
	b.WriteString("\n\nAccept the change to let its calls run as before. Otherwise each call waits for your approval, until you accept it (elicitray tools accept).")
	if c.hidden > 0 {
		b.WriteString("\n\nIn this text " + c.hiddenSaid())
	}
	return b.String()
}

// hiddenSaid says how many characters c hid, as a prompt's hidden
// characters are said: the person knows the text was not all shown as
// sent.
func (c *cleaner) hiddenSaid() string {
	if c.hidden == 1 {
		return "1 invisible or control character, which can disguise text, is shown as \uFFFD."
	}
	return fmt.Sprintf("%d invisible or control characters, which can disguise text, are shown as \uFFFD.", c.hidden)
}

// argumentsText renders a call's arguments for a person: one line per
// argument, nested objects and arrays indented, every value bounded
// (guardMax…), and the values of secret-looking names, and values that
// look like secrets themselves, masked (PROTOCOL.md §6: sensitive
// information is not shown).
func argumentsText(args json.RawMessage, c *cleaner) string {
	if len(args) == 0 || string(args) == "null" {
		return "No arguments."
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return "Arguments (not valid JSON, shown as sent):\n" + c.text(string(args), guardMaxValue)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "Arguments (not an object):\n" + renderValue(v, c)
	}
	if len(obj) == 0 {
		return "No arguments."
	}
	a := &argWriter{c: c}
	a.b.WriteString("Arguments:\n")
	a.object(obj, 0)
	if a.left > 0 {
		fmt.Fprintf(&a.b, "… and %d more not shown\n", a.left)
	}
	return a.b.String()
}

// argWriter writes arguments, counting lines against guardMaxLines.
type argWriter struct {
	c     *cleaner
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
	a.b.WriteString(a.c.line(name, 80))
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
	// A switch is no secret: "include_secrets: true" says what the call
	// does, and the person approving it must read that.
	if _, on := v.(bool); !on && secretName(name) {
		a.line(depth, name, masked(v))
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if depth+1 >= guardMaxDepth || len(x) == 0 {
			a.line(depth, name, renderValue(x, a.c))
			return
		}
		a.line(depth, name, "")
		a.object(x, depth+1)
	case []any:
		if depth+1 >= guardMaxDepth || len(x) == 0 {
			a.line(depth, name, renderValue(x, a.c))
			return
		}
		a.line(depth, name, fmt.Sprintf("(%d items)", len(x)))
		for i, item := range x {
			a.member(fmt.Sprintf("[%d]", i), item, depth+1)
		}
	default:
		a.line(depth, name, renderValue(v, a.c))
	}
}

// renderValue is one value as JSON text, bounded, masked when it looks
// like a secret.
func renderValue(v any, c *cleaner) string {
	if s, ok := v.(string); ok && secretValue(s) {
		return masked(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "(not shown)"
	}
	return c.line(string(b), guardMaxValue)
}

// masked stands for a secret value: never its text, nor its length.
func masked(any) string { return "•••••• (hidden: looks secret)" }

// secretName reports whether an argument's name says its value is a
// secret: by the same word rules as a form field's (elicit.LooksSecret:
// "password", "api_key", "githubToken", "client_secret"; not
// "token_count", "max_tokens" or "tokenizer"), or an authorization
// header's name, or a pass ("pass", "db_pass", "rootPass"); not a name of a
// secret's kind, size or address ("token_type", "password_length",
// "token_url": plainName, kindEnds).
func secretName(name string) bool {
	flat, plain := plainName(name)
	if plain || slices.ContainsFunc(kindEnds, func(end string) bool { return endsWithWord(name, end) }) {
		return false
	}
	return flat == "pass" || endsWithWord(name, "pass") || elicit.LooksSecret(name) || strings.HasSuffix(flat, "authorization")
}

// kindEnds are the last words of the names of arguments that say something
// of a secret, not the secret: "password_length", "passwordRequired",
// "tokens_used".
var kindEnds = []string{"length", "required", "enabled", "count", "used", "name"}

// endsWithWord reports whether name's last word is word (lower case):
// after '_', '-', '.' or a space, or a capital ("db_pass", "dbPass"; not
// "bypass", nor "bank_account" for "count").
func endsWithWord(name, word string) bool {
	if len(name) <= len(word) {
		return false
	}
	// word is ASCII: the tail it may be is as many bytes long.
	before, tail := name[:len(name)-len(word)], name[len(name)-len(word):]
	if !strings.EqualFold(tail, word) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(before)
	first, _ := utf8.DecodeRuneInString(tail)
	return strings.ContainsRune("_-. ", last) || unicode.IsUpper(first) && !unicode.IsUpper(last)
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
	var c cleaner
	return c.line(s, max)
}

// cleaner cleans text as cleanLine and cleanText do, counting the
// characters it replaced (hidden) so that the window can say so.
type cleaner struct{ hidden int }

func (c *cleaner) marked(s string) string {
	out, n := elicit.Marked(strings.ToValidUTF8(s, "\uFFFD"))
	c.hidden += n
	return out
}

func (c *cleaner) line(s string, max int) string {
	return bound(c.marked(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)), max)
}

// text is line keeping line breaks (at most a few blank lines).
func (c *cleaner) text(s string, max int) string {
	s = c.marked(strings.ReplaceAll(s, "\t", " "))
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
