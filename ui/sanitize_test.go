package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
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

// TestCollapseBlank: runs of blank lines, and blank padding within a line,
// shrink so that the text that follows them is read.
func TestCollapseBlank(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"plain text is kept", "Deploy to production?\nIt takes a minute.", "Deploy to production?\nIt takes a minute."},
		{"one blank line between paragraphs is kept", "First.\n\nSecond.", "First.\n\nSecond."},
		{"a run of blank lines becomes one", "First.\n\n\n\n\nSecond.", "First.\n\nSecond."},
		{"whitespace-only lines are blank", "First.\n \t\n\u00a0\u3000\n\r\nSecond.", "First.\n\nSecond."},
		{"blank-looking letters are blank", "First.\n\u2800\u2800\n\u3164\nSecond.", "First.\n\nSecond."},
		{"leading and trailing blank lines go", "\n\n  \nQuestion?\n\n\n", "Question?"},
		{"trailing blanks of a line go", "Question?   \t", "Question?"},
		{"indentation is kept", "List:\n    - one\n\t- two", "List:\n    - one\n\t- two"},
		{"a long blank run in a line is cut", "a" + strings.Repeat(" ", 10_000) + "b", "a" + strings.Repeat(" ", maxSpaceRun) + "b"},
		{"a long indent is cut", strings.Repeat("\u3000", 500) + "Question?", strings.Repeat("\u3000", maxSpaceRun) + "Question?"},
		{"only blanks is nothing", "\n \n\t\n", ""},
		{"twenty thousand blank lines, then the question", strings.Repeat("\n", 20_000) + "Delete the production database?", "Delete the production database?"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, collapseBlank(tt.in)); diff != "" {
				t.Errorf("collapseBlank mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPromptBlankRunsCollapsed (issue 10): a message of 20,000 blank (and
// whitespace-only) lines and then the real question shows the question at
// the top of the message box, in both prompt windows, with nothing said to
// be cut; the Prompt, and so the history, keeps the message as sent.
func TestPromptBlankRunsCollapsed(t *testing.T) {
	const question = "Delete the production database?"
	var pad strings.Builder
	for i := range 20_000 {
		pad.WriteString([]string{"", "   ", "\t", "\u3000\u00a0", "\u2800"}[i%5] + "\n")
	}
	msg := pad.String() + question + "\n\n\n" + "It cannot be undone."
	for _, kind := range []string{"form", "url"} {
		t.Run(kind, func(t *testing.T) {
			a := test.NewTempApp(t)
			var pw *PromptWindow
			var p any
			if kind == "form" {
				fp := &Prompt{Server: "db", Message: msg}
				pw, p = ShowPrompt(a, fp, func(Answer) {}), fp
			} else {
				up := &URLPrompt{Server: "db", Message: msg, Check: elicit.CheckURL(sessionURL(t))}
				pw, p = ShowURLPrompt(a, up, func(Answer) {}), up
			}
			defer pw.Close()
			// The message scrolls in a box of its own, or, with nothing to
			// fill in, as the window's body.
			var box *container.Scroll
			var label *bidiLabel
			walkVisible(pw.win.Content(), func(o fyne.CanvasObject) bool {
				if s, ok := o.(*container.Scroll); ok && box == nil {
					walkVisible(s.Content, func(o fyne.CanvasObject) bool {
						if l, ok := o.(*bidiLabel); ok && label == nil && strings.Contains(l.Text, question) {
							box, label = s, l
						}
						return true
					})
				}
				return true
			})
			if box == nil {
				t.Fatal("no message box")
			}
			got := label.Text
			if want := question + "\n\nIt cannot be undone."; got != want {
				t.Errorf("the message box shows %q, want %q", shorten(got), want)
			}
			if box.Offset.Y != 0 || label.Position().Y > theme.Padding() || label.MinSize().Height > box.Size().Height {
				t.Errorf("the question is not all in view at the top of the box (offset %v, text at %v, %v tall in %v)",
					box.Offset.Y, label.Position().Y, label.MinSize().Height, box.Size().Height)
			}
			var sent string
			switch p := p.(type) {
			case *Prompt:
				sent = p.Message
			case *URLPrompt:
				sent = p.Message
			}
			if sent != msg {
				t.Error("the prompt's message was changed; the history must keep it as the server sent it")
			}
		})
	}
}

// shorten is s cut for a message.
func shorten(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// TestPromptDefaultSentAsShown (issue 10): a text default with a NUL, a
// bidi override and a second line, none of which a one-line entry shows,
// is shown and sent without them, and the window says characters were
// removed: what Submit sends is exactly the entry's text.
func TestPromptDefaultSentAsShown(t *testing.T) {
	test.NewTempApp(t)
	form, err := elicit.Parse(json.RawMessage(`{"type":"object","properties":{"branch":{"type":"string","title":"Branch","default":"main\u0000; git push --force\u202e\norigin"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []Answer
	v := newPromptView(&Prompt{Server: "git", Message: "Which branch?", Form: form}, func(a Answer) { got = append(got, a) })
	test.NewTempWindow(t, v.content)
	shown := v.rows[0].entry.Text
	if want := "main; git push --force origin"; shown != want {
		t.Errorf("the entry shows %q, want %q", shown, want)
	}
	if all := strings.Join(visibleTexts(v.content), "\n"); !strings.Contains(all, hiddenCharsNote) {
		t.Errorf("the window does not say characters were removed:\n%s", all)
	}
	test.Tap(v.submit)
	if diff := cmp.Diff([]Answer{{Action: "accept", Content: map[string]any{"branch": shown}}}, got); diff != "" {
		t.Errorf("sent is not what was shown, mismatch (-want +got):\n%s", diff)
	}
}
