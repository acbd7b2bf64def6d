// Package elicit is the elicitation model: it turns a form-mode requestedSchema
// (PROTOCOL.md §4) into typed fields, pre-fills their defaults, checks and
// coerces what the user typed, and builds the content of an ElicitResult
// (PROTOCOL.md §5) that is valid against the schema.
//
// The package is pure: no goroutines, no I/O, no Fyne. The wrapper uses it to
// reject unrenderable schemas with -32602 before anyone sees a window and to
// check answers before they are sent; the hub's ui builds its form from it.
package elicit
