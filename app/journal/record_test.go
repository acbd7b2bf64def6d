package journal

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
)

// TestRecordKeepsNoSecretOfTheSchema: every value a secret field's schema
// carries is replaced in the record, in place, and the rest of the schema
// stays byte for byte in the server's order.
func TestRecordKeepsNoSecretOfTheSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, schema, want string
	}{{
		name: "default",
		schema: `{"type": "object", "properties": {"bank_pin": {"type": "string", "title": "Bank PIN", "default": "4821"},
  "note": {"type": "string", "default": "4821 is fine here"}}}`,
		want: `{"type": "object", "properties": {"bank_pin": {"type": "string", "title": "Bank PIN", "default": "[redacted]"},
  "note": {"type": "string", "default": "4821 is fine here"}}}`,
	}, {
		name:   "an integer default and examples",
		schema: `{"type":"object","properties":{"pin":{"type":"integer","examples":[4821, 1234],"default":4821}}}`,
		want:   `{"type":"object","properties":{"pin":{"type":"integer","examples":["[redacted 1]", "[redacted 2]"],"default":"[redacted]"}}}`,
	}, {
		name:   "const",
		schema: `{"type":"object","properties":{"api_key":{"type":"string","const":"sk-4821"}}}`,
		want:   `{"type":"object","properties":{"api_key":{"type":"string","const":"[redacted]"}}}`,
	}, {
		name:   "enum, its names kept",
		schema: `{"type":"object","properties":{"pin":{"type":"string","enum":["4821","1234"],"enumNames":["Old","New"]}}}`,
		want:   `{"type":"object","properties":{"pin":{"type":"string","enum":["[redacted 1]","[redacted 2]"],"enumNames":["Old","New"]}}}`,
	}, {
		name:   "nested oneOf and anyOf",
		schema: `{"type":"object","properties":{"recovery_code":{"type":"string","oneOf":[{"const":"4821","title":"first"},{"const":"1234","title":"second"}]},"backup_codes":{"type":"array","items":{"anyOf":[{"const":"4821"},{"const":"9999"}]},"default":["4821"]}}}`,
		want:   `{"type":"object","properties":{"recovery_code":{"type":"string","oneOf":[{"const":"[redacted 1]","title":"first"},{"const":"[redacted 2]","title":"second"}]},"backup_codes":{"type":"array","items":{"anyOf":[{"const":"[redacted 1]"},{"const":"[redacted 2]"}]},"default":["[redacted]"]}}}`,
	}, {
		name:   "a definition the field refers to",
		schema: `{"$defs":{"digits":{"type":"string","default":"4821"}},"type":"object","properties":{"pin":{"$ref":"#/$defs/digits"},"n":{"$ref":"#/$defs/digits"}}}`,
		want:   `{"$defs":{"digits":{"type":"string","default":"[redacted]"}},"type":"object","properties":{"pin":{"$ref":"#/$defs/digits"},"n":{"$ref":"#/$defs/digits"}}}`,
	}, {
		name:   "definitions that refer to each other, which elicit refuses",
		schema: `{"$defs":{"a":{"$ref":"#/$defs/b","examples":["4821"]},"b":{"$ref":"#/$defs/a","default":"4821"}},"type":"object","properties":{"pin":{"type":"string","$ref":"#/$defs/a"}}}`,
		want:   `{"$defs":{"a":{"$ref":"#/$defs/b","examples":["[redacted]"]},"b":{"$ref":"#/$defs/a","default":"[redacted]"}},"type":"object","properties":{"pin":{"type":"string","$ref":"#/$defs/a"}}}`,
	}, {
		name:   "a schema elicit refuses",
		schema: `{"type":"object","properties":{"password":{"type":"string","default":"hunter2","x":{"not":{}}},"bad":{"type":"array"}}}`,
		want:   `{"type":"object","properties":{"password":{"type":"string","default":"[redacted]","x":{"not":{}}},"bad":{"type":"array"}}}`,
	}, {
		name:   "escapes in keys and values",
		schema: "{\"type\":\"object\",\"properties\":{\"bank\\u005fpin\" : {\"type\":\"string\",\"default\" :\t\"48\\\"]}21\", \"title\":\"PIN \\u00e9\"}}}",
		want:   "{\"type\":\"object\",\"properties\":{\"bank\\u005fpin\" : {\"type\":\"string\",\"default\" :\t\"[redacted]\", \"title\":\"PIN \\u00e9\"}}}",
	}, {
		name:   "an object default of the form",
		schema: `{"type":"object","properties":{"pin":{"type":"string"},"city":{"type":"string"}},"default":{"pin":"4821","city":"Oslo"},"examples":[{"pin":"1234"}]}`,
		want:   `{"type":"object","properties":{"pin":{"type":"string"},"city":{"type":"string"}},"default":{"pin":"[redacted]","city":"Oslo"},"examples":[{"pin":"[redacted]"}]}`,
	}, {
		name:   "a nested object, which elicit refuses",
		schema: `{"type":"object","properties":{"account":{"type":"object","properties":{"pin":{"type":"string","default":"4821"},"city":{"type":"string","default":"Oslo"}},"default":{"pin":"4821"}}}}`,
		want:   `{"type":"object","properties":{"account":{"type":"object","properties":{"pin":{"type":"string","default":"[redacted]"},"city":{"type":"string","default":"Oslo"}},"default":{"pin":"[redacted]"}}}}`,
	}, {
		name:   "if and then, which elicit refuses",
		schema: `{"type":"object","properties":{"pin":{"type":"string"}},"if":{"properties":{"pin":{"const":"4821"}}},"then":{"properties":{"pin":{"default":"1234"}}},"patternProperties":{"^pw":{"format":"password","default":"4821"}},"additionalProperties":{"writeOnly":true,"default":"4821"}}`,
		want:   `{"type":"object","properties":{"pin":{"type":"string"}},"if":{"properties":{"pin":{"const":"[redacted]"}}},"then":{"properties":{"pin":{"default":"[redacted]"}}},"patternProperties":{"^pw":{"format":"password","default":"[redacted]"}},"additionalProperties":{"writeOnly":true,"default":"[redacted]"}}`,
	}, {
		name:   "a name in full-width letters",
		schema: `{"type":"object","properties":{"ｐａｓｓｗｏｒｄ":{"type":"string","default":"4821"}}}`,
		want:   `{"type":"object","properties":{"ｐａｓｓｗｏｒｄ":{"type":"string","default":"[redacted]"}}}`,
	}, {
		name:   "no secret",
		schema: `{"type":"object","properties":{"city":{"type":"string","default":"Oslo"},"remember_password":{"type":"boolean","default":true}}}`,
		want:   `{"type":"object","properties":{"city":{"type":"string","default":"Oslo"},"remember_password":{"type":"boolean","default":true}}}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			req := &bridge.Request{Server: "bank", Mode: "form", Message: "PIN 4821 expires", RequestedSchema: []byte(tc.schema)}
			for _, parsed := range []bool{true, false} { // hub (a form) and wrapper (none)
				var form *elicit.Form
				if parsed {
					form, _ = elicit.Parse(req.RequestedSchema)
				}
				rec := NewRecord(req, bridge.Result{Action: bridge.ActionDecline}, form, history.SourceHub)
				if diff := cmp.Diff(tc.want, string(rec.RequestedSchema)); diff != "" {
					t.Errorf("form %v: stored requestedSchema mismatch (-want +got):\n%s", parsed, diff)
				}
				if again := RedactRecord(rec, nil); string(again.RequestedSchema) != string(rec.RequestedSchema) {
					t.Errorf("form %v: redacted twice, the schema changes again: %s", parsed, again.RequestedSchema)
				}
				if rec.Message != req.Message {
					t.Errorf("the message is the server's and stays: %q", rec.Message)
				}
			}
			if strings.Contains(tc.want, "[redacted") {
				if _, err := elicit.Parse([]byte(tc.want)); err != nil && !strings.Contains(tc.name, "refuses") {
					t.Errorf("the history window cannot show the redacted form: %v", err)
				}
			}
		})
	}
}

// TestRecordKeepsNoSecretOfTheAnswer: accept-defaults sends the server its
// PIN default; the record keeps the marker in content and schema alike.
func TestRecordKeepsNoSecretOfTheAnswer(t *testing.T) {
	t.Parallel()
	req := &bridge.Request{Server: "bank", Mode: "form", Message: "Confirm",
		RequestedSchema: []byte(`{"type":"object","properties":{"pin":{"type":"string","enum":["4821"]},"user":{"type":"string"}}}`)}
	form, err := elicit.Parse(req.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecord(req, bridge.Result{Action: bridge.ActionAccept, Content: map[string]any{"pin": "4821", "user": "ada"}}, form, history.SourceHub)
	if diff := cmp.Diff(map[string]any{"pin": Redacted, "user": "ada"}, rec.Content); diff != "" {
		t.Errorf("content mismatch (-want +got):\n%s", diff)
	}
	if strings.Contains(string(rec.RequestedSchema), "4821") {
		t.Errorf("the schema keeps the secret: %s", rec.RequestedSchema)
	}
}

// TestRecordKeepsNoTokenOfALink: a URL-mode link keeps its scheme, host,
// path and parameter names; the values of credentials are replaced.
func TestRecordKeepsNoTokenOfALink(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ link, want string }{
		{"https://bank.example/verify?user=ada&token=tk_4821&step=2", "https://bank.example/verify?user=ada&token=[redacted]&step=2"},
		{"https://s3.example/b/o?X-Amz-Credential=AK%2F4821&X-Amz-Signature=ab4821&X-Amz-Expires=60",
			"https://s3.example/b/o?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Expires=60"},
		{"https://as.example/authorize?response_type=code&client_id=c&code_challenge=xyz&state=s1&apiKey=4821",
			"https://as.example/authorize?response_type=code&client_id=c&code_challenge=xyz&state=s1&apiKey=[redacted]"},
		{"https://app.example/cb?code=4821&sig=4821&auth=4821&client_secret=4821", "https://app.example/cb?code=[redacted]&sig=[redacted]&auth=[redacted]&client_secret=[redacted]"},
		{"https://app.example/done#access_token=4821&token_type=bearer", "https://app.example/done#access_token=[redacted]&token_type=bearer"},
		{"https://app.example/docs#section-2", "https://app.example/docs#section-2"},
		{"https://ada:4821@git.example/repo?x=1", "https://ada:%5Bredacted%5D@git.example/repo?x=1"},
		{"https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@git.example/repo", "https://%5Bredacted%5D@git.example/repo"},
		{"http://user@192.168.0.1:8080/login", "http://user@192.168.0.1:8080/login"},
		{"https://plain.example/a/b", "https://plain.example/a/b"},
		{"https://x.example/a?a=1;token=4821&b=2", "https://x.example/a?a=1;token=[redacted]&b=2"},
		{"https://x.example/a?return_url=https%3A%2F%2Fy.example%2F%3Ftoken%3D4821%26x%3D1", "https://x.example/a?return_url=https%3A%2F%2Fy.example%2F%3Ftoken%3D%5Bredacted%5D%26x%3D1"},
		{"https://x.example/a?t=4821abcd", "https://x.example/a?t=[redacted]"},
		{"https://x.example/a?id=9f8e7d6c5b4a39281706&page=2", "https://x.example/a?id=[redacted]&page=2"},
	} {
		req := &bridge.Request{Server: "bank", Mode: "url", Message: "Open", URL: tc.link}
		rec := NewRecord(req, bridge.Result{Action: bridge.ActionAccept}, nil, history.SourceHub)
		if rec.URL != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.link, rec.URL, tc.want)
		}
		if check := elicit.CheckURL(rec.URL); check.Refused != nil && elicit.CheckURL(tc.link).Refused == nil {
			t.Errorf("%s: the history window refuses the redacted link: %v", rec.URL, check.Refused)
		}
	}
}

// TestSpooledRecordIsRedacted: a record an older elicitray spooled (or a
// wrapper of one sent the hub) with a secret in clear is taken in without
// it.
func TestSpooledRecordIsRedacted(t *testing.T) {
	t.Parallel()
	old := history.Record{Server: "bank", Mode: "form", Message: "Confirm", Action: "accept", DecidedBy: "rule",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"bank_pin":{"type":"string","default":"4821"}}}`),
		Content:         map[string]any{"bank_pin": "4821"}}
	link := history.Record{Server: "bank", Mode: "url", Message: "Open", Action: "cancel", DecidedBy: "user",
		URL: "https://bank.example/v?token=4821"}
	var spooled strings.Builder
	for _, r := range []history.Record{old, link} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		spooled.Write(append(b, '\n'))
	}
	recs, bad, err := readSpool(strings.NewReader(spooled.String()))
	if err != nil || bad != 0 || len(recs) != 2 {
		t.Fatalf("readSpool: %d records, %d bad, %v", len(recs), bad, err)
	}
	for _, r := range recs {
		if b, _ := json.Marshal(r); strings.Contains(string(b), "4821") {
			t.Errorf("the spooled record keeps the secret: %s", b)
		}
	}
}
