package elicit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
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

// Parse turns a form-mode requestedSchema (PROTOCOL.md §4) into a Form whose
// Fields are in the order the properties appear in the JSON text.
//
// Beyond the spec's subset it accepts what real servers send (PROTOCOL.md
// §4, last paragraph): local "$ref" into "$defs" or "definitions" (siblings
// such as title and default override the referenced schema), a one-element
// "allOf", single select written as "anyOf" of {const, title}, a "type"
// array of one type plus "null", and "enum"/"oneOf" without "type" (a
// string). A default that does not fit its field is dropped, not an error:
// a server's bad default must not make the form unusable.
//
// Every error is a *SchemaError wrapping ErrUnsupportedSchema; it names the
// property at fault when there is one.
func Parse(requestedSchema json.RawMessage) (*Form, error) {
	raw := bytes.TrimSpace(requestedSchema)
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
	required, err := root.required()
	if err != nil {
		return nil, &SchemaError{Reason: err.Error()}
	}
	props, err := orderedProperties(root["properties"])
	if err != nil {
		return nil, err
	}

	r := newResolver(raw)
	form := &Form{
		Fields: make([]Field, 0, len(props)),
		// A copy: the caller may reuse its buffer, and Content validates
		// against these bytes later.
		Schema: append(json.RawMessage(nil), raw...),
		final:  new(finalCheck),
	}
	for _, p := range props {
		fld, err := r.field(p.name, p.raw, required[p.name])
		if err != nil {
			return nil, &SchemaError{Property: p.name, Reason: err.Error()}
		}
		form.Fields = append(form.Fields, fld)
	}
	return form, nil
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
	if len(raw) == 0 || string(raw) == "null" {
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
func (o schemaObject) required() (map[string]bool, error) {
	if !o.has("required") {
		return nil, nil
	}
	var names []string
	if err := json.Unmarshal(o["required"], &names); err != nil {
		return nil, errors.New(`"required" must be a list of property names`)
	}
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set, nil
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
		obj = merge(base, obj)
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
		obj = merge(base, obj)
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
		if !obj.has("enum") && !obj.has("oneOf") && !obj.has("anyOf") {
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

	// PROTOCOL.md §4: clients SHOULD pre-fill defaults. Lenient on purpose:
	// a default that does not fit is dropped and the field renders empty.
	if obj.has("default") {
		dec := json.NewDecoder(bytes.NewReader(obj["default"]))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			if typed, msg := fld.coerce(v); msg == "" && fld.check(typed) == "" {
				fld.Default = typed
			}
		}
	}
	return fld, nil
}

// stringField fills a free-text field or, when the schema lists choices, a
// single select.
func (r *resolver) stringField(fld *Field, obj schemaObject) error {
	opts, ok, err := r.choices(obj)
	if err != nil {
		return err
	}
	if ok {
		fld.Kind, fld.Options = KindSelect, opts
		return nil
	}
	fld.Kind = KindString
	if fld.Format, err = obj.str("format"); err != nil {
		return err
	}
	if fld.Pattern, err = obj.str("pattern"); err != nil {
		return err
	}
	if fld.MinLength, err = obj.count("minLength"); err != nil {
		return err
	}
	fld.MaxLength, err = obj.count("maxLength")
	return err
}

// numberField fills a number or integer field.
func numberField(fld *Field, obj schemaObject, typ string) error {
	fld.Kind = KindNumber
	if typ == "integer" {
		fld.Kind = KindInteger
	}
	if obj.has("enum") || obj.has("oneOf") || obj.has("anyOf") {
		return errors.New("choices of numbers are not supported; MCP choice fields are strings")
	}
	var err error
	if fld.Minimum, err = obj.number("minimum"); err != nil {
		return err
	}
	fld.Maximum, err = obj.number("maximum")
	return err
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
	fld.Kind, fld.Options = KindMultiSelect, opts
	if fld.MinItems, err = obj.count("minItems"); err != nil {
		return err
	}
	fld.MaxItems, err = obj.count("maxItems")
	return err
}

// choices returns the options of a select, in schema order, and whether the
// schema lists any. Titled forms (oneOf, and anyOf as multi select and some
// servers' single select use) win over enum because they carry labels.
func (r *resolver) choices(obj schemaObject) ([]Option, bool, error) {
	for _, kw := range []string{"oneOf", "anyOf"} {
		if obj.has(kw) {
			opts, err := r.constChoices(kw, obj[kw])
			return opts, true, err
		}
	}
	if obj.has("enum") {
		opts, err := enumChoices(obj["enum"], obj["enumNames"])
		return opts, true, err
	}
	return nil, false, nil
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
	for _, el := range list {
		obj, err := r.object(el, nil)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", kw, err)
		}
		var value string
		if !obj.has("const") || json.Unmarshal(obj["const"], &value) != nil {
			return nil, fmt.Errorf(`each %q choice needs a string "const" (MCP titled choices are {"const", "title"})`, kw)
		}
		opts = append(opts, Option{Value: value, Label: cmp.Or(obj.text("title"), value)})
	}
	return opts, nil
}

// enumChoices reads "enum" and, for the deprecated legacy titled select
// (PROTOCOL.md §4), the parallel "enumNames" labels. enumNames that do not
// line up with enum are ignored: the values alone still make a usable form.
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
	opts := make([]Option, len(values))
	for i, v := range values {
		if string(v) == "null" || json.Unmarshal(v, &opts[i].Value) != nil {
			return nil, errors.New(`"enum" values must all be strings; MCP choice fields send text`)
		}
		opts[i].Label = opts[i].Value
		if names != nil && names[i] != "" {
			opts[i].Label = names[i]
		}
	}
	return opts, nil
}
