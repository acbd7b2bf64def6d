package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
)

// errNotObject is returned by scanEnvelope for a line that is not a JSON
// object; the relay forwards such lines untouched and lets the peer answer.
var errNotObject = errors.New("not a JSON object")

// scanEnvelope finds the top-level members of a JSON-RPC message that the
// relay routes on, as slices of line, without decoding or copying the rest.
//
// Every message passes through here (PROTOCOL.md §7: lines can be many
// megabytes), and encoding/json would scan a 16 MiB tool result twice and
// copy it to learn only its id. This scanner skips strings with
// bytes.IndexByte and stops at the first byte it does not expect. It does
// not validate the JSON: a message it accepts is decoded properly with
// encoding/json before the relay acts on it, and one it rejects is relayed
// as it came.
func scanEnvelope(line []byte) (envelope, error) {
	var env envelope
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return env, errNotObject
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return env, nil
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return env, errNotObject
		}
		kEnd, err := skipString(line, i)
		if err != nil {
			return env, err
		}
		key := line[i+1 : kEnd-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			if json.Unmarshal(line[i:kEnd], &k) != nil {
				return env, errNotObject
			}
			key = []byte(k)
		}
		i = skipSpace(line, kEnd)
		if i >= len(line) || line[i] != ':' {
			return env, errNotObject
		}
		i = skipSpace(line, i+1)
		vEnd, err := skipValue(line, i)
		if err != nil {
			return env, err
		}
		value := line[i:vEnd]
		switch string(key) {
		case "id":
			env.ID = value
		case "method":
			env.Methods++
			if m, ok := plainString(value); ok {
				env.Method = string(m)
				break
			}
			var m string
			if json.Unmarshal(value, &m) != nil {
				return env, errNotObject
			}
			env.Method = m
		case "params":
			env.Params = value
		case "result":
			env.Result = value
		case "error":
			env.Error = value
		default:
			if len(key) == len("method") && bytes.EqualFold(key, []byte("method")) {
				env.FoldedMethod = true
			}
		}
		i = skipSpace(line, vEnd)
		if i >= len(line) {
			return env, errNotObject
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			// One message per line (PROTOCOL.md §7): anything after the
			// object makes the line no message at all.
			if skipSpace(line, i+1) != len(line) {
				return env, errNotObject
			}
			return env, nil
		default:
			return env, errNotObject
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at b[i]
// (a '"'). A quote is escaped when an odd number of backslashes precede it.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errNotObject
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errNotObject
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errNotObject
	}
	// A number, true, false or null: up to the next delimiter.
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j, nil
		}
		j++
	}
	return j, nil
}
