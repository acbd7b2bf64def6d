package elicit_test

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// casesDir holds the real-world cases, copied into the repository from the
// developers' shared folder so that a fresh clone tests on its own.
const casesDir = "../../testdata/cases"

// caseFiles are the cases whose params carry a requestedSchema.
var caseFiles = []string{
	"all-kinds.json", "five-enums.json", "defaults.json", "bool-false-default.json",
	"integer-required.json", "ref-enum.json", "nested.json",
}

// caseSchema returns params.requestedSchema of a case file.
func caseSchema(tb testing.TB, name string) json.RawMessage {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(casesDir, name))
	if err != nil {
		tb.Fatalf("reading case: %v", err)
	}
	var msg struct {
		Params struct {
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	if err := json.Unmarshal(b, &msg); err != nil {
		tb.Fatalf("decoding %s: %v", name, err)
	}
	if len(msg.Params.RequestedSchema) == 0 {
		tb.Fatalf("%s has no params.requestedSchema", name)
	}
	return msg.Params.RequestedSchema
}

// mustParse parses a case file's schema.
func mustParse(t *testing.T, name string) *elicit.Form {
	t.Helper()
	form, err := elicit.Parse(caseSchema(t, name))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return form
}

// marshal returns content as the server will read it.
func marshal(t *testing.T, content map[string]any) string {
	t.Helper()
	b, err := json.Marshal(content)
	if err != nil {
		t.Fatalf("marshal content: %v", err)
	}
	return string(b)
}

// titled returns options from value, label pairs.
func titled(pairs ...string) []elicit.Option {
	var out []elicit.Option
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, elicit.Option{Value: pairs[i], Label: pairs[i+1]})
	}
	return out
}

// opts returns untitled options: each label is its value.
func opts(values ...string) []elicit.Option {
	out := make([]elicit.Option, len(values))
	for i, v := range values {
		out[i] = elicit.Option{Value: v, Label: v}
	}
	return out
}

// num is a bound as a schema writes it.
func num(text string) *json.Number {
	n := json.Number(text)
	return &n
}

