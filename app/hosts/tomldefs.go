package hosts

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlDefs keeps which keys and tables a TOML file has defined so far, to
// refuse what TOML forbids and go-toml's unstable parser does not check: a
// key or a table defined twice, a [table] header over a table made by
// dotted keys or over a value, dotted keys into a [table] defined
// elsewhere. Codex (Rust's toml crate) and Python's tomllib refuse such a
// file, so elicitray does not edit it. (go-toml's decoder checks the same,
// but in time quadratic in the number of tables: 16k servers took seconds.)
// Each node holds its children in a map: linear in the file.
type tomlDefs struct {
	root    tomlNode
	current *tomlNode // the table the last header opened, nil for the top
	path    []string  // its key path
}

// tomlKind is how a key came to be defined, which decides what may extend
// it later (TOML 1.0, "Table" and "Array of Tables").
type tomlKind uint8

const (
	// tomlImplicit: a table named only on the way to another by a header
	// ([a.b] makes a); a header of its own may define it later.
	tomlImplicit tomlKind = iota
	// tomlDotted: a table made by dotted keys (a.b = 1 makes a); more
	// dotted keys and headers of sub-tables may extend it, not its own
	// header.
	tomlDotted
	tomlHeader // [a]
	tomlArray  // [[a]]: a header walks into its last element
	tomlValue  // a value, an inline table included: never extended
)

type tomlNode struct {
	kind     tomlKind
	children map[string]*tomlNode
	last     *tomlNode // of a tomlArray: its last element
}

func (n *tomlNode) child(key string) *tomlNode {
	return n.children[key]
}

func (n *tomlNode) add(key string, kind tomlKind) *tomlNode {
	if n.children == nil {
		n.children = map[string]*tomlNode{}
	}
	c := &tomlNode{kind: kind}
	n.children[key] = c
	return c
}

// header records a [table] or [[array table]] header.
func (d *tomlDefs) header(n *unstable.Node, data []byte) error {
	parts, nodes := keyNodes(n.Key())
	if len(parts) == 0 {
		return nil
	}
	t := &d.root
	for i, k := range parts[:len(parts)-1] {
		c := t.child(k)
		switch {
		case c == nil:
			c = t.add(k, tomlImplicit)
		case c.kind == tomlArray:
			c = c.last
		case c.kind == tomlValue:
			return tomlDefError(data, nodes[i], "%s is a value, not a table, so [%s] cannot be under it", dotted(parts[:i+1]), dotted(parts))
		}
		t = c
	}
	k, at := parts[len(parts)-1], nodes[len(parts)-1]
	c := t.child(k)
	if n.Kind == unstable.ArrayTable {
		switch {
		case c == nil:
			c = t.add(k, tomlArray)
		case c.kind != tomlArray:
			return tomlDefError(data, at, "[[%s]] names %s, which is already defined as %s", dotted(parts), dotted(parts), c.kind)
		}
		c.last = &tomlNode{kind: tomlHeader}
		d.current, d.path = c.last, parts
		return nil
	}
	switch {
	case c == nil:
		c = t.add(k, tomlHeader)
	case c.kind == tomlImplicit:
		c.kind = tomlHeader
	default:
		return tomlDefError(data, at, "[%s] defines %s, which is already defined as %s", dotted(parts), dotted(parts), c.kind)
	}
	d.current, d.path = c, parts
	return nil
}

// keyValue records `key = value` in the table the last header opened.
func (d *tomlDefs) keyValue(n *unstable.Node, data []byte) error {
	t := d.current
	if t == nil {
		t = &d.root
	}
	return d.define(t, n, data, d.path)
}

// define records the key-value n in table t, and the keys of an inline
// table it holds; prefix is t's path, for messages.
func (d *tomlDefs) define(t *tomlNode, n *unstable.Node, data []byte, prefix []string) error {
	parts, nodes := keyNodes(n.Key())
	path := append(prefix[:len(prefix):len(prefix)], parts...)
	for i, k := range parts[:len(parts)-1] {
		c := t.child(k)
		switch {
		case c == nil:
			c = t.add(k, tomlDotted)
		case c.kind != tomlDotted && c.kind != tomlImplicit:
			return tomlDefError(data, nodes[i], "%s is already defined as %s, so dotted keys cannot add %s to it", dotted(path[:len(prefix)+i+1]), c.kind, dotted(path))
		}
		t = c
	}
	k := parts[len(parts)-1]
	if c := t.child(k); c != nil {
		return tomlDefError(data, nodes[len(parts)-1], "%s is defined twice", dotted(path))
	}
	c := t.add(k, tomlValue)
	if v := n.Value(); v.Kind == unstable.InlineTable {
		for it := v.Children(); it.Next(); {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				if err := d.define(c, kv, data, path); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (k tomlKind) String() string {
	switch k {
	case tomlDotted:
		return "a table by dotted keys"
	case tomlHeader:
		return "a [table]"
	case tomlArray:
		return "an [[array of tables]]"
	case tomlValue:
		return "a value"
	}
	return "a table"
}

func keyNodes(it unstable.Iterator) (parts []string, nodes []*unstable.Node) {
	for it.Next() {
		n := it.Node()
		parts = append(parts, string(n.Data))
		nodes = append(nodes, n)
	}
	return parts, nodes
}

// dotted writes a key path as TOML does: bare parts as they are, others
// quoted.
func dotted(parts []string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p
		if p == "" || strings.ContainsFunc(p, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
		}) {
			out[i] = strconv.Quote(p)
		}
	}
	return strings.Join(out, ".")
}

func tomlDefError(data []byte, at *unstable.Node, format string, args ...any) error {
	se := &syntaxError{msg: "not valid TOML: " + fmt.Sprintf(format, args...) + " (Codex refuses a file that defines a key or a table twice)"}
	se.line, se.col = lineCol(data, int(at.Raw.Offset))
	return se
}
