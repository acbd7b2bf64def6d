package elicit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/elicitray/elicitray/chars"
)

// Reasons shared by several unrenderable shapes; the wrapper sends them to
// the server in its -32602 error, so they speak to the server's developer.
const (
	reasonNested      = "nested objects are not supported in elicitation forms (MCP allows only flat primitive fields)"
	reasonListObjects = "lists of objects are not supported in elicitation forms (MCP allows only flat primitive fields)"
	reasonKinds       = "MCP elicitation forms allow only string, number, integer and boolean fields and lists of choices"
)

// maxRefDepth bounds how many $ref and allOf hops one property may take. The
// seen-set already stops cycles; this keeps a pathological chain of distinct
// references from recursing for long.
const maxRefDepth = 32

// maxPointerDepth bounds the tokens of one $ref pointer; "#/$defs/Name" has
// two. Each level walked is decoded once, so a deep pointer costs a
// decoding of the document per level.
const maxPointerDepth = 16

// Limits on what one elicitation may ask, so that a hostile or careless
// server cannot freeze the hub: the ui lays out one row per field, and
// builds each choice's label and search key; a long list of choices is
// shown in a scrolling list that makes widgets only for the rows in view
// (ui/choicelist.go), but a short multi select is a checkbox per choice.
// Real forms need room: a form of 400 fields and a select of 5,000
// countries' regions were refused at the earlier caps (issue 10). The ui's
// benchmarks (make bench-ui) measure a form at these limits. Parse refuses
// a schema beyond any of them with a *SchemaError naming the limit.
const (
	// MaxSchemaBytes is the largest requestedSchema accepted, in bytes of
	// JSON text (1 MiB).
	MaxSchemaBytes = 1 << 20
	// MaxFields is the most properties, and so fields, in one form.
	MaxFields = 500
	// MaxSelectOptions is the most choices of one single select.
	MaxSelectOptions = 10000
	// MaxMultiOptions is the most choices of one multi select.
	MaxMultiOptions = 10000
	// MaxFormMultiOptions is the most multi select choices in one form,
	// all fields together: five multi selects at MaxMultiOptions.
	MaxFormMultiOptions = 5 * MaxMultiOptions
)

