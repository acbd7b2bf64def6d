package elicit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Defaults returns each field's typed default by property name, for
// pre-filling the form (PROTOCOL.md §4: clients SHOULD pre-fill defaults).
// Fields without a default are absent. Lists are copies: editing them does
// not change the Form.
func (f *Form) Defaults() map[string]any {
	out := make(map[string]any)
	for _, fld := range f.Fields {
		switch d := fld.Default.(type) {
		case nil:
		case []string:
			out[fld.Name] = slices.Clone(d)
		default:
			out[fld.Name] = d
		}
	}
	return out
}

// Validate checks values (property name → value, see Field for the types)
// field by field and returns the errors, each a *FieldError, by property
// name. A nil map means every field is fine. Keys that name no field are
// ignored; Content drops them.
func (f *Form) Validate(values map[string]any) map[string]error {
	var errs map[string]error
	for i := range f.Fields {
		fld := &f.Fields[i]
		if _, err := fld.value(values[fld.Name]); err != nil {
			if errs == nil {
				errs = make(map[string]error)
			}
			errs[fld.Name] = err
		}
	}
	return errs
}

// Content builds the content of an accept ElicitResult (PROTOCOL.md §5)
// from the form's values: unfilled optional fields are omitted, booleans are
// kept even when false, numbers are int64 or float64 (so they marshal as
// JSON numbers), multi selects are []string, and keys that name no field
// are dropped.
//
// The values are checked field by field first; if any fails, the error
// wraps ErrInvalidContent and every *FieldError. The content is then
// validated against Schema itself (PROTOCOL.md §5: validate before sending)
// with a JSON Schema validator, which also enforces keywords the form does
// not model (exclusiveMaximum, multipleOf, additionalProperties…). A schema
// that Parse accepted but the validator cannot compile (a remote $ref
// somewhere unused, a pattern Go's regexp rejects…) skips this final check
// rather than leave the user unable to answer: the field checks still ran.
func (f *Form) Content(values map[string]any) (map[string]any, error) {
	content := make(map[string]any, len(f.Fields))
	var failed []error
	for i := range f.Fields {
		fld := &f.Fields[i]
		v, err := fld.value(values[fld.Name])
		if err != nil {
			failed = append(failed, err)
			continue
		}
		if v != nil {
			content[fld.Name] = v
		}
	}
	if failed != nil {
		return nil, &contentError{fields: failed}
	}
	if err := f.validateSchema(content); err != nil {
		return nil, err
	}
	return content, nil
}

// Normalize checks content that arrived from elsewhere, typically the hub's
// answer decoded from JSON where every number is a float64 and a list is
// []any, and returns it in the typed form Content produces: a whole float64
// becomes int64 for an integer field, []any of strings becomes []string, a
// JSON null is an unfilled field. Errors are as for Content.
//
// It is Content by another name on purpose: the window's values and the
// hub's answer pass one set of checks, so the wrapper never sends what the
// window would have refused.
func (f *Form) Normalize(content map[string]any) (map[string]any, error) {
	return f.Content(content)
}

// finalCheck caches the compiled requestedSchema of one Form.
type finalCheck struct {
	once   sync.Once
	schema *jsonschema.Schema // nil when the schema does not compile
}

// validateSchema validates content against f.Schema. Forms from Parse
// compile their schema once; a Form built by hand compiles it on each call.
func (f *Form) validateSchema(content map[string]any) error {
	var sch *jsonschema.Schema
	if f.final != nil {
		f.final.once.Do(func() { f.final.schema = compileSchema(f.Schema) })
		sch = f.final.schema
	} else {
		sch = compileSchema(f.Schema)
	}
	if sch == nil {
		return nil
	}
	// The validator wants its own JSON value form (json.Number for numbers).
	b, err := json.Marshal(content)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidContent, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidContent, err)
	}
	if err := sch.Validate(doc); err != nil {
		return &schemaMismatch{err}
	}
	return nil
}

// schemaMismatch is a final-check failure: content that passed the field
// checks but not the validator.
type schemaMismatch struct{ err error }

// Error keeps the validator's detail on one line, for the log.
func (e *schemaMismatch) Error() string {
	return ErrInvalidContent.Error() + ": " + strings.ReplaceAll(e.err.Error(), "\n", "; ")
}

func (e *schemaMismatch) Unwrap() []error { return []error{ErrInvalidContent, e.err} }

// schemaURL names the requestedSchema inside the validator; nothing is
// ever fetched from it.
const schemaURL = "urn:elicitray:requestedSchema"

// compileSchema compiles raw for the final check, nil if it cannot.
func compileSchema(raw json.RawMessage) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	c := jsonschema.NewCompiler()
	// PROTOCOL.md §4: without $schema the dialect is JSON Schema 2020-12.
	c.DefaultDraft(jsonschema.Draft2020)
	// 2020-12 treats format as a note unless asked; the spec's formats
	// (email, uri, date, date-time) are promises to the server.
	c.AssertFormat()
	// The library's default loader reads file: URLs. A server-sent schema
	// must never make the wrapper read local files or fetch anything.
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil
	}
	return sch
}

// noLoader refuses every external reference.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("external references are not followed")
}

var _ jsonschema.URLLoader = noLoader{}
