package elicit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestAsEnumsKeepsTheCheck: the final check compiled from the rewritten
// schema accepts and refuses exactly what the schema as sent does, and
// only plain choice lists are rewritten.
func TestAsEnumsKeepsTheCheck(t *testing.T) {
	contents := []string{
		`{}`, `{"c":"a"}`, `{"c":"b"}`, `{"c":"z"}`, `{"c":1}`, `{"c":null}`, `{"c":["a"]}`,
		`{"m":["a"]}`, `{"m":["a","b"]}`, `{"m":["z"]}`, `{"m":[]}`, `{"m":"a"}`, `{"m":["a","a"]}`,
	}
	for _, tt := range []struct {
		name      string
		schema    string
		rewritten bool // whether asEnums changes it
	}{
		{"titled single select", `{"type":"object","properties":{"c":{"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"b","title":"B","description":"the second"}]}}}`, true},
		{"titled multi select", `{"type":"object","properties":{"m":{"type":"array","minItems":1,"uniqueItems":true,"items":{"anyOf":[{"const":"a","title":"A"},{"type":"string","const":"b","title":"B"}]}}}}`, true},
		{"anyOf single select, a value twice", `{"type":"object","properties":{"c":{"anyOf":[{"const":"a"},{"const":"a","title":"again"},{"const":"b"}]}}}`, true},
		{"oneOf naming a value twice refuses it", `{"type":"object","properties":{"c":{"oneOf":[{"const":"a"},{"const":"a"},{"const":"b"}]}}}`, false},
		{"a choice with a rule of its own", `{"type":"object","properties":{"c":{"oneOf":[{"const":"a"},{"const":"b","maxLength":0}]}}}`, false},
		{"a choice of another type", `{"type":"object","properties":{"c":{"oneOf":[{"const":"a"},{"const":"b","type":"number"}]}}}`, false},
		{"a choice that is not a const", `{"type":"object","properties":{"c":{"oneOf":[{"const":"a"},{"enum":["b"]}]}}}`, false},
		{"a choice with an anchor", `{"type":"object","properties":{"c":{"oneOf":[{"const":"a","$anchor":"x"},{"const":"b"}]}}}`, false},
		{"enum and oneOf together", `{"type":"object","properties":{"c":{"enum":["a"],"oneOf":[{"const":"a"},{"const":"b"}]}}}`, false},
		{"in $defs and allOf", `{"type":"object","$defs":{"d":{"oneOf":[{"const":"a"},{"const":"b"}]}},"properties":{"c":{"allOf":[{"anyOf":[{"const":"b"},{"const":"z"}]}]}}}`, true},
		{"a reference anywhere leaves all", `{"type":"object","$defs":{"d":{"oneOf":[{"const":"a"},{"const":"b"}]}},"properties":{"c":{"$ref":"#/$defs/d/oneOf/0"}}}`, false},
		{"a default that looks like a schema is a value", `{"type":"object","properties":{"c":{"const":{"oneOf":[{"const":"a"}]}}}}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sent := decode(t, tt.schema)
			rewritten := decode(t, tt.schema)
			asEnums([]byte(tt.schema), rewritten)
			if changed := !cmp.Equal(sent, rewritten); changed != tt.rewritten {
				t.Errorf("rewritten = %v, want %v: %v", changed, tt.rewritten, rewritten)
			}
			want, err := compileDoc(sent)
			if err != nil {
				t.Fatal(err)
			}
			got, err := compileDoc(rewritten)
			if err != nil {
				t.Fatalf("the rewritten schema does not compile: %v", err)
			}
			for _, c := range contents {
				if w, g := want.Validate(decode(t, c)) == nil, got.Validate(decode(t, c)) == nil; w != g {
					t.Errorf("content %s: the schema as sent accepts it: %v, the rewritten one: %v", c, w, g)
				}
			}
		})
	}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(s)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// BenchmarkParseTitledChoices is Parse of a titled single select of 10,000
// choices, which the wrapper, the hub and the history window each do: it
// took 0.7 s before asEnums (issue 10).
func BenchmarkParseTitledChoices(b *testing.B) {
	items := make([]string, MaxSelectOptions)
	for i := range items {
		items[i] = fmt.Sprintf(`{"const":"p%05d","title":"Place %05d"}`, i, i)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"c":{"type":"string","oneOf":[` + strings.Join(items, ",") + `]}}}`)
	for b.Loop() {
		if _, err := Parse(schema); err != nil {
			b.Fatal(err)
		}
	}
}
