package bridge

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/ui/lang"
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

// Guard is what the text of a guard window (ModeToolCall,
// ModeToolChange) is made of, sent with its Request so that the window
// says it in the user's language (Request.Said); Message says it in
// English, for history and the logs.
type Guard struct {
	// Title and Description are the tool's, as listed (a call's).
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Changed is the account of a change to the tool not accepted
	// (toolpins.Diff): the change a window tells of, or why a call waits.
	Changed string `json:"changed,omitempty"`
	// Arguments are a call's, as the host sent them; none past
	// guardMaxArguments, whose window says Message.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// guardMaxArguments bounds the arguments a guarded call's Request carries
// to the window, in bytes: the window shows guardMaxLines of them.
const guardMaxArguments = 1 << 20

// Said is what the window shows of r: a guard window's text in say's
// language, else the server's message as sent.
func (r *Request) Said(say lang.Speaker) string {
	switch {
	case r.Guard == nil:
		return r.Message
	case r.Mode == ModeToolChange:
		return changeMessage(r.Tool, r.Guard.Changed, say)
	}
	return callMessage(r.Tool, *r.Guard, say)
}

// callMessage is what the window says of a guarded call: the tool, its
// title and description (server-controlled text, bounded), and its
// arguments (argumentsText).
func callMessage(name string, g Guard, say lang.Speaker) string {
	var b strings.Builder
	c := cleaner{say: say}
	d := map[string]any{"Tool": strconv.Quote(c.line(name, guardMaxValue))}
	if t := c.line(g.Title, guardMaxValue); t != "" && t != name {
		d["Title"] = t
		b.WriteString(say.L("The host asks to run the tool {{.Tool}} ({{.Title}}). It runs only if you approve it.", d))
	} else {
		b.WriteString(say.L("The host asks to run the tool {{.Tool}}. It runs only if you approve it.", d))
	}
	b.WriteString("\n")
	if g.Changed != "" {
		// Before the rest: it is why this call waits, and the warning
		// first, in the lines the window shows without scrolling.
		if said := SuspicionsSaid(g.Changed, say); said != "" {
			b.WriteString("\n" + said + "\n")
		}
		// True also once the change is accepted while this window is
		// open: the call still waits for its answer here.
		b.WriteString("\n" + say.L("The server changed this tool's definition since you first saw it, and the change was not accepted when the host made this call: until it is (elicitray tools accept), each call waits for you here.") + "\n")
		b.WriteString(say.L("What changed:") + "\n")
		b.WriteString(c.text(AccountSaid(g.Changed, say), guardMaxDescription))
		b.WriteString("\n")
	}
	if desc := c.text(g.Description, guardMaxDescription); desc != "" {
		b.WriteString("\n" + say.L("What the server says it does:") + "\n")
		b.WriteString(desc)
		b.WriteString("\n")
	}
	b.WriteString("\n")
	b.WriteString(argumentsText(g.Arguments, &c))
	if c.hidden > 0 {
		// Said as a prompt's hidden characters are: the person knows
		// the text was not all shown as sent.
		b.WriteString("\n" + say.N("In this call's text {{.Count}} invisible or control characters, which can disguise text, are shown as \uFFFD.", c.hidden, map[string]any{"Count": c.hidden}))
	}
	return strings.TrimRight(b.String(), "\n")
}

// ChangeMessage is what the window that tells of a changed tool
// definition says (ModeToolChange), in English: the change, cleaned and
// bounded as a guarded call's text is.
func ChangeMessage(name, account string) string { return changeMessage(name, account, lang.English) }

func changeMessage(name, account string, say lang.Speaker) string {
	var b strings.Builder
	c := cleaner{say: say}
	b.WriteString(say.L("The server changed the definition of its tool {{.Tool}} since you first saw it. A server can do so to make a tool you trust ask for more than it did.",
		map[string]any{"Tool": strconv.Quote(c.line(name, guardMaxValue))}))
	b.WriteString("\n\n")
	// Before the change itself, which may be long: the window shows it
	// without scrolling.
	if said := SuspicionsSaid(account, say); said != "" {
		b.WriteString(said + "\n\n")
	}
	b.WriteString(say.L("What changed:") + "\n")
	b.WriteString(c.text(AccountSaid(account, say), guardMaxDescription))
	b.WriteString("\n\n" + say.L("Accept the change to let its calls run as before. Otherwise each call waits for your approval, until you accept it (elicitray tools accept)."))
	if c.hidden > 0 {
		b.WriteString("\n\n" + say.N("In this text {{.Count}} invisible or control characters, which can disguise text, are shown as \uFFFD.", c.hidden, map[string]any{"Count": c.hidden}))
	}
	return b.String()
}

// The headings of a change's account (toolpins.Diff writes them), one
// before each part of the definition that changed: the windows say them in
// the user's language (AccountSaid).
const (
	ChangedTitle       = "Title (- pinned, + listed now):"
	ChangedDescription = "Description (- pinned, + listed now):"
	ChangedSchema      = "Input schema (- pinned, + listed now):"
	ChangedAnnotations = "Annotations (- pinned, + listed now):"
)

// AccountSaid is account, a change's account, with its headings in say's
// language. Its other lines are the definitions' own, each after "-", "+"
// or a space, which no heading starts with, or "…".
func AccountSaid(account string, say lang.Speaker) string {
	var b strings.Builder
	for line := range strings.Lines(account) {
		text, nl := strings.CutSuffix(line, "\n")
		switch text {
		case ChangedTitle:
			text = say.L(ChangedTitle)
		case ChangedDescription:
			text = say.L(ChangedDescription)
		case ChangedSchema:
			text = say.L(ChangedSchema)
		case ChangedAnnotations:
			text = say.L(ChangedAnnotations)
		}
		b.WriteString(text)
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// argumentsText renders a call's arguments for a person: one line per
// argument, nested objects and arrays indented, every value bounded
// (guardMax…), and the values of secret-looking names, and values that
// look like secrets themselves, masked (PROTOCOL.md §6: sensitive
// information is not shown).
func argumentsText(args json.RawMessage, c *cleaner) string {
	say := c.say
	if len(args) == 0 || string(args) == "null" {
		return say.L("No arguments.")
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return say.L("Arguments (not valid JSON, shown as sent):") + "\n" + c.text(string(args), guardMaxValue)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return say.L("Arguments (not an object):") + "\n" + renderValue(v, c)
	}
	if len(obj) == 0 {
		return say.L("No arguments.")
	}
	a := &argWriter{c: c}
	a.b.WriteString(say.L("Arguments:") + "\n")
	a.object(obj, 0)
	if a.left > 0 {
		a.b.WriteString(say.N("… and {{.Count}} more not shown", a.left, map[string]any{"Count": a.left}) + "\n")
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
		a.line(depth, name, masked(a.c.say))
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
		say := a.c.say
		a.line(depth, name, say.N("({{.Count}} items)", len(x), map[string]any{"Count": len(x)}))
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
	if s, ok := v.(string); ok {
		if secretValue(s) {
			return masked(c.say)
		}
		if u, ok := maskedURL(s); ok {
			v = u
		}
	}
	// As JSON, but "&", "<" and ">" as themselves, not \u0026: a person
	// reads it.
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		say := c.say
		return say.L("(not shown)")
	}
	return c.line(strings.TrimSuffix(b.String(), "\n"), guardMaxValue)
}

// maskedURL is s, a URL that carries a secret (a password in it, or a
// query parameter whose name says secret: ?token=, ?api_key=), with the
// secret masked and the rest as sent (where the call goes is for the
// person to read); false for any other text.
func maskedURL(s string) (string, bool) {
	if !strings.Contains(s, "://") {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "", false
	}
	secret := false
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "••••••")
		secret = true
	}
	q := u.Query()
	for name := range q {
		if secretName(name) || name == "key" || name == "sig" || name == "signature" {
			q[name] = []string{"••••••"}
			secret = true
		}
	}
	if !secret {
		return "", false
	}
	if len(q) > 0 {
		u.RawQuery = q.Encode()
	}
	// Encode writes the dots escaped: shown as they are.
	out, err := url.PathUnescape(u.String())
	if err != nil {
		out = u.String()
	}
	return out, true
}

// masked stands for a secret value: never its text, nor its length.
func masked(say lang.Speaker) string { return say.L("•••••• (hidden: looks secret)") }

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
// characters it replaced (hidden) so that the window can say so; what it
// says of text it cut is in say's language.
type cleaner struct {
	say    lang.Speaker
	hidden int
}

func (c *cleaner) marked(s string) string {
	out, n := elicit.Marked(strings.ToValidUTF8(s, "\uFFFD"))
	c.hidden += n
	return out
}

func (c *cleaner) line(s string, max int) string {
	return c.bound(c.marked(strings.Map(func(r rune) rune {
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
	return c.bound(strings.TrimSpace(s), max)
}

// bound cuts s to max characters, saying how many more there were.
func (c *cleaner) bound(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := chars.Count(s)
	if n <= max {
		return s
	}
	say := c.say
	return s[:chars.Index(s, max)] + say.N("… ({{.Count}} more characters)", n-max, map[string]any{"Count": n - max})
}