// Parse turns a form-mode requestedSchema (PROTOCOL.md §4) into a Form whose
// Fields are in the order the properties appear in the JSON text.
//
// Beyond the spec's subset it accepts what real servers send (PROTOCOL.md
// §4, last paragraph): local "$ref" into "$defs" or "definitions" (siblings
// such as title and default override the referenced schema), a one-element
// "allOf", single select written as "anyOf" of {const, title} or as a lone
// "const", a "type" array of one type plus "null", and "enum"/"oneOf"
// without "type" (a string). A default that does not fit its field is
// dropped, not an error: a server's bad default must not make the form
// unusable.
//
// Parse never returns a form the user cannot submit because of a rule the
// form does not show. It refuses every keyword that could refuse an answer
// and that the fields do not check (see Field; "not", "if", "contains",
// "allOf" at the top level…), a "required" name that is not a property,
// choices and limits that leave no valid answer, a "pattern" that is not an
// ECMA-262 regular expression, a schema the final check's validator cannot
// compile, and schemas beyond the limits above.
//
// Every error is a *SchemaError wrapping ErrUnsupportedSchema; it names the
// property at fault when there is one.
func Parse(requestedSchema json.RawMessage) (*Form, error) {
	if n := len(requestedSchema); n > MaxSchemaBytes {
		return nil, &SchemaError{Reason: fmt.Sprintf("is %d bytes long; elicitray accepts at most %d (1 MiB)", n, MaxSchemaBytes)}
	}
	raw := bytes.TrimSpace(requestedSchema)
	if len(raw) == 0 {
		return nil, &SchemaError{Reason: "is missing: a form elicitation needs a requestedSchema"}
	}
	if !json.Valid(raw) {
		return nil, &SchemaError{Reason: "is not valid JSON"}
	}
	var root schemaObject
	if err := json.Unmarshal(raw, &root); err != nil || root == nil {
		return nil, &SchemaError{Reason: `must be a JSON object with "type": "object"`}
	}
	if err := checkDialect(root); err != nil {
		return nil, &SchemaError{Reason: err.Error()}
	}
	if typ, err := root.typeName(); err != nil || (typ != "" && typ != "object") {
		return nil, &SchemaError{Reason: `must have "type": "object"; an elicitation form is a flat object of fields`}
	}
	if err := checkRoot(root); err != nil {
		return nil, err
	}
	required, err := root.required()
	if err != nil {
		return nil, &SchemaError{Reason: err.Error()}
	}
	props, err := orderedProperties(root["properties"])
	if err != nil {
		return nil, err
	}
	if len(props) > MaxFields {
		return nil, &SchemaError{Reason: fmt.Sprintf("has %d properties; elicitray shows at most %d", len(props), MaxFields)}
	}

	r := newResolver(raw)
	form := &Form{
		Fields: make([]Field, 0, len(props)),
		// A copy: the caller may reuse its buffer, and Content validates
		// against these bytes later.
		Schema: append(json.RawMessage(nil), raw...),
	}
	defined := make(map[string]bool, len(props))
	for _, p := range props {
		defined[p.name] = true
	}
	isRequired := make(map[string]bool, len(required))
	for _, name := range required {
		// A required name that is no field could never be sent.
		if !defined[name] {
			return nil, &SchemaError{Reason: fmt.Sprintf("property %q is required but not defined", name)}
		}
		isRequired[name] = true
	}
	multiOptions := 0
	for _, p := range props {
		fld, err := r.field(p.name, p.raw, isRequired[p.name])
		if err != nil {
			return nil, &SchemaError{Property: p.name, Reason: err.Error()}
		}
		if fld.Kind == KindMultiSelect {
			multiOptions += len(fld.Options)
		}
		form.Fields = append(form.Fields, fld)
	}
	if multiOptions > MaxFormMultiOptions {
		return nil, &SchemaError{Reason: fmt.Sprintf("has %d multi select choices in all; elicitray shows at most %d in one form", multiOptions, MaxFormMultiOptions)}
	}
	if err := form.propertyCounts(root); err != nil {
		return nil, &SchemaError{Reason: err.Error()}
	}
	// The final check must run on every answer (PROTOCOL.md §5), so a
	// schema the validator cannot compile is refused now, not skipped later.
	if form.final, err = compileSchema(form.Schema); err != nil {
		return nil, &SchemaError{Reason: compileReason(err)}
	}
	return form, nil
}

// propertyCounts reads the root's "minProperties" and "maxProperties". A
// bound that every answer meets is dropped; one that no answer can meet
// is refused. Required fields are always filled, and so are booleans: a
// checkbox has no empty state.
func (f *Form) propertyCounts(root schemaObject) error {
	lo, err := root.count("minProperties")
	if err != nil {
		return err
	}
	hi, err := root.count("maxProperties")
	if err != nil {
		return err
	}
	always := 0
	for _, fld := range f.Fields {
		if fld.Required || fld.Kind == KindBoolean {
			always++
		}
	}
	if lo != nil && *lo > len(f.Fields) {
		return fmt.Errorf(`"minProperties" asks for %s but the form has only %s`, plural(*lo, "field"), plural(len(f.Fields), "field"))
	}
	if hi != nil && *hi < always {
		return fmt.Errorf(`"maxProperties" allows %s but %d are always filled (required fields and checkboxes)`, plural(*hi, "field"), always)
	}
	if lo != nil && *lo > always {
		f.MinProperties = lo
	}
	if hi != nil && *hi < len(f.Fields) {
		f.MaxProperties = hi
	}
	return nil
}

// compileReason is a one-line reason for a schema the validator refuses.
func compileReason(err error) string {
	if le, ok := errors.AsType[*jsonschema.LoadURLError](err); ok {
		return fmt.Sprintf("$ref %q is not supported: only references inside the schema, such as \"#/$defs/Name\", can be followed", le.URL)
	}
	// The validator's detail is a tree, one line per level; the last line
	// is the innermost cause.
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	last := strings.TrimPrefix(strings.TrimSpace(lines[len(lines)-1]), "- ")
	return "is not a valid JSON Schema: " + strings.ReplaceAll(last, schemaURL, "requestedSchema")
}

