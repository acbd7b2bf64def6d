package hosts

import (
	"bytes"
	"slices"
	"strings"
)

// An entry's members, as the parsers find them, and new members written in
// the style of the ones around them: what remote entries are wrapped and
// unwrapped with (remote.go).

// entryMember is one member of an entry: `"key": value` (JSON) or `key = value`
// (TOML), with offsets into the file.
type entryMember struct {
	key        string
	start, end int    // the whole member
	keyEnd     int    // the end of its key
	val        token  // its value; val.value is the string for a string
	prefix     string // TOML dotted keys: what comes before key (`mcp_servers.x.`)
	// del is what to cut to take the member out: from the end of the
	// member before it (its separator with it) in JSON and inline TOML,
	// its whole line in a TOML table.
	del [2]int
}

// envVal is one variable of an entry's env map: its value token as written
// and the string it holds.
type envVal struct{ raw, value string }

// memberStyle is how new members are written: copied from the member they
// replace.
type memberStyle struct {
	sep    string // between members: ",\n    ", ", ", "\n"
	kv     string // between key and value: ": ", " = "
	prefix string // TOML dotted keys: the key path before each key
	toml   bool
	nl     string
	// indent is the members' indent, unit one level more ("" when the
	// entry is on one line).
	indent, unit string
	// arrays: arrays one element a line, as JSON.stringify(v, null, 2)
	// writes them (Claude Code rewrites its files so: written so, they stay
	// as they are); objects the same, and pad the space inside the braces
	// of a one-line object: as the object Wrap or Unwrap moves from
	// (headers to env, env to headers) had them.
	arrays, objects bool
	pad             string
}

// styleFor is the style of new members replacing the first of the entry's
// members named in keys; model is the member whose object the new one
// takes the place of (headers when wrapping, env when unwrapping).
func (r *rawEntry) styleFor(data []byte, keys []string, model string) memberStyle {
	st := memberStyle{toml: r.toml, kv: ": ", sep: ", ", nl: "\n"}
	if r.toml {
		st.kv = " = "
	}
	i := slices.IndexFunc(r.members, func(m entryMember) bool { return slices.Contains(keys, m.key) })
	if i < 0 {
		return st
	}
	m := r.members[i]
	colon := []byte(":")
	if r.toml {
		colon = []byte("=")
	}
	if between := data[m.keyEnd:m.val.start]; isSpace(bytes.Replace(between, colon, nil, 1)) {
		st.kv = string(between)
	}
	st.prefix = m.prefix
	ind := memberIndent(data, m.start) // "\n    " or " "
	if i := bytes.IndexByte(data[m.end:], '\n'); i > 0 && data[m.end+i-1] == '\r' {
		st.nl = "\r\n"
	}
	switch {
	case r.toml && r.inline:
		st.sep = ", "
	case r.toml:
		st.sep = st.nl + lineIndent(data, m.start)
	default:
		st.sep = "," + ind
	}
	if r.toml {
		return st // inline tables are one line
	}
	if strings.Contains(ind, "\n") {
		st.indent = strings.TrimPrefix(ind, st.nl)
		outer := lineIndent(data, r.region[1]-1)
		st.unit = "  "
		if u, ok := strings.CutPrefix(st.indent, outer); ok && u != "" {
			st.unit = u
		}
		st.arrays = r.host == "claude-code"
		st.objects = st.arrays
	}
	if j := slices.IndexFunc(r.members, func(m entryMember) bool { return m.key == model }); j >= 0 {
		v := data[r.members[j].val.start:r.members[j].val.end]
		st.objects = st.indent != "" && bytes.Contains(v, []byte("\n"))
		if !st.objects && len(v) > 2 && v[0] == '{' && v[1] == ' ' {
			st.pad = " "
		}
	}
	return st
}

// strArray writes ss as an array of strings.
func (st memberStyle) strArray(syn syntax, ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = syn.quote(s)
	}
	if !st.arrays {
		return "[" + strings.Join(q, ", ") + "]"
	}
	return st.lines("[", "]", q)
}

// strMap writes the entries as an object (a TOML inline table), their
// values as they are.
func (st memberStyle) strMap(syn syntax, es []newEntry) string {
	kv := ": "
	if st.toml {
		kv = " = "
	}
	q := make([]string, len(es))
	for i, e := range es {
		q[i] = syn.keyText(e.name) + kv + e.text
	}
	switch {
	case st.toml:
		return "{ " + strings.Join(q, ", ") + " }"
	case st.objects:
		return st.lines("{", "}", q)
	}
	return "{" + st.pad + strings.Join(q, ", ") + st.pad + "}"
}

// lines writes elems one a line, one level in.
func (st memberStyle) lines(open, close string, elems []string) string {
	in := st.nl + st.indent + st.unit
	return open + in + strings.Join(elems, ","+in) + st.nl + st.indent + close
}

// lineSpan returns the bytes of the line(s) from the one holding start to
// the one holding end, with the line break after them.
func lineSpan(data []byte, start, end int) [2]int {
	lo := start - len(lineIndent(data, start))
	if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
		return [2]int{lo, end + i + 1}
	}
	return [2]int{lo, len(data)}
}
