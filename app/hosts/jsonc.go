package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// jsoncSyntax reads JSON and JSON with comments and trailing commas (VS Code
// and Zed write those), through hujson, whose syntax tree keeps every byte
// and its offset. Standard JSON stays standard: the splices add no comments
// and no trailing commas.
type jsoncSyntax struct{}

func (jsoncSyntax) quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a path with & or < stays readable
	enc.Encode(s)            // a string always encodes
	q := strings.TrimSuffix(b.String(), "\n")
	if !strings.ContainsFunc(q, hiddenRune) {
		return q
	}
	var e strings.Builder
	for _, r := range q {
		if hiddenRune(r) {
			fmt.Fprintf(&e, `\u%04x`, r)
		} else {
			e.WriteRune(r)
		}
	}
	return e.String()
}

func (j jsoncSyntax) keyText(s string) string { return j.quote(s) }

// hiddenRune reports whether r is a C1 control or a bidirectional
// formatting character, which a string token Wrap writes (a key passed as
// --name) holds as an escape, so that the config does not read reordered
// in an editor or a terminal. encoding/json escapes the C0 controls itself.
func hiddenRune(r rune) bool {
	return r >= 0x7f && r <= 0x9f || r == '\u061c' || r == '\u200e' || r == '\u200f' ||
		r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// hujsonPos is how hujson starts its messages: "hujson: line 3, column 7: …".
var hujsonPos = regexp.MustCompile(`^hujson: line (\d+), column (\d+): `)

// maxDepth is how deeply arrays and objects may nest in a JSON config.
// hujson parses recursively, and a file of two million `[` overflowed the
// stack, which no program can recover from; configs nest less than ten deep.
const maxDepth = 1000

// utf8BOM is the byte order mark some Windows editors put first; VS Code
// reads a JSON file that starts with it.
const utf8BOM = "\ufeff"

// parseJSONC parses data as JSON with comments, after checking how deeply
// it nests. Two things hosts read and hujson does not are made readable, in
// a copy whose offsets are those of data: a leading byte order mark (parsed
// as three spaces), and a // comment on the last line with no newline after
// it (when data does not parse as it is, it is parsed again with a newline
// at the end; the first error stands if that does not parse either).
func parseJSONC(data []byte) (hujson.Value, error) {
	if err := checkDepth(data); err != nil {
		return hujson.Value{}, err
	}
	if bytes.HasPrefix(data, []byte(utf8BOM)) {
		data = append([]byte("   "), data[len(utf8BOM):]...)
	}
	v, err := hujson.Parse(data)
	if err != nil && !bytes.HasSuffix(data, []byte("\n")) {
		if v2, err2 := hujson.Parse(append(data[:len(data):len(data)], '\n')); err2 == nil {
			return v2, nil
		}
	}
	return v, err
}

// checkDepth returns a syntaxError at the first bracket or brace that opens
// more than maxDepth levels deep, skipping strings and comments; nil
// otherwise, and for what does not parse (hujson says what is wrong).
func checkDepth(data []byte) error {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 >= len(data) {
				return nil
			}
			end := ""
			switch data[i+1] {
			case '/':
				end = "\n"
			case '*':
				end = "*/"
			default:
				return nil
			}
			j := bytes.Index(data[i+2:], []byte(end))
			if j < 0 {
				return nil
			}
			i += 2 + j + len(end) - 1
		case '[', '{':
			if depth++; depth > maxDepth {
				line, col := lineCol(data, i)
				return &syntaxError{line: line, col: col, msg: fmt.Sprintf("arrays and objects are nested more than %d levels deep here; elicitray reads no config that deep (hosts' configs nest a few levels)", maxDepth)}
			}
		case ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return nil
}

func (jsoncSyntax) entries(data []byte, servers []string) ([]rawEntry, error) {
	root, err := parseJSONC(data)
	var se *syntaxError
	if errors.As(err, &se) {
		return nil, se
	}
	if err != nil {
		msg := err.Error()
		se := &syntaxError{msg: strings.TrimPrefix(msg, "hujson: ")}
		if m := hujsonPos.FindStringSubmatch(msg); m != nil {
			se.line, _ = strconv.Atoi(m[1])
			se.col, _ = strconv.Atoi(m[2])
			se.msg = msg[len(m[0]):]
		}
		se.msg = "not valid JSON: " + se.msg
		return nil, se
	}
	v := &root
	for i, key := range servers {
		obj, ok := v.Value.(*hujson.Object)
		if !ok {
			if i == 0 {
				return nil, errors.New("the file is not a JSON object")
			}
			return nil, fmt.Errorf("%s is not an object", strings.Join(servers[:i], "."))
		}
		m := member(obj, key)
		if m == nil {
			return nil, nil
		}
		v = &m.Value
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		if _, null := v.Value.(hujson.Literal); null && v.Value.Kind() == 'n' {
			return nil, nil
		}
		return nil, fmt.Errorf("%s is not an object", strings.Join(servers, "."))
	}
	// One pass to find the last member of each key (JSON.parse and Go's
	// encoding/json both keep the last of duplicates), one to read the
	// entries in the order their keys first appear: linear in the members,
	// where looking each key up again would be quadratic (finding 8 of the
	// break test: 16k entries took minutes).
	last := make(map[string]int, len(obj.Members))
	for i := range obj.Members {
		last[memberName(&obj.Members[i])] = i
	}
	out := make([]rawEntry, 0, len(last))
	for i := range obj.Members {
		key := memberName(&obj.Members[i])
		j, ok := last[key]
		if !ok {
			continue // a duplicate already read
		}
		delete(last, key)
		out = append(out, jsonEntry(data, key, &obj.Members[j].Value))
	}
	return out, nil
}

func memberName(m *hujson.ObjectMember) string {
	return unquote(m.Name.Value.(hujson.Literal))
}

// unquote returns the string a JSON string literal holds. Most have no
// escapes and are cut out as they are; hujson's String decodes each one
// with encoding/json, which was most of the time Wrap took.
func unquote(lit hujson.Literal) string {
	if n := len(lit); n >= 2 && bytes.IndexByte(lit, '\\') < 0 && utf8.Valid(lit) {
		return string(lit[1 : n-1])
	}
	return lit.String()
}

// member returns the last member of obj named key (JSON.parse and Go's
// encoding/json both keep the last of duplicates), or nil.
func member(obj *hujson.Object, key string) *hujson.ObjectMember {
	for i := len(obj.Members) - 1; i >= 0; i-- {
		if memberName(&obj.Members[i]) == key {
			return &obj.Members[i]
		}
	}
	return nil
}

// jsonEntry reads one entry: `{"command": "npx", "args": [...], ...}`, Zed's
// older `{"command": {"path": "npx", "args": [...]}}`, or a remote one with
// url (VS Code, Cursor, Claude Code, Gemini CLI, Zed), serverUrl (Windsurf)
// or httpUrl (Gemini CLI).
func jsonEntry(data []byte, key string, v *hujson.Value) rawEntry {
	r := rawEntry{Entry: Entry{Key: key}, argsKey: `"args"`}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		r.State, r.Note = StateUnsupported, "it is not an object"
		return r
	}
	r.region = [2]int{v.StartOffset, v.EndOffset}
	r.members = jsonMembers(obj)
	if rm, note := jsonRemote(data, obj); rm.url != "" {
		r.remote, r.remoteNote, r.URL = rm, note, rm.url
	}
	r.env, r.envOrder = jsonEnv(data, obj)
	holder := obj // the object holding command (or path) and args
	cm := member(obj, "command")
	if cm != nil {
		if inner, ok := cm.Value.Value.(*hujson.Object); ok {
			holder = inner
			cm = member(inner, "path")
			if cm == nil {
				r.State, r.Note = StateUnsupported, "its command has no path"
				return r
			}
		}
	}
	if cm == nil {
		if m := member(obj, "source"); m != nil && m.Value.Value.Kind() == '"' && unquote(m.Value.Value.(hujson.Literal)) == "extension" {
			r.Note = "a Zed extension starts this server, not a command in this file"
		}
		return r
	}
	lit, ok := cm.Value.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		r.State, r.Note = StateUnsupported, "its command is not a string"
		return r
	}
	r.Command = unquote(lit)
	r.cmd = &token{cm.Value.StartOffset, cm.Value.EndOffset, r.Command}
	r.addAt = cm.Value.EndOffset
	r.addPre = "," + memberIndent(data, cm.Name.StartOffset)
	r.sep = string(data[cm.Name.EndOffset:cm.Value.StartOffset])
	if !isSpace(bytes.Replace([]byte(r.sep), []byte(":"), nil, 1)) {
		r.sep = ": " // a comment between name and value: not copied
	}
	am := member(holder, "args")
	if am == nil {
		return r
	}
	arr, ok := am.Value.Value.(*hujson.Array)
	if !ok {
		r.State, r.Note = StateUnsupported, "its args is not a list"
		return r
	}
	r.argsStart = am.Name.StartOffset
	r.args = &array{open: am.Value.StartOffset, close: am.Value.EndOffset - 1}
	for _, el := range arr.Elements {
		lit, ok := el.Value.(hujson.Literal)
		if !ok || lit.Kind() != '"' {
			r.State, r.Note = StateUnsupported, "its args are not all strings"
			return r
		}
		s := unquote(lit)
		r.args.elems = append(r.args.elems, token{el.StartOffset, el.EndOffset, s})
		r.Args = append(r.Args, s)
	}
	return r
}

