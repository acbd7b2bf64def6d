package bridge

import (
	"bytes"
	"encoding/json"
)

// The relay edits a few members of messages it otherwise passes on byte for
// byte: the id of a reply, the capabilities in a request's _meta, a retry's
// inputResponses and requestState. These helpers splice one member of a JSON
// object and leave every other byte as it was, so a host's arguments reach
// the server exactly as written (DESIGN.md: byte for byte) and a 16 MiB
// result costs a scan, not a decode and re-encode.

// member is one member of a JSON object, as offsets into the object.
type member struct {
	key          string
	start        int // the opening quote of the key
	vStart, vEnd int // the value
}

// members lists the top-level members of the JSON object obj, in order. It
// fails when obj is not an object.
func members(obj []byte) ([]member, error) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, errNotObject
	}
	var ms []member
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return ms, nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return nil, errNotObject
		}
		kEnd, err := skipString(obj, i)
		if err != nil {
			return nil, err
		}
		var key string
		if json.Unmarshal(obj[i:kEnd], &key) != nil {
			return nil, errNotObject
		}
		j := skipSpace(obj, kEnd)
		if j >= len(obj) || obj[j] != ':' {
			return nil, errNotObject
		}
		vStart := skipSpace(obj, j+1)
		vEnd, err := skipValue(obj, vStart)
		if err != nil || vEnd == vStart {
			return nil, errNotObject
		}
		ms = append(ms, member{key: key, start: i, vStart: vStart, vEnd: vEnd})
		i = skipSpace(obj, vEnd)
		if i >= len(obj) {
			return nil, errNotObject
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return ms, nil
		default:
			return nil, errNotObject
		}
	}
}

// getMember returns the raw value of key in obj, if obj is an object that
// has it.
func getMember(obj []byte, key string) (json.RawMessage, bool) {
	// Keys spelt without escapes, nearly all, are compared as they are,
	// without decoding or allocating; an object whose keys need decoding
	// takes members.
	if m, ok, _ := object(obj, true); ok {
		for {
			k, ok := m.key()
			if !ok {
				break
			}
			v, ok := m.value()
			if !ok {
				break
			}
			if string(k) == key {
				return v, true
			}
		}
		if m.end {
			return nil, false
		}
	}
	ms, err := members(obj)
	if err != nil {
		return nil, false
	}
	for _, m := range ms {
		if m.key == key {
			return json.RawMessage(obj[m.vStart:m.vEnd]), true
		}
	}
	return nil, false
}

// setMember returns a copy of obj with key's value replaced by value, or
// with "key":value added at the end when obj lacks it. Nothing else changes.
func setMember(obj []byte, key string, value []byte) ([]byte, error) {
	ms, err := members(obj)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if m.key == key {
			return concat(obj[:m.vStart], value, obj[m.vEnd:]), nil
		}
	}
	end := bytes.LastIndexByte(obj, '}')
	k, _ := json.Marshal(key)
	sep := []byte(",")
	if len(ms) == 0 {
		sep = nil
	}
	return concat(obj[:end], sep, k, []byte(":"), value, obj[end:]), nil
}

// deleteMember returns a copy of obj without key, or obj itself when it has
// no such member.
func deleteMember(obj []byte, key string) ([]byte, error) {
	ms, err := members(obj)
	if err != nil {
		return nil, err
	}
	for n, m := range ms {
		if m.key != key {
			continue
		}
		switch {
		case n+1 < len(ms): // up to the next member, taking the comma
			return concat(obj[:m.start], obj[ms[n+1].start:]), nil
		case n > 0: // the last of several: from the previous value's end
			return concat(obj[:ms[n-1].vEnd], obj[m.vEnd+bytes.IndexByte(obj[m.vEnd:], '}'):]), nil
		default:
			return concat(obj[:m.start], obj[m.vEnd+bytes.IndexByte(obj[m.vEnd:], '}'):]), nil
		}
	}
	return obj, nil
}

// editMember replaces the object at key in obj (an empty object when
// absent or not an object) with what edit returns, and reports whether
// edit changed anything.
func editMember(obj []byte, key string, edit func(child []byte) ([]byte, bool, error)) ([]byte, bool, error) {
	child, ok := getMember(obj, key)
	if !ok || len(child) == 0 || child[0] != '{' {
		child = []byte("{}")
	}
	out, changed, err := edit(child)
	if err != nil || !changed {
		return obj, false, err
	}
	obj, err = setMember(obj, key, out)
	return obj, err == nil, err
}

func concat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// mergeElicitationRaw adds form and URL mode to the capabilities object
// caps, keeping whatever the host declared (PROTOCOL.md §3: merge, never
// overwrite). A present elicitation value that is not an object declared
// nothing usable and is replaced.
func mergeElicitationRaw(caps []byte) ([]byte, bool, error) {
	return editMember(caps, "elicitation", func(el []byte) ([]byte, bool, error) {
		added := false
		for _, mode := range []string{"form", "url"} {
			if _, ok := getMember(el, mode); ok {
				continue
			}
			var err error
			if el, err = setMember(el, mode, []byte("{}")); err != nil {
				return nil, false, err
			}
			added = true
		}
		return el, added, nil
	})
}

// sameJSON reports whether a and b are the same JSON text up to
// insignificant whitespace and string escapes: how the relay recognises a
// requestState a host echoed back (PROTOCOL.md §1: echoed byte for byte,
// but a host's encoder may respell it).
func sameJSON(a, b []byte) bool {
	return canonicalJSON(a) == canonicalJSON(b)
}

// canonicalJSON is one spelling of the JSON value raw: strings unescaped,
// object members sorted, numbers as written, no insignificant space.
func canonicalJSON(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "s" + s
	}
	if c, ok := CanonicalJSON(raw); ok {
		return "c" + string(c)
	}
	return "r" + string(raw)
}

// CanonicalJSON is the JSON value raw spelt one way: object members
// sorted, numbers as written, strings escaped only where JSON must, no
// insignificant space; ok is false when raw is not one JSON value.
func CanonicalJSON(raw []byte) (c []byte, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil, false
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true
}

// stringMember returns the string value of key in obj, or "" when obj has
// no such string.
func stringMember(obj []byte, key string) string {
	raw, ok := getMember(obj, key)
	if !ok {
		return ""
	}
	if s, ok := plainString(raw); ok {
		return string(s)
	}
	var v string
	_ = json.Unmarshal(raw, &v)
	return v
}
