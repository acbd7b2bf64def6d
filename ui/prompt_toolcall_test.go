package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
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

// TestPromptToolChange: the window that tells of a tool's changed
// definition reads Accept the change and Keep asking, answers accept and
// decline with them, offers neither "Don't ask again" nor "Always answer
// this way", and says no tool call is in flight.
func TestPromptToolChange(t *testing.T) {
	test.NewTempApp(t)
	for _, tt := range []struct {
		name string
		tap  func(v *promptView)
		want Answer
	}{
		{"accept", func(v *promptView) { test.Tap(v.submit) }, Answer{Action: "accept", Content: map[string]any{}}},
		{"keep asking", func(v *promptView) { test.Tap(v.decline) }, Answer{Action: "decline"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var answers []Answer
			v := newPromptView(&Prompt{Server: "prod", Tool: "deploy", ToolCall: true, ToolChange: true, CanRemember: true,
				Message: "The server changed the definition of its tool \"deploy\" since you first saw it."}, func(a Answer) { answers = append(answers, a) })
			w := test.NewTempWindow(t, v.content)
			if v.submit.Text != "Accept the change" || v.decline.Text != "Keep asking" {
				t.Errorf("buttons read %q and %q, want Accept the change and Keep asking", v.submit.Text, v.decline.Text)
			}
			if v.mute.Visible() {
				t.Errorf("the window offers %q for a tool's change", muteLabel)
			}
			if texts := visibleTexts(w.Canvas().Content()); slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "during tool call") }) {
				t.Errorf("the window says a tool call is in flight: %q", texts)
			}
			if v.remember != nil {
				t.Errorf("the window offers \"Always answer this way\" for a tool's change")
			}
			tt.tap(v)
			if diff := cmp.Diff([]Answer{tt.want}, answers); diff != "" {
				t.Errorf("answers mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPromptToolCallShowsEveryArgument (a new user's finding): the
// approval window opens tall enough for the whole message, every argument
// of the call in view above the buttons. Before, the message scrolled in
// a box 160 high, the record to be deleted out of view below the first
// argument, over empty space.
func TestPromptToolCallShowsEveryArgument(t *testing.T) {
	a := test.NewTempApp(t)
	msg := "The host asks to run the tool \"delete_bookings\" (Delete bookings).\n" +
		"Deletes every booking of a customer. It cannot be undone.\n\nArguments:\n" +
		"  api_token: •••••• (hidden: looks secret)\n"
	for i := range 8 {
		msg += fmt.Sprintf("  booking_%d: ห้องพัก %d คืน วัชระ\n", i, i+1)
	}
	msg += "  reason: ลูกค้ายกเลิก"
	pw := ShowPrompt(a, &Prompt{Server: "bookings", Tool: "delete_bookings", ToolCall: true, Message: msg}, func(Answer) {})
	defer pw.Close()
	pw.win.Resize(pw.view.size())
	var box *container.Scroll
	var label *bidiLabel
	walkVisible(pw.win.Content(), func(o fyne.CanvasObject) bool {
		if s, ok := o.(*container.Scroll); ok && box == nil {
			walkVisible(s.Content, func(o fyne.CanvasObject) bool {
				if l, ok := o.(*bidiLabel); ok && strings.Contains(l.Text, "reason:") {
					box, label = s, l
				}
				return true
			})
		}
		return true
	})
	if box == nil {
		t.Fatal("the message is not in the window")
	}
	if label.MinSize().Height > box.Size().Height {
		t.Errorf("the message is %v tall in a view %v tall: arguments are out of view", label.MinSize().Height, box.Size().Height)
	}
}
