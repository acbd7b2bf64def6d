package elicit_test

import (
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
		[]elicit.Field{{Name: "n", Kind: elicit.KindInteger, Maximum: new(5.0)}},
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
		"unknown format kept for the ui, not checked",
		`{"type":"object","properties":{"pw":{"type":"string","format":"password"}}}`,
		[]elicit.Field{{Name: "pw", Kind: elicit.KindString, Format: "password"}},
	},
	{
		"string constraints",
		`{"type":"object","properties":{"code":{"type":"string","minLength":2,"maxLength":4.0,"pattern":"^[A-Z]+$"}},"required":["code","unknown"]}`,
		[]elicit.Field{{Name: "code", Kind: elicit.KindString, Required: true, MinLength: new(2), MaxLength: new(4), Pattern: "^[A-Z]+$"}},
	},
	{
		"whole default for an integer written as 7.0",
		`{"type":"object","properties":{"n":{"type":"integer","default":7.0}}}`,
		[]elicit.Field{{Name: "n", Kind: elicit.KindInteger, Default: int64(7)}},
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
			{Name: "frac", Kind: elicit.KindInteger},
			{Name: "text", Kind: elicit.KindInteger},
			{Name: "high", Kind: elicit.KindNumber, Maximum: new(10.0)},
			{Name: "color", Kind: elicit.KindSelect, Options: opts("Red")},
			{Name: "mail", Kind: elicit.KindString, Format: "email"},
			{Name: "short", Kind: elicit.KindString, MinLength: new(3)},
			{Name: "tags", Kind: elicit.KindMultiSelect, Options: opts("a")},
			{Name: "flag", Kind: elicit.KindBoolean},
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
