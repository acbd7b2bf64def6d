package elicit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// JSON Schema keywords (2020-12, 2019-09 and draft-07) that can refuse a
// value, grouped by the type of value they apply to. A keyword applies only
// to values of its type: "minimum" on a string field never refuses
// anything, so Parse lets it be. Keywords in none of these lists are
// annotations (title, default, examples…) or unknown, and never refuse.
var (
	// anyTypeKeywords apply to every value.
	anyTypeKeywords = []string{
		"type", "enum", "const", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
		"$ref", "$dynamicRef", "$recursiveRef",
	}
	stringKeywords = []string{"minLength", "maxLength", "pattern", "format"}
	numberKeywords = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
	arrayKeywords  = []string{
		"items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains",
		"minItems", "maxItems", "uniqueItems", "unevaluatedItems",
	}
	objectKeywords = []string{
		"properties", "patternProperties", "additionalProperties", "unevaluatedProperties",
		"propertyNames", "required", "dependentRequired", "dependentSchemas", "dependencies",
		"minProperties", "maxProperties",
	}
)

// assertions is every keyword above: those whose value matters to the
// validator, so that two different values of one cannot both be honoured
// by keeping one.
var assertions = func() map[string]bool {
	m := make(map[string]bool)
	for _, l := range [][]string{anyTypeKeywords, stringKeywords, numberKeywords, arrayKeywords, objectKeywords} {
		for _, k := range l {
			m[k] = true
		}
	}
	return m
}()

// rootRefused are the keywords at the top of a requestedSchema that bind
// fields together (or replace the form with another schema). A form checks
// each field on its own and could not tell the user what to change, so an
// answer the user cannot see a fault in would be refused.
// additionalProperties and unevaluatedProperties are fine: content only
// ever holds the form's own properties. minProperties and maxProperties
// are modelled by Form.
var rootRefused = []string{
	"allOf", "anyOf", "oneOf", "not", "if", "then", "else",
	"dependentRequired", "dependentSchemas", "dependencies",
	"patternProperties", "propertyNames", "enum", "const",
	"$ref", "$dynamicRef", "$recursiveRef",
}

// checkRoot refuses the root keywords of rootRefused.
func checkRoot(root schemaObject) error {
	for _, k := range rootRefused {
		if _, ok := root[k]; ok {
			return &SchemaError{Reason: fmt.Sprintf("%q at the top level is not supported; an elicitation form is a flat object of fields, each checked on its own", k)}
		}
	}
	return nil
}

// The keywords each kind of field models, among those that apply to its
// value. Any other keyword that applies is refused: the final check would
// enforce what the form cannot show, and the user could not submit.
var (
	stringModels  = append([]string{"type"}, stringKeywords...)
	numberModels  = append([]string{"type"}, numberKeywords...)
	booleanModels = []string{"type"}
	// A select's string rules are checked against its choices by Parse.
	selectModels = append([]string{"type", "enum", "oneOf", "anyOf", "const"}, stringKeywords...)
	multiModels  = []string{"type", "items", "minItems", "maxItems", "uniqueItems"}
	// A choice {"const", "title"} of oneOf or anyOf.
	choiceModels = []string{"type", "const"}
)

// checkKeywords refuses the first keyword of obj that applies to values of
// kind but is not in models. what names the values in the message, e.g.
// "string fields".
func checkKeywords(obj schemaObject, kind Kind, models []string, what string) error {
	applies := slices.Clone(anyTypeKeywords)
	switch kind {
	case KindString, KindSelect:
		applies = append(applies, stringKeywords...)
	case KindNumber, KindInteger:
		applies = append(applies, numberKeywords...)
	case KindMultiSelect:
		applies = append(applies, arrayKeywords...)
	}
	for _, k := range applies {
		// Present at all, even as null: "const": null accepts only null.
		if _, ok := obj[k]; ok && !slices.Contains(models, k) {
			return fmt.Errorf("%q is not supported on %s; elicitray could not check it", k, what)
		}
	}
	return nil
}

// mergeChecked returns base overlaid with over, as merge does, but refuses
// a keyword both set to different values: the validator applies both (a
// $ref and its siblings, allOf) while the form can show only one.
func mergeChecked(base, over schemaObject) (schemaObject, error) {
	keys := make([]string, 0, len(over))
	for k := range over {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b, ok := base[k]
		if !ok || !assertions[k] || sameJSON(b, over[k]) {
			continue
		}
		if k == "type" {
			bt, err1 := schemaObject{"type": b}.typeName()
			ot, err2 := over.typeName()
			if err1 == nil && err2 == nil && bt == ot {
				continue
			}
		}
		return nil, fmt.Errorf("%q is set twice, by a referenced schema and beside it, to different values; elicitray could not check both", k)
	}
	return merge(base, over), nil
}

// sameJSON reports whether a and b are the same JSON text, spacing aside.
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
