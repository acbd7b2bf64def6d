package elicit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
	int64Limit     = 1 << 63 // first float64 beyond int64
	maxFormatBound = 1e15    // bounds below this print without an exponent
)

// ParseText converts what a person typed into a KindString, KindInteger or
// KindNumber entry into the field's typed value: the string itself, an
// int64 or a float64. Text that is blank after trimming spaces means the
// field is unfilled and yields nil, nil, so an empty optional entry is
// omitted from content (PROTOCOL.md §5) rather than sent as "".
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
		n, err := strconv.ParseInt(t, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return nil, fld.fail(cmpSign(t, msgTooSmall, msgTooLarge))
		}
		if err != nil {
			return nil, fld.fail(msgWhole)
		}
		return n, nil
	case KindNumber:
		f, err := strconv.ParseFloat(t, 64)
		if errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
			return nil, fld.fail(cmpSign(t, msgTooSmall, msgTooLarge))
		}
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fld.fail(msgNumber)
		}
		return f, nil
	}
	return s, nil // typed text is kept as typed, spaces included
}

// cmpSign picks neg for text that starts with a minus sign, else pos.
func cmpSign(t, neg, pos string) string {
	if strings.HasPrefix(t, "-") {
		return neg
	}
	return pos
}

// Check validates one value against the field and returns a *FieldError,
// or nil when the value may be sent. A nil value is an unfilled field: an
// error only when the field is Required.
//
// v is the field's typed value (see Field); the shapes JSON decoding
// produces are accepted too (float64 or json.Number for numbers, []any for
// lists), as Normalize needs.
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
// numbers, so a float64 reaching an integer field must be whole. It
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
	case KindNumber:
		return toFloat(v)
	case KindInteger:
		return toInt(v)
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

// toFloat converts any Go number to float64. NaN and ±Inf are refused:
// JSON has no such numbers.
func toFloat(v any) (any, string) {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case float32:
		f = float64(n)
	case int:
		f = float64(n)
	case int32:
		f = float64(n)
	case int64:
		f = float64(n)
	case uint64:
		f = float64(n)
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(n), 64); err != nil {
			return nil, msgNumber
		}
	default:
		return nil, msgNumber
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, msgNumber
	}
	return f, ""
}

// toInt converts any Go number that is whole to int64.
func toInt(v any) (any, string) {
	switch n := v.(type) {
	case int64:
		return n, ""
	case int:
		return int64(n), ""
	case int32:
		return int64(n), ""
	case uint64:
		if n > math.MaxInt64 {
			return nil, msgTooLarge
		}
		return int64(n), ""
	case json.Number:
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return i, ""
		}
		// "42.0" and "1e3" are whole numbers too.
	}
	f, msg := toFloat(v)
	if msg != "" {
		return nil, msgWhole
	}
	x := f.(float64)
	switch {
	case x != math.Trunc(x):
		return nil, msgWhole
	case x >= int64Limit:
		return nil, msgTooLarge
	case x < -int64Limit:
		return nil, msgTooSmall
	}
	return int64(x), ""
}

// check returns the message for the first constraint the typed value v
// breaks (PROTOCOL.md §4 table), "" when it breaks none.
func (fld *Field) check(v any) string {
	switch fld.Kind {
	case KindString:
		return fld.checkString(v.(string))
	case KindNumber:
		return fld.checkRange(ratFloat(v.(float64)))
	case KindInteger:
		return fld.checkRange(new(big.Rat).SetInt64(v.(int64)))
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
	if fld.Minimum != nil && x.Cmp(ratFloat(*fld.Minimum)) < 0 {
		return "must be at least " + formatBound(*fld.Minimum)
	}
	if fld.ExclusiveMinimum != nil && x.Cmp(ratFloat(*fld.ExclusiveMinimum)) <= 0 {
		return "must be more than " + formatBound(*fld.ExclusiveMinimum)
	}
	if fld.Maximum != nil && x.Cmp(ratFloat(*fld.Maximum)) > 0 {
		return "must be at most " + formatBound(*fld.Maximum)
	}
	if fld.ExclusiveMaximum != nil && x.Cmp(ratFloat(*fld.ExclusiveMaximum)) >= 0 {
		return "must be less than " + formatBound(*fld.ExclusiveMaximum)
	}
	if m := fld.MultipleOf; m != nil && *m > 0 && !new(big.Rat).Quo(x, ratFloat(*m)).IsInt() {
		return "must be a multiple of " + formatBound(*m)
	}
	return ""
}

// ratFloat is f as the exact decimal JSON writes for it: the shortest that
// reads back as f. So 0.1 is 1/10, not the binary fraction nearest it.
func ratFloat(f float64) *big.Rat {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	if !ok { // NaN or ±Inf, which coerce refuses before this
		return new(big.Rat)
	}
	return r
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

// formatBound prints a bound as a person writes it: 100, 0.5, not 1e+02;
// whole numbers up to 2^63 (integer bounds) in full.
func formatBound(f float64) string {
	if math.Abs(f) < maxFormatBound || (f == math.Trunc(f) && math.Abs(f) <= int64Limit) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
