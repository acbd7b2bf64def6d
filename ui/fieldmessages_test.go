package ui

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// TestFieldMessagesTranslated: every message bridge/elicit writes about a
// value, made here from a real form, reads in Chinese under the field for
// a Chinese user, and in English exactly as before elicitMessages (the
// label, then elicit's words).
func TestFieldMessagesTranslated(t *testing.T) {
	form, err := elicit.Parse([]byte(`{"type":"object","required":["name"],"properties":{
		"name":{"type":"string","title":"Name","minLength":3,"maxLength":5,"pattern":"^[a-z]+$"},
		"count":{"type":"integer","title":"Count","minimum":1,"maximum":10},
		"ratio":{"type":"number","title":"Ratio","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.25},
		"mail":{"type":"string","title":"Mail","format":"email"},
		"site":{"type":"string","title":"Site","format":"uri"},
		"day":{"type":"string","title":"Day","format":"date"},
		"at":{"type":"string","title":"At","format":"date-time"},
		"env":{"type":"string","title":"Env","enum":["dev","prod"]},
		"tags":{"type":"array","title":"Tags","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b","c"]}},
		"ok":{"type":"boolean","title":"OK"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	field := func(name string) *elicit.Field {
		for i := range form.Fields {
			if form.Fields[i].Name == name {
				return &form.Fields[i]
			}
		}
		t.Fatalf("no field %s", name)
		return nil
	}
	text := func(name, s string) error {
		v, err := field(name).ParseText(s)
		if err != nil {
			return err
		}
		return field(name).Check(v)
	}
	value := func(name string, v any) error { return field(name).Check(v) }
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"required", text("name", "")},
		{"too short", text("name", "ab")},
		{"too long", text("name", "abcdef")},
		{"pattern", text("name", "ABC")},
		{"whole number", text("count", "1.5")},
		{"at least", text("count", "0")},
		{"at most", text("count", "11")},
		{"a number", text("ratio", "x")},
		{"more than", text("ratio", "0")},
		{"less than", text("ratio", "1")},
		{"multiple", text("ratio", "0.3")},
		{"email", text("mail", "x")},
		{"uri", text("site", "x")},
		{"date", text("day", "x")},
		{"date-time", text("at", "x")},
		{"choice", value("env", "test")},
		{"choose at least", value("tags", []string{})},
		{"choose at most", value("tags", []string{"a", "b", "c"})},
		{"not a choice", value("tags", []string{"z"})},
		{"twice", value("tags", []string{"a", "a"})},
		{"text", value("name", 5)},
		{"true or false", value("ok", "x")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var fe *elicit.FieldError
			if !errors.As(tt.err, &fe) {
				t.Fatalf("elicit gave %v, not a field's error", tt.err)
			}
			withLocale(t, map[string]string{"LANG": "C"})
			join := " "
			if !strings.HasPrefix(fe.Msg, "is ") && !strings.HasPrefix(fe.Msg, "must ") {
				join = ": "
			}
			if got, want := fieldMessage(tt.err), sentence(errors.New(fe.Label+join+fe.Msg)); got != want {
				t.Errorf("in English %q, want %q as before", got, want)
			}
			withLocale(t, map[string]string{"LANG": "zh_CN.UTF-8"})
			if got := fieldMessage(tt.err); !strings.ContainsFunc(got, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
				t.Errorf("a Chinese user reads %q: elicit's message %q is not in elicitMessages", got, fe.Msg)
			}
		})
	}
}

// TestFormMessagesTranslated: the hint that a form has too few or too many
// fields filled reads in Chinese for a Chinese user, and in English as
// before.
func TestFormMessagesTranslated(t *testing.T) {
	form, err := elicit.Parse([]byte(`{"type":"object","minProperties":2,"maxProperties":2,"properties":{
		"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, values := range []map[string]any{{"a": "x"}, {"a": "x", "b": "y", "c": "z"}} {
		_, err := form.Content(values)
		if err == nil {
			t.Fatalf("Content(%v) is valid, want too few or too many", values)
		}
		withLocale(t, map[string]string{"LANG": "C"})
		if got, want := formSentence(err), sentence(err); got != want {
			t.Errorf("in English %q, want %q as before", got, want)
		}
		withLocale(t, map[string]string{"LANG": "zh_CN.UTF-8"})
		if got := formSentence(err); !strings.ContainsFunc(got, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			t.Errorf("a Chinese user reads %q", got)
		}
	}
}
