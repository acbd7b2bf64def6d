package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlSyntax reads Codex's config.toml through go-toml's unstable parser,
// which gives the byte range of every key and string. Entries are found
// however the file spells them:
//
//	[mcp_servers.docs]            a table per server (what Codex writes)
//	command = "npx"
//
//	[mcp_servers]                 inline tables or dotted keys under one table
//	docs = { command = "npx", args = ["-y", "docs"] }
//	mcp_servers.docs.url = "…"    dotted keys at the top
type tomlSyntax struct{}

// quote returns a TOML basic string ("…" with backslash escapes).
func (tomlSyntax) quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || hiddenRune(r) || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// keyText returns s as a bare key where TOML allows one, else quoted.
func (t tomlSyntax) keyText(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) {
		return s
	}
	return t.quote(s)
}

// tomlWalk collects the entries of one file as the parser goes: the parser
// reuses its nodes from one top-level expression to the next, so positions
// are copied out at once.
type tomlWalk struct {
	data    []byte
	servers []string
	byKey   map[string]*rawEntry
	order   []string
	headers []int // where each table header's line starts, in file order
}

func (tomlSyntax) entries(data []byte, servers []string) ([]rawEntry, error) {
	// Capacity equal to length, so that offsets found from capacities (the
	// parser's Range, and errors at the end of input) stay inside data.
	data = data[:len(data):len(data)]
	w := &tomlWalk{data: data, servers: servers, byKey: map[string]*rawEntry{}}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	var defs tomlDefs
	for p.NextExpression() {
		n := p.Expression()
		var err error
		switch n.Kind {
		case unstable.Table, unstable.ArrayTable:
			err = defs.header(n, data)
			table = keyParts(n.Key())
			w.header(n, table)
		case unstable.KeyValue:
			err = defs.keyValue(n, data)
			w.keyValue(n, table, false)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := p.Error(); err != nil {
		se := &syntaxError{msg: "not valid TOML: " + err.Error()}
		var pe *unstable.ParserError
		if errors.As(err, &pe) {
			off := min(max(cap(data)-cap(pe.Highlight), 0), len(data))
			se.line, se.col = lineCol(data, off)
		}
		return nil, se
	}
	out := make([]rawEntry, 0, len(w.order))
	for _, k := range w.order {
		r := w.byKey[k]
		if !r.inline {
			r.region = w.tableRegion(r)
		}
		out = append(out, *r)
	}
	return out, nil
}

// header notes a table header: where its line starts, the entry it
// belongs to, and, for an entry's [mcp_servers.x.http_headers] or
// env_http_headers sub-table, the header's line as a piece of its remote
// form.
func (w *tomlWalk) header(n *unstable.Node, path []string) {
	it := n.Key()
	if !it.Next() {
		return
	}
	first := int(it.Node().Raw.Offset)
	start := bytes.LastIndexByte(w.data[:first], '\n') + 1
	w.headers = append(w.headers, start)
	r := w.seen(path)
	if r != nil && len(path) == len(w.servers)+2 {
		if sub := path[len(path)-1]; sub == "http_headers" || sub == "env_http_headers" {
			piece := lineSpan(w.data, start, first)
			// The blank line that set the sub-table apart goes with it.
			if before := bytes.LastIndexByte(w.data[:max(start-1, 0)], '\n') + 1; start > 0 && isSpace(w.data[before:start]) {
				piece[0] = before
			}
			r.pieces = append(r.pieces, piece)
		}
	}
}

// tableRegion is the region of an entry written as a table or dotted keys:
// from the line of its first member or piece to the next table header after
// its last, or the end of the file.
func (w *tomlWalk) tableRegion(r *rawEntry) [2]int {
	lo, hi := len(w.data), 0
	for _, m := range r.members {
		lo, hi = min(lo, m.del[0]), max(hi, m.del[1])
	}
	for _, p := range r.pieces {
		lo, hi = min(lo, p[0]), max(hi, p[1])
	}
	if hi == 0 {
		return [2]int{}
	}
	i, _ := slices.BinarySearch(w.headers, hi)
	if i < len(w.headers) {
		return [2]int{lo, w.headers[i]}
	}
	return [2]int{lo, len(w.data)}
}

func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// seen notes the entry a table header or key path belongs to, if any, so
// that entries keep file order.
func (w *tomlWalk) seen(path []string) *rawEntry {
	if len(path) <= len(w.servers) || !slices.Equal(path[:len(w.servers)], w.servers) {
		return nil
	}
	key := path[len(w.servers)]
	r := w.byKey[key]
	if r == nil {
		r = &rawEntry{Entry: Entry{Key: key}, toml: true}
		w.byKey[key] = r
		w.order = append(w.order, key)
	}
	return r
}

// keyValue handles `key = value` under the table (or inline table) at
// prefix.
func (w *tomlWalk) keyValue(n *unstable.Node, prefix []string, inline bool) {
	var last *unstable.Node
	var parts []string
	for it := n.Key(); it.Next(); {
		last = it.Node()
		parts = append(parts, string(last.Data))
	}
	path := slices.Concat(prefix, parts)
	v := n.Value()
	kvStart := int(n.Raw.Offset)
	kvEnd := int(n.Raw.Offset + n.Raw.Length)
	keyEnd := int(last.Raw.Offset + last.Raw.Length)
	valStart := keyEnd
	for valStart < kvEnd && w.data[valStart] != '=' {
		valStart++
	}
	valStart++
	for valStart < kvEnd && (w.data[valStart] == ' ' || w.data[valStart] == '\t') {
		valStart++
	}
	r := w.seen(path)
	depth := len(path) - len(w.servers) // 1: the entry, 2: its member, 3: inside that
	if r != nil && depth == 2 {
		m := entryMember{key: path[len(path)-1], start: kvStart, keyEnd: keyEnd, end: kvEnd, val: token{start: valStart, end: kvEnd}}
		if v.Kind == unstable.String {
			m.val.value = string(v.Data)
		}
		if inline {
			m.del = [2]int{kvStart, kvEnd}
			if k := len(r.members); k > 0 {
				m.del[0] = r.members[k-1].end
			}
		} else {
			m.prefix = string(w.data[kvStart:last.Raw.Offset])
			m.del = lineSpan(w.data, kvStart, kvEnd)
		}
		r.members = append(r.members, m)
	}
	if v.Kind == unstable.InlineTable {
		if r != nil && depth == 1 {
			r.inline, r.region = true, [2]int{valStart, kvEnd}
		}
		for it := v.Children(); it.Next(); {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				w.keyValue(c, path, true)
			}
		}
		return
	}
	if r != nil && depth == 1 {
		r.State, r.Note = StateUnsupported, "it is not a table"
	}
	if r == nil {
		return
	}
	if depth == 3 {
		w.inside(r, path, v, w.data[valStart:kvEnd], !inline, lineSpan(w.data, kvStart, kvEnd))
		return
	}
	if depth != 2 {
		return
	}
	switch path[len(path)-1] {
	case "command":
		if v.Kind != unstable.String {
			r.State, r.Note = StateUnsupported, "its command is not a string"
			return
		}
		r.Command = string(v.Data)
		r.cmd = &token{valStart, kvEnd, r.Command}
		r.sep = string(w.data[keyEnd:valStart])
		r.argsKey = string(w.data[kvStart:last.Raw.Offset]) + "args"
		if inline {
			r.addAt, r.addPre = kvEnd, ", "
			return
		}
		// A table's own line: after the command's line, before any
		// comment on it moves.
		nl := "\n"
		r.addAt = len(w.data)
		if i := bytes.IndexByte(w.data[kvEnd:], '\n'); i >= 0 {
			r.addAt = kvEnd + i
			if r.addAt > 0 && w.data[r.addAt-1] == '\r' {
				r.addAt--
				nl = "\r\n"
			}
		}
		r.addPre = nl + lineIndent(w.data, kvStart)
	case "args":
		if v.Kind != unstable.Array {
			r.State, r.Note = StateUnsupported, "its args is not a list"
			return
		}
		r.argsStart = kvStart
		r.args = &array{open: valStart, close: kvEnd - 1}
		r.Args = nil
		for it := v.Children(); it.Next(); {
			el := it.Node()
			if el.Kind != unstable.String {
				r.State, r.Note = StateUnsupported, "its args are not all strings"
				return
			}
			s := string(el.Data)
			start := int(el.Raw.Offset)
			r.args.elems = append(r.args.elems, token{start, start + int(el.Raw.Length), s})
			r.Args = append(r.Args, s)
		}
	case "url":
		if v.Kind == unstable.String {
			r.URL = string(v.Data)
			r.remoteOf().url = r.URL
		}
	case "bearer_token_env_var":
		if v.Kind != unstable.String {
			r.remoteNote = "its bearer_token_env_var is not a string"
			return
		}
		rm := r.remoteOf()
		rm.headers = append(rm.headers, header{name: "Authorization", envVar: string(v.Data), bearer: true})
	}
}

func (r *rawEntry) remoteOf() *remote {
	if r.remote == nil {
		r.remote = &remote{}
	}
	return r.remote
}

// inside handles a key two levels into an entry (path ends in TABLE.NAME):
// a header of http_headers or env_http_headers, or a variable of env.
// piece says whether its line is its own (a sub-table's key, or dotted
// http_headers.NAME), to be cut with the remote form.
func (w *tomlWalk) inside(r *rawEntry, path []string, v *unstable.Node, tok []byte, piece bool, line [2]int) {
	table, name := path[len(path)-2], path[len(path)-1]
	switch table {
	case "http_headers", "env_http_headers":
		if piece {
			r.pieces = append(r.pieces, line)
		}
		if v.Kind != unstable.String {
			r.remoteNote = "its " + table + " are not all strings"
			return
		}
		rm := r.remoteOf()
		if table == "http_headers" {
			rm.headers = append(rm.headers, header{name: name, value: string(v.Data), tok: string(tok)})
		} else {
			rm.headers = append(rm.headers, header{name: name, envVar: string(v.Data)})
		}
	case "env":
		if r.env == nil {
			r.env = map[string]envVal{}
		}
		if _, dup := r.env[name]; !dup {
			r.envOrder = append(r.envOrder, name)
		}
		ev := envVal{raw: string(tok)}
		if v.Kind == unstable.String {
			ev.value = string(v.Data)
		}
		r.env[name] = ev
	}
}
