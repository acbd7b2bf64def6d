package elicit_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// unsupportedSchemas are schemas no form can show. The wrapper answers them
// with -32602 and this message (PROTOCOL.md §4), so the message must name
// the property and say what is wrong.
var unsupportedSchemas = []struct {
	name     string
	schema   string
	property string // "" for the schema as a whole
	reason   string // a fragment of the message
}{
	{"nested object", `{"type":"object","properties":{"a":{"type":"string"},"address":{"type":"object","properties":{"city":{"type":"string"}}}}}`, "address", "nested objects are not supported"},
	{"nested object without type", `{"type":"object","properties":{"address":{"properties":{"city":{"type":"string"}}}}}`, "address", "nested objects are not supported"},
	{"list of objects", `{"type":"object","properties":{"people":{"type":"array","items":{"type":"object","properties":{"n":{"type":"string"}}}}}}`, "people", "lists of objects are not supported"},
	{"list of free text", `{"type":"object","properties":{"notes":{"type":"array","items":{"type":"string"}}}}`, "notes", "lists of free text are not supported"},
	{"list of numbers", `{"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"}}}}`, "ids", "lists of integer values are not supported"},
	{"list without items", `{"type":"object","properties":{"ids":{"type":"array"}}}`, "ids", `lists need "items"`},
	{"no type", `{"type":"object","properties":{"x":{"description":"what?"}}}`, "x", `has no "type"`},
	{"unknown type", `{"type":"object","properties":{"x":{"type":"null"}}}`, "x", `type "null" is not supported`},
	{"two types", `{"type":"object","properties":{"x":{"type":["string","number"]}}}`, "x", `"type" lists 2 types`},
	{"schema is not an object", `{"type":"object","properties":{"x":true}}`, "x", "must be a JSON object"},
	{"root is a list", `[{"type":"string"}]`, "", "must be a JSON object"},
	{"root is null", `null`, "", "must be a JSON object"},
	{"missing", ``, "", "is missing: a form elicitation needs a requestedSchema"},
	{"root is not type object", `{"type":"string"}`, "", `must have "type": "object"`},
	{"not JSON", `{"type":"object",`, "", "is not valid JSON"},
	{"properties is a list", `{"type":"object","properties":[]}`, "", `"properties" must be an object`},
	{"required is not a list", `{"type":"object","properties":{},"required":"x"}`, "", `"required" must be a list`},
	{"draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{}}`, "", `$schema "http://json-schema.org/draft-04/schema#" is not supported; use JSON Schema 2020-12`},
	{"remote $ref", `{"type":"object","properties":{"s":{"$ref":"https://example.com/s.json#/Status"}}}`, "s", "only references inside the schema"},
	{"file $ref", `{"type":"object","properties":{"s":{"$ref":"file:///etc/passwd"}}}`, "s", "only references inside the schema"},
	{"anchor $ref", `{"type":"object","properties":{"s":{"$ref":"#status"}},"$defs":{"S":{"$anchor":"status","type":"string"}}}`, "s", "only references inside the schema"},
	{"missing $ref", `{"type":"object","properties":{"s":{"$ref":"#/$defs/Missing"}},"$defs":{}}`, "s", `$ref "#/$defs/Missing" does not point to anything`},
	{"$ref cycle", `{"type":"object","properties":{"s":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}}`, "s", "refers back to itself"},
	{"$ref to itself", `{"type":"object","properties":{"s":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/A"}}}`, "s", "refers back to itself"},
	{"$ref to the root", `{"type":"object","properties":{"s":{"$ref":"#"}}}`, "s", "nested objects are not supported"},
	{"allOf of two", `{"type":"object","properties":{"s":{"allOf":[{"type":"string"},{"minLength":1}]}}}`, "s", `"allOf" is supported only with a single schema`},
	{"enum of numbers", `{"type":"object","properties":{"n":{"type":"string","enum":["a",1]}}}`, "n", `"enum" values must all be strings`},
	{"enum with null", `{"type":"object","properties":{"n":{"enum":["a",null]}}}`, "n", `"enum" values must all be strings`},
	{"number with enum", `{"type":"object","properties":{"n":{"type":"integer","enum":[1,2]}}}`, "n", "choices of numbers are not supported"},
	{"empty enum", `{"type":"object","properties":{"e":{"type":"string","enum":[]}}}`, "e", `"enum" offers no choices`},
	{"empty oneOf", `{"type":"object","properties":{"e":{"type":"string","oneOf":[]}}}`, "e", `"oneOf" offers no choices`},
	{"oneOf without const", `{"type":"object","properties":{"e":{"type":"string","oneOf":[{"title":"A"}]}}}`, "e", `each "oneOf" choice needs a string "const"`},
	{"multi anyOf without const", `{"type":"object","properties":{"m":{"type":"array","items":{"anyOf":[{"const":1,"title":"One"}]}}}}`, "m", `each "anyOf" choice needs a string "const"`},
	{"minLength as text", `{"type":"object","properties":{"s":{"type":"string","minLength":"3"}}}`, "s", `"minLength" must be a number`},
	{"negative maxItems", `{"type":"object","properties":{"m":{"type":"array","maxItems":-1,"items":{"enum":["a"]}}}}`, "m", `"maxItems" must be a whole number of at least 0`},
	{"maximum as text", `{"type":"object","properties":{"n":{"type":"number","maximum":"10"}}}`, "n", `"maximum" must be a number`},
	{"property twice", `{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"number"}}}`, "a", "appears twice in properties"},

	// Rules the form could not show or check: the user could never submit.
	{"required names a missing property", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","ghost"]}`, "", `requestedSchema: property "ghost" is required but not defined`},
	{"required lists a property twice", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","a"]}`, "", "is not a valid JSON Schema: at '/required': items at 0 and 1 are equal"},
	{"minProperties beyond the fields", `{"type":"object","properties":{"a":{"type":"string"}},"minProperties":2}`, "", `"minProperties" asks for 2 fields but the form has only 1 field`},
	{"maxProperties below what is always filled", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"boolean"},"c":{"type":"string"}},"required":["a"],"maxProperties":1}`, "", `"maxProperties" allows 1 field but 2 are always filled`},
	{"dependentRequired", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"dependentRequired":{"a":["b"]}}`, "", `"dependentRequired" at the top level is not supported`},
	{"if and then at the top level", `{"type":"object","properties":{"a":{"type":"string"}},"if":{"required":["a"]},"then":{"properties":{"a":{"minLength":3}}}}`, "", `"if" at the top level is not supported`},
	{"not at the top level", `{"type":"object","properties":{"a":{"type":"string"}},"not":{"required":["a"]}}`, "", `"not" at the top level is not supported`},
	{"allOf at the top level", `{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"required":["a"]}]}`, "", `"allOf" at the top level is not supported`},
	{"anyOf at the top level", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`, "", `"anyOf" at the top level is not supported`},
	{"oneOf at the top level", `{"type":"object","properties":{"a":{"type":"string"}},"oneOf":[{"required":["a"]}]}`, "", `"oneOf" at the top level is not supported`},
	{"patternProperties", `{"type":"object","properties":{"a":{"type":"string"}},"patternProperties":{"^a":{"minLength":2}}}`, "", `"patternProperties" at the top level is not supported`},
	{"propertyNames", `{"type":"object","properties":{"a":{"type":"string"}},"propertyNames":{"maxLength":0}}`, "", `"propertyNames" at the top level is not supported`},
	{"$ref at the top level", `{"$ref":"#/$defs/F","$defs":{"F":{"type":"object"}}}`, "", `"$ref" at the top level is not supported`},
	{"external $ref where Parse does not look", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"$ref":"https://example.com/s.json"}}`, "", `$ref "https://example.com/s.json" is not supported`},
	{"not in a property", `{"type":"object","properties":{"a":{"type":"string","not":{"const":"x"}}}}`, "a", `"not" is not supported on text fields; elicitray could not check it`},
	{"if in a property", `{"type":"object","properties":{"a":{"type":"string","if":{"minLength":3},"then":{"pattern":"^x"}}}}`, "a", `"if" is not supported on text fields`},
	{"const on a boolean", `{"type":"object","properties":{"b":{"type":"boolean","const":true}}}`, "b", `"const" is not supported on true/false fields`},
	{"enum on a boolean", `{"type":"object","properties":{"b":{"type":"boolean","enum":[true]}}}`, "b", `"enum" is not supported on true/false fields`},
	{"const null", `{"type":"object","properties":{"s":{"type":"string","const":null}}}`, "s", `"const" must be a string`},
	{"const beside enum", `{"type":"object","properties":{"s":{"type":"string","const":"a","enum":["a","b"]}}}`, "s", `gives its choices twice, as "enum" and as "const"`},
	{"enum beside oneOf", `{"type":"object","properties":{"s":{"type":"string","enum":["a"],"oneOf":[{"const":"b"}]}}}`, "s", `gives its choices twice, as "enum" and as "oneOf"`},
	{"const on a number", `{"type":"object","properties":{"n":{"type":"number","const":1}}}`, "n", "choices of numbers are not supported"},
	{"contains", `{"type":"object","properties":{"m":{"type":"array","items":{"enum":["a","b"]},"contains":{"const":"a"}}}}`, "m", `"contains" is not supported on multi selects`},
	{"prefixItems", `{"type":"object","properties":{"m":{"type":"array","items":{"enum":["a","b"]},"prefixItems":[{"const":"a"}]}}}`, "m", `"prefixItems" is not supported on multi selects`},
	{"a choice breaks the items' rules", `{"type":"object","properties":{"m":{"type":"array","items":{"enum":["a","bb"],"minLength":2}}}}`, "m", `items: choice "a" breaks the field's own rule (must be at least 2 characters), so it could never be sent`},
	{"a choice breaks the pattern", `{"type":"object","properties":{"s":{"type":"string","enum":["abc","ABC"],"pattern":"^[a-z]+$"}}}`, "s", `choice "ABC" breaks the field's own rule (must match the pattern ^[a-z]+$)`},
	{"a rule on one choice", `{"type":"object","properties":{"s":{"type":"string","oneOf":[{"const":"a","title":"A","minLength":2}]}}}`, "s", `"minLength" is not supported on "oneOf" choices`},
	{"a choice of another type", `{"type":"object","properties":{"s":{"oneOf":[{"const":"a","type":"number"}]}}}`, "s", `each "oneOf" choice must be of "type" "string"`},
	{"oneOf offers a value twice", `{"type":"object","properties":{"s":{"type":"string","oneOf":[{"const":"a"},{"const":"a","title":"Again"}]}}}`, "s", `"oneOf" offers "a" twice, so choosing it would be refused`},
	{"$ref and a sibling disagree", `{"type":"object","properties":{"s":{"$ref":"#/$defs/S","maxLength":10}},"$defs":{"S":{"type":"string","maxLength":5}}}`, "s", `"maxLength" is set twice, by a referenced schema and beside it, to different values`},
	{"allOf and a sibling disagree on the type", `{"type":"object","properties":{"s":{"allOf":[{"type":"string"}],"type":"integer"}}}`, "s", `"type" is set twice`},
	{"minLength above maxLength", `{"type":"object","properties":{"s":{"type":"string","minLength":5,"maxLength":3}}}`, "s", `"minLength" 5 is more than "maxLength" 3, so no text fits`},
	{"minimum above maximum", `{"type":"object","properties":{"n":{"type":"number","minimum":5,"maximum":3}}}`, "n", "no number fits between its minimum and maximum"},
	{"exclusive bounds that meet", `{"type":"object","properties":{"n":{"type":"number","minimum":1,"exclusiveMaximum":1}}}`, "n", "no number fits between its minimum and maximum"},
	{"no whole number between exclusive bounds", `{"type":"object","properties":{"n":{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":2}}}`, "n", "no whole number fits between its minimum and maximum"},
	{"no whole number between bounds beyond 2^53", `{"type":"object","properties":{"n":{"type":"integer","minimum":9007199254740992.5,"maximum":9007199254740992.9}}}`, "n", "no whole number fits between its minimum and maximum"},
	{"bounds beyond a float64 that cross", `{"type":"object","properties":{"n":{"type":"number","minimum":0.10000000000000000002,"maximum":0.10000000000000000001}}}`, "n", "no number fits between its minimum and maximum"},
	{"bound beyond the digits elicitray checks", `{"type":"object","properties":{"n":{"type":"number","maximum":1e1001}}}`, "n", `"maximum" 1e1001 has more digits than elicitray can check (at most 1000 before and after the decimal point)`},
	{"bound that is no number", `{"type":"object","properties":{"n":{"type":"number","minimum":"1"}}}`, "n", `"minimum" must be a number`},
	{"multipleOf below 0 beyond a float64", `{"type":"object","properties":{"n":{"type":"number","multipleOf":-1e-400}}}`, "n", `"multipleOf" must be greater than 0`},
	{"multipleOf 0", `{"type":"object","properties":{"n":{"type":"number","multipleOf":0}}}`, "n", `"multipleOf" must be greater than 0`},
	{"minItems above maxItems", `{"type":"object","properties":{"m":{"type":"array","items":{"enum":["a","b","c"]},"minItems":3,"maxItems":2}}}`, "m", `"minItems" 3 is more than "maxItems" 2, so no list fits`},
	{"minItems above the choices", `{"type":"object","properties":{"m":{"type":"array","items":{"enum":["a","b"]},"minItems":3}}}`, "m", `"minItems" 3 is more than the 2 choices offered`},
	{"maxItems 0", `{"type":"object","properties":{"m":{"type":"array","items":{"enum":["a"]},"maxItems":0}}}`, "m", `"maxItems" is 0, so nothing could be chosen`},
	{"$id below the top level", `{"type":"object","properties":{"s":{"$ref":"#/$defs/S"}},"$defs":{"S":{"$id":"urn:s","$ref":"#/$defs/T","$defs":{"T":{"type":"string"}}},"T":{"type":"integer"}}}`, "s", `"$id" inside the schema is not supported`},
	{"pattern not even ECMAScript compiles", `{"type":"object","properties":{"code":{"type":"string","pattern":"^(abc"}}}`, "code", `"pattern" "^(abc" is not a regular expression elicitray can check`},
	{"pattern on the items that does not compile", `{"type":"object","properties":{"m":{"type":"array","items":{"enum":["a"],"pattern":"[a"}}}}`, "m", `"pattern" "[a" is not a regular expression elicitray can check`},
}

