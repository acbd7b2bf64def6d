package elicit_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// TestValidate checks the errors shown under each field of the all-kinds
// form, and that a good form shows none.
func TestValidate(t *testing.T) {
	form := mustParse(t, "all-kinds.json")
	for _, tt := range []struct {
		name   string
		values map[string]any
		want   map[string]string // property → message
	}{
		{
			name:   "defaults plus the required name",
			values: map[string]any{"fullName": "Ada"},
			want:   nil,
		},
		{
			name: "several mistakes at once",
			values: map[string]any{
				"email": "ada", "site": "example.com", "start": "tomorrow", "copies": int64(500),
				"budget": -1.0, "channels": []string{}, "tier": "Gold", "unknown": "ignored",
			},
			want: map[string]string{
				"fullName": "is required",
				"email":    "must be a valid email address such as name@example.com",
				"site":     "must be a full web address such as https://example.com",
				"start":    "must be a date such as 2025-12-31 (year-month-day)",
				"copies":   "must be at most 100",
				"budget":   "must be at least 0",
				"channels": "choose at least 1",
				"tier":     `"Gold" is not one of the choices`,
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			values := form.Defaults()
			for k, v := range tt.values {
				values[k] = v
			}
			var got map[string]string
			for k, err := range form.Validate(values) {
				fe, ok := errors.AsType[*elicit.FieldError](err)
				if !ok {
					t.Fatalf("error for %s is %T, want *FieldError", k, err)
				}
				if got == nil {
					got = map[string]string{}
				}
				got[k] = fe.Msg
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestContentError checks that a refused answer is never sent and that the
// error names every field at fault, in form order, for the log.
func TestContentError(t *testing.T) {
	form := mustParse(t, "five-enums.json")
	content, err := form.Content(map[string]any{"color": "Purple"})
	if !errors.Is(err, elicit.ErrInvalidContent) {
		t.Fatalf("Content = %v, %v; want ErrInvalidContent", content, err)
	}
	if content != nil {
		t.Errorf("Content returned %v with its error; nothing may be sent", content)
	}
	want := `content does not fit the requestedSchema: Color: "Purple" is not one of the choices; Tags: is required`
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("message mismatch (-want +got):\n%s", diff)
	}
}

// TestContentShape checks what is left out of and kept in the content the
// server receives (PROTOCOL.md §5).
func TestContentShape(t *testing.T) {
	form, err := elicit.Parse([]byte(`{"type":"object","properties":{
		"name":{"type":"string"},"nick":{"type":"string"},"count":{"type":"integer"},
		"ratio":{"type":"number"},"on":{"type":"boolean"},"tags":{"type":"array","items":{"enum":["a","b"]}}}}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	for _, tt := range []struct {
		name   string
		values map[string]any
		want   string
	}{
		{"nothing filled", nil, `{}`},
		{"unfilled optional fields are omitted", map[string]any{"name": "Ada", "nick": nil, "tags": []string(nil)}, `{"name":"Ada"}`},
		{"false and zero are answers", map[string]any{"on": false, "count": int64(0), "ratio": 0.0}, `{"count":0,"on":false,"ratio":0}`},
		{"keys that name no field are dropped", map[string]any{"name": "Ada", "admin": true}, `{"name":"Ada"}`},
		{"an empty list is an answer", map[string]any{"tags": []string{}}, `{"tags":[]}`},
		{"numbers stay numbers", map[string]any{"count": int64(9007199254740993), "ratio": 0.1}, `{"count":9007199254740993,"ratio":0.1}`},
		{"every digit typed is sent", map[string]any{"count": json.Number("123456789012345678901234567890"), "ratio": json.Number("1e400")}, `{"count":123456789012345678901234567890,"ratio":1e400}`},
		{"a whole number for an integer is sent as one", map[string]any{"count": json.Number("9.007199254740993E15"), "ratio": json.Number("-0.0")}, `{"count":9007199254740993,"ratio":-0.0}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			content, err := form.Content(tt.values)
			if err != nil {
				t.Fatalf("Content: %v", err)
			}
			if diff := cmp.Diff(tt.want, marshal(t, content)); diff != "" {
				t.Errorf("content mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNormalize checks an answer that reached the wrapper as decoded JSON
// (numbers json.Number, as the wrapper decodes the hub's answer, lists
// []any): it is turned back into typed values, so the server gets 42 for an
// integer and every digit of a number, and refused when it does not fit,
// compared exactly.
func TestNormalize(t *testing.T) {
	form := mustParse(t, "all-kinds.json")
	for _, tt := range []struct {
		name    string
		json    string
		want    map[string]any
		wantErr string
	}{
		{
			name: "typed again",
			json: `{"fullName":"Ada","copies":42,"budget":3,"agree":false,"email":null,"channels":["Email","Chat"],"extra":1}`,
			want: map[string]any{"fullName": "Ada", "copies": json.Number("42"), "budget": json.Number("3"), "agree": false, "channels": []string{"Email", "Chat"}},
		},
		{
			name: "digits beyond a float64 kept",
			json: `{"fullName":"Ada","copies":42.0,"budget":0.1000000000000000000001}`,
			want: map[string]any{"fullName": "Ada", "copies": json.Number("42"), "budget": json.Number("0.1000000000000000000001")},
		},
		{
			name:    "fraction for an integer",
			json:    `{"fullName":"Ada","copies":42.5}`,
			wantErr: "Copies: must be a whole number",
		},
		{
			// As a float64 it is 1000, which the maximum allows.
			name:    "past the maximum by less than a float64 tells",
			json:    `{"fullName":"Ada","budget":1000.0000000000000000001}`,
			wantErr: "Budget (EUR): must be at most 1000",
		},
		{
			name:    "number for a choice list",
			json:    `{"fullName":"Ada","channels":[1]}`,
			wantErr: "Channels: must be a list of choices",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(tt.json))
			dec.UseNumber()
			var content map[string]any
			if err := dec.Decode(&content); err != nil {
				t.Fatal(err)
			}
			got, err := form.Normalize(content)
			if tt.wantErr != "" {
				if !errors.Is(err, elicit.ErrInvalidContent) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Normalize = %v, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Normalize: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Normalize mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestContentFinalCheck checks that the final validation against the
// schema runs on every answer, with the schema's own pattern dialect
// (ECMA-262): a Form whose fields leave rules out (built by hand here;
// Parse models or refuses every rule) still never sends what the schema
// refuses. Before regexp2, the lookahead pattern made the schema fail to
// compile and the whole check was skipped.
func TestContentFinalCheck(t *testing.T) {
	form := &elicit.Form{
		Fields: []elicit.Field{
			{Name: "n", Kind: elicit.KindNumber},
			{Name: "s", Kind: elicit.KindString},
			{Name: "pw", Kind: elicit.KindString},
		},
		Schema: json.RawMessage(`{"type":"object","properties":{
			"n":{"type":"number","exclusiveMaximum":10},
			"s":{"type":"string","format":"email"},
			"pw":{"type":"string","pattern":"^(?=.*[0-9]).+$"}},
			"additionalProperties":false}`),
	}
	for _, tt := range []struct {
		name    string
		values  map[string]any
		wantErr bool
	}{
		{"below the exclusive maximum", map[string]any{"n": 9.5}, false},
		{"at the exclusive maximum", map[string]any{"n": 10.0}, true},
		{"an address both checks accept", map[string]any{"s": "ada@example.com"}, false},
		{"an address the validator refuses", map[string]any{"s": "ada@-example-.com"}, true},
		{"a password with a digit", map[string]any{"pw": "abc1"}, false},
		{"a password without a digit", map[string]any{"pw": "abc"}, true},
		{"unknown keys dropped before the check", map[string]any{"n": 1.0, "x": 1.0}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			content, err := form.Content(tt.values)
			if tt.wantErr {
				if !errors.Is(err, elicit.ErrInvalidContent) {
					t.Errorf("Content = %v, %v; want ErrInvalidContent", content, err)
				}
				if form.Validate(tt.values) != nil {
					t.Errorf("the field checks already refuse %v; this case tests the final check", tt.values)
				}
				return
			}
			if err != nil {
				t.Errorf("Content: %v", err)
			}
		})
	}
}

// TestFieldChecksCoverSchema checks that for a parsed form the user sees
// under the field every rule the final check enforces, so Submit is never
// refused for a reason the window did not show.
func TestFieldChecksCoverSchema(t *testing.T) {
	form, err := elicit.Parse([]byte(`{"type":"object","properties":{
		"n":{"type":"number","exclusiveMaximum":10},
		"step":{"type":"number","multipleOf":0.1},
		"s":{"type":"string","format":"email"},
		"id":{"type":"string","format":"uuid"},
		"pw":{"type":"string","pattern":"^(?=.*[0-9]).+$"}},
		"additionalProperties":false}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	for _, tt := range []struct {
		name    string
		values  map[string]any
		wantMsg map[string]string // nil: Content accepts
	}{
		{"all good", map[string]any{"n": 9.5, "step": 0.3, "s": "ada@example.com", "id": "123e4567-e89b-12d3-a456-426614174000", "pw": "abc1"}, nil},
		{"at the exclusive maximum", map[string]any{"n": 10.0}, map[string]string{"n": "must be less than 10"}},
		{"not a multiple", map[string]any{"step": 0.35}, map[string]string{"step": "must be a multiple of 0.1"}},
		{"an address the validator refuses", map[string]any{"s": "ada@-example-.com"}, map[string]string{"s": "must be a valid email address such as name@example.com"}},
		{"not a UUID", map[string]any{"id": "nope"}, map[string]string{"id": "must be a UUID such as 123e4567-e89b-12d3-a456-426614174000"}},
		{"a password without a digit", map[string]any{"pw": "abc"}, map[string]string{"pw": "must match the pattern ^(?=.*[0-9]).+$"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got map[string]string
			for k, err := range form.Validate(tt.values) {
				if got == nil {
					got = map[string]string{}
				}
				got[k] = err.(*elicit.FieldError).Msg
			}
			if diff := cmp.Diff(tt.wantMsg, got); diff != "" {
				t.Errorf("Validate mismatch (-want +got):\n%s", diff)
			}
			if _, err := form.Content(tt.values); (err == nil) != (tt.wantMsg == nil) {
				t.Errorf("Content error = %v, want an error: %v", err, tt.wantMsg != nil)
			}
		})
	}
}

// TestContentUncheckableSchema checks that an answer is never sent
// unchecked: a Schema the validator cannot compile (only a Form built by
// hand can have one; Parse refuses it) makes Content fail.
func TestContentUncheckableSchema(t *testing.T) {
	form := &elicit.Form{
		Fields: []elicit.Field{{Name: "n", Kind: elicit.KindNumber}},
		Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","minimum":"zero"}}}`),
	}
	content, err := form.Content(map[string]any{"n": 1.0})
	if !errors.Is(err, elicit.ErrInvalidContent) || !strings.Contains(err.Error(), "the requestedSchema cannot be checked") {
		t.Fatalf("Content = %v, %v; want ErrInvalidContent saying the schema cannot be checked", content, err)
	}
	if _, err := elicit.Parse(form.Schema); !errors.Is(err, elicit.ErrUnsupportedSchema) {
		t.Errorf("Parse(%s) = %v; want ErrUnsupportedSchema", form.Schema, err)
	}
}

// TestContentPropertyCount checks the root's minProperties and
// maxProperties: no field can show them, so Content says how many fields
// to fill, and bounds every answer meets are dropped.
func TestContentPropertyCount(t *testing.T) {
	form, err := elicit.Parse([]byte(`{"type":"object","properties":{
		"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}},
		"minProperties":1,"maxProperties":2}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if diff := cmp.Diff([]*int{new(1), new(2)}, []*int{form.MinProperties, form.MaxProperties}); diff != "" {
		t.Errorf("MinProperties, MaxProperties mismatch (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		name    string
		values  map[string]any
		wantErr string
	}{
		{"none filled", map[string]any{}, "content does not fit the requestedSchema: fill in at least 1 field"},
		{"two filled", map[string]any{"a": "x", "b": "y"}, ""},
		{"three filled", map[string]any{"a": "x", "b": "y", "c": "z"}, "content does not fit the requestedSchema: fill in at most 2 fields"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := form.Content(tt.values)
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, elicit.ErrInvalidContent) {
					t.Errorf("Content error %v does not wrap ErrInvalidContent", err)
				}
			}
			if diff := cmp.Diff(tt.wantErr, got); diff != "" {
				t.Errorf("Content error mismatch (-want +got):\n%s", diff)
			}
		})
	}

	met, err := elicit.Parse([]byte(`{"type":"object","properties":{
		"a":{"type":"string"},"b":{"type":"boolean"}},"required":["a"],"minProperties":2,"maxProperties":2}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if met.MinProperties != nil || met.MaxProperties != nil {
		t.Errorf("MinProperties, MaxProperties = %v, %v; want nil, nil: every answer fills a and b", met.MinProperties, met.MaxProperties)
	}
}

// TestContentIgnoresExternalRefs checks that a schema pointing at a local
// file cannot change the verdict: the file is not read, so Parse refuses
// the schema and a hand-made Form refuses to send (were the file read, its
// "true" would make the schema compile and both succeed).
func TestContentIgnoresExternalRefs(t *testing.T) {
	allowed := filepath.Join(t.TempDir(), "allow.json")
	if err := os.WriteFile(allowed, []byte(`true`), 0o600); err != nil {
		t.Fatal(err)
	}
	ref := "file://" + filepath.ToSlash(allowed)
	schema, err := json.Marshal(map[string]any{
		"type":                 "object",
		"additionalProperties": map[string]any{"$ref": ref},
		"properties":           map[string]any{"name": map[string]any{"type": "string"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = elicit.Parse(schema)
	want := `requestedSchema: $ref "` + ref + `" is not supported: only references inside the schema, such as "#/$defs/Name", can be followed`
	if err == nil {
		t.Fatalf("Parse accepted the schema (the referenced file was read)")
	}
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("message mismatch (-want +got):\n%s", diff)
	}
	form := &elicit.Form{Fields: []elicit.Field{{Name: "name", Kind: elicit.KindString}}, Schema: schema}
	if content, err := form.Content(map[string]any{"name": "Ada"}); !errors.Is(err, elicit.ErrInvalidContent) {
		t.Errorf("Content = %v, %v; want ErrInvalidContent (the referenced file was read)", content, err)
	}
}

// TestHandMadeForm checks that a Form built without Parse still runs the
// final check against its Schema.
func TestHandMadeForm(t *testing.T) {
	form := &elicit.Form{
		Fields: []elicit.Field{{Name: "n", Kind: elicit.KindNumber}},
		Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","multipleOf":2}}}`),
	}
	if _, err := form.Content(map[string]any{"n": 4.0}); err != nil {
		t.Errorf("Content(4): %v", err)
	}
	if _, err := form.Content(map[string]any{"n": 3.0}); !errors.Is(err, elicit.ErrInvalidContent) {
		t.Errorf("Content(3) = %v; want ErrInvalidContent from the final check", err)
	}
}

// TestDefaultsAreCopies checks that editing a pre-filled list in the form
// does not change the defaults a second window would show.
func TestDefaultsAreCopies(t *testing.T) {
	form := mustParse(t, "all-kinds.json")
	first := form.Defaults()
	first["channels"].([]string)[0] = "SMS"
	if diff := cmp.Diff([]string{"Email"}, form.Defaults()["channels"]); diff != "" {
		t.Errorf("Defaults changed (-want +got):\n%s", diff)
	}
	if _, ok := first["fullName"]; ok {
		t.Errorf("Defaults has fullName, which has no default")
	}
}

// TestContentConcurrent checks that the hub may answer from several windows
// of one form at once: every answer is built, and alike (run with -race).
func TestContentConcurrent(t *testing.T) {
	form := mustParse(t, "defaults.json")
	const n = 8
	results := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			content, err := form.Content(form.Defaults())
			if err != nil {
				results <- err.Error()
				return
			}
			b, _ := json.Marshal(content)
			results <- string(b)
		})
	}
	wg.Wait()
	close(results)
	for got := range results {
		if diff := cmp.Diff(`{"age":30,"name":"Ada Example","score":95.5,"status":"active","verified":true}`, got); diff != "" {
			t.Errorf("content mismatch (-want +got):\n%s", diff)
		}
	}
}