// checkDialect accepts the dialects PROTOCOL.md §4 allows: none (2020-12),
// 2020-12 and draft-07, each with or without the trailing "#".
func checkDialect(root schemaObject) error {
	s, err := root.str("$schema")
	if err != nil {
		return err
	}
	switch strings.TrimSuffix(s, "#") {
	case "", "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema":
		return nil
	}
	return fmt.Errorf("$schema %q is not supported; use JSON Schema 2020-12 (the default) or draft-07", s)
}

// property is one entry of "properties", kept in document order.
type property struct {
	name string
	raw  json.RawMessage
}

// orderedProperties walks "properties" token by token because a Go map
// forgets the order, and the order the server wrote is the order a person
// expects to fill the form in.
func orderedProperties(raw json.RawMessage) ([]property, error) {
	if len(raw) == 0 {
		return nil, nil // no fields: a plain confirmation
	}
	notObject := &SchemaError{Reason: `"properties" must be an object`}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, notObject
	}
	var props []property
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notObject
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, notObject
		}
		// Two fields with one key could not both be sent, and decoders
		// disagree about which one wins.
		if seen[name] {
			return nil, &SchemaError{Property: name, Reason: "appears twice in properties"}
		}
		seen[name] = true
		props = append(props, property{name, v})
	}
	return props, nil
}

// schemaObject is one JSON Schema object with its keywords still raw, so
// each keyword is decoded with the type the spec gives it.
type schemaObject map[string]json.RawMessage

// has reports whether keyword k is present and not null.
func (o schemaObject) has(k string) bool {
	v, ok := o[k]
	return ok && string(v) != "null"
}

// text returns keyword k if it is a string, else "". Used for title and
// description, which only decorate the form: a wrong type there is no
// reason to refuse it.
func (o schemaObject) text(k string) string {
	s, _ := o.str(k)
	return s
}

// str returns keyword k as a string, "" when absent.
func (o schemaObject) str(k string) (string, error) {
	if !o.has(k) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(o[k], &s); err != nil {
		return "", fmt.Errorf("%q must be a string", k)
	}
	return s, nil
}

// number returns keyword k as a number, nil when absent.
func (o schemaObject) number(k string) (*float64, error) {
	if !o.has(k) {
		return nil, nil
	}
	var f float64
	if err := json.Unmarshal(o[k], &f); err != nil {
		return nil, fmt.Errorf("%q must be a number", k)
	}
	return &f, nil
}

// count returns keyword k as a non-negative whole number, nil when absent.
// Counts beyond any real string or list are clamped rather than refused.
func (o schemaObject) count(k string) (*int, error) {
	f, err := o.number(k)
	if err != nil || f == nil {
		return nil, err
	}
	if *f < 0 || *f != math.Trunc(*f) {
		return nil, fmt.Errorf("%q must be a whole number of at least 0", k)
	}
	n := int(min(*f, math.MaxInt32))
	return &n, nil
}

// required returns the root's "required" list.
func (o schemaObject) required() ([]string, error) {
	if !o.has("required") {
		return nil, nil
	}
	var names []string
	if err := json.Unmarshal(o["required"], &names); err != nil {
		return nil, errors.New(`"required" must be a list of property names`)
	}
	return names, nil
}

// bound returns keyword k as the number the schema wrote, every digit kept,
// nil when absent: the validator compares the exact decimal, and a bound
// rounded here would let through, or refuse, what it does not. A bound
// beyond MaxNumberDigits is refused.
func (o schemaObject) bound(k string) (*json.Number, error) {
	if !o.has(k) {
		return nil, nil
	}
	text := string(bytes.TrimSpace(o[k]))
	n, _, msg := readNumber(text, false)
	switch {
	case msg == msgNumber:
		return nil, fmt.Errorf("%q must be a number", k)
	case msg != "":
		return nil, fmt.Errorf("%q %s has more digits than elicitray can check (at most %d before and after the decimal point)", k, chars.Cut(text, 40), MaxNumberDigits)
	}
	return &n, nil
}