// TestParseUnsupported checks that each unrenderable schema is refused with
// an ErrUnsupportedSchema that names the property and the reason.
func TestParseUnsupported(t *testing.T) {
	for _, tt := range unsupportedSchemas {
		t.Run(tt.name, func(t *testing.T) {
			form, err := elicit.Parse([]byte(tt.schema))
			if !errors.Is(err, elicit.ErrUnsupportedSchema) {
				t.Fatalf("Parse = %v, %v; want ErrUnsupportedSchema", form, err)
			}
			se, ok := errors.AsType[*elicit.SchemaError](err)
			if !ok {
				t.Fatalf("Parse error %v is not a *SchemaError", err)
			}
			if se.Property != tt.property {
				t.Errorf("Property = %q, want %q", se.Property, tt.property)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("message %q lacks %q", err, tt.reason)
			}
			if tt.property != "" && !strings.HasPrefix(err.Error(), `property "`+tt.property+`": `) {
				t.Errorf("message %q does not start with the property name", err)
			}
		})
	}
}

// acceptedSchemas are shapes outside the spec's minimal subset that real
// servers send, plus defaults that must not break the form.
var acceptedSchemas = []struct {
	name   string
	schema string
	want   []elicit.Field
}{
	{"no properties: a plain confirmation", `{"type":"object"}`, []elicit.Field{}},
	{"no type at the root", `{"properties":{"a":{"type":"boolean"}}}`, []elicit.Field{{Name: "a", Kind: elicit.KindBoolean}}},
	{"2020-12 dialect", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}}}`, []elicit.Field{{Name: "a", Kind: elicit.KindString}}},
	{"2020-12 dialect with #", `{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object","properties":{"a":{"type":"string"}}}`, []elicit.Field{{Name: "a", Kind: elicit.KindString}}},
	{"draft-07 dialect", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}}}`, []elicit.Field{{Name: "a", Kind: elicit.KindString}}},
	{"draft-07 dialect without #", `{"$schema":"http://json-schema.org/draft-07/schema","type":"object","properties":{"a":{"type":"string"}}}`, []elicit.Field{{Name: "a", Kind: elicit.KindString}}},
	{
		"single select as anyOf",
		`{"type":"object","properties":{"p":{"type":"string","title":"Priority","anyOf":[{"const":"p1","title":"Urgent"},{"const":"p2"}]}}}`,
		[]elicit.Field{{Name: "p", Title: "Priority", Kind: elicit.KindSelect, Options: titled("p1", "Urgent", "p2", "p2")}},
	},
	{
		"enum without type",
		`{"type":"object","properties":{"c":{"enum":["a","b"]}}}`,
		[]elicit.Field{{Name: "c", Kind: elicit.KindSelect, Options: opts("a", "b")}},
	},
	{
		"oneOf without type",
		`{"type":"object","properties":{"c":{"oneOf":[{"const":"a","title":"A"}]}}}`,
		[]elicit.Field{{Name: "c", Kind: elicit.KindSelect, Options: titled("a", "A")}},
	},
	{
		"type with null",
		`{"type":"object","properties":{"n":{"type":["integer","null"],"maximum":5}}}`,
		[]elicit.Field{{Name: "n", Kind: elicit.KindInteger, Maximum: num("5")}},
	},
	{
		"$ref with its own title and default",
		`{"type":"object","properties":{"s":{"$ref":"#/$defs/State","title":"State","default":"b"}},"$defs":{"State":{"type":"string","enum":["a","b"],"title":"ignored"}}}`,
		[]elicit.Field{{Name: "s", Title: "State", Kind: elicit.KindSelect, Options: opts("a", "b"), Default: "b"}},
	},
	{
		"$ref through definitions and a chain",
		`{"type":"object","properties":{"s":{"$ref":"#/definitions/A"}},"definitions":{"A":{"$ref":"#/definitions/B"},"B":{"type":"string","enum":["x"]}}}`,
		[]elicit.Field{{Name: "s", Kind: elicit.KindSelect, Options: opts("x")}},
	},
	{
		"$ref with escaped pointer",
		`{"type":"object","properties":{"s":{"$ref":"#/$defs/a~1b%20c"}},"$defs":{"a/b c":{"type":"boolean"}}}`,
		[]elicit.Field{{Name: "s", Kind: elicit.KindBoolean}},
	},
	{
		"allOf of one $ref, as older generators write defaults",
		`{"type":"object","properties":{"s":{"allOf":[{"$ref":"#/$defs/S"}],"default":"on"}},"$defs":{"S":{"enum":["on","off"]}}}`,
		[]elicit.Field{{Name: "s", Kind: elicit.KindSelect, Options: opts("on", "off"), Default: "on"}},
	},
	{
		"multi select items through $ref",
		`{"type":"object","properties":{"t":{"type":"array","items":{"$ref":"#/$defs/Tag"}}},"$defs":{"Tag":{"type":"string","enum":["a","b"]}}}`,
		[]elicit.Field{{Name: "t", Kind: elicit.KindMultiSelect, Options: opts("a", "b")}},
	},
	{
		"enumNames that do not line up are ignored",
		`{"type":"object","properties":{"s":{"type":"string","enum":["a","b"],"enumNames":["A"]}}}`,
		[]elicit.Field{{Name: "s", Kind: elicit.KindSelect, Options: opts("a", "b")}},
	},
	{
		"unknown format kept for the ui, not checked; password marks a secret",
		`{"type":"object","properties":{"pw":{"type":"string","format":"password"}}}`,
		[]elicit.Field{{Name: "pw", Kind: elicit.KindString, Format: "password", Sensitive: true}},
	},
	{
		"string constraints",
		`{"type":"object","properties":{"code":{"type":"string","minLength":2,"maxLength":4.0,"pattern":"^[A-Z]+$"}},"required":["code"]}`,
		[]elicit.Field{{Name: "code", Kind: elicit.KindString, Required: true, MinLength: new(2), MaxLength: new(4), Pattern: "^[A-Z]+$"}},
	},
	{
		"ECMAScript pattern with lookahead, which Go's regexp refuses",
		`{"type":"object","properties":{"pw":{"type":"string","pattern":"^(?=.*[0-9]).{8,}$"}}}`,
		[]elicit.Field{{Name: "pw", Kind: elicit.KindString, Pattern: "^(?=.*[0-9]).{8,}$", Sensitive: true}},
	},
	{
		"zod's email pattern, with lookahead and escapes in a class",
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"email":{"type":"string","format":"email","pattern":"^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$","default":"ada@example.com"},"n":{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991}},"required":["email"],"additionalProperties":false}`,
		[]elicit.Field{
			{Name: "email", Kind: elicit.KindString, Required: true, Format: "email", Pattern: `^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$`, Default: "ada@example.com"},
			{Name: "n", Kind: elicit.KindInteger, Minimum: num("-9007199254740991"), Maximum: num("9007199254740991")},
		},
	},
	{
		"exclusive bounds and multipleOf",
		`{"type":"object","properties":{"n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.25,"default":0.5}}}`,
		[]elicit.Field{{Name: "n", Kind: elicit.KindNumber, ExclusiveMinimum: num("0"), ExclusiveMaximum: num("1"), MultipleOf: num("0.25"), Default: json.Number("0.5")}},
	},
	{
		// A float64 holds neither: the bounds and the default keep every
		// digit the schema wrote.
		"numbers beyond a float64",
		`{"type":"object","properties":{"id":{"type":"integer","minimum":9007199254740993,"maximum":1e30,"default":9007199254740993},"x":{"type":"number","exclusiveMinimum":0.1000000000000000000001,"default":1e400},"huge":{"type":"integer","minimum":1e19,"default":12345678901234567890123}}}`,
		[]elicit.Field{
			{Name: "id", Kind: elicit.KindInteger, Minimum: num("9007199254740993"), Maximum: num("1e30"), Default: json.Number("9007199254740993")},
			{Name: "x", Kind: elicit.KindNumber, ExclusiveMinimum: num("0.1000000000000000000001"), Default: json.Number("1e400")},
			{Name: "huge", Kind: elicit.KindInteger, Minimum: num("1e19"), Default: json.Number("12345678901234567890123")},
		},
	},
	{
		// An integer is sent without fraction or exponent.
		"whole defaults of integers written otherwise",
		`{"type":"object","properties":{"a":{"type":"integer","default":42.0},"b":{"type":"integer","default":1e3},"c":{"type":"integer","default":-0}}}`,
		[]elicit.Field{
			{Name: "a", Kind: elicit.KindInteger, Default: json.Number("42")},
			{Name: "b", Kind: elicit.KindInteger, Default: json.Number("1000")},
			{Name: "c", Kind: elicit.KindInteger, Default: json.Number("0")},
		},
	},
	{
		// A default that does not fit is dropped, exactly: it is one past
		// the maximum, which a float64 would round onto it.
		"a default one past a bound beyond 2^53",
		`{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992,"default":9007199254740993},"f":{"type":"integer","default":2.5}}}`,
		[]elicit.Field{
			{Name: "n", Kind: elicit.KindInteger, Maximum: num("9007199254740992"), DefaultRefused: "must be at most 9007199254740992"},
			{Name: "f", Kind: elicit.KindInteger, DefaultRefused: "must be a whole number"},
		},
	},
	{
		// A one-line entry hides a NUL, a bidi override and a second line:
		// the default is cleaned so that what is shown is what is sent. A
		// choice's value is the server's own and is sent as it is.
		"a text default with hidden characters is cleaned",
		`{"type":"object","properties":{"note":{"type":"string","default":"ok\u0000; rm\u202e -rf\nnow"},"c":{"type":"string","enum":["a\u0000b"],"default":"a\u0000b"},"plain":{"type":"string","default":"tab\tkept"}}}`,
		[]elicit.Field{
			{Name: "note", Kind: elicit.KindString, Default: "ok; rm -rf now", DefaultHidden: true},
			{Name: "c", Kind: elicit.KindSelect, Options: opts("a\x00b"), Default: "a\x00b"},
			{Name: "plain", Kind: elicit.KindString, Default: "tab\tkept"},
		},
	},
	{
		// Cleaned first, then checked: a default that no longer fits is
		// dropped, as any default that does not fit.
		"a cleaned default that no longer fits is dropped",
		`{"type":"object","properties":{"code":{"type":"string","minLength":4,"default":"ab\u200bc"}}}`,
		[]elicit.Field{{Name: "code", Kind: elicit.KindString, MinLength: new(4), DefaultHidden: true, DefaultRefused: "must be at least 4 characters"}},
	},
	{
		"a lone const is a single select of one choice",
		`{"type":"object","properties":{"ok":{"type":"string","title":"Confirm","const":"yes"}},"required":["ok"]}`,
		[]elicit.Field{{Name: "ok", Title: "Confirm", Kind: elicit.KindSelect, Required: true, Options: opts("yes")}},
	},
	{
		"a value listed twice in enum is shown once",
		`{"type":"object","properties":{"c":{"enum":["a","b","a"]}}}`,
		[]elicit.Field{{Name: "c", Kind: elicit.KindSelect, Options: opts("a", "b")}},
	},
	{
		"choices that fit the rules beside them",
		`{"type":"object","properties":{"c":{"type":"string","enum":["abc","xyz"],"pattern":"^[a-z]+$","minLength":3}}}`,
		[]elicit.Field{{Name: "c", Kind: elicit.KindSelect, Options: opts("abc", "xyz")}},
	},
	{
		"keywords for other types never refuse, so they are let be",
		`{"type":"object","properties":{"s":{"type":"string","minimum":3,"minItems":1},"b":{"type":"boolean","maxLength":2}},"additionalProperties":false}`,
		[]elicit.Field{{Name: "s", Kind: elicit.KindString}, {Name: "b", Kind: elicit.KindBoolean}},
	},
	{
		"uniqueItems on a multi select",
		`{"type":"object","properties":{"m":{"type":"array","uniqueItems":true,"items":{"type":"string","enum":["a","b"]}}}}`,
		[]elicit.Field{{Name: "m", Kind: elicit.KindMultiSelect, Options: opts("a", "b")}},
	},
	{
		"$ref and a sibling that agree",
		`{"type":"object","properties":{"s":{"$ref":"#/$defs/S","maxLength":5,"type":["string","null"]}},"$defs":{"S":{"type":"string","maxLength":5}}}`,
		[]elicit.Field{{Name: "s", Kind: elicit.KindString, MaxLength: new(5)}},
	},
	{
		"a leap second is a date-time",
		`{"type":"object","properties":{"at":{"type":"string","format":"date-time","default":"2016-12-31T23:59:60Z"}}}`,
		[]elicit.Field{{Name: "at", Kind: elicit.KindString, Format: "date-time", Default: "2016-12-31T23:59:60Z"}},
	},
	{
		"whole default for an integer written as 7.0",
		`{"type":"object","properties":{"n":{"type":"integer","default":7.0}}}`,
		[]elicit.Field{{Name: "n", Kind: elicit.KindInteger, Default: json.Number("7")}},
	},
	{
		"defaults that do not fit are dropped, the fields stay",
		`{"type":"object","properties":{
			"frac":{"type":"integer","default":4.5},
			"text":{"type":"integer","default":"42"},
			"high":{"type":"number","maximum":10,"default":11},
			"color":{"type":"string","enum":["Red"],"default":"Purple"},
			"mail":{"type":"string","format":"email","default":"not-an-email"},
			"short":{"type":"string","minLength":3,"default":"ab"},
			"tags":{"type":"array","items":{"enum":["a"]},"default":["a","z"]},
			"flag":{"type":"boolean","default":"true"}}}`,
		[]elicit.Field{
			{Name: "frac", Kind: elicit.KindInteger, DefaultRefused: "must be a whole number"},
			{Name: "text", Kind: elicit.KindInteger, DefaultRefused: "must be a whole number"},
			{Name: "high", Kind: elicit.KindNumber, Maximum: num("10"), DefaultRefused: "must be at most 10"},
			{Name: "color", Kind: elicit.KindSelect, Options: opts("Red"), DefaultRefused: `"Purple" is not one of the choices`},
			{Name: "mail", Kind: elicit.KindString, Format: "email", DefaultRefused: "must be a valid email address such as name@example.com"},
			{Name: "short", Kind: elicit.KindString, MinLength: new(3), DefaultRefused: "must be at least 3 characters"},
			{Name: "tags", Kind: elicit.KindMultiSelect, Options: opts("a"), DefaultRefused: `"z" is not one of the choices`},
			{Name: "flag", Kind: elicit.KindBoolean, DefaultRefused: "must be true or false"},
		},
	},
}

// TestParseAccepts checks the shapes real servers send beyond the spec's
// subset: each renders as the widget a person expects, with its default
// pre-filled only when the default fits.
func TestParseAccepts(t *testing.T) {
	for _, tt := range acceptedSchemas {
		t.Run(tt.name, func(t *testing.T) {
			form, err := elicit.Parse([]byte(tt.schema))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, form.Fields); diff != "" {
				t.Errorf("Fields mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseKeepsSchema checks that Form.Schema holds the bytes received even
// when the caller reuses its buffer, since the final check validates
// against them.
func TestParseKeepsSchema(t *testing.T) {
	buf := []byte(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}}}`)
	form, err := elicit.Parse(buf)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := string(buf)
	for i := range buf {
		buf[i] = ' '
	}
	if diff := cmp.Diff(want, string(form.Schema)); diff != "" {
		t.Errorf("Schema mismatch (-want +got):\n%s", diff)
	}
	if _, err := form.Content(map[string]any{"n": int64(2)}); err != nil {
		t.Errorf("Content after the buffer changed: %v", err)
	}
}