// memberIndent returns the whitespace before the member starting at offset
// ("\n      " in an indented object), or " " when the member does not start
// its line.
func memberIndent(data []byte, offset int) string {
	if ind := lineIndent(data, offset); ind != "" || (offset > 0 && data[offset-1] == '\n') {
		nl := "\n"
		if i := offset - len(ind) - 1; i > 0 && data[i-1] == '\r' {
			nl = "\r\n"
		}
		return nl + ind
	}
	return " "
}

// jsonMembers returns the members of an entry's object.
func jsonMembers(obj *hujson.Object) []entryMember {
	ms := make([]entryMember, len(obj.Members))
	for i := range obj.Members {
		m := &obj.Members[i]
		ms[i] = entryMember{
			key:    memberName(m),
			start:  m.Name.StartOffset,
			keyEnd: m.Name.EndOffset,
			end:    m.Value.EndOffset,
			val:    token{start: m.Value.StartOffset, end: m.Value.EndOffset},
		}
		if lit, ok := m.Value.Value.(hujson.Literal); ok && lit.Kind() == '"' {
			ms[i].val.value = unquote(lit)
		}
		ms[i].del = [2]int{ms[i].start, ms[i].end}
		if i > 0 {
			ms[i].del[0] = obj.Members[i-1].Value.EndOffset
		}
	}
	return ms
}

