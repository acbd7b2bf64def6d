package elicit

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Messages a person reads under a field. They complete the field's label.
const (
	msgRequired    = "is required"
	msgText        = "must be text"
	msgWhole       = "must be a whole number"
	msgNumber      = "must be a number such as 3.14"
	msgBoolean     = "must be true or false"
	msgChoice      = "must be one of the choices"
	msgChoices     = "must be a list of choices"
	msgTooLarge    = "is too large"
	msgTooSmall    = "is too small"
	msgSlowPattern = "takes too long to check against the pattern; try a shorter value"
	msgBadPattern  = "cannot be checked: its pattern is not a valid regular expression"
	layoutDate     = "2006-01-02"
)

// ParseText converts what a person typed into a KindString, KindInteger or
// KindNumber entry into the field's typed value: the string itself, or a
// json.Number with every digit typed. Text that is blank after trimming
// spaces means the field is unfilled and yields nil, nil, so an empty
// optional entry is omitted from content (PROTOCOL.md §5) rather than sent
// as "".
//
// A number typed as JSON writes it ("1.50", "1e400") is kept as typed, so
// the server receives what the entry shows; "+5", ".5" and "007" are sent
// as 5, 0.5 and 7. An integer is any number of whole value ("2.0"), sent
// as its digits (2).
// Numbers beyond MaxNumberDigits are refused.
//
// A conversion error is a *FieldError such as "must be a whole number".
// ParseText does not check the field's constraints; Check does.
func (fld *Field) ParseText(s string) (any, error) {
	switch fld.Kind {
	case KindString, KindInteger, KindNumber:
	default:
		return nil, fmt.Errorf("elicit: %s field %q is not filled in as text", fld.Kind, fld.Name)
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, nil
	}
	switch fld.Kind {
	case KindInteger:
		// JSON Schema counts every number of whole value an integer: "2.0"
		// and "1e3" are sent as 2 and 1000, as a default of 1.0 is.
		_, r, msg := readNumber(t, true)
		switch {
		case msg == msgNumber, msg == "" && !r.IsInt():
			return nil, fld.fail(msgWhole)
		case msg != "":
			return nil, fld.fail(msg)
		}
		return json.Number(r.Num().String()), nil // "-0" is 0, as content sends it
	case KindNumber:
		n, _, msg := readNumber(t, true)
		if msg != "" {
			return nil, fld.fail(msg)
		}
		return n, nil
	}
	return s, nil // typed text is kept as typed, spaces included
}

// Check validates one value against the field and returns a *FieldError,
// or nil when the value may be sent. A nil value is an unfilled field: an
// error only when the field is Required.
//
// v is the field's typed value (see Field); the shapes JSON decoding
// produces are accepted too (json.Number or float64 for numbers, []any for
// lists), as Normalize needs, and so is any Go number.
func (fld *Field) Check(v any) error {
	if _, err := fld.value(v); err != nil {
		return err
	}
	return nil
}

// value returns v in its typed form after checking it, nil for an unfilled
// optional field. The error is always a *FieldError.
func (fld *Field) value(v any) (any, *FieldError) {
	if unfilled(v) {
		if fld.Required {
			return nil, fld.fail(msgRequired)
		}
		return nil, nil
	}
	typed, msg := fld.coerce(v)
	if msg == "" {
		msg = fld.check(typed)
	}
	if msg != "" {
		return nil, fld.fail(msg)
	}
	return typed, nil
}

// unfilled reports whether v means "no answer": nil, or a nil list.
func unfilled(v any) bool {
	switch l := v.(type) {
	case nil:
		return true
	case []string:
		return l == nil
	case []any:
		return l == nil
	}
	return false
}

// fail makes the FieldError for msg.
func (fld *Field) fail(msg string) *FieldError {
	return &FieldError{Field: fld.Name, Label: fld.Label(), Msg: msg}
}

