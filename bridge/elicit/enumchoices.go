package elicit

import (
	"bytes"
	"strings"
)

// asEnums rewrites, in doc (a requestedSchema decoded by
// jsonschema.UnmarshalJSON), every titled choice list into the "enum" of
// its values, for the final check's compiler: "oneOf" or "anyOf" of
// {"const", "title"} objects becomes "enum" of the consts. The validator
// compiles each choice as a schema of its own, and its compiler keeps
// them in a list it searches for each one: 10,000 titled choices took
// 0.7 s to compile, 20,000 three times that, in the wrapper and again in
// the hub and the history window, where an enum of 10,000 takes 10 ms
// (issue 10).
//
// The two accept exactly the same values. A choice is rewritten only when
// nothing in it can refuse a value but its const, a string: its other
// keywords are a "type" of "string" and annotations (title, description…;
// no keyword of assertions, none starting with "$"). Distinct consts make
// "oneOf" match exactly when one of them is equal, as "enum" does; a oneOf
// naming a value twice, which refuses it, is left alone (Parse refuses it
// anyway). Only schema positions are walked (properties, items, $defs,
// definitions, allOf), never a const, enum or default, which are values.
// A document holding a reference is left whole: a "$ref" may point into a
// choice list.
func asEnums(raw []byte, doc any) {
	for _, ref := range []string{`"$ref"`, `"$dynamicRef"`, `"$recursiveRef"`} {
		if bytes.Contains(raw, []byte(ref)) {
			return
		}
	}
	enumsIn(doc)
}

// enumsIn rewrites the schema s and the schemas under it.
func enumsIn(s any) {
	obj, ok := s.(map[string]any)
	if !ok {
		return
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		_, hasEnum := obj["enum"]
		_, hasConst := obj["const"]
		if hasEnum || hasConst {
			break
		}
		if values, ok := plainChoices(obj[kw], kw == "oneOf"); ok {
			delete(obj, kw)
			obj["enum"] = values
		}
	}
	for _, kw := range []string{"properties", "$defs", "definitions"} {
		if m, ok := obj[kw].(map[string]any); ok {
			for _, sub := range m {
				enumsIn(sub)
			}
		}
	}
	enumsIn(obj["items"])
	if list, ok := obj["allOf"].([]any); ok {
		for _, sub := range list {
			enumsIn(sub)
		}
	}
}

// plainChoices returns the consts of list, a oneOf or anyOf, when every
// element is a plain choice (see asEnums), each const once; distinct
// requires every const to be listed once.
func plainChoices(v any, distinct bool) ([]any, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	values := make([]any, 0, len(list))
	seen := make(map[string]bool, len(list))
	for _, el := range list {
		choice, ok := el.(map[string]any)
		if !ok {
			return nil, false
		}
		value, ok := choice["const"].(string)
		if !ok {
			return nil, false
		}
		for k, kv := range choice {
			switch {
			case k == "const":
			case k == "type":
				if kv != "string" {
					return nil, false
				}
			case assertions[k] || strings.HasPrefix(k, "$"):
				return nil, false
			}
		}
		if seen[value] {
			if distinct {
				return nil, false
			}
			continue
		}
		seen[value] = true
		values = append(values, value)
	}
	return values, true
}
