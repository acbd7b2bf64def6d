package elicit

import (
	"encoding/json"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Kind is the widget family a property is rendered with (PROTOCOL.md §4).
type Kind int

// The kinds of PROTOCOL.md §4. The five enum shapes collapse into
// KindSelect and KindMultiSelect, whose Options carry value and label.
const (
	KindString      Kind = iota // type "string", free text, maybe with Format
	KindNumber                  // type "number": json.Number values
	KindInteger                 // type "integer": json.Number values, whole
	KindBoolean                 // type "boolean": bool values
	KindSelect                  // one string from Options
	KindMultiSelect             // a []string of Option values
)

// String returns the kind's name as used in messages, e.g. "integer".
func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindNumber:
		return "number"
	case KindInteger:
		return "integer"
	case KindBoolean:
		return "boolean"
	case KindSelect:
		return "single select"
	case KindMultiSelect:
		return "multi select"
	}
	return "unknown"
}

// Option is one choice of a select field. Value is what is sent (an enum
// value or a const); Label is what the user reads (title, enumNames entry,
// or the value itself when the schema gives no label).
type Option struct {
	Value string
	Label string
}

// Field is one property of a requestedSchema.
//
// Typed values used throughout the package: string for KindString and
// KindSelect, json.Number for KindNumber and KindInteger, bool for
// KindBoolean, []string for KindMultiSelect. A nil value means "not filled".
// A json.Number is the number's JSON text with every digit: what the window
// shows is what the server receives and the history keeps, beyond the 16
// or so digits a float64 holds (see number.go); an integer's is written
// without fraction or exponent.
//
// Check enforces every constraint below, so an answer it accepts is one the
// final check against the schema accepts too.
//
// Format is the schema "format": "email", "uri", "date" and "date-time"
// (PROTOCOL.md §4) are checked by rules a person expects and by the
// validator's; other formats the validator knows ("uuid", "ipv4"…) by the
// validator's; any other ("password") is kept for the ui and not checked.
//
// Pattern is the schema "pattern" (honoured, PROTOCOL.md §4): an ECMA-262
// regular expression, as JSON Schema specifies, that must match somewhere
// in the value. A match that takes too long (100 to 200 ms) counts as no
// match, so a server's pattern cannot freeze the form.
//
// Bounds are the schema's numbers as it wrote them, and compare as exact
// decimals, as the validator does: 0.3 is a multiple of 0.1, and 0.1 is
// 1/10, not the binary fraction nearest it. NumberText shows them.
type Field struct {
	Name        string // property name, the key sent in content
	Title       string // schema "title"; empty when absent
	Description string // schema "description"; empty when absent
	Kind        Kind
	Required    bool   // listed in the schema's "required"
	Format      string // KindString, see above; "" when absent
	Pattern     string // KindString, see above; "" when absent

	MinLength, MaxLength               *int         // KindString; nil when absent
	Minimum, Maximum                   *json.Number // KindNumber and KindInteger, inclusive; nil when absent
	ExclusiveMinimum, ExclusiveMaximum *json.Number // KindNumber and KindInteger, strict; nil when absent
	MultipleOf                         *json.Number // KindNumber and KindInteger, greater than 0; nil when absent
	MinItems, MaxItems                 *int         // KindMultiSelect; nil when absent

	Options []Option // KindSelect and KindMultiSelect, in schema order
	Default any      // typed default (see above), nil when the schema has none

	// DefaultHidden is set by Parse when a KindString default held text a
	// one-line entry does not show: invisible and control characters (see
	// Visible), removed from Default, and line breaks, made spaces. So the
	// default the window shows is the one sent, and the ui says that
	// characters were removed. False for a hand-made Field.
	DefaultHidden bool
	// DefaultRefused says why Parse left out the server's default, which
	// does not fit the field ("must be at most 100"): the field is empty,
	// and the ui says so. "" when there was none or it fits.
	DefaultRefused string

	// Sensitive is set by Parse when the field is typed in (a string,
	// number or integer) and looks like it asks for a secret: a password
	// (in any of some 30 languages), API key, token, PIN, one-time code,
	// payment card, bank account, social security or national id number,
	// security answer, recovery phrase or session cookie (PROTOCOL.md §6
	// forbids servers to ask for them in form mode). The ui masks it and
	// warns; its value is not kept in clear. The word rules are
	// LooksSecret's (sensitive.go), plus "format": "password" and
	// "writeOnly": true; false for a hand-made Field.
	Sensitive bool
}

// Label is the text shown next to the field: its title, else its name.
func (f *Field) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// Prefillable reports whether the field may start with the value the user
// gave the last time the same question was asked: only free text (a
// string with no choices) for which the server set no default, and never a
// secret. A check box, a choice or a server's default opens exactly as the
// server asks, every time, so that no remembered value can turn a keypress
// into a decision the user did not make in the window (docs/remember.md).
// A default Parse refused counts as one the server set. A typed
// confirmation is never pre-filled either: a pattern that admits one text
// only (^orders$), or a field whose title or description asks to type
// something to confirm, exists so that the person types it each time.
func (f *Field) Prefillable() bool {
	return f.Kind == KindString && len(f.Options) == 0 && f.Default == nil && f.DefaultRefused == "" && !f.Sensitive &&
		!literalPattern(f.Pattern) && !asksToConfirm(f.Title) && !asksToConfirm(f.Description)
}

// Echoes reports whether v, text typed into f, is text the question showed
// the person (its message, or f's title or description), ignoring case:
// what a typed confirmation asks them to copy ("Type acme/prod exactly to
// delete it", "输入 orders 以删除"), in any language, which the word
// "confirm" alone missed. Such a value is neither kept nor pre-filled:
// the person types it each time.
func (f *Field) Echoes(v, message string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" {
		return false
	}
	for _, shown := range []string{message, f.Title, f.Description} {
		if strings.Contains(strings.ToLower(shown), v) {
			return true
		}
	}
	return false
}

// literalPattern reports whether pattern admits one text only: anchored at
// both ends, with no operator between.
func literalPattern(pattern string) bool {
	inner, ok := strings.CutPrefix(pattern, "^")
	if inner, ok = strings.CutSuffix(inner, "$"); !ok || inner == "" {
		return false
	}
	return !strings.ContainsAny(inner, `\.[](){}*+?|^$`)
}

// asksToConfirm reports whether text asks the user to type something to
// confirm ("Type the database name to confirm").
func asksToConfirm(text string) bool {
	return strings.Contains(strings.ToLower(text), "confirm")
}

// OptionLabel returns the label of the option whose Value is v, or v itself.
func (f *Field) OptionLabel(v string) string {
	for _, o := range f.Options {
		if o.Value == v {
			return o.Label
		}
	}
	return v
}

// Form is a parsed requestedSchema.
type Form struct {
	// Fields are in the order the properties appear in the schema text,
	// which is the order a person expects to fill them in.
	Fields []Field
	// Schema is the requestedSchema exactly as received; Content's final
	// check validates against it.
	Schema json.RawMessage
	// MinProperties and MaxProperties are the root's "minProperties" and
	// "maxProperties": how many fields an answer may fill, which no single
	// field can show; nil when absent. Content refuses an answer outside
	// them with a sentence such as "fill in at least 2 fields". Parse
	// leaves them nil when every answer fits anyway, counting required
	// fields and booleans (a checkbox has no empty state) as always filled.
	MinProperties, MaxProperties *int

	final *jsonschema.Schema // the compiled Schema, made by Parse; nil for a hand-made Form
}
