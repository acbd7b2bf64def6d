package elicit_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// TestParseText checks what typing into an entry yields: the typed value,
// nil for a blank entry, or the sentence shown under the field.
func TestParseText(t *testing.T) {
	text := &elicit.Field{Name: "name", Kind: elicit.KindString}
	integer := &elicit.Field{Name: "copies", Title: "Copies", Kind: elicit.KindInteger}
	number := &elicit.Field{Name: "budget", Kind: elicit.KindNumber}
	for _, tt := range []struct {
		name    string
		field   *elicit.Field
		in      string
		want    any
		wantMsg string
	}{
		{"text as typed", text, "  Ada ", "  Ada ", ""},
		{"blank text is unfilled", text, " \t", nil, ""},
		{"integer", integer, "42", json.Number("42"), ""},
		{"integer with spaces", integer, " 42 ", json.Number("42"), ""},
		{"negative integer", integer, "-7", json.Number("-7"), ""},
		{"integer with a plus sign", integer, "+7", json.Number("7"), ""},
		{"integer with leading zeros", integer, "007", json.Number("7"), ""},
		{"negative zero integer", integer, "-0", json.Number("0"), ""},
		{"empty integer is unfilled", integer, "", nil, ""},
		{"fraction is not an integer", integer, "4.2", nil, "must be a whole number"},
		{"exponent of a whole number is an integer", integer, "1e3", json.Number("1000"), ""},
		{"whole number with a point is an integer", integer, "2.0", json.Number("2"), ""},
		{"whole number with a point and an exponent", integer, "-4.20e1", json.Number("-42"), ""},
		{"fraction hidden by an exponent", integer, "1e-3", nil, "must be a whole number"},
		{"word is not an integer", integer, "abc", nil, "must be a whole number"},
		{"thousands separator", integer, "1,000", nil, "must be a whole number"},
		// Every digit typed is kept: a float64 would send 9007199254740992.
		{"integer beyond 2^53", integer, "9007199254740993", json.Number("9007199254740993"), ""},
		{"integer beyond int64", integer, "99999999999999999999", json.Number("99999999999999999999"), ""},
		{"integer of too many digits", integer, "1" + strings.Repeat("0", elicit.MaxNumberDigits), nil, "is too large"},
		{"negative integer of too many digits", integer, "-1" + strings.Repeat("0", elicit.MaxNumberDigits), nil, "is too small"},
		{"decimal", number, "3.14", json.Number("3.14"), ""},
		{"decimal as typed, trailing zero kept", number, "1.50", json.Number("1.50"), ""},
		{"exponent as typed", number, "1e3", json.Number("1e3"), ""},
		{"integer as number", number, "7", json.Number("7"), ""},
		{"point without a leading digit", number, ".5", json.Number("0.5"), ""},
		{"point without a trailing digit", number, "-5.", json.Number("-5"), ""},
		{"plus sign", number, "+2.5E+3", json.Number("2.5E+3"), ""},
		{"number beyond 2^53", number, "9007199254740993", json.Number("9007199254740993"), ""},
		{"more digits than a float64 holds", number, "0.1000000000000000000001", json.Number("0.1000000000000000000001"), ""},
		{"beyond a float64", number, "1e400", json.Number("1e400"), ""},
		{"below the smallest float64", number, "-1e-400", json.Number("-1e-400"), ""},
		{"blank number is unfilled", number, "   ", nil, ""},
		{"decimal comma", number, "3,14", nil, "must be a number such as 3.14"},
		{"word is not a number", number, "abc", nil, "must be a number such as 3.14"},
		{"not a number", number, "NaN", nil, "must be a number such as 3.14"},
		{"infinity", number, "Inf", nil, "must be a number such as 3.14"},
		{"hexadecimal", number, "0x10", nil, "must be a number such as 3.14"},
		{"a point alone", number, ".", nil, "must be a number such as 3.14"},
		{"exponent without digits", number, "1e", nil, "must be a number such as 3.14"},
		{"two signs", number, "--1", nil, "must be a number such as 3.14"},
		{"number too large", number, "1e1001", nil, "is too large"},
		{"number too small", number, "-1e1001", nil, "is too small"},
		{"exponent beyond any limit", number, "1e99999999999999999999", nil, "is too large"},
		{"too many decimal places", number, "1e-1001", nil, "has too many digits"},
		{"too many digits written", number, "1." + strings.Repeat("0", 3*elicit.MaxNumberDigits), nil, "has too many digits"},
		{"zero with a huge exponent", number, "0e-99999999", nil, "has too many digits"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.field.ParseText(tt.in)
			if tt.wantMsg != "" {
				fe, ok := errors.AsType[*elicit.FieldError](err)
				if !ok {
					t.Fatalf("ParseText(%q) = %v, %v; want a *FieldError", tt.in, got, err)
				}
				if fe.Msg != tt.wantMsg {
					t.Errorf("Msg = %q, want %q", fe.Msg, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseText(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseText(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestParseTextOtherKinds checks that choices and booleans, which are not
// typed in, refuse text instead of guessing.
func TestParseTextOtherKinds(t *testing.T) {
	for _, k := range []elicit.Kind{elicit.KindBoolean, elicit.KindSelect, elicit.KindMultiSelect} {
		t.Run(k.String(), func(t *testing.T) {
			fld := &elicit.Field{Name: "x", Kind: k, Options: opts("a")}
			if v, err := fld.ParseText("a"); err == nil {
				t.Errorf("ParseText = %v, nil; want an error", v)
			}
		})
	}
}

// TestCheck checks the sentence shown under a field for each constraint of
// PROTOCOL.md §4, and that good values pass.
func TestCheck(t *testing.T) {
	var (
		name     = &elicit.Field{Name: "name", Kind: elicit.KindString, Required: true}
		optional = &elicit.Field{Name: "nick", Kind: elicit.KindString}
		code     = &elicit.Field{Name: "code", Kind: elicit.KindString, MinLength: new(3), MaxLength: new(3)}
		one      = &elicit.Field{Name: "one", Kind: elicit.KindString, MinLength: new(1)}
		slug     = &elicit.Field{Name: "slug", Kind: elicit.KindString, Pattern: "^[a-z]+$"}
		behind   = &elicit.Field{Name: "re", Kind: elicit.KindString, Pattern: "(?<=x)y"}
		digit    = &elicit.Field{Name: "pw", Kind: elicit.KindString, Pattern: "^(?=.*[0-9]).+$"}
		slow     = &elicit.Field{Name: "slow", Kind: elicit.KindString, Pattern: `^(\w+\s?)*$`}
		badRE    = &elicit.Field{Name: "bad", Kind: elicit.KindString, Pattern: "^(abc"}
		uuid     = &elicit.Field{Name: "id", Kind: elicit.KindString, Format: "uuid"}
		password = &elicit.Field{Name: "secret", Kind: elicit.KindString, Format: "password"}
		email    = &elicit.Field{Name: "email", Kind: elicit.KindString, Format: "email"}
		uri      = &elicit.Field{Name: "site", Kind: elicit.KindString, Format: "uri"}
		date     = &elicit.Field{Name: "start", Kind: elicit.KindString, Format: "date"}
		dateTime = &elicit.Field{Name: "deadline", Kind: elicit.KindString, Format: "date-time"}
		copies   = &elicit.Field{Name: "copies", Kind: elicit.KindInteger, Minimum: num("1"), Maximum: num("100")}
		budget   = &elicit.Field{Name: "budget", Kind: elicit.KindNumber, Minimum: num("0.5"), Maximum: num("1000")}
		share    = &elicit.Field{Name: "share", Kind: elicit.KindNumber, ExclusiveMinimum: num("0"), ExclusiveMaximum: num("1")}
		step     = &elicit.Field{Name: "step", Kind: elicit.KindNumber, MultipleOf: num("0.1")}
		fives    = &elicit.Field{Name: "fives", Kind: elicit.KindInteger, MultipleOf: num("5")}
		huge     = &elicit.Field{Name: "huge", Kind: elicit.KindInteger, Maximum: num("9007199254740992")}
		// Bounds beyond what a float64 holds are kept to the digit.
		exactBound = &elicit.Field{Name: "exact", Kind: elicit.KindNumber, Maximum: num("9007199254740993")}
		tiny       = &elicit.Field{Name: "tiny", Kind: elicit.KindNumber, Minimum: num("0"), Maximum: num("1e-300")}
		agree      = &elicit.Field{Name: "agree", Kind: elicit.KindBoolean, Required: true}
		color      = &elicit.Field{Name: "color", Kind: elicit.KindSelect, Options: opts("Red", "Green")}
		tags       = &elicit.Field{Name: "tags", Kind: elicit.KindMultiSelect, MinItems: new(1), MaxItems: new(2), Options: titled("bug", "Bug", "docs", "Docs", "ui", "UI")}
	)
	for _, tt := range []struct {
		name    string
		field   *elicit.Field
		v       any
		wantMsg string // "" means valid
	}{
		{"required and unfilled", name, nil, "is required"},
		{"optional and unfilled", optional, nil, ""},
		{"text where text belongs", name, "Ada", ""},
		{"number where text belongs", name, 42, "must be text"},
		{"too short", code, "ab", "must be at least 3 characters"},
		{"too short for one", one, "", "must be at least 1 character"},
		{"length counts characters, not bytes", code, "日本語", ""},
		{"too long", code, "日本語x", "must be at most 3 characters"},
		{"pattern matches", slug, "abc", ""},
		{"pattern does not match", slug, "ABC", "must match the pattern ^[a-z]+$"},
		{"lookbehind, which Go's regexp refuses, is honoured", behind, "xy", ""},
		{"lookbehind not met", behind, "y", "must match the pattern (?<=x)y"},
		{"lookahead met", digit, "abc1", ""},
		{"lookahead not met", digit, "abc", "must match the pattern ^(?=.*[0-9]).+$"},
		{"catastrophic backtracking is cut short", slow, strings.Repeat("a", 40) + "!", "takes too long to check against the pattern; try a shorter value"},
		{"pattern no engine compiles is never passed", badRE, "abc", "cannot be checked: its pattern is not a valid regular expression"},
		{"email", email, "ada@example.com", ""},
		{"email without @", email, "ada", "must be a valid email address such as name@example.com"},
		{"email with display name", email, "Ada <ada@example.com>", "must be a valid email address such as name@example.com"},
		{"email in angle brackets", email, "<ada@example.com>", "must be a valid email address such as name@example.com"},
		{"web address", uri, "https://example.com/a?b=c", ""},
		{"mailto address", uri, "mailto:ada@example.com", ""},
		{"address without scheme", uri, "example.com", "must be a full web address such as https://example.com"},
		{"address without host", uri, "https://", "must be a full web address such as https://example.com"},
		{"date", date, "2025-03-31", ""},
		{"date the other way round", date, "31/03/2025", "must be a date such as 2025-12-31 (year-month-day)"},
		{"date that does not exist", date, "2025-02-30", "must be a date such as 2025-12-31 (year-month-day)"},
		{"date-time in UTC", dateTime, "2025-03-31T14:30:00Z", ""},
		{"date-time with offset", dateTime, "2025-03-31T14:30:00+02:00", ""},
		{"date-time without zone", dateTime, "2025-03-31 14:30", "must be a date and time such as 2025-12-31T09:30:00Z"},
		{"leap second", dateTime, "2016-12-31T23:59:60Z", ""},
		{"leap second with offset", dateTime, "2016-12-31T15:59:60-08:00", ""},
		{"second 60 not at the end of a UTC day", dateTime, "2016-12-31T12:00:60Z", "must be a date and time such as 2025-12-31T09:30:00Z"},
		{"second 61", dateTime, "2016-12-31T23:59:61Z", "must be a date and time such as 2025-12-31T09:30:00Z"},
		{"email the validator refuses", email, "ada@-example-.com", "must be a valid email address such as name@example.com"},
		{"uuid", uuid, "123e4567-e89b-12d3-a456-426614174000", ""},
		{"not a uuid", uuid, "nope", "must be a UUID such as 123e4567-e89b-12d3-a456-426614174000"},
		{"format nobody checks", password, "anything", ""},
		{"integer in range", copies, int64(42), ""},
		{"integer as decoded JSON", copies, json.Number("42"), ""},
		{"integer below minimum", copies, int64(0), "must be at least 1"},
		{"integer above maximum", copies, int64(101), "must be at most 100"},
		{"fraction for an integer", copies, 2.5, "must be a whole number"},
		{"decoded fraction for an integer", copies, json.Number("2.5"), "must be a whole number"},
		{"whole float for an integer", copies, 2.0, ""},
		{"whole decimal for an integer", copies, json.Number("4.20e1"), ""},
		{"text for an integer", copies, "42", "must be a whole number"},
		{"huge float for an integer", copies, 1e300, "must be at most 100"},
		{"number in range", budget, 3.14, ""},
		{"number below a fractional minimum", budget, 0.25, "must be at least 0.5"},
		{"number above maximum", budget, 1000.5, "must be at most 1000"},
		{"integer for a number", budget, int64(7), ""},
		{"inside exclusive bounds", share, 0.5, ""},
		{"at the exclusive minimum", share, 0.0, "must be more than 0"},
		{"at the exclusive maximum", share, 1.0, "must be less than 1"},
		{"just below the exclusive maximum, beyond a float64", share, json.Number("0.99999999999999999999999"), ""},
		{"multiple of 0.1, in decimal", step, 0.3, ""},
		{"not a multiple of 0.1", step, 0.35, "must be a multiple of 0.1"},
		{"multiple of 0.1 beyond a float64", step, json.Number("123456789012345678901.3"), ""},
		{"multiple of 5", fives, int64(15), ""},
		{"not a multiple of 5", fives, int64(12), "must be a multiple of 5"},
		{"integer beyond 2^53 at the bound", huge, int64(9007199254740992), ""},
		{"integer beyond 2^53 past the bound", huge, int64(9007199254740993), "must be at most 9007199254740992"},
		{"decoded integer beyond 2^53 past the bound", huge, json.Number("9007199254740993"), "must be at most 9007199254740992"},
		{"decimal just past a bound beyond 2^53", exactBound, json.Number("9007199254740993.0000000001"), "must be at most 9007199254740993"},
		{"at a bound beyond 2^53", exactBound, json.Number("9007199254740993"), ""},
		{"beyond a float64 within its bound", tiny, json.Number("1e-400"), ""},
		{"beyond a float64 past its bound", tiny, json.Number("-1e-400"), "must be at least 0"},
		{"NaN", budget, math.NaN(), "must be a number such as 3.14"},
		{"infinity", budget, math.Inf(1), "must be a number such as 3.14"},
		{"not JSON number text", budget, json.Number("0x10"), "must be a number such as 3.14"},
		{"beyond the digits elicitray checks", budget, json.Number("1e-1001"), "has too many digits"},
		{"boolean false is an answer", agree, false, ""},
		{"text for a boolean", agree, "yes", "must be true or false"},
		{"known choice", color, "Red", ""},
		{"unknown choice", color, "Purple", `"Purple" is not one of the choices`},
		{"label instead of value", tags, []string{"Bug"}, `"Bug" is not one of the choices`},
		{"choices", tags, []string{"bug", "docs"}, ""},
		{"choices as decoded JSON", tags, []any{"ui"}, ""},
		{"choice twice", tags, []string{"bug", "bug"}, `"Bug" is chosen twice`},
		{"too few choices", tags, []string{}, "choose at least 1"},
		{"too many choices", tags, []string{"bug", "docs", "ui"}, "choose at most 2"},
		{"one string for a list", tags, "bug", "must be a list of choices"},
		{"number in a list", tags, []any{"bug", 1.0}, "must be a list of choices"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.field.Check(tt.v)
			if tt.wantMsg == "" {
				if err != nil {
					t.Errorf("Check(%v) = %v, want nil", tt.v, err)
				}
				return
			}
			fe, ok := errors.AsType[*elicit.FieldError](err)
			if !ok {
				t.Fatalf("Check(%v) = %v; want a *FieldError", tt.v, err)
			}
			want := elicit.FieldError{Field: tt.field.Name, Label: tt.field.Label(), Msg: tt.wantMsg}
			if diff := cmp.Diff(want, *fe); diff != "" {
				t.Errorf("Check(%v) mismatch (-want +got):\n%s", tt.v, diff)
			}
		})
	}
}

// TestFieldErrorText checks the log form of an error, which names the field
// by the label the user saw.
func TestFieldErrorText(t *testing.T) {
	fld := &elicit.Field{Name: "copies", Title: "Copies", Kind: elicit.KindInteger, Maximum: num("100")}
	err := fld.Check(int64(101))
	if diff := cmp.Diff("Copies: must be at most 100", err.Error()); diff != "" {
		t.Errorf("Error() mismatch (-want +got):\n%s", diff)
	}
}

// TestNumberText checks how a bound or a number reads in the window and in
// messages: as the schema wrote it, every digit kept, an exponent written
// out where that stays short.
func TestNumberText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"100", "100"},
		{"1.50", "1.50"},
		{"-0", "-0"},
		{"9007199254740993", "9007199254740993"},
		{"0.1000000000000000000001", "0.1000000000000000000001"},
		{"1e2", "100"},
		{"1E+2", "100"},
		{"2.5E-1", "0.25"},
		{"-1.50e1", "-15"},
		{"1.23456e3", "1234.56"},
		{"0.012e-1", "0.0012"},
		{"9.007199254740993e15", "9007199254740993"},
		{"1e20", "100000000000000000000"},
		{"1e21", "1e21"},
		{"1e400", "1e400"},
		{"1e-400", "1e-400"},
		{"not a number", "not a number"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, elicit.NumberText(json.Number(tt.in))); diff != "" {
				t.Errorf("NumberText(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
