package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// TestPromptRemovesHiddenCharacters: bidi overrides and control characters
// in the server's message, serverInfo, titles and option labels are removed
// and the window says so; the values sent back are the server's own.
func TestPromptRemovesHiddenCharacters(t *testing.T) {
	form, err := elicit.Parse(json.RawMessage(`{"type":"object","properties":{
		"acct":{"type":"string","title":"Acc\u202Etnuo","oneOf":[{"const":"v\u202E1","title":"Main\u200B account"}]}},"required":["acct"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []Answer
	v := newPromptView(&Prompt{Server: "bank", ServerInfo: "bank\u202Ekcah", Message: "Confirm\a the \u2066transfer\u2069", Form: form},
		func(a Answer) { got = append(got, a) })
	test.NewTempWindow(t, v.content)
	all := strings.Join(visibleTexts(v.content), "\n")
	for _, bad := range []string{"\u202E", "\u200B", "\u2066", "\a"} {
		if strings.Contains(all, bad) || strings.Contains(strings.Join(v.rows[0].sel.Options, ""), bad) {
			t.Errorf("%q is still shown", bad)
		}
	}
	for _, want := range []string{hiddenCharsNote, "Confirm the transfer", "calls itself “bankkcah”", "Acctnuo *"} {
		if !strings.Contains(all, want) {
			t.Errorf("window lacks %q:\n%s", want, all)
		}
	}
	v.rows[0].sel.SetSelectedIndex(0)
	test.Tap(v.submit)
	if diff := cmp.Diff([]Answer{{Action: "accept", Content: map[string]any{"acct": "v\u202E1"}}}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}

	clean := newPromptView(&Prompt{Server: "bank", Message: "Plain text."}, func(Answer) {})
	test.NewTempWindow(t, clean.content)
	if strings.Contains(strings.Join(visibleTexts(clean.content), "\n"), hiddenCharsNote) {
		t.Error("the warning shows for clean text")
	}
}