// typeName returns "type", "" when absent. A list of one type plus "null"
// (what generators write for optional fields) counts as that type: an
// unfilled optional field is omitted, never sent as null (PROTOCOL.md §5).
func (o schemaObject) typeName() (string, error) {
	if !o.has("type") {
		return "", nil
	}
	var s string
	if json.Unmarshal(o["type"], &s) == nil {
		return s, nil
	}
	var list []string
	if err := json.Unmarshal(o["type"], &list); err != nil {
		return "", errors.New(`"type" must be a string`)
	}
	list = slices.DeleteFunc(list, func(t string) bool { return t == "null" })
	if len(list) != 1 {
		return "", fmt.Errorf(`"type" lists %d types; %s, one type each`, len(list), reasonKinds)
	}
	return list[0], nil
}

// resolver follows local references within one requestedSchema. It
// remembers what it decoded: a schema whose thousands of properties all
// point at one definition must cost one decoding of that definition, not
// one of the whole document per property.
type resolver struct {
	root     json.RawMessage
	children map[string]map[string]json.RawMessage // pointer → its members; arrays by index
	resolved map[string]schemaObject               // $ref → the object it resolves to
	matching time.Duration                         // spent matching values against patterns
}

func newResolver(root json.RawMessage) *resolver {
	return &resolver{
		root:     root,
		children: make(map[string]map[string]json.RawMessage),
		resolved: make(map[string]schemaObject),
	}
}

