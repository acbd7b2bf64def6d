package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"
)

// TestPromptToolCall: a tool-call approval window reads Approve and Deny,
// answers accept (with no content) and decline with them, and offers no
// "Don't ask again for an hour", which would deny the server's guarded
// calls for an hour rather than approve them.
func TestPromptToolCall(t *testing.T) {
	test.NewTempApp(t)
	for _, tt := range []struct {
		name string
		tap  func(v *promptView)
		want Answer
	}{
		{"approve", func(v *promptView) { test.Tap(v.submit) }, Answer{Action: "accept", Content: map[string]any{}}},
		{"deny", func(v *promptView) { test.Tap(v.decline) }, Answer{Action: "decline"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var answers []Answer
			v := newPromptView(&Prompt{Server: "prod", Tool: "deploy", ToolCall: true,
				Message: "The host asks to run the tool \"deploy\"."}, func(a Answer) { answers = append(answers, a) })
			test.NewTempWindow(t, v.content)
			if v.submit.Text != "Approve" || v.decline.Text != "Deny" {
				t.Errorf("buttons read %q and %q, want Approve and Deny", v.submit.Text, v.decline.Text)
			}
			if v.mute.Visible() {
				t.Errorf("the window offers %q for a tool call", muteLabel)
			}
			tt.tap(v)
			if diff := cmp.Diff([]Answer{tt.want}, answers); diff != "" {
				t.Errorf("answers mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if got := toolCallTitle("prod"); got != "elicitray — approve a tool call to prod?" {
		t.Errorf("title %q", got)
	}
}
