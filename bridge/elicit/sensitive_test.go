package elicit_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// TestLooksSecret: what a server might call a secret in a name, a title or a
// description, and what only looks like one. A miss keeps a secret in clear
// in the history; a false alarm masks a field and warns for nothing.
func TestLooksSecret(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		// Passwords and passphrases, however they are spelled.
		{"password", true},
		{"Password", true},
		{"PASSWORD", true},
		{"dbPassword", true},
		{"db_password", true},
		{"newpassword", true},
		{"password_confirmation", true},
		{"Your GitHub password", true},
		{"One-time password", true},
		{"passwd", true},
		{"Passphrase for the key", true},
		{"pass phrase", true},
		{"pass\u200bword", true}, // a zero-width space does not hide it
		// API keys and private keys.
		{"apiKey", true},
		{"APIKey", true},
		{"API_KEY", true},
		{"x-api-key", true},
		{"apikey", true},
		{"OpenAI API key", true},
		{"api keys", true},
		{"private_key", true},
		{"SSH private key (PEM)", true},
		// Tokens and secrets.
		{"token", true},
		{"accessToken", true},
		{"GITHUB_TOKEN", true},
		{"githubtoken", true},
		{"refresh_tokens", true},
		{"Personal access token", true},
		{"Paste the token used to sign in", true},
		{"One token per environment", true},
		{"oauth2Token", true},
		{"client_secret", true},
		{"clientSecret", true},
		{"Webhook secret", true},
		{"secrets", true},
		// Payment cards.
		{"credit_card", true},
		{"creditCardNumber", true},
		{"Credit card", true},
		{"card_number", true},
		{"cvv", true},
		{"CVV2", true},
		{"Card CVC", true},

		// Token counts of language models are no secrets.
		{"max_tokens", false},
		{"maxTokens", false},
		{"maxtokens", false},
		{"max_output_tokens", false},
		{"max_completion_tokens", false},
		{"Maximum number of tokens to generate", false},
		{"How many tokens may the answer use?", false},
		{"token_limit", false},
		{"Token budget", false},
		{"tokenCount", false},
		// Words that contain a stem without meaning it.
		{"tokenizer", false},
		{"Tokenize the input", false},
		{"Secretary's name", false},
		{"passwordless", false},
		{"Use passwordless sign-in", false},
		{"keyboard layout", false},
		{"api_version", false},
		{"private_repo", false},
		{"primary key", false},
		{"cardinality", false},
		{"passport number", false},
		{"bypass word filter", false},
		{"", false},
		{"name", false},
		{"Your email address", false},
	} {
		t.Run(tt.text, func(t *testing.T) {
			if got := elicit.LooksSecret(tt.text); got != tt.want {
				t.Errorf("LooksSecret(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// TestParseMarksSensitive: Parse marks typed-in fields whose name, title or
// description looks secret, or whose schema says so; Form.Sensitive lists
// them for redaction.
func TestParseMarksSensitive(t *testing.T) {
	for _, tt := range []struct {
		name   string
		schema string
		want   []string // Form.Sensitive()
	}{
		{
			"by name, title and description",
			`{"type":"object","properties":{
				"user":{"type":"string"},
				"password":{"type":"string"},
				"k":{"type":"string","title":"API key"},
				"t":{"type":"string","description":"A GitHub personal access token with repo scope"},
				"note":{"type":"string","title":"Note"}}}`,
			[]string{"password", "k", "t"},
		},
		{
			"by format password and writeOnly",
			`{"type":"object","properties":{
				"a":{"type":"string","format":"password"},
				"b":{"type":"string","writeOnly":true},
				"c":{"type":"string","writeOnly":false}}}`,
			[]string{"a", "b"},
		},
		{
			"numbers too: a card security code",
			`{"type":"object","properties":{"cvv":{"type":"integer","minimum":0,"maximum":9999},"copies":{"type":"integer"}}}`,
			[]string{"cvv"},
		},
		{
			"a token count is no secret",
			`{"type":"object","properties":{"max_tokens":{"type":"integer","title":"Max tokens","description":"The most tokens to generate"}}}`,
			nil,
		},
		{
			"choices and booleans carry no secret",
			`{"type":"object","properties":{
				"show_password":{"type":"boolean"},
				"token_type":{"type":"string","enum":["bearer","mac"]},
				"secret_scopes":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}`,
			nil,
		},
		{
			"through a $ref",
			`{"type":"object","properties":{"s":{"$ref":"#/$defs/Secret"}},"$defs":{"Secret":{"type":"string","title":"Client secret"}}}`,
			[]string{"s"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form, err := elicit.Parse(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, form.Sensitive()); diff != "" {
				t.Errorf("Sensitive() mismatch (-want +got):\n%s", diff)
			}
			for _, f := range form.Fields {
				want := false
				for _, n := range tt.want {
					want = want || n == f.Name
				}
				if f.Sensitive != want {
					t.Errorf("field %q: Sensitive = %v, want %v", f.Name, f.Sensitive, want)
				}
			}
		})
	}
}

// FuzzLooksSecret: any text is read without a panic, and a secret stays one
// among other words: a sentence around a field's name hides nothing.
func FuzzLooksSecret(f *testing.F) {
	for _, s := range []string{"password", "max_tokens", "APIKey", "tokenizer", "cvv2", "ÄpiKéy", "\u202epassword", "api key"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if elicit.LooksSecret(s) && !elicit.LooksSecret("Enter the "+s+" here") {
			t.Errorf("%q looks secret, but not in a sentence", s)
		}
	})
}