// object decodes the schema object raw and merges in what its "$ref" and a
// one-element "allOf" point to; the object's own keywords win, which is how
// generators use them ({"$ref": …, "default": …}). Only references inside
// the document are followed: fetching a URL the server names would be a
// network request, or a file read, on the server's say-so.
func (r *resolver) object(raw json.RawMessage, seen []string) (schemaObject, error) {
	var obj schemaObject
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, errors.New("its schema must be a JSON object")
	}
	if _, ok := obj["$id"]; ok {
		// An $id starts a new base for the references under it, which
		// this resolver, reading pointers from the root, would not honour
		// while the validator does.
		return nil, errors.New(`"$id" inside the schema is not supported; only the top level may have one`)
	}
	if obj.has("$ref") {
		ref, err := obj.str("$ref")
		if err != nil {
			return nil, err
		}
		base, err := r.ref(ref, seen)
		if err != nil {
			return nil, err
		}
		delete(obj, "$ref")
		if obj, err = mergeChecked(base, obj); err != nil {
			return nil, err
		}
	}
	if obj.has("allOf") {
		var all []json.RawMessage
		if err := json.Unmarshal(obj["allOf"], &all); err != nil || len(all) != 1 {
			return nil, errors.New(`"allOf" is supported only with a single schema (as generators write a $ref with a default)`)
		}
		if len(seen) >= maxRefDepth {
			return nil, errors.New(`"allOf" nests too deeply`)
		}
		// The depth marker keeps allOf chains bounded like $ref chains.
		base, err := r.object(all[0], append(slices.Clip(seen), ""))
		if err != nil {
			return nil, err
		}
		delete(obj, "allOf")
		if obj, err = mergeChecked(base, obj); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// ref returns the object ref resolves to, with its own references merged.
// Only successes are remembered: a cycle is an error on every path to it.
func (r *resolver) ref(ref string, seen []string) (schemaObject, error) {
	if obj, ok := r.resolved[ref]; ok {
		return obj, nil
	}
	if slices.Contains(seen, ref) {
		return nil, fmt.Errorf("$ref %q refers back to itself", ref)
	}
	if len(seen) >= maxRefDepth {
		return nil, fmt.Errorf("$ref %q: references nest too deeply", ref)
	}
	target, err := r.pointer(ref)
	if err != nil {
		return nil, err
	}
	obj, err := r.object(target, append(slices.Clip(seen), ref))
	if err != nil {
		return nil, err
	}
	r.resolved[ref] = obj // shared: merge copies, nothing writes to it
	return obj, nil
}

// merge returns base overlaid with over.
func merge(base, over schemaObject) schemaObject {
	out := make(schemaObject, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// pointer resolves a local reference "#/json/pointer" (RFC 6901, in URI
// fragment form) against the schema root, e.g. "#/$defs/Status".
func (r *resolver) pointer(ref string) (json.RawMessage, error) {
	frag, local := strings.CutPrefix(ref, "#")
	if !local || (frag != "" && !strings.HasPrefix(frag, "/")) {
		return nil, fmt.Errorf(`$ref %q is not supported: only references inside the schema, such as "#/$defs/Name", can be followed`, ref)
	}
	unresolved := fmt.Errorf("$ref %q does not point to anything in the schema", ref)
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, unresolved
	}
	if frag == "" {
		return r.root, nil
	}
	toks := strings.Split(frag[1:], "/")
	if len(toks) > maxPointerDepth {
		return nil, fmt.Errorf("$ref %q points too deep into the schema", ref)
	}
	cur, path := r.root, ""
	for _, tok := range toks {
		kids, ok := r.children[path]
		if !ok {
			kids = members(cur)
			r.children[path] = kids
		}
		if cur, ok = kids[tok]; !ok {
			return nil, unresolved
		}
		path += "/" + tok // still escaped, so distinct members stay distinct
	}
	return cur, nil
}

// members decodes a JSON object or array into its members, with array
// elements under their decimal index; a scalar has none. Member names are
// the pointer tokens that reach them, escaped as RFC 6901 requires
// ("~0" for "~", "~1" for "/").
func members(raw json.RawMessage) map[string]json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		out := make(map[string]json.RawMessage, len(obj))
		for k, v := range obj {
			out[pointerEscaper.Replace(k)] = v
		}
		return out
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(arr))
	for i, v := range arr {
		out[strconv.Itoa(i)] = v
	}
	return out
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// field builds the Field for one property (PROTOCOL.md §4 table). Its
// errors are reasons; Parse adds the property name.
func (r *resolver) field(name string, raw json.RawMessage, required bool) (Field, error) {
	fld := Field{Name: name, Required: required}
	obj, err := r.object(raw, nil)
	if err != nil {
		return fld, err
	}
	fld.Title = obj.text("title")
	fld.Description = obj.text("description")

	typ, err := obj.typeName()
	if err != nil {
		return fld, err
	}
	if typ == "" {
		if !hasChoices(obj) {
			if obj.has("properties") {
				return fld, errors.New(reasonNested)
			}
			return fld, errors.New(`has no "type"; ` + reasonKinds)
		}
		typ = "string" // choices without a type: their values are strings
	}

	switch typ {
	case "string":
		err = r.stringField(&fld, obj)
	case "number", "integer":
		err = numberField(&fld, obj, typ)
	case "boolean":
		fld.Kind = KindBoolean
		err = checkKeywords(obj, KindBoolean, booleanModels, "true/false fields")
	case "array":
		err = r.multiField(&fld, obj)
	case "object":
		err = errors.New(reasonNested)
	default:
		err = fmt.Errorf("type %q is not supported; %s", typ, reasonKinds)
	}
	if err != nil {
		return fld, err
	}
	fld.Sensitive = isSensitive(&fld, obj) // PROTOCOL.md §6, see sensitive.go

	// PROTOCOL.md §4: clients SHOULD pre-fill defaults. Lenient on purpose:
	// a default that does not fit is dropped and the field renders empty.
	if obj.has("default") {
		dec := json.NewDecoder(bytes.NewReader(obj["default"]))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			if typed, msg := fld.coerce(v); msg == "" {
				if s, ok := typed.(string); ok && fld.Kind == KindString {
					typed, fld.DefaultHidden = entryText(s)
				}
				msg, err := r.check(&fld, typed)
				if err != nil {
					return fld, err
				}
				if msg == "" {
					fld.Default = typed
				} else {
					fld.DefaultRefused = msg
				}
			} else {
				fld.DefaultRefused = msg
			}
		}
	}
	return fld, nil
}

// reasonSlowPatterns refuses a schema whose own values (defaults, choices)
// take more than parsePatternBudget to match against its patterns.
const reasonSlowPatterns = `its "pattern" takes too long to check against its defaults and choices`

// check runs fld's checks on a value the schema itself gives (a default, a
// choice), counting the time its pattern takes against parsePatternBudget.
func (r *resolver) check(fld *Field, v any) (string, error) {
	if s, ok := v.(string); ok && fld.Kind == KindString && fld.Pattern != "" {
		if r.matching > parsePatternBudget {
			return "", errors.New(reasonSlowPatterns)
		}
		_, cost := matchCost(fld.Pattern, s) // the check below reuses it
		r.matching += cost
	}
	return fld.check(v), nil
}

