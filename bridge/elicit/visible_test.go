package elicit

import "testing"

func TestVisible(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		found    bool
	}{
		{"Deploy to production?", "Deploy to production?", false},
		{"line one\nline\ttwo", "line one\nline\ttwo", false},
		{"Pay \u202Egnp.exe\u202C now", "Pay gnp.exe now", true},
		{"a\u200Bb\u2066c\u2069\u200Fd", "abcd", true},
		{"bell\a esc\x1b[31m", "bell esc[31m", true},
		// A joiner inside an emoji ZWJ sequence is part of the character;
		// anywhere else it hides something (issue 24).
		{"👩‍👩‍👧‍👦 family", "👩‍👩‍👧‍👦 family", false},
		{"🏳️‍🌈 \u202Eflag", "🏳️‍🌈 flag", true},
		{"ad\u200Dmin", "admin", true},
		{"👍\u200D", "👍", true},
		{"👍\u200D\u200D👍", "👍👍", true},
		{"👍\u200D\u0301", "👍\u0301", true},
		{"नमस्ते e\u0301", "नमस्ते e\u0301", false},
		// Between letters of a joining script a (non-)joiner is spelling:
		// Persian "I want", Hindi half-form ksha; Latin or across scripts,
		// or alone at an end, it is not.
		{"می\u200Cخواهم", "می\u200Cخواهم", false},
		{"क्\u200Dष", "क्\u200Dष", false},
		{"pay\u200Cpal", "paypal", true},
		{"م\u200Ca", "مa", true},
		{"\u200Cمی", "می", true},
		{"می\u200C", "می", true},
	} {
		got, found := Visible(tt.in)
		if got != tt.want || found != tt.found {
			t.Errorf("Visible(%q) = %q, %v; want %q, %v", tt.in, got, found, tt.want, tt.found)
		}
	}
}