// TestParseCases checks that every field of the field cases renders with
// its own widget kind, label, choices, required mark and typed default, in
// the order the server wrote them.
func TestParseCases(t *testing.T) {
	for _, tt := range []struct {
		file string
		want []elicit.Field
	}{
		{"all-kinds.json", []elicit.Field{
			{Name: "fullName", Title: "Full name", Description: "As it should appear on the report", Kind: elicit.KindString, Required: true},
			{Name: "agree", Title: "I accept the terms", Description: "Required to continue", Kind: elicit.KindBoolean},
			{Name: "greeting", Title: "Greeting", Description: "Opening line of the report", Kind: elicit.KindString, Default: "Hello from the team."},
			{Name: "email", Title: "Email", Description: "Where the report is sent", Kind: elicit.KindString, Format: "email"},
			{Name: "site", Title: "Website", Description: "Optional link shown in the footer", Kind: elicit.KindString, Format: "uri"},
			{Name: "start", Title: "Start date", Description: "First day covered", Kind: elicit.KindString, Format: "date"},
			{Name: "deadline", Title: "Deadline", Description: "When the report is due", Kind: elicit.KindString, Format: "date-time"},
			{Name: "copies", Title: "Copies", Description: "How many printed copies", Kind: elicit.KindInteger, Minimum: num("1"), Maximum: num("100"), Default: json.Number("42")},
			{Name: "budget", Title: "Budget (EUR)", Description: "Upper bound", Kind: elicit.KindNumber, Minimum: num("0"), Maximum: num("1000"), Default: json.Number("3.14")},
			{Name: "team", Title: "Team", Description: "Owning team", Kind: elicit.KindSelect, Options: opts("Platform", "Data", "Mobile", "Web", "Security", "Support"), Default: "Platform"},
			{Name: "channels", Title: "Channels", Description: "Where to announce it", Kind: elicit.KindMultiSelect, MinItems: new(1), MaxItems: new(3), Options: opts("Email", "Chat", "Wiki", "Pager", "SMS"), Default: []string{"Email"}},
			{Name: "tier", Title: "Tier", Description: "Service tier", Kind: elicit.KindSelect, Options: titled("tier-1", "Gold", "tier-2", "Silver", "tier-3", "Bronze"), Default: "tier-1"},
			{Name: "regions", Title: "Regions", Description: "Regions included", Kind: elicit.KindMultiSelect, MinItems: new(1), MaxItems: new(3), Options: titled("r-1", "Europe", "r-2", "Americas", "r-3", "Asia-Pacific"), Default: []string{"r-1"}},
			{Name: "format", Title: "File format", Description: "Output file type", Kind: elicit.KindSelect, Options: titled("fmt-1", "PDF", "fmt-2", "Word", "fmt-3", "Plain text"), Default: "fmt-1"},
		}},
		{"five-enums.json", []elicit.Field{
			{Name: "color", Title: "Color", Kind: elicit.KindSelect, Required: true, Options: opts("Red", "Green", "Blue"), Default: "Red"},
			{Name: "region", Title: "Region", Kind: elicit.KindSelect, Options: titled("eu-west-1", "Europe (Ireland)", "us-east-1", "US East"), Default: "eu-west-1"},
			{Name: "size", Title: "Size", Kind: elicit.KindSelect, Options: titled("s", "Small", "m", "Medium", "l", "Large"), Default: "m"},
			{Name: "tags", Title: "Tags", Kind: elicit.KindMultiSelect, Required: true, MinItems: new(1), MaxItems: new(2), Options: opts("bug", "feature", "docs"), Default: []string{"bug"}},
			{Name: "formats", Title: "Formats", Kind: elicit.KindMultiSelect, MinItems: new(1), Options: titled("csv", "CSV", "json", "JSON"), Default: []string{"csv"}},
		}},
		{"defaults.json", []elicit.Field{
			{Name: "name", Description: "Display name", Kind: elicit.KindString, Default: "Ada Example"},
			{Name: "age", Description: "Age in years", Kind: elicit.KindInteger, Default: json.Number("30")},
			{Name: "score", Description: "Starting score", Kind: elicit.KindNumber, Default: json.Number("95.5")},
			{Name: "status", Description: "Account status", Kind: elicit.KindSelect, Options: opts("active", "inactive", "pending"), Default: "active"},
			{Name: "verified", Description: "Email verified", Kind: elicit.KindBoolean, Default: true},
		}},
		{"bool-false-default.json", []elicit.Field{
			{Name: "ok", Title: "Run it now", Kind: elicit.KindBoolean, Required: true, Default: false},
		}},
		{"integer-required.json", []elicit.Field{
			{Name: "scoops", Kind: elicit.KindInteger, Required: true, Minimum: num("1"), Maximum: num("3")},
		}},
		// Outside the spec's subset, but a popular framework sends it: a
		// choice, never a free-text box.
		{"ref-enum.json", []elicit.Field{
			{Name: "status", Kind: elicit.KindSelect, Required: true, Options: opts("todo", "doing", "done")},
		}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			form := mustParse(t, tt.file)
			if diff := cmp.Diff(tt.want, form.Fields); diff != "" {
				t.Errorf("Fields mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLabels checks what a person reads beside each field and choice: the
// title, else the property name; the option's title or enumNames entry,
// else its value.
func TestLabels(t *testing.T) {
	form := mustParse(t, "all-kinds.json")
	defaults := mustParse(t, "defaults.json")
	for _, tt := range []struct {
		field   elicit.Field
		value   string // an option value, or "" for the field label
		want    string
		comment string
	}{
		{form.Fields[7], "", "Copies", "title"},
		{defaults.Fields[0], "", "name", "no title: the property name"},
		{form.Fields[11], "tier-2", "Silver", "oneOf title"},
		{form.Fields[12], "r-3", "Asia-Pacific", "anyOf title"},
		{form.Fields[13], "fmt-3", "Plain text", "enumNames"},
		{form.Fields[9], "Data", "Data", "untitled enum"},
		{form.Fields[9], "Unknown", "Unknown", "not an option"},
	} {
		t.Run(tt.comment, func(t *testing.T) {
			got := tt.field.Label()
			if tt.value != "" {
				got = tt.field.OptionLabel(tt.value)
			}
			if got != tt.want {
				t.Errorf("label = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestContentCases checks the JSON the server receives when the user
// accepts the pre-filled form, after changing what the case says: typed
// numbers, false booleans kept, arrays for multi select, values not labels.
func TestContentCases(t *testing.T) {
	for _, tt := range []struct {
		name   string
		file   string
		filled map[string]any // on top of Defaults(); nil clears a field
		want   string
	}{
		{
			name: "all-kinds, defaults kept",
			file: "all-kinds.json",
			filled: map[string]any{
				"fullName": "Ada Lovelace", "agree": true, "email": "ada@example.com",
				"site": "https://example.com/report", "start": "2025-03-31", "deadline": "2025-04-30T17:00:00Z",
			},
			want: `{"agree":true,"budget":3.14,"channels":["Email"],"copies":42,"deadline":"2025-04-30T17:00:00Z","email":"ada@example.com","format":"fmt-1","fullName":"Ada Lovelace","greeting":"Hello from the team.","regions":["r-1"],"site":"https://example.com/report","start":"2025-03-31","team":"Platform","tier":"tier-1"}`,
		},
		{
			name: "all-kinds, everything changed, optional text left empty",
			file: "all-kinds.json",
			filled: map[string]any{
				"fullName": "Ada", "agree": false, "greeting": nil, "copies": int64(7), "budget": 250.5,
				"team": "Data", "channels": []string{"Chat", "Wiki"}, "tier": "tier-3",
				"regions": []string{"r-2", "r-3"}, "format": "fmt-3",
			},
			want: `{"agree":false,"budget":250.5,"channels":["Chat","Wiki"],"copies":7,"format":"fmt-3","fullName":"Ada","regions":["r-2","r-3"],"team":"Data","tier":"tier-3"}`,
		},
		{
			name:   "five-enums sends values, never labels",
			file:   "five-enums.json",
			filled: map[string]any{"region": "us-east-1", "size": "l", "tags": []string{"bug", "docs"}, "formats": []string{"csv", "json"}},
			want:   `{"color":"Red","formats":["csv","json"],"region":"us-east-1","size":"l","tags":["bug","docs"]}`,
		},
		{
			name: "defaults accepted unchanged",
			file: "defaults.json",
			want: `{"age":30,"name":"Ada Example","score":95.5,"status":"active","verified":true}`,
		},
		{
			name: "false default is sent as false",
			file: "bool-false-default.json",
			want: `{"ok":false}`,
		},
		{
			name:   "integer in range",
			file:   "integer-required.json",
			filled: map[string]any{"scoops": int64(2)},
			want:   `{"scoops":2}`,
		},
		{
			name:   "choice reached through $ref",
			file:   "ref-enum.json",
			filled: map[string]any{"status": "doing"},
			want:   `{"status":"doing"}`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form := mustParse(t, tt.file)
			values := form.Defaults()
			maps.Copy(values, tt.filled)
			content, err := form.Content(values)
			if err != nil {
				t.Fatalf("Content: %v", err)
			}
			if diff := cmp.Diff(tt.want, marshal(t, content)); diff != "" {
				t.Errorf("content mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIntegerRequired checks the integer-required case: submit is refused
// until the user gives a whole number in 1..3, so no empty accept is sent.
func TestIntegerRequired(t *testing.T) {
	form := mustParse(t, "integer-required.json")
	for _, tt := range []struct {
		name    string
		values  map[string]any
		wantMsg string // "" means accepted
		want    string
	}{
		{"nothing filled", map[string]any{}, "is required", ""},
		{"below minimum", map[string]any{"scoops": int64(0)}, "must be at least 1", ""},
		{"above maximum", map[string]any{"scoops": int64(4)}, "must be at most 3", ""},
		{"fraction", map[string]any{"scoops": 2.5}, "must be a whole number", ""},
		{"text", map[string]any{"scoops": "2"}, "must be a whole number", ""},
		{"two", map[string]any{"scoops": int64(2)}, "", `{"scoops":2}`},
		{"two as decoded JSON", map[string]any{"scoops": 2.0}, "", `{"scoops":2}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			content, err := form.Content(tt.values)
			if tt.wantMsg == "" {
				if err != nil {
					t.Fatalf("Content: %v", err)
				}
				if diff := cmp.Diff(tt.want, marshal(t, content)); diff != "" {
					t.Errorf("content mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if !errors.Is(err, elicit.ErrInvalidContent) {
				t.Fatalf("Content = %v, %v; want ErrInvalidContent", content, err)
			}
			fe, ok := errors.AsType[*elicit.FieldError](err)
			if !ok {
				t.Fatalf("Content error %v holds no *FieldError", err)
			}
			if diff := cmp.Diff(elicit.FieldError{Field: "scoops", Label: "scoops", Msg: tt.wantMsg}, *fe); diff != "" {
				t.Errorf("field error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNestedRejected checks that a nested object is answered with a clear
// error naming the property, never rendered or crashed on.
func TestNestedRejected(t *testing.T) {
	form, err := elicit.Parse(caseSchema(t, "nested.json"))
	if !errors.Is(err, elicit.ErrUnsupportedSchema) {
		t.Fatalf("Parse = %v, %v; want ErrUnsupportedSchema", form, err)
	}
	if !strings.Contains(err.Error(), `"address"`) {
		t.Errorf("error %q does not name the property address", err)
	}
	want := `property "address": nested objects are not supported in elicitation forms (MCP allows only flat primitive fields)`
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("message mismatch (-want +got):\n%s", diff)
	}
}