// hasChoices reports whether obj lists choices. "const" counts even when
// null: the validator would then accept only null, never a string.
func hasChoices(obj schemaObject) bool {
	_, isConst := obj["const"]
	return isConst || obj.has("enum") || obj.has("oneOf") || obj.has("anyOf")
}

// stringField fills a free-text field or, when the schema lists choices, a
// single select.
func (r *resolver) stringField(fld *Field, obj schemaObject) error {
	opts, ok, err := r.choices(obj)
	if err != nil {
		return err
	}
	if !ok {
		fld.Kind = KindString
		if err := checkKeywords(obj, KindString, stringModels, "text fields"); err != nil {
			return err
		}
		return stringRules(fld, obj)
	}
	if len(opts) > MaxSelectOptions {
		return fmt.Errorf("offers %d choices; elicitray shows at most %d in a single select", len(opts), MaxSelectOptions)
	}
	fld.Kind, fld.Options = KindSelect, opts
	if err := checkKeywords(obj, KindSelect, selectModels, "single selects"); err != nil {
		return err
	}
	return r.checkOptions(obj, opts)
}

// stringRules reads the rules of free text: format, pattern, minLength and
// maxLength.
func stringRules(fld *Field, obj schemaObject) error {
	var err error
	if fld.Format, err = obj.str("format"); err != nil {
		return err
	}
	if fld.Pattern, err = obj.str("pattern"); err != nil {
		return err
	}
	if fld.Pattern != "" {
		// An ECMA-262 pattern (JSON Schema 2020-12 core §6.4); one that
		// does not compile could not be checked, here or by the validator.
		if _, err := compilePattern(fld.Pattern); err != nil {
			return fmt.Errorf(`"pattern" %q is not a regular expression elicitray can check: %v`, fld.Pattern, err)
		}
	}
	if fld.MinLength, err = obj.count("minLength"); err != nil {
		return err
	}
	if fld.MaxLength, err = obj.count("maxLength"); err != nil {
		return err
	}
	if fld.MinLength != nil && fld.MaxLength != nil && *fld.MinLength > *fld.MaxLength {
		return fmt.Errorf(`"minLength" %d is more than "maxLength" %d, so no text fits`, *fld.MinLength, *fld.MaxLength)
	}
	return nil
}

// checkOptions refuses a choice that breaks the schema's own text rules
// (minLength, pattern, format…) beside the choices: the validator applies
// them to the chosen value, so picking it could never be sent.
func (r *resolver) checkOptions(obj schemaObject, opts []Option) error {
	rules := Field{Kind: KindString}
	if err := stringRules(&rules, obj); err != nil {
		return err
	}
	if rules.Format == "" && rules.Pattern == "" && rules.MinLength == nil && rules.MaxLength == nil {
		return nil
	}
	for _, o := range opts {
		msg, err := r.check(&rules, o.Value)
		if err != nil {
			return err
		}
		if msg != "" {
			return fmt.Errorf("choice %q breaks the field's own rule (%s), so it could never be sent", o.Value, msg)
		}
	}
	return nil
}

// numberField fills a number or integer field.
func numberField(fld *Field, obj schemaObject, typ string) error {
	fld.Kind = KindNumber
	what := "number fields"
	if typ == "integer" {
		fld.Kind, what = KindInteger, "integer fields"
	}
	if hasChoices(obj) {
		return errors.New("choices of numbers are not supported; MCP choice fields are strings")
	}
	if err := checkKeywords(obj, fld.Kind, numberModels, what); err != nil {
		return err
	}
	for _, b := range []struct {
		kw  string
		dst **json.Number
	}{
		{"minimum", &fld.Minimum},
		{"maximum", &fld.Maximum},
		{"exclusiveMinimum", &fld.ExclusiveMinimum},
		{"exclusiveMaximum", &fld.ExclusiveMaximum},
		{"multipleOf", &fld.MultipleOf},
	} {
		var err error
		if *b.dst, err = obj.bound(b.kw); err != nil {
			return err
		}
	}
	if fld.MultipleOf != nil && exact(*fld.MultipleOf).Sign() <= 0 {
		return errors.New(`"multipleOf" must be greater than 0`)
	}
	if fld.noNumberFits() {
		if fld.Kind == KindInteger {
			return errors.New("no whole number fits between its minimum and maximum")
		}
		return errors.New("no number fits between its minimum and maximum")
	}
	return nil
}