// jsonRemote reads a remote entry's URL, type and headers, and says why
// they cannot be wrapped when they cannot.
func jsonRemote(data []byte, obj *hujson.Object) (*remote, string) {
	rm := &remote{}
	for _, k := range []string{"url", "serverUrl", "httpUrl"} {
		if m := member(obj, k); m != nil && m.Value.Value.Kind() == '"' {
			rm.url = unquote(m.Value.Value.(hujson.Literal))
			break
		}
	}
	if m := member(obj, "type"); m != nil && m.Value.Value.Kind() == '"' {
		rm.typ = unquote(m.Value.Value.(hujson.Literal))
	}
	m := member(obj, "headers")
	if m == nil {
		return rm, ""
	}
	hs, ok := m.Value.Value.(*hujson.Object)
	if !ok {
		if m.Value.Value.Kind() == 'n' {
			return rm, ""
		}
		return rm, "its headers is not an object"
	}
	for i := range hs.Members {
		h := &hs.Members[i]
		lit, ok := h.Value.Value.(hujson.Literal)
		if !ok || lit.Kind() != '"' {
			return rm, "its headers are not all strings"
		}
		rm.headers = append(rm.headers, header{
			name:  memberName(h),
			value: unquote(lit),
			tok:   string(data[h.Value.StartOffset:h.Value.EndOffset]),
		})
	}
	return rm, ""
}

// jsonEnv reads an entry's env map: the string value of each variable, by
// name, and the names in file order.
func jsonEnv(data []byte, obj *hujson.Object) (map[string]envVal, []string) {
	m := member(obj, "env")
	if m == nil {
		return nil, nil
	}
	env, ok := m.Value.Value.(*hujson.Object)
	if !ok {
		return nil, nil
	}
	vals := make(map[string]envVal, len(env.Members))
	var order []string
	for i := range env.Members {
		e := &env.Members[i]
		v := envVal{raw: string(data[e.Value.StartOffset:e.Value.EndOffset])}
		if lit, ok := e.Value.Value.(hujson.Literal); ok && lit.Kind() == '"' {
			v.value = unquote(lit)
		}
		name := memberName(e)
		if _, dup := vals[name]; !dup {
			order = append(order, name)
		}
		vals[name] = v
	}
	return vals, order
}
