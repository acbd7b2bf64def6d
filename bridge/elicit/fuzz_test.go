package elicit_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// FuzzParse feeds Parse whatever a server might send. A schema must never
// crash the wrapper (PROTOCOL.md §4): Parse either refuses it with
// ErrUnsupportedSchema or returns a form whose pre-filled answer can be
// built or refused without a panic. The final check must never be what
// refuses it: the user would see no reason under any field. An answer
// Content accepts must also survive the trip through JSON that the hub's
// answer takes, unchanged.
func FuzzParse(f *testing.F) {
	const maxSeedBytes = 64 << 10
	for _, name := range caseFiles {
		f.Add([]byte(caseSchema(f, name)))
	}
	for _, tt := range unsupportedSchemas {
		f.Add([]byte(tt.schema))
	}
	for _, tt := range acceptedSchemas {
		f.Add([]byte(tt.schema))
	}
	for _, tt := range limitSchemas {
		// The schemas at the choice limits (10,000 choices, 50,000 in a
		// form) are left to TestParseLimits: the loop below validates an
		// answer for every choice, which takes seconds for them, and
		// mutating 400 KB seeds is slow fuzzing.
		if len(tt.schema) > maxSeedBytes {
			continue
		}
		f.Add([]byte(tt.schema))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		form, err := elicit.Parse(schema)
		if err != nil {
			if !errors.Is(err, elicit.ErrUnsupportedSchema) {
				t.Fatalf("Parse error %v does not wrap ErrUnsupportedSchema", err)
			}
			return
		}
		// Every choice the window offers can be sent, when the rest fits.
		for _, fld := range form.Fields {
			for _, o := range fld.Options {
				values := form.Defaults()
				values[fld.Name] = o.Value
				if fld.Kind == elicit.KindMultiSelect {
					values[fld.Name] = []string{o.Value}
				}
				if form.Validate(values) != nil {
					continue
				}
				if _, err := form.Content(values); err != nil {
					if _, ok := errors.AsType[*jsonschema.ValidationError](err); ok {
						t.Fatalf("only the final check refuses choice %q of %s: %v", o.Value, fld.Name, err)
					}
				}
			}
		}
		content, err := form.Content(form.Defaults())
		if err != nil {
			if !errors.Is(err, elicit.ErrInvalidContent) {
				t.Fatalf("Content error %v does not wrap ErrInvalidContent", err)
			}
			if _, ok := errors.AsType[*jsonschema.ValidationError](err); ok {
				t.Fatalf("only the final check refuses the defaults: %v", err)
			}
			return
		}
		sent, err := json.Marshal(content)
		if err != nil {
			t.Fatalf("marshal content: %v", err)
		}
		dec := json.NewDecoder(bytes.NewReader(sent))
		dec.UseNumber()
		var received map[string]any
		if err := dec.Decode(&received); err != nil {
			t.Fatalf("decode %s: %v", sent, err)
		}
		again, err := form.Normalize(received)
		if err != nil {
			t.Fatalf("Normalize refuses %s, which Content built: %v", sent, err)
		}
		if resent, _ := json.Marshal(again); !bytes.Equal(sent, resent) {
			t.Fatalf("answer changed on its way through JSON: %s became %s", sent, resent)
		}
	})
}

// FuzzParseTextNumber feeds number and integer entries whatever a person
// might type or paste. A number the entry accepts is valid JSON, passes
// Check, and reaches the server as the same text after the trip through
// the hub's JSON: what the window read is what is sent, digit for digit.
func FuzzParseTextNumber(f *testing.F) {
	for _, s := range []string{"42", " 42 ", "-7", "+7", "007", "4.2", "1e3", "9007199254740993", "1.50", ".5", "-5.", "+2.5E+3",
		"0.1000000000000000000001", "1e400", "-1e-400", "1e1001", "1e-1001", "0e-99999999", "NaN", "0x10", "1e99999999999999999999", "--1", "."} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, integer bool) {
		fld := &elicit.Field{Name: "n", Kind: elicit.KindNumber}
		if integer {
			fld.Kind = elicit.KindInteger
		}
		v, err := fld.ParseText(text)
		if err != nil || v == nil {
			return
		}
		n, ok := v.(json.Number)
		if !ok {
			t.Fatalf("ParseText(%q) = %T, want a json.Number", text, v)
		}
		if err := fld.Check(n); err != nil {
			t.Fatalf("ParseText(%q) = %s, which Check refuses: %v", text, n, err)
		}
		form := &elicit.Form{Fields: []elicit.Field{*fld}, Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"` + map[bool]string{false: "number", true: "integer"}[integer] + `"}}}`)}
		content, err := form.Content(map[string]any{"n": n})
		if err != nil {
			t.Fatalf("Content refuses %s typed as %q: %v", n, text, err)
		}
		sent, err := json.Marshal(content)
		if err != nil || !json.Valid(sent) {
			t.Fatalf("content %v is not JSON: %v", content, err)
		}
		dec := json.NewDecoder(bytes.NewReader(sent))
		dec.UseNumber()
		var received map[string]any
		if err := dec.Decode(&received); err != nil {
			t.Fatal(err)
		}
		again, err := form.Normalize(received)
		if err != nil {
			t.Fatalf("Normalize refuses %s: %v", sent, err)
		}
		if again["n"] != n {
			t.Fatalf("typed %q, shown as %s, sent as %v", text, n, again["n"])
		}
	})
}