// noNumberFits reports whether the bounds leave no value at all, comparing
// exact decimals. Integers have no bound of their own: JSON has none.
func (fld *Field) noNumberFits() bool {
	var lo, hi *big.Rat
	var loOpen, hiOpen bool
	if fld.Minimum != nil {
		lo = exact(*fld.Minimum)
	}
	if m := fld.ExclusiveMinimum; m != nil {
		if x := exact(*m); lo == nil || x.Cmp(lo) >= 0 {
			lo, loOpen = x, true
		}
	}
	if fld.Maximum != nil {
		hi = exact(*fld.Maximum)
	}
	if m := fld.ExclusiveMaximum; m != nil {
		if x := exact(*m); hi == nil || x.Cmp(hi) <= 0 {
			hi, hiOpen = x, true
		}
	}
	if lo == nil || hi == nil {
		return false
	}
	if fld.Kind != KindInteger {
		c := lo.Cmp(hi)
		return c > 0 || (c == 0 && (loOpen || hiOpen))
	}
	// The least and the greatest whole number within the bounds.
	first := floor(lo)
	if loOpen || !lo.IsInt() {
		first.Add(first, big.NewInt(1))
	}
	last := floor(hi)
	if hiOpen && hi.IsInt() {
		last.Sub(last, big.NewInt(1))
	}
	return first.Cmp(last) > 0
}

// floor is the greatest integer not above r.
func floor(r *big.Rat) *big.Int {
	// Euclidean division, and a Rat's denominator is positive: a floor.
	return new(big.Int).Div(r.Num(), r.Denom())
}

// multiField fills a multi select: an array whose items are string choices.
// PROTOCOL.md §4 allows no other array.
func (r *resolver) multiField(fld *Field, obj schemaObject) error {
	if !obj.has("items") {
		return errors.New(`lists need "items" listing the choices; MCP allows lists only as multiple choice`)
	}
	items, err := r.object(obj["items"], nil)
	if err != nil {
		return fmt.Errorf("items: %w", err)
	}
	typ, err := items.typeName()
	if err != nil {
		return fmt.Errorf("items: %w", err)
	}
	switch {
	case typ == "object" || (typ == "" && items.has("properties")):
		return errors.New(reasonListObjects)
	case typ != "" && typ != "string":
		return fmt.Errorf("lists of %s values are not supported; MCP allows lists only as multiple choice of strings", typ)
	}
	opts, ok, err := r.choices(items)
	if err != nil {
		return fmt.Errorf("items: %w", err)
	}
	if !ok {
		return errors.New(`lists of free text are not supported; MCP allows lists only as multiple choice ("items" with "enum" or "anyOf")`)
	}
	if len(opts) > MaxMultiOptions {
		return fmt.Errorf("offers %d choices; elicitray shows at most %d in a multi select", len(opts), MaxMultiOptions)
	}
	fld.Kind, fld.Options = KindMultiSelect, opts
	if err := checkKeywords(items, KindSelect, selectModels, "the items of multi selects"); err != nil {
		return err
	}
	if err := r.checkOptions(items, opts); err != nil {
		return fmt.Errorf("items: %w", err)
	}
	if err := checkKeywords(obj, KindMultiSelect, multiModels, "multi selects"); err != nil {
		return err
	}
	if fld.MinItems, err = obj.count("minItems"); err != nil {
		return err
	}
	if fld.MaxItems, err = obj.count("maxItems"); err != nil {
		return err
	}
	// Each choice can be chosen once, and the form cannot send an empty
	// list: no ticks is no answer.
	switch {
	case fld.MinItems != nil && fld.MaxItems != nil && *fld.MinItems > *fld.MaxItems:
		return fmt.Errorf(`"minItems" %d is more than "maxItems" %d, so no list fits`, *fld.MinItems, *fld.MaxItems)
	case fld.MinItems != nil && *fld.MinItems > len(opts):
		return fmt.Errorf(`"minItems" %d is more than the %s offered`, *fld.MinItems, plural(len(opts), "choice"))
	case fld.MaxItems != nil && *fld.MaxItems == 0:
		return errors.New(`"maxItems" is 0, so nothing could be chosen`)
	}
	return nil
}

