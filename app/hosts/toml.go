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

// tomlWalk collects the entries of one file as the parser goes: the parser
// reuses its nodes from one top-level expression to the next, so positions
// are copied out at once.
type tomlWalk struct {
	data    []byte
	servers []string
	byKey   map[string]*rawEntry
	order   []string
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
			w.seen(table)
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
		out = append(out, *w.byKey[k])
	}
	return out, nil
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
		r = &rawEntry{Entry: Entry{Key: key}}
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
	if v.Kind == unstable.InlineTable {
		w.seen(path)
		for it := v.Children(); it.Next(); {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				w.keyValue(c, path, true)
			}
		}
		return
	}
	r := w.seen(path)
	if r != nil && len(path) == len(w.servers)+1 {
		r.State, r.Note = StateUnsupported, "it is not a table"
	}
	if r == nil || len(path) != len(w.servers)+2 {
		return
	}
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
		}
	}
}
