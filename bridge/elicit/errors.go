package elicit

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnsupportedSchema is wrapped by every error Parse returns: the
// requestedSchema cannot be shown as a form. The wrapper answers it with
// -32602 and a message naming the property (PROTOCOL.md §4, §8), never with
// a crash or a silent decline.
var ErrUnsupportedSchema = errors.New("unsupported requestedSchema")

// ErrInvalidContent is wrapped by every error Content and Normalize return:
// the answer does not fit the requestedSchema, so it must not be sent
// (PROTOCOL.md §5: validate the content against the schema before sending).
// The *FieldError values of the failing fields are wrapped too, in form order.
var ErrInvalidContent = errors.New("content does not fit the requestedSchema")

// SchemaError says why a requestedSchema cannot be rendered. It wraps
// ErrUnsupportedSchema.
type SchemaError struct {
	// Property is the name of the offending property, "" when the problem is
	// the schema as a whole (not an object, unknown $schema dialect…).
	Property string
	// Reason is a sentence fragment a server developer understands, e.g.
	// "nested objects are not supported in elicitation forms (…)".
	Reason string
}

// Error returns `property "address": <reason>`, or
// `requestedSchema: <reason>` when no single property is at fault.
func (e *SchemaError) Error() string {
	if e.Property == "" {
		return "requestedSchema: " + e.Reason
	}
	return fmt.Sprintf("property %q: %s", e.Property, e.Reason)
}

// Unwrap returns ErrUnsupportedSchema, so errors.Is(err, ErrUnsupportedSchema)
// holds for every Parse error.
func (e *SchemaError) Unwrap() error { return ErrUnsupportedSchema }

// FieldError is a value that does not fit its field. The ui shows Msg under
// the field, where the label is already visible; logs use Error, which
// names the field.
type FieldError struct {
	Field string // property name, the key in content
	Label string // the field's Label() when the error was made
	Msg   string // short fragment for a person, e.g. "must be at most 100"
}

// Error returns the label and the message, e.g. "Copies: must be at most 100".
func (e *FieldError) Error() string { return e.Label + ": " + e.Msg }

// contentError is what Content returns when fields fail: every field's
// error at once, so a log line tells the whole story.
type contentError struct {
	fields []error // *FieldError, in form order
}

func (e *contentError) Error() string {
	msgs := make([]string, len(e.fields))
	for i, err := range e.fields {
		msgs[i] = err.Error()
	}
	return ErrInvalidContent.Error() + ": " + strings.Join(msgs, "; ")
}

// Unwrap lets errors.Is find ErrInvalidContent and errors.As find the
// first *FieldError.
func (e *contentError) Unwrap() []error {
	return append([]error{ErrInvalidContent}, e.fields...)
}

// formError is what Content returns when the fields pass one by one but not
// together: too few or too many of them are filled. msg is a sentence
// fragment for a person, e.g. "fill in at least 2 fields".
type formError struct{ msg string }

func (e *formError) Error() string { return ErrInvalidContent.Error() + ": " + e.msg }

func (e *formError) Unwrap() error { return ErrInvalidContent }