// choices returns the options of a select, in schema order, and whether the
// schema lists any: "enum" (with the legacy "enumNames" labels), "oneOf" or
// "anyOf" of {const, title}, or a lone "const". A schema giving two of them
// is refused: the validator would apply both, the form can show one.
func (r *resolver) choices(obj schemaObject) ([]Option, bool, error) {
	var kws []string
	for _, kw := range []string{"enum", "oneOf", "anyOf"} {
		if obj.has(kw) {
			kws = append(kws, kw)
		}
	}
	if _, ok := obj["const"]; ok {
		kws = append(kws, "const")
	}
	switch len(kws) {
	case 0:
		return nil, false, nil
	case 1:
	default:
		return nil, true, fmt.Errorf("gives its choices twice, as %q and as %q; give them once", kws[0], kws[1])
	}
	var opts []Option
	var err error
	switch kw := kws[0]; kw {
	case "enum":
		opts, err = enumChoices(obj["enum"], obj["enumNames"])
	case "const":
		var v string
		if string(obj["const"]) == "null" || json.Unmarshal(obj["const"], &v) != nil {
			return nil, true, errors.New(`"const" must be a string; MCP choice fields send text`)
		}
		opts = []Option{{Value: v, Label: v}}
	default:
		opts, err = r.constChoices(kw, obj[kw])
	}
	return opts, true, err
}

// constChoices reads [{"const": value, "title": label}, …].
func (r *resolver) constChoices(kw string, raw json.RawMessage) ([]Option, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf(`%q must be a list of {"const", "title"} choices`, kw)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%q offers no choices", kw)
	}
	opts := make([]Option, 0, len(list))
	seen := make(map[string]bool, len(list))
	for _, el := range list {
		obj, err := r.object(el, nil)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", kw, err)
		}
		var value string
		if !obj.has("const") || json.Unmarshal(obj["const"], &value) != nil {
			return nil, fmt.Errorf(`each %q choice needs a string "const" (MCP titled choices are {"const", "title"})`, kw)
		}
		// The validator applies the whole choice, not only its const.
		if typ, err := obj.typeName(); err != nil || (typ != "" && typ != "string") {
			return nil, fmt.Errorf(`each %q choice must be of "type" "string"`, kw)
		}
		if err := checkKeywords(obj, KindSelect, choiceModels, fmt.Sprintf("%q choices", kw)); err != nil {
			return nil, err
		}
		if seen[value] {
			// Under oneOf the value would match two choices, which
			// oneOf refuses; under anyOf the copy only clutters.
			if kw == "oneOf" {
				return nil, fmt.Errorf(`"oneOf" offers %q twice, so choosing it would be refused`, value)
			}
			continue
		}
		seen[value] = true
		opts = append(opts, Option{Value: value, Label: cmp.Or(obj.text("title"), value)})
	}
	return opts, nil
}

// enumChoices reads "enum" and, for the deprecated legacy titled select
// (PROTOCOL.md §4), the parallel "enumNames" labels. enumNames that do not
// line up with enum are ignored: the values alone still make a usable form.
// A value listed twice is shown once.
func enumChoices(raw, namesRaw json.RawMessage) ([]Option, error) {
	var values []json.RawMessage
	if err := json.Unmarshal(raw, &values); err != nil {
		return nil, errors.New(`"enum" must be a list`)
	}
	if len(values) == 0 {
		return nil, errors.New(`"enum" offers no choices`)
	}
	var names []string
	if json.Unmarshal(namesRaw, &names) != nil || len(names) != len(values) {
		names = nil
	}
	opts := make([]Option, 0, len(values))
	seen := make(map[string]bool, len(values))
	for i, v := range values {
		var o Option
		if string(v) == "null" || json.Unmarshal(v, &o.Value) != nil {
			return nil, errors.New(`"enum" values must all be strings; MCP choice fields send text`)
		}
		if seen[o.Value] {
			continue
		}
		seen[o.Value] = true
		o.Label = o.Value
		if names != nil && names[i] != "" {
			o.Label = names[i]
		}
		opts = append(opts, o)
	}
	return opts, nil
}
