package elicit_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// manyProperties is a requestedSchema of n text fields.
func manyProperties(n int) string {
	props := make([]string, n)
	for i := range props {
		props[i] = fmt.Sprintf(`"f%d":{"type":"string"}`, i)
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
}

// quotedValues is `"v0","v1",…`.
func quotedValues(n int) string {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf(`"v%d"`, i)
	}
	return strings.Join(vals, ",")
}

// selectOf is a single select "s" of n choices.
func selectOf(n int) string {
	return `{"type":"object","properties":{"s":{"type":"string","enum":[` + quotedValues(n) + `]}}}`
}

// multis is a form of fields multi selects of each choices.
func multis(fields, each int) string {
	props := make([]string, fields)
	for i := range props {
		props[i] = fmt.Sprintf(`"m%d":{"type":"array","items":{"enum":[%s]}}`, i, quotedValues(each))
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
}

// sized is a small valid requestedSchema padded to n bytes.
func sized(n int) string {
	head, tail := `{"type":"object","properties":{"a":{"type":"string"}},"description":"`, `"}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// limitSchemas are schemas at and beyond the size limits: one hostile
// elicitation must not freeze the hub, which lays out a row per field and
// a checkbox per multi select choice.
var limitSchemas = []struct {
	name    string
	schema  string
	wantErr string // "" means accepted
}{
	{"500 properties", manyProperties(elicit.MaxFields), ""},
	{"501 properties", manyProperties(elicit.MaxFields + 1), "requestedSchema: has 501 properties; elicitray shows at most 500"},
	{"10,000 single select choices", selectOf(elicit.MaxSelectOptions), ""},
	{"10,001 single select choices", selectOf(elicit.MaxSelectOptions + 1), `property "s": offers 10001 choices; elicitray shows at most 10000 in a single select`},
	{"10,000 multi select choices", multis(1, elicit.MaxMultiOptions), ""},
	{"10,001 multi select choices", multis(1, elicit.MaxMultiOptions+1), `property "m0": offers 10001 choices; elicitray shows at most 10000 in a multi select`},
	{"50,000 multi select choices in one form", multis(5, 10000), ""},
	{"60,000 multi select choices in one form", multis(6, 10000), "requestedSchema: has 60000 multi select choices in all; elicitray shows at most 50000 in one form"},
}

// TestParseLimits checks the size limits and their messages, which the
// server's developer reads in the -32602 error.
func TestParseLimits(t *testing.T) {
	cases := append(limitSchemas[:len(limitSchemas):len(limitSchemas)], []struct {
		name    string
		schema  string
		wantErr string
	}{
		{"10,000 properties", manyProperties(10000), "requestedSchema: has 10000 properties; elicitray shows at most 500"},
		{"100,000 multi select choices", multis(1, 100000), `property "m0": offers 100000 choices; elicitray shows at most 10000 in a multi select`},
		{"1 MiB schema", sized(elicit.MaxSchemaBytes), ""},
		{"schema over 1 MiB", sized(elicit.MaxSchemaBytes + 1), "requestedSchema: is 1048577 bytes long; elicitray accepts at most 1048576 (1 MiB)"},
	}...)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			form, err := elicit.Parse([]byte(tt.schema))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if _, err := form.Content(form.Defaults()); err != nil {
					t.Errorf("Content: %v", err)
				}
				return
			}
			if !errors.Is(err, elicit.ErrUnsupportedSchema) {
				t.Fatalf("Parse = %v; want ErrUnsupportedSchema", err)
			}
			if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
				t.Errorf("message mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseSlowPatterns checks that a pattern that backtracks for long on
// the schema's own values cannot hold Parse up: a choice it cannot match
// in time is refused at once, and defaults stop being tried once their
// matching has taken a second.
func TestParseSlowPatterns(t *testing.T) {
	const slow = `"pattern":"^(\\w+\\s?)*$"`
	choice := `{"type":"object","properties":{"s":{"type":"string",` + slow + `,"enum":["ok","` + strings.Repeat("a", 40) + `!"]}}}`
	props := make([]string, 20)
	for i := range props {
		// Distinct values, so no verdict is reused.
		props[i] = fmt.Sprintf(`"f%d":{"type":"string",%s,"default":"%s!"}`, i, slow, strings.Repeat("a", 40+i))
	}
	defaults := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	for _, tt := range []struct {
		name, schema, want string
	}{
		{"a choice", choice, `property "s": choice "` + strings.Repeat("a", 40) + `!" breaks the field's own rule (takes too long to check against the pattern; try a shorter value), so it could never be sent`},
		{"twenty defaults", defaults, `its "pattern" takes too long to check against its defaults and choices`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := elicit.Parse([]byte(tt.schema))
			if !errors.Is(err, elicit.ErrUnsupportedSchema) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse = %v; want ErrUnsupportedSchema with %q", err, tt.want)
			}
		})
	}
}
