// Package elicit is the elicitation model: it turns a form-mode requestedSchema
// (PROTOCOL.md §4) into typed fields, pre-fills their defaults, checks and
// coerces what the user typed, and builds the content of an ElicitResult
// (PROTOCOL.md §5) that is valid against the schema.
//
// The package is pure: no goroutines, no I/O, no Fyne. The wrapper uses it to
// reject unrenderable schemas with -32602 before anyone sees a window and to
// check answers before they are sent; the hub's ui builds its form from it.
//
// The flow of one form:
//
//	form, err := elicit.Parse(params.RequestedSchema) // *SchemaError: answer -32602
//	values := form.Defaults()                          // pre-fill the widgets
//	v, err := fld.ParseText(entry.Text)                // per text entry; nil = unfilled
//	errs := form.Validate(values)                      // messages under the fields
//	content, err := form.Content(values)               // what accept sends
//	content, err = form.Normalize(decoded)             // the same, for JSON from the hub
//
// Parse accepts a little more than the spec's subset because real servers
// send it (local $ref, anyOf single select, legacy enumNames) and refuses
// the rest with a message naming the property. It never follows a reference
// outside the schema, and neither does Content's final check with the JSON
// Schema validator: a server-sent schema must not make elicitray read files
// or fetch URLs. A Form is safe for concurrent use once Parse returns it.
//
// The one rule: a window never shows a form the user cannot submit. Every
// keyword that could refuse an answer is either checked by Field.Check,
// whose messages the ui shows under the field, or refused by Parse; the
// final check then only confirms. Patterns are ECMA-262, as JSON Schema
// says, matched with github.com/dlclark/regexp2 in both checks; its timeout
// clock runs in a goroutine of its own while a match is in progress. Size
// limits (MaxFields and the others) keep one elicitation from freezing the
// hub's window.
package elicit
