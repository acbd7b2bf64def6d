package elicit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

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
// kept even when false, numbers are json.Number (so they marshal as JSON
// numbers with every digit given), multi selects are []string, and keys
// that name no field are dropped.
//
// The values are checked field by field first; if any fails, the error
// wraps ErrInvalidContent and every *FieldError. Then the number of fields
// filled is checked against MinProperties and MaxProperties. Last, the
// content is validated against Schema itself (PROTOCOL.md §5: validate
// before sending) with a JSON Schema validator. For a Form from Parse that
// last check only confirms the others: Parse refuses every keyword the
// fields cannot check. A Schema that does not compile (only possible for a
// Form built by hand) is an error, never a reason to skip the check.
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
	if err := f.checkCount(len(content)); err != nil {
		return nil, err
	}
	if err := f.validateSchema(content); err != nil {
		return nil, err
	}
	return content, nil
}

// Normalize checks content that arrived from elsewhere, typically the hub's
// answer decoded from JSON, where a number is a json.Number (a decoder
// with UseNumber: every digit kept) or a float64 and a list is []any, and
// returns it in the typed form Content produces: a number becomes a
// json.Number, written without fraction or exponent for an integer field,
// []any of strings becomes []string, a JSON null is an unfilled field.
// Errors are as for Content.
//
// It is Content by another name on purpose: the window's values and the
// hub's answer pass one set of checks, so the wrapper never sends what the
// window would have refused.
func (f *Form) Normalize(content map[string]any) (map[string]any, error) {
	return f.Content(content)
}

// checkCount checks how many fields are filled against the root's
// "minProperties" and "maxProperties", which no single field can show.
func (f *Form) checkCount(filled int) error {
	switch {
	case f.MinProperties != nil && filled < *f.MinProperties:
		return &formError{"fill in at least " + plural(*f.MinProperties, "field")}
	case f.MaxProperties != nil && filled > *f.MaxProperties:
		return &formError{"fill in at most " + plural(*f.MaxProperties, "field")}
	}
	return nil
}

// validateSchema validates content against f.Schema, compiled by Parse or,
// for a Form built by hand, on each call.
func (f *Form) validateSchema(content map[string]any) error {
	sch := f.final
	if sch == nil {
		var err error
		if sch, err = compileSchema(f.Schema); err != nil {
			return fmt.Errorf("%w: the requestedSchema cannot be checked: %w", ErrInvalidContent, err)
		}
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

// compileSchema compiles raw for the final check.
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	asEnums(raw, doc) // the same check, compiled in linear time
	return compileDoc(doc)
}

// compileDoc compiles doc, a requestedSchema decoded by
// jsonschema.UnmarshalJSON, for the final check.
func compileDoc(doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	// PROTOCOL.md §4: without $schema the dialect is JSON Schema 2020-12.
	c.DefaultDraft(jsonschema.Draft2020)
	// 2020-12 treats format as a note unless asked; the spec's formats
	// (email, uri, date, date-time) are promises to the server.
	c.AssertFormat()
	// The library's default loader reads file: URLs. A server-sent schema
	// must never make the wrapper read local files or fetch anything.
	c.UseLoader(noLoader{})
	// Patterns are ECMA-262, matched as Field.Check matches them.
	c.UseRegexpEngine(regexpEngine)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// noLoader refuses every external reference.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("external references are not followed")
}

var _ jsonschema.URLLoader = noLoader{}
