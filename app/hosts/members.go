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
	// multi: arrays and objects one element a line, as JSON.stringify(v,
	// null, 2) writes them (Claude Code rewrites its files so: written so,
	// they stay as they are); indent is the member's indent, unit one level.
	multi        bool
	nl           string
	indent, unit string
}

// styleFor is the style of new members replacing the first of the entry's
// members named in keys.
func (r *rawEntry) styleFor(data []byte, keys []string) memberStyle {
	st := memberStyle{toml: r.toml, kv: ": ", sep: ", "}
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
	st.nl = "\n"
	if strings.HasPrefix(ind, "\r\n") {
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
	if !r.toml && r.host == "claude-code" && strings.Contains(ind, "\n") {
		st.multi = true
		st.indent = strings.TrimPrefix(ind, st.nl)
		outer := lineIndent(data, r.region[1]-1)
		st.unit = "  "
		if u, ok := strings.CutPrefix(st.indent, outer); ok && u != "" {
			st.unit = u
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
	return st.nest("[", "]", q)
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
	if st.toml {
		return "{ " + strings.Join(q, ", ") + " }"
	}
	return st.nest("{", "}", q)
}

func (st memberStyle) nest(open, close string, elems []string) string {
	if !st.multi || len(elems) == 0 {
		return open + strings.Join(elems, ", ") + close
	}
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