// coerce returns v as the field's typed value, accepting the other Go
// shapes a JSON decoder produces. PROTOCOL.md §5: numbers must stay JSON
// numbers, so a number reaching an integer field must be whole. It
// returns a message when v has the wrong type.
func (fld *Field) coerce(v any) (any, string) {
	switch fld.Kind {
	case KindString, KindSelect:
		if s, ok := v.(string); ok {
			if !utf8.ValidString(s) {
				// What the server receives: JSON carries each invalid
				// byte as U+FFFD, and the checks must see that text.
				s = string([]rune(s))
			}
			return s, ""
		}
		if fld.Kind == KindSelect {
			return nil, msgChoice
		}
		return nil, msgText
	case KindBoolean:
		if b, ok := v.(bool); ok {
			return b, ""
		}
		return nil, msgBoolean
	case KindNumber, KindInteger:
		n, msg := toNumber(v, fld.Kind == KindInteger)
		if msg != "" {
			return nil, msg
		}
		return n, ""
	case KindMultiSelect:
		switch l := v.(type) {
		case []string:
			return slices.Clone(l), ""
		case []any:
			out := make([]string, len(l))
			for i, e := range l {
				s, ok := e.(string)
				if !ok {
					return nil, msgChoices
				}
				out[i] = s
			}
			return out, ""
		}
		return nil, msgChoices
	}
	return nil, "cannot be answered"
}

// check returns the message for the first constraint the typed value v
// breaks (PROTOCOL.md §4 table), "" when it breaks none.
func (fld *Field) check(v any) string {
	switch fld.Kind {
	case KindString:
		return fld.checkString(v.(string))
	case KindNumber, KindInteger:
		return fld.checkRange(exact(v.(json.Number)))
	case KindSelect:
		if s := v.(string); !fld.hasOption(s) {
			return fmt.Sprintf("%q is not one of the choices", s)
		}
	case KindMultiSelect:
		return fld.checkChoices(v.([]string))
	}
	return ""
}

// checkString checks length, pattern and format. JSON Schema counts length
// in characters (code points), not bytes.
func (fld *Field) checkString(s string) string {
	n := utf8.RuneCountInString(s)
	if fld.MinLength != nil && n < *fld.MinLength {
		return "must be at least " + plural(*fld.MinLength, "character")
	}
	if fld.MaxLength != nil && n > *fld.MaxLength {
		return "must be at most " + plural(*fld.MaxLength, "character")
	}
	if fld.Pattern != "" {
		switch matchPattern(fld.Pattern, s) {
		case noMatch:
			return "must match the pattern " + fld.Pattern
		case tooSlow:
			return msgSlowPattern
		case badPattern:
			// Parse refuses such a pattern; a Field built by hand with one
			// cannot be answered, as the final check could not run either.
			return msgBadPattern
		}
	}
	return checkFormat(fld.Format, s)
}

// checkRange checks the bounds and multipleOf. It compares exact decimals,
// as the validator does, so that 0.3 is a multiple of 0.1 and a bound
// beyond 2^53 is not rounded.
func (fld *Field) checkRange(x *big.Rat) string {
	if m := fld.Minimum; m != nil && x.Cmp(exact(*m)) < 0 {
		return "must be at least " + NumberText(*m)
	}
	if m := fld.ExclusiveMinimum; m != nil && x.Cmp(exact(*m)) <= 0 {
		return "must be more than " + NumberText(*m)
	}
	if m := fld.Maximum; m != nil && x.Cmp(exact(*m)) > 0 {
		return "must be at most " + NumberText(*m)
	}
	if m := fld.ExclusiveMaximum; m != nil && x.Cmp(exact(*m)) >= 0 {
		return "must be less than " + NumberText(*m)
	}
	if m := fld.MultipleOf; m != nil {
		if d := exact(*m); d.Sign() > 0 && !new(big.Rat).Quo(x, d).IsInt() {
			return "must be a multiple of " + NumberText(*m)
		}
	}
	return ""
}

// checkChoices checks a multi select: known values, each once, and the
// number chosen.
func (fld *Field) checkChoices(vals []string) string {
	for i, v := range vals {
		if !fld.hasOption(v) {
			return fmt.Sprintf("%q is not one of the choices", v)
		}
		if slices.Contains(vals[:i], v) {
			return fmt.Sprintf("%q is chosen twice", fld.OptionLabel(v))
		}
	}
	if fld.MinItems != nil && len(vals) < *fld.MinItems {
		return fmt.Sprintf("choose at least %d", *fld.MinItems)
	}
	if fld.MaxItems != nil && len(vals) > *fld.MaxItems {
		return fmt.Sprintf("choose at most %d", *fld.MaxItems)
	}
	return ""
}

func (fld *Field) hasOption(v string) bool {
	return slices.ContainsFunc(fld.Options, func(o Option) bool { return o.Value == v })
}

// plural returns "1 character", "3 characters".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
