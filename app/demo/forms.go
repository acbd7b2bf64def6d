package demo

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// A form is one demo tool: the elicitation it sends and the schema its answer
// is checked against.
type form struct {
	name        string // tool name
	title       string // tool title
	description string // tool description, a user-facing sentence
	message     string // elicitation message
	schema      *jsonschema.Schema
	resolved    *jsonschema.Resolved
	// wire is schema as sent: its properties in form order.
	wire json.RawMessage
}

// forms are the demo's tools, sorted by name. Together they elicit every
// kind of field of PROTOCOL.md §4.
var forms = []*form{
	newForm(
		"choose_tags",
		"Choose tags",
		"Asks you to tag release 1.4.2 with labels and audiences, choosing several of each.",
		"Tag release 1.4.2",
		object([]string{"labels"},
			// Untitled multi select.
			prop("labels", &jsonschema.Schema{
				Type: "array", Title: "Labels", Description: "Pick one or two",
				MinItems: ptr(1), MaxItems: ptr(2),
				Items:   &jsonschema.Schema{Type: "string", Enum: []any{"bug", "feature", "docs", "security"}},
				Default: raw([]string{"feature"}),
			}),
			// Titled multi select: items.anyOf, not oneOf (PROTOCOL.md §4).
			prop("audiences", &jsonschema.Schema{
				Type: "array", Title: "Audiences", Description: "Who should read the release notes",
				MinItems: ptr(1), MaxItems: ptr(3),
				Items: &jsonschema.Schema{AnyOf: titled(
					"dev", "Developers",
					"ops", "Operators",
					"users", "End users",
				)},
			}),
		),
	),
	newForm(
		"confirm_deploy",
		"Confirm deploy",
		"Asks you to confirm deploying build 1.4.2 and to choose its environment.",
		"Deploy build 1.4.2?",
		object([]string{"confirm", "environment"},
			prop("confirm", &jsonschema.Schema{
				Type: "boolean", Title: "Deploy it now, to the environment below?",
				Default: raw(false),
			}),
			// Titled single select.
			prop("environment", &jsonschema.Schema{
				Type: "string", Title: "Environment",
				OneOf: titled(
					"staging", "Staging",
					"production", "Production",
				),
				Default: raw("staging"),
			}),
		),
	),
	newForm(
		"pick_environment",
		"Pick environment",
		"Asks you to pick the environment and region for the next build from two lists.",
		"Where should the next build run?",
		object([]string{"environment"},
			// Untitled single select.
			prop("environment", &jsonschema.Schema{
				Type: "string", Title: "Environment",
				Enum:    []any{"dev", "staging", "production"},
				Default: raw("staging"),
			}),
			// Legacy titled single select: enumNames is outside JSON
			// Schema, so jsonschema-go carries it in Extra (PROTOCOL.md §4).
			prop("region", &jsonschema.Schema{
				Type: "string", Title: "Region", Description: "Data centre that hosts it",
				Enum:  []any{"eu-west-1", "us-east-1", "ap-southeast-2"},
				Extra: map[string]any{"enumNames": []any{"Europe (Ireland)", "US East (Virginia)", "Asia Pacific (Sydney)"}},
			}),
		),
	),
	newForm(
		"profile_form",
		"Profile form",
		"Asks you to fill in a report profile that uses every kind of field a form can hold.",
		"Fill in your profile so the report can be personalised.",
		object([]string{"fullName"},
			prop("fullName", &jsonschema.Schema{
				Type: "string", Title: "Full name", Description: "As it should appear on the report",
				MinLength: ptr(1), MaxLength: ptr(80),
			}),
			prop("greeting", &jsonschema.Schema{
				Type: "string", Title: "Greeting", Description: "Opening line of the report",
				Default: raw("Hello from the team."),
			}),
			prop("email", &jsonschema.Schema{
				Type: "string", Format: "email", Title: "Email", Description: "Where the report is sent",
			}),
			prop("site", &jsonschema.Schema{
				Type: "string", Format: "uri", Title: "Website", Description: "Optional link shown in the footer",
			}),
			prop("start", &jsonschema.Schema{
				Type: "string", Format: "date", Title: "Start date", Description: "First day covered",
			}),
			prop("deadline", &jsonschema.Schema{
				Type: "string", Format: "date-time", Title: "Deadline", Description: "When the report is due",
			}),
			prop("copies", &jsonschema.Schema{
				Type: "integer", Title: "Copies", Description: "How many printed copies",
				Minimum: ptr(1.0), Maximum: ptr(100.0), Default: raw(42),
			}),
			prop("budget", &jsonschema.Schema{
				Type: "number", Title: "Budget (EUR)", Description: "Upper bound",
				Minimum: ptr(0.0), Maximum: ptr(1000.0), Default: raw(3.14),
			}),
			prop("agree", &jsonschema.Schema{
				Type: "boolean", Title: "I accept the terms", Description: "Tick to continue",
			}),
			prop("team", &jsonschema.Schema{
				Type: "string", Title: "Team", Description: "Owning team",
				Enum:    []any{"Platform", "Data", "Mobile", "Web", "Security", "Support"},
				Default: raw("Platform"),
			}),
			prop("tier", &jsonschema.Schema{
				Type: "string", Title: "Tier", Description: "Service tier",
				OneOf: titled(
					"tier-1", "Gold",
					"tier-2", "Silver",
					"tier-3", "Bronze",
				),
				Default: raw("tier-1"),
			}),
			prop("format", &jsonschema.Schema{
				Type: "string", Title: "File format", Description: "Output file type",
				Enum:    []any{"pdf", "docx", "txt"},
				Extra:   map[string]any{"enumNames": []any{"PDF", "Word", "Plain text"}},
				Default: raw("pdf"),
			}),
			prop("channels", &jsonschema.Schema{
				Type: "array", Title: "Channels", Description: "Where to announce it",
				MinItems: ptr(1), MaxItems: ptr(3),
				Items:   &jsonschema.Schema{Type: "string", Enum: []any{"Email", "Chat", "Wiki", "Pager", "SMS"}},
				Default: raw([]string{"Email"}),
			}),
			prop("regions", &jsonschema.Schema{
				Type: "array", Title: "Regions", Description: "Regions included",
				MinItems: ptr(1), MaxItems: ptr(3),
				Items: &jsonschema.Schema{AnyOf: titled(
					"r-1", "Europe",
					"r-2", "Americas",
					"r-3", "Asia-Pacific",
				)},
				Default: raw([]string{"r-1"}),
			}),
		),
	),
}

