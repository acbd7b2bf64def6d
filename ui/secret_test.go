package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// secretHarness shows a form asking for a user name, a password, an API
// key (by title) and whether to remember them, from the server "github".
func secretHarness(t *testing.T) *promptHarness {
	t.Helper()
	test.NewTempApp(t)
	form, err := elicit.Parse(json.RawMessage(`{"type":"object","properties":{
		"user":{"type":"string","title":"User name"},
		"password":{"type":"string","title":"Password"},
		"key":{"type":"string","title":"OpenAI API key","default":"sk-123"},
		"remember_password":{"type":"boolean","title":"Remember the password"}},
		"required":["user","password"]}`))
	if err != nil {
		t.Fatal(err)
	}
	h := &promptHarness{t: t}
	h.v = newPromptView(&Prompt{Server: "github", Message: "Sign in.", Form: form},
		func(a Answer) { h.answers = append(h.answers, a) })
	h.v.closeWindow = func() { h.closed++ }
	h.w = test.NewTempWindow(t, h.v.content)
	h.w.Resize(fyne.NewSize(560, 700))
	h.c = h.w.Canvas()
	h.v.attach(h.c)
	h.v.focusFirst()
	return h
}

// TestPromptSecretFieldsMaskedAndWarned: PROTOCOL.md §6 forbids servers to
// ask for secrets in a form; when one does, the field is masked and a
// warning naming the configured server sits above it. The value sent is
// still what the user typed.
func TestPromptSecretFieldsMaskedAndWarned(t *testing.T) {
	h := secretHarness(t)
	wantNote := "github asks for what looks like a secret. MCP forbids servers to ask for passwords, keys, " +
		"tokens or payment details in a form: fill this in only if you trust github."
	for _, tt := range []struct {
		field  string
		secret bool
	}{
		{"user", false},
		{"password", true},
		{"key", true},
		{"remember_password", false}, // a tick box carries no secret
	} {
		t.Run(tt.field, func(t *testing.T) {
			r := h.row(tt.field)
			if r.entry != nil && r.entry.Password != tt.secret {
				t.Errorf("entry masked = %v, want %v", r.entry.Password, tt.secret)
			}
			warning := labelWithText(r.box, wantNote)
			if (warning != nil) != tt.secret {
				t.Fatalf("warning shown = %v, want %v; row shows %q", warning != nil, tt.secret, visibleTexts(r.box))
			}
			if warning != nil && absY(warning) >= absY(r.entry) {
				t.Error("the warning is below the entry; it must be read before typing")
			}
			if warning != nil && iconBeside(r.box, warning) == "" {
				t.Error("the warning has no icon")
			}
		})
	}

	h.typeInto("user", "ada")
	h.typeInto("password", "hunter2")
	if shown := drawnText(h.row("password").entry); strings.Contains(shown, "hunter2") || !strings.Contains(shown, "•") {
		t.Errorf("the password entry draws %q", shown)
	}
	if shown := drawnText(h.row("user").entry); shown != "ada" {
		t.Errorf("the user name entry draws %q, want it in clear", shown)
	}
	test.Tap(h.v.submit)
	want := Answer{Action: "accept", Content: map[string]any{
		"user": "ada", "password": "hunter2", "key": "sk-123", "remember_password": false,
	}}
	if diff := cmp.Diff(want, h.only()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestPromptSecretFieldKeys: a masked entry keeps the prompt's keys.
func TestPromptSecretFieldKeys(t *testing.T) {
	for _, tt := range []struct {
		name  string
		key   fyne.KeyName
		short fyne.Shortcut
		want  string
	}{
		{"Return submits", fyne.KeyReturn, nil, "accept"},
		{"Escape cancels", fyne.KeyEscape, nil, "cancel"},
		{"Alt+D declines", "", declineShortcut, "decline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := secretHarness(t)
			h.typeInto("user", "ada")
			h.typeInto("password", "hunter2")
			if tt.short != nil {
				h.shortcut(tt.short)
			} else {
				h.press(tt.key)
			}
			if got := h.only().Action; got != tt.want {
				t.Errorf("action = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSecretNoteNamesServer(t *testing.T) {
	long := strings.Repeat("n", 500)
	if got := secretNote("my-jira"); !strings.HasPrefix(got, "my-jira asks") || !strings.HasSuffix(got, "if you trust my-jira.") {
		t.Errorf("secretNote = %q, want it to name my-jira first and last", got)
	}
	if got := secretNote(long); len([]rune(got)) > 2*maxLabel+200 {
		t.Errorf("a %d-character name makes a %d-character note", len(long), len([]rune(got)))
	}
}

// drawnText is the text the canvas draws for o and what it holds.
func drawnText(o fyne.CanvasObject) string {
	var b strings.Builder
	walkVisible(o, func(o fyne.CanvasObject) bool {
		if t, ok := o.(*canvas.Text); ok {
			b.WriteString(t.Text)
		}
		return true
	})
	return b.String()
}
