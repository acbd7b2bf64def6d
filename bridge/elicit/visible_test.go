package elicit

import (
	"encoding/json"
	"testing"
)

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
		// A subdivision flag's tags are its spelling (🏴󠁧󠁢󠁳󠁣󠁴󠁿, Scotland);
		// tags anywhere else are hidden text ("ASCII smuggling"), and so
		// are tags of a flag that spell no code or a whole sentence.
		{"🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F Scotland", "🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F Scotland", false},
		{"ok\U000E0069\U000E0067\U000E006E", "ok", true},
		{"🏴\U000E0049\U000E0047\U000E007F", "🏴", true},
		{"🏴\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065\U000E007F", "🏴", true}, // "ignore"
		{"🏴\U000E0067\U000E0062\U000E0077\U000E006C\U000E0073\U000E007F 🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", "🏴\U000E0067\U000E0062\U000E0077\U000E006C\U000E0073\U000E007F 🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", false},
		{"🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E0065\U000E0066\U000E0067\U000E007F", "🏴", true},
		{"❤\uFE0F 1\uFE0F\u20E3", "❤\uFE0F 1\uFE0F\u20E3", false},
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
		// Where it changes nothing a reader sees, it goes: a joiner
		// between Arabic letters, a non-joiner between Devanagari letters
		// with no virama. After an Arabic vowel mark it stays.
		{"ا\u200Dب", "اب", true},
		{"क\u200Cख", "कख", true},
		{"بّ\u200Cب", "بّ\u200Cب", false},
		{"\u200Cمی", "می", true},
		{"می\u200C", "می", true},
	} {
		got, found := Visible(tt.in)
		if got != tt.want || found != tt.found {
			t.Errorf("Visible(%q) = %q, %v; want %q, %v", tt.in, got, found, tt.want, tt.found)
		}
	}
}

// TestPrefillable: only free text with no server default and no secret may
// be pre-filled, and never a typed confirmation (issue 24).
func TestPrefillable(t *testing.T) {
	for _, tt := range []struct {
		field string
		want  bool
	}{
		{`{"type":"string","title":"Service"}`, true},
		{`{"type":"string","format":"date"}`, true},
		{`{"type":"string","pattern":"^[A-Z]+-[0-9]+$"}`, true},
		{`{"type":"string","default":"dev"}`, false},
		{`{"type":"string","pattern":"^x$","default":"y"}`, false},
		{`{"type":"string","enum":["dev","prod"]}`, false},
		{`{"type":"boolean","title":"I understand the risk"}`, false},
		{`{"type":"integer","title":"Copies"}`, false},
		{`{"type":"string","title":"API token"}`, false},
		{`{"type":"string","pattern":"^orders$"}`, false},
		{`{"type":"string","title":"Type the database name to confirm"}`, false},
		{`{"type":"string","title":"Name","description":"Type it again to confirm."}`, false},
	} {
		form, err := Parse(json.RawMessage(`{"type":"object","properties":{"f":` + tt.field + `}}`))
		if err != nil {
			t.Fatalf("%s: %v", tt.field, err)
		}
		if got := form.Fields[0].Prefillable(); got != tt.want {
			t.Errorf("%s: Prefillable() = %v, want %v", tt.field, got, tt.want)
		}
	}
}

// TestEchoes: a value that copies text the question showed is a typed
// confirmation, in any language ("Type acme/prod exactly to delete it",
// which has no word "confirm": a break-it session found it pre-filled the
// second time); other answers are not.
func TestEchoes(t *testing.T) {
	form, err := Parse([]byte(`{"type":"object","properties":{
		"repo":{"type":"string","title":"Repository","description":"Type acme/prod exactly to delete it."},
		"db":{"type":"string","title":"数据库"},
		"note":{"type":"string","title":"Note"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	repo, db, note := &form.Fields[0], &form.Fields[1], &form.Fields[2]
	for _, tt := range []struct {
		f      *Field
		v, msg string
		echoes bool
	}{
		{repo, "acme/prod", "Delete a repository?", true},
		{repo, " ACME/PROD ", "", true},
		{db, "orders", "输入 orders 以删除该数据库", true},
		{db, "订单库", "要删除 订单库 吗？", true},
		{note, "ship it on Monday", "Anything to add?", false},
		{repo, "acme/staging", "Delete a repository?", false},
		{note, "", "Anything to add?", false},
	} {
		if got := tt.f.Echoes(tt.v, tt.msg); got != tt.echoes {
			t.Errorf("%s: Echoes(%q, %q) = %v, want %v", tt.f.Name, tt.v, tt.msg, got, tt.echoes)
		}
	}
}