// newForm builds a form and resolves its schema once, so that every answer
// can be checked against it. It panics on a schema that does not resolve:
// the schemas are constants of this package.
func newForm(name, title, description, message string, schema *jsonschema.Schema) *form {
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("demo tool %q: resolving its requestedSchema: %v", name, err))
	}
	wire, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("demo tool %q: encoding its requestedSchema: %v", name, err))
	}
	return &form{
		name:        name,
		title:       title,
		description: description,
		message:     message,
		schema:      schema,
		resolved:    resolved,
		wire:        wire,
	}
}

// A property is one named field of a requestedSchema.
type property struct {
	name   string
	schema *jsonschema.Schema
}

func prop(name string, schema *jsonschema.Schema) property {
	return property{name, schema}
}

// object returns a flat requestedSchema (PROTOCOL.md §4) whose properties are
// sent in the order given: a dialog lays fields out in wire order, and a Go
// map alone would sort them by name.
func object(required []string, props ...property) *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type:       "object",
		Properties: make(map[string]*jsonschema.Schema, len(props)),
		Required:   required,
	}
	for _, p := range props {
		s.Properties[p.name] = p.schema
		s.PropertyOrder = append(s.PropertyOrder, p.name)
	}
	return s
}

// titled returns the {const, title} options of a titled select from
// alternating const and title strings.
func titled(constTitle ...string) []*jsonschema.Schema {
	var opts []*jsonschema.Schema
	for i := 0; i+1 < len(constTitle); i += 2 {
		var c any = constTitle[i]
		opts = append(opts, &jsonschema.Schema{Const: &c, Title: constTitle[i+1]})
	}
	return opts
}

// raw returns v as a JSON default value.
func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }
