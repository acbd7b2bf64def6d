package bridge

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// FuzzRedactSchema: whatever a server sends, redacting it never panics,
// valid JSON stays valid JSON (history refuses a schema that is not, and
// the decision would go unrecorded), and redacting twice changes nothing.
func FuzzRedactSchema(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"pin":{"type":"string","default":"4821","examples":["1", 2, [3], {"a":4}]}}}`,
		`{"properties":{"pin":{"oneOf":[{"const":"1","title":"a"},{"const":"2"}],"items":{"anyOf":[{"const":"x"}]}}}}`,
		`{"$defs":{"d":{"default":"4821"}},"properties":{"pin":{"$ref":"#/$defs/d"}}}`,
		`{"properties":{"pin":{"$ref":"#/$defs/missing","allOf":[{"$ref":"#/properties/pin"}]}}}`,
		`{"properties":{"pin":{"enum":[]},"pin2":[1,2,{"const":3}],"pin3":"x"}}`,
		`{ "properties" : { "pin" : { "default" : [ "a" , "b" ] } } }`,
		`{"properties":{"pin":{"default":"\"]}\\"}}}`,
		`{"properties":{"a":{"properties":{"pin":{"default":"1"}},"default":{"pin":"1","b":[{"password":2}]}}},"default":{"pin":"1"},"examples":[{"pin":1},3]}`,
		`{"if":{"properties":{"pin":{"const":"1"}}},"then":{"allOf":[{"properties":{"pw":{"writeOnly":true,"enum":["1","2"]}}}]},"patternProperties":{"pin":{"default":"1"}},"additionalProperties":{"format":"password","default":"1"},"dependentSchemas":{"a":{"not":{"properties":{"pin":{"default":"1"}}}}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, schema string) {
		secret := []string{"pin", "pin2", "pin3"}
		out := RedactSchema(json.RawMessage(schema), secret)
		if json.Valid([]byte(schema)) && !json.Valid(out) {
			t.Fatalf("valid schema redacted into invalid JSON:\n%s\n%s", schema, out)
		}
		if again := RedactSchema(out, secret); string(again) != string(out) {
			t.Fatalf("redacted twice, it changes:\n%s\n%s", out, again)
		}
		_ = RedactURL(schema)
	})
}

// TestRedactSchemaDeep: a secret property nested a million deep is
// redacted in about one scan per level read, and stays JSON.
func TestRedactSchemaDeep(t *testing.T) {
	const depth = 1 << 20
	schema := `{"properties":{"pin":` + strings.Repeat(`{"allOf":[`, depth) + `{"default":"4821"}` + strings.Repeat(`]}`, depth) + `}}`
	out := RedactSchema(json.RawMessage(schema), []string{"pin"})
	if strings.Contains(string(out), "4821") || !json.Valid(out) {
		t.Errorf("a deep secret property is kept, or broken: %.200s…", out)
	}
}

// TestRedactURLKeepsWhatIsNoSecret: a link without credentials, or one
// that is not a URL at all, is kept as written.
func TestRedactURLKeepsWhatIsNoSecret(t *testing.T) {
	for _, link := range []string{"", "not a link", "mailto:ada@example.com?subject=hi", "https://example.com/a?b=c&d#e",
		"https://example.com/?token_type=bearer&state=xyz&redirect_uri=https%3A%2F%2Fx", "https://[::1]:8080/x?q"} {
		if got := RedactURL(link); got != link {
			t.Errorf("RedactURL(%q) = %q, want it unchanged", link, got)
		}
	}
	if got := RedactURL("https://x.example/cb?%61ccess_token=abc&x=1"); !strings.Contains(got, "%61ccess_token=[redacted]&x=1") {
		t.Errorf("an escaped parameter name is not read: %s", got)
	}
}

// BenchmarkRedactSchema: a secret choice of n values costs time linear in
// n (ns/op divided by n stays flat from 1,000 to 100,000 values).
func BenchmarkRedactSchema(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		var sb strings.Builder
		sb.WriteString(`{"type":"object","properties":{"pin":{"type":"string","enum":[`)
		for i := range n {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`"` + strconv.Itoa(1000000+i) + `"`)
		}
		sb.WriteString(`]}}}`)
		schema := json.RawMessage(sb.String())
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(schema)))
			for b.Loop() {
				RedactSchema(schema, []string{"pin"})
			}
		})
	}
}
