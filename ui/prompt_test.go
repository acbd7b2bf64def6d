package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

func TestPromptAllKindsFilledSendsTypedContent(t *testing.T) {
	h := newHarness(t, "all-kinds.json")

	h.typeInto("fullName", "Ada Lovelace")
	test.Tap(h.row("agree").check)
	h.retype("greeting", "Hi all.")
	h.typeInto("email", "ada@example.com")
	h.typeInto("site", "https://example.com/ada")
	h.typeInto("start", "2026-02-01")
	h.typeInto("deadline", "2026-02-28T17:00:00Z")
	h.retype("copies", "7")
	h.retype("budget", "12.5")
	h.choose("team", "Data")
	h.tick("channels", "Wiki") // Email is ticked by default
	h.choose("tier", "Silver")
	h.tick("regions", "Europe") // untick the default
	h.tick("regions", "Americas")
	h.choose("format", "Word")
	test.Tap(h.v.submit)

	want := Answer{Action: "accept", Content: map[string]any{
		"fullName": "Ada Lovelace",
		"agree":    true,
		"greeting": "Hi all.",
		"email":    "ada@example.com",
		"site":     "https://example.com/ada",
		"start":    "2026-02-01",
		"deadline": "2026-02-28T17:00:00Z",
		"copies":   json.Number("7"),
		"budget":   json.Number("12.5"),
		"team":     "Data",
		"channels": []string{"Email", "Wiki"},
		"tier":     "tier-2",
		"regions":  []string{"r-2"},
		"format":   "fmt-2",
	}}
	if diff := cmp.Diff(want, h.only()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestPromptDefaultsAreSentWithTheirTypes(t *testing.T) {
	// allKinds is what all-kinds.json sends with only the name typed, and
	// copies as given.
	allKinds := func(copies string) map[string]any {
		return map[string]any{
			"fullName": "Ada",
			"agree":    false, // booleans are always sent
			"greeting": "Hello from the team.",
			"copies":   json.Number(copies),
			"budget":   json.Number("3.14"),
			"team":     "Platform",
			"channels": []string{"Email"},
			"tier":     "tier-1",
			"regions":  []string{"r-1"},
			"format":   "fmt-1",
		}
	}
	for _, tt := range []struct {
		name  string
		file  string
		fill  func(h *promptHarness)
		wantC map[string]any
	}{
		{
			name:  "all-kinds with only the required name typed",
			file:  "all-kinds.json",
			fill:  func(h *promptHarness) { h.typeInto("fullName", "Ada") },
			wantC: allKinds("42"),
		},
		{
			// JSON Schema counts 2.0 an integer, as the form counts a
			// default of 1.0 one: it is sent as 2.
			name: "a whole number typed with a point for an integer",
			file: "all-kinds.json",
			fill: func(h *promptHarness) {
				h.typeInto("fullName", "Ada")
				h.retype("copies", "2.0")
			},
			wantC: allKinds("2"),
		},
		{
			name: "defaults accepted unchanged",
			file: "defaults.json",
			fill: func(*promptHarness) {},
			wantC: map[string]any{
				"name":     "Ada Example",
				"age":      json.Number("30"),
				"score":    json.Number("95.5"),
				"status":   "active",
				"verified": true,
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.file)
			tt.fill(h)
			test.Tap(h.v.submit)
			want := Answer{Action: "accept", Content: tt.wantC}
			if diff := cmp.Diff(want, h.only()); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPromptInvalidFormCannotBeSubmitted(t *testing.T) {
	for _, tt := range []struct {
		name    string
		field   string // the field that must show the error
		input   func(h *promptHarness)
		wantErr string
	}{
		{
			name:  "email not an email",
			field: "email",
			input: func(h *promptHarness) {
				h.typeInto("fullName", "Ada")
				h.typeInto("email", "not-an-email")
			},
			wantErr: "Email must be a valid email address such as name@example.com.",
		},
		{
			name:  "required name empty",
			field: "fullName",
			input: func(h *promptHarness) {
				h.typeInto("fullName", "Ada")
				h.retype("fullName", "")
			},
			wantErr: "Full name is required.",
		},
		{
			name:  "required name never typed",
			field: "fullName",
			input: func(h *promptHarness) {
				h.typeInto("greeting", "!")
			},
			wantErr: "Full name is required.",
		},
		{
			name:  "copies out of range",
			field: "copies",
			input: func(h *promptHarness) {
				h.typeInto("fullName", "Ada")
				h.retype("copies", "500")
			},
			wantErr: "Copies must be at most 100.",
		},
		{
			name:  "copies not a number",
			field: "copies",
			input: func(h *promptHarness) {
				h.typeInto("fullName", "Ada")
				h.retype("copies", "seven")
			},
			wantErr: "Copies must be a whole number.",
		},
		{
			name:  "too many channels",
			field: "channels",
			input: func(h *promptHarness) {
				h.typeInto("fullName", "Ada")
				h.tick("channels", "Chat")
				h.tick("channels", "Wiki")
				h.tick("channels", "SMS")
			},
			wantErr: "Channels: choose at most 3.",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "all-kinds.json")
			tt.input(h)
			r := h.row(tt.field)

			// Return tries to submit, which must fail, show the error and
			// take the user to the field.
			h.press(fyne.KeyReturn)
			if h.c.Focused() != r.focusTarget() {
				t.Errorf("focus is on %T after Return, want the invalid field %q", h.c.Focused(), tt.field)
			}
			test.Tap(h.v.submit)
			if len(h.answers) != 0 {
				t.Fatalf("invalid form answered %+v", h.answers)
			}
			if !h.v.submit.Disabled() {
				t.Error("Submit is enabled on an invalid form")
			}
			if !r.errLabel.Visible() || r.errLabel.Text != tt.wantErr {
				t.Errorf("under %q: %q (visible %v), want %q", tt.field, r.errLabel.Text, r.errLabel.Visible(), tt.wantErr)
			}
			if got := h.v.hint.Text; !strings.Contains(got, r.f.Label()) {
				t.Errorf("hint %q does not name %q", got, r.f.Label())
			}
		})
	}
}

func TestPromptErrorShowsOnceFieldTouched(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	name := h.row("fullName")
	if name.errLabel.Visible() {
		t.Errorf("untouched required field shows %q at open", name.errLabel.Text)
	}
	if got, want := h.v.hint.Text, "To submit, fix: “Full name”"; got != want {
		t.Errorf("hint = %q, want %q", got, want)
	}

	h.typeInto("email", "not-an-email")
	email := h.row("email")
	if email.errLabel.Visible() {
		t.Error("error shown while the email is still being typed")
	}
	h.c.Unfocus() // Tab or click away
	if !email.errLabel.Visible() {
		t.Fatal("no error under the email after leaving it")
	}
	if name.errLabel.Visible() {
		t.Error("error shown under the name the user never touched")
	}

	h.retype("email", "ada@example.com")
	if email.errLabel.Visible() {
		t.Errorf("error %q still shown after fixing the email", email.errLabel.Text)
	}
}

func TestPromptSubmitEnabledOnlyWhenValid(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	if !h.v.submit.Disabled() {
		t.Error("Submit enabled with the required name empty")
	}
	h.typeInto("fullName", "Ada")
	if h.v.submit.Disabled() {
		t.Errorf("Submit disabled on a valid form; hint %q", h.v.hint.Text)
	}
	h.retype("copies", "0")
	if !h.v.submit.Disabled() {
		t.Error("Submit enabled with copies 0 (minimum 1)")
	}
}

func TestPromptKeyboard(t *testing.T) {
	for _, tt := range []struct {
		name  string
		focus func(h *promptHarness) fyne.Focusable // nil: nothing focused
		key   fyne.KeyName
		short fyne.Shortcut
		want  string
	}{
		{"Escape in an entry cancels", entryOf("email"), fyne.KeyEscape, nil, "cancel"},
		{"Escape with nothing focused cancels", nil, fyne.KeyEscape, nil, "cancel"},
		{"Escape on a check box cancels", func(h *promptHarness) fyne.Focusable { return h.row("agree").check }, fyne.KeyEscape, nil, "cancel"},
		{"Escape on a multi select box cancels", func(h *promptHarness) fyne.Focusable { return h.row("channels").multi[1] }, fyne.KeyEscape, nil, "cancel"},
		{"Escape on a select cancels", func(h *promptHarness) fyne.Focusable { return h.row("tier").sel }, fyne.KeyEscape, nil, "cancel"},
		{"Escape on a button cancels", func(h *promptHarness) fyne.Focusable { return h.v.submit }, fyne.KeyEscape, nil, "cancel"},
		{"Return in an entry submits", entryOf("greeting"), fyne.KeyReturn, nil, "accept"},
		{"keypad Enter in an entry submits", entryOf("copies"), fyne.KeyEnter, nil, "accept"},
		{"Return on a check box submits", func(h *promptHarness) fyne.Focusable { return h.row("agree").check }, fyne.KeyReturn, nil, "accept"},
		{"Alt+D in an entry declines", entryOf("fullName"), "", declineShortcut, "decline"},
		{"Alt+D on a check box declines", func(h *promptHarness) fyne.Focusable { return h.row("agree").check }, "", declineShortcut, "decline"},
		{"Alt+D with nothing focused declines", nil, "", declineShortcut, "decline"},
		{"Space on Submit submits", func(h *promptHarness) fyne.Focusable { return h.v.submit }, fyne.KeySpace, nil, "accept"},
		{"Space on Decline declines", func(h *promptHarness) fyne.Focusable { return h.v.decline }, fyne.KeySpace, nil, "decline"},
		{"Space on Cancel cancels", func(h *promptHarness) fyne.Focusable { return h.v.cancel }, fyne.KeySpace, nil, "cancel"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "all-kinds.json")
			h.typeInto("fullName", "Ada")
			if tt.focus != nil {
				h.c.Focus(tt.focus(h))
			} else {
				h.c.Unfocus()
			}
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

func entryOf(name string) func(h *promptHarness) fyne.Focusable {
	return func(h *promptHarness) fyne.Focusable { return h.row(name).entry }
}

func TestPromptTabOrder(t *testing.T) {
	h := newHarness(t, "five-enums.json")
	var got []string
	names := map[fyne.Focusable]string{h.v.mute: "mute", h.v.cancel: "Cancel", h.v.decline: "Decline", h.v.submit: "Submit"}
	for _, r := range h.v.rows {
		if r.sel != nil {
			names[r.sel] = r.f.Name
		}
		for _, c := range r.multi {
			names[c] = r.f.Name + ":" + c.Text
		}
	}
	for range 13 {
		got = append(got, names[h.c.Focused()])
		test.FocusNext(h.c)
	}
	want := []string{"color", "region", "size", "tags:bug", "tags:feature", "tags:docs",
		"formats:CSV", "formats:JSON", "mute", "Cancel", "Decline", "Submit", "color"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tab order mismatch (-want +got):\n%s", diff)
	}
}

func TestPromptDecline(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	h.typeInto("fullName", "Ada")
	test.Tap(h.v.decline)
	if diff := cmp.Diff(Answer{Action: "decline"}, h.only()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestPromptDeclineAndCancelWorkOnInvalidForm(t *testing.T) {
	for _, tt := range []struct {
		name   string
		button func(v *promptView) *keyButton
		want   Answer
	}{
		{"decline", func(v *promptView) *keyButton { return v.decline }, Answer{Action: "decline"}},
		{"cancel", func(v *promptView) *keyButton { return v.cancel }, Answer{Action: "cancel"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "all-kinds.json") // required name empty
			test.Tap(tt.button(h.v))
			if diff := cmp.Diff(tt.want, h.only()); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPromptAnswersOnce(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	h.typeInto("fullName", "Ada")
	test.Tap(h.v.submit)
	test.Tap(h.v.decline)
	h.press(fyne.KeyEscape)
	h.v.onCancel() // the window's close button
	if got := h.only().Action; got != "accept" {
		t.Errorf("action = %q, want accept", got)
	}
}

func TestPromptKeyGuardIgnoresEarlyKeys(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	h.typeInto("fullName", "Ada")
	clock := &fakeClock{t: time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC)}
	h.v.now = clock.now
	h.v.armedAt = clock.t.Add(keyGuard)

	h.c.Focus(h.row("fullName").entry)
	h.press(fyne.KeyReturn)
	h.press(fyne.KeyEscape)
	h.shortcut(declineShortcut)
	h.c.Focus(h.v.submit)
	h.press(fyne.KeySpace)
	if len(h.answers) != 0 {
		t.Fatalf("keys pressed as the window appeared answered it: %+v", h.answers)
	}

	clock.t = clock.t.Add(keyGuard)
	h.press(fyne.KeySpace)
	if got := h.only().Action; got != "accept" {
		t.Errorf("action = %q, want accept", got)
	}
}

// TestPromptHeldKeyNeverAnswers: a key held down as the window appears
// auto-repeats without going down in the window, or with its first repeat
// taken for a press: it answers nothing, even long after the guard; pressed
// again and released, it does. A key pressed during the guard does not
// count either.
func TestPromptHeldKeyNeverAnswers(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	h.typeInto("fullName", "Ada")
	clock := &fakeClock{t: time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC)}
	h.v.now = clock.now
	h.v.armedAt = clock.t.Add(keyGuard)
	h.v.keys.presses = true // as in a desktop window
	entry := h.row("fullName").entry
	h.c.Focus(entry)
	for i := 0; i < 40; i++ { // 4 s of auto-repeat at 10 per second
		h.press(fyne.KeyEscape)
		clock.t = clock.t.Add(100 * time.Millisecond)
	}
	if len(h.answers) != 0 {
		t.Fatalf("a held Escape answered the window: %+v", h.answers)
	}
	// Held since the window before, its first repeat here comes as a
	// press (the window never saw it go down), after the guard: the
	// repeats that follow show it was held, and its release answers
	// nothing (issue 9, a user's held Return accepting the next prompt).
	entry.KeyDown(&fyne.KeyEvent{Name: fyne.KeyReturn})
	for i := 0; i < 10; i++ {
		h.press(fyne.KeyReturn)
		clock.t = clock.t.Add(40 * time.Millisecond)
	}
	entry.KeyUp(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if len(h.answers) != 0 {
		t.Fatalf("a held Return answered the window: %+v", h.answers)
	}
	entry.KeyDown(&fyne.KeyEvent{Name: fyne.KeyReturn}) // pressed anew
	h.press(fyne.KeyReturn)
	if len(h.answers) != 0 {
		t.Fatalf("Return answered before it was released: %+v", h.answers)
	}
	entry.KeyUp(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if got := h.only().Action; got != "accept" {
		t.Errorf("action = %q, want accept", got)
	}

	h = newHarness(t, "all-kinds.json")
	clock = &fakeClock{t: time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC)}
	h.v.now = clock.now
	h.v.armedAt = clock.t.Add(keyGuard)
	h.v.keys.presses = true
	h.c.Focus(h.row("fullName").entry)
	h.row("fullName").entry.KeyDown(&fyne.KeyEvent{Name: fyne.KeyEscape}) // during the guard
	clock.t = clock.t.Add(keyGuard)
	h.press(fyne.KeyEscape) // its repeat, after the guard
	if len(h.answers) != 0 {
		t.Fatalf("a key pressed during the guard answered the window: %+v", h.answers)
	}
}

// TestPromptFocusSelectsDefault: tabbing into a pre-filled entry and typing
// replaces the default instead of prepending to it.
func TestPromptFocusSelectsDefault(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	h.typeInto("fullName", "Ada")
	h.typeInto("copies", "7")
	test.Tap(h.v.submit)
	if got := h.only().Content["copies"]; got != json.Number("7") {
		t.Errorf("copies = %#v, want 7 (typed over the default 42)", got)
	}
}

func TestPromptBoolFalseDefault(t *testing.T) {
	h := newHarness(t, "bool-false-default.json")
	c := h.row("ok").check
	if c == nil {
		t.Fatal("boolean not shown as a check box")
	}
	if c.Checked {
		t.Error("default false shown ticked")
	}
	if c.Text != "Run it now" {
		t.Errorf("check box text = %q, want %q: a required check box is not starred", c.Text, "Run it now")
	}
	test.Tap(h.v.submit)
	want := Answer{Action: "accept", Content: map[string]any{"ok": false}}
	if diff := cmp.Diff(want, h.only()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestPromptFiveEnumsShowLabelsSendValues(t *testing.T) {
	h := newHarness(t, "five-enums.json")

	shown := map[string][]string{}
	selected := map[string]string{}
	for _, r := range h.v.rows {
		switch {
		case r.sel != nil:
			shown[r.f.Name] = r.sel.Options
			selected[r.f.Name] = r.sel.Selected
		case r.multi != nil:
			for _, c := range r.multi {
				shown[r.f.Name] = append(shown[r.f.Name], c.Text)
				if c.Checked {
					selected[r.f.Name] += "[" + c.Text + "]"
				}
			}
		}
	}
	wantShown := map[string][]string{
		"color":   {"Red", "Green", "Blue"},
		"region":  {noneLabel, "Europe (Ireland)", "US East"},
		"size":    {noneLabel, "Small", "Medium", "Large"},
		"tags":    {"bug", "feature", "docs"},
		"formats": {"CSV", "JSON"},
	}
	if diff := cmp.Diff(wantShown, shown); diff != "" {
		t.Errorf("choices shown mismatch (-want +got):\n%s", diff)
	}
	wantSelected := map[string]string{
		"color": "Red", "region": "Europe (Ireland)", "size": "Medium",
		"tags": "[bug]", "formats": "[CSV]",
	}
	if diff := cmp.Diff(wantSelected, selected); diff != "" {
		t.Errorf("defaults shown mismatch (-want +got):\n%s", diff)
	}

	h.choose("color", "Green")
	h.choose("region", "US East")
	h.choose("size", "Large")
	h.tick("tags", "docs")
	h.tick("formats", "JSON")
	test.Tap(h.v.submit)
	want := Answer{Action: "accept", Content: map[string]any{
		"color":   "Green",
		"region":  "us-east-1",
		"size":    "l",
		"tags":    []string{"bug", "docs"},
		"formats": []string{"csv", "json"},
	}}
	if diff := cmp.Diff(want, h.only()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestPromptOptionalSelectCanBeLeftEmpty(t *testing.T) {
	h := newHarness(t, "five-enums.json")
	h.choose("region", noneLabel)
	test.Tap(h.v.submit)
	got := h.only()
	if _, ok := got.Content["region"]; ok {
		t.Errorf("region sent as %v after choosing %s; unfilled optional fields are omitted", got.Content["region"], noneLabel)
	}
}

func TestPromptHeaderAndFieldTexts(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	texts := visibleTexts(h.v.content)
	for _, want := range []string{
		"demo",
		"calls itself “mcp-servers/everything 2.0.0”",
		"during tool call export_report",
		"Fill in your profile so the report can be personalised.",
		"Full name *",
		"As it should appear on the report",
		"Greeting",
		"I accept the terms",
		"Europe", "Americas", "Asia-Pacific",
		"* required",
	} {
		if !contains(texts, want) {
			t.Errorf("%q not shown; shown: %q", want, texts)
		}
	}

	// The configured name comes first, above everything, in large bold type.
	var top *widget.Label
	topY := float32(0)
	walkVisible(h.v.content, func(o fyne.CanvasObject) bool {
		l := labelOf(o)
		if l == nil {
			return true
		}
		if y := absY(o); top == nil || y < topY {
			top, topY = l, y
		}
		return false
	})
	if top.Text != "demo" || !top.TextStyle.Bold || top.SizeName != theme.SizeNameHeadingText {
		t.Errorf("top label is %q (bold %v, size %q), want the configured name in bold heading size",
			top.Text, top.TextStyle.Bold, top.SizeName)
	}
}

func absY(o fyne.CanvasObject) float32 {
	return fyne.CurrentApp().Driver().AbsolutePositionForObject(o).Y
}

func TestPromptHidesUnknownServerInfoAndTool(t *testing.T) {
	test.NewTempApp(t)
	_, form := loadCase(t, "bool-false-default.json")
	v := newPromptView(&Prompt{Server: "db", Message: "Go?", Form: form}, func(Answer) {})
	for _, s := range visibleTexts(v.content) {
		if strings.HasPrefix(s, "calls itself") || strings.HasPrefix(s, "during tool call") {
			t.Errorf("shows %q with no serverInfo and no tool", s)
		}
	}
}

func TestPromptMessageIsPlainText(t *testing.T) {
	test.NewTempApp(t)
	msg := "**Urgent**: [click here](https://evil.example) <b>now</b>\nsecond line"
	v := newPromptView(&Prompt{Server: "demo", Message: msg}, func(Answer) {})
	if !contains(visibleTexts(v.content), msg) {
		t.Errorf("message not shown verbatim as plain text: %q", visibleTexts(v.content))
	}
}

func TestPromptPlaceholders(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	for _, tt := range []struct {
		field, want string
	}{
		{"email", "name@example.com"},
		{"site", "https://…"},
		{"start", "YYYY-MM-DD"},
		{"deadline", "YYYY-MM-DDThh:mm:ssZ"},
		{"copies", "whole number, 1 to 100"},
		{"budget", "number, 0 to 1000"},
		{"fullName", ""},
	} {
		t.Run(tt.field, func(t *testing.T) {
			if got := h.row(tt.field).entry.PlaceHolder; got != tt.want {
				t.Errorf("placeholder = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPromptFocusesFirstField(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	if got, want := h.c.Focused(), fyne.Focusable(h.row("fullName").entry); got != want {
		t.Fatalf("focused %T at open, want the first field", got)
	}
	test.Type(h.c.Focused(), "Ada")
	h.press(fyne.KeyReturn)
	if got := h.only().Content["fullName"]; got != "Ada" {
		t.Errorf("fullName = %v, want Ada typed without clicking", got)
	}
}

func TestShowPrompt(t *testing.T) {
	for _, tt := range []struct {
		name       string
		act        func(pw *PromptWindow)
		wantAnswer []Answer
	}{
		{"closing the window cancels", func(pw *PromptWindow) { pw.view.onCancel() }, []Answer{{Action: "cancel"}}},
		{"Close does not answer", func(pw *PromptWindow) { pw.Close() }, nil},
		{"Close then a late click does not answer", func(pw *PromptWindow) {
			pw.Close()
			test.Tap(pw.view.decline)
			pw.Close()
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			_, form := loadCase(t, "bool-false-default.json")
			var got []Answer
			pw := ShowPrompt(a, &Prompt{Server: "db", Message: "Go?", Form: form}, func(an Answer) { got = append(got, an) })
			if title := pw.win.Title(); title != "elicitray — db asks" {
				t.Errorf("title = %q", title)
			}
			tt.act(pw)
			if diff := cmp.Diff(tt.wantAnswer, got); diff != "" {
				t.Errorf("answers mismatch (-want +got):\n%s", diff)
			}
			for _, w := range a.Driver().AllWindows() {
				if w.Title() == "elicitray — db asks" {
					t.Error("prompt window still open")
				}
			}
		})
	}
}

func TestPromptScrollFollowsFocus(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	h.w.Resize(fyne.NewSize(560, 500)) // the form does not fit
	if h.v.scroll.Offset.Y != 0 {
		t.Fatalf("form scrolled at open: offset %v", h.v.scroll.Offset.Y)
	}
	last := h.row("format")
	h.c.Focus(last.sel)
	d := fyne.CurrentApp().Driver()
	top := d.AbsolutePositionForObject(last.sel).Y
	view := d.AbsolutePositionForObject(h.v.scroll).Y
	if top < view || top+last.sel.Size().Height > view+h.v.scroll.Size().Height {
		t.Errorf("focused last field at y=%v is outside the form area [%v, %v]", top, view, view+h.v.scroll.Size().Height)
	}
	h.c.Focus(h.row("fullName").entry)
	if h.v.scroll.Offset.Y != 0 {
		t.Errorf("form not scrolled back to the first field: offset %v", h.v.scroll.Offset.Y)
	}
}

// TestPromptWheelOverEntryScrollsForm: the mouse wheel over a text
// field scrolls a form too long for its window, as it does over the rest
// of it (Fyne gave it to the entry's own one-line scroll, and the form
// stopped under the pointer); a click there still reaches the entry.
func TestPromptWheelOverEntryScrollsForm(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	h.w.Resize(fyne.NewSize(560, 500)) // the form does not fit
	e := h.row("fullName").entry
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(e).Add(fyne.NewPos(e.Size().Width/2, e.Size().Height/2))
	test.Scroll(h.c, at, 0, -80)
	if h.v.scroll.Offset.Y == 0 {
		t.Fatal("the wheel over the first text field left the form where it was")
	}
	h.v.scroll.ScrollToTop()
	test.TapCanvas(h.c, at)
	if h.c.Focused() != e {
		t.Errorf("a click on the text field focused %T, not the field", h.c.Focused())
	}
}

// TestPromptWheelOverCoveredOrSecretField: the wheel scrolls the form over
// a secret whose dots fit the field (its text, measured as typed, did
// not), and over a right-to-left text wider than its field while the
// label drawn over it in visual order shows (its entry's own text
// scrolled unseen beneath); both found by a break-it session.
func TestPromptWheelOverCoveredOrSecretField(t *testing.T) {
	test.NewTempApp(t)
	props := []string{`"api_token":{"type":"string","title":"API token"}`,
		`"note":{"type":"string","title":"הערה","default":"` + strings.Repeat("שלום עולם, מה שלומך היום? ", 12) + `"}`}
	for i := range 25 {
		props = append(props, fmt.Sprintf(`"f%d":{"type":"string","title":"字段 %d"}`, i, i))
	}
	form, err := elicit.Parse(json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	v := newPromptView(&Prompt{Server: "vault", Message: "?", Form: form}, func(Answer) {})
	v.closeWindow = func() {}
	w := test.NewTempWindow(t, v.content)
	w.Resize(fyne.NewSize(promptWidth, 500))
	v.attach(w.Canvas())
	secret := v.rows[0].entry
	if !secret.Password {
		t.Fatal("api_token is not taken for a secret: the test tells nothing apart")
	}
	secret.SetText(strings.Repeat("W", 41))
	if !v.rows[1].bidi.cover.Visible() {
		t.Fatal("the Hebrew note is not covered: the test tells nothing apart")
	}
	for _, r := range v.rows[:2] {
		v.scroll.ScrollToTop()
		e := r.entry
		at := fyne.CurrentApp().Driver().AbsolutePositionForObject(e).Add(fyne.NewPos(e.Size().Width/2, e.Size().Height/2))
		test.Scroll(w.Canvas(), at, 0, -80)
		if v.scroll.Offset.Y == 0 {
			t.Errorf("the wheel over %s left the form where it was", r.f.Name)
		}
	}
}

// TestPromptClipsServerText: a huge title, option label, description or
// message cannot push the server's name and the buttons off screen; the
// window stays a sensible size and says the message was shortened.
func TestPromptClipsServerText(t *testing.T) {
	long := strings.Repeat("T", 50_000)
	form, err := elicit.Parse(json.RawMessage(`{"type":"object","properties":{
		"a":{"type":"string","title":"` + long + `","description":"` + long + `"},
		"b":{"type":"array","items":{"anyOf":[{"const":"x","title":"` + long + `"}]}},
		"c":{"type":"string","oneOf":[{"const":"y","title":"` + long + `"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v := newPromptView(&Prompt{Server: "github", Message: long + long, Form: form}, func(Answer) {})
	w := test.NewTempWindow(t, v.content)
	w.Resize(v.size())
	if size := v.content.MinSize(); size.Width > 1000 {
		t.Errorf("window %v wide: server text stretched it", size)
	}
	for _, text := range []string{v.rows[0].box.Objects[0].(*bidiLabel).Text, v.rows[1].multi[0].Text, v.rows[2].sel.Options[1]} {
		if n := len([]rune(text)); n > maxLabel+2 {
			t.Errorf("a label of %d characters is shown", n)
		}
	}
	if !strings.Contains(messageText(long+long), "the history keeps all of it") {
		t.Error("a shortened message does not say so")
	}
	// The end of a long message is shown: what comes last is often the
	// question, or what the server hoped would not be read.
	tricky := strings.Repeat("Lorem ipsum dolor sit amet. ", 100) + "ALSO: this deletes the database."
	if shown := messageText(tricky); !strings.HasSuffix(shown, "ALSO: this deletes the database.") || len([]rune(shown)) > maxMessage+200 {
		t.Errorf("a long message is shown as %d characters ending %q", len([]rune(shown)), shown[len(shown)-40:])
	}
}

// TestPromptShowsRanges: a number's range is in its help line from the
// start, though the default hides the placeholder.
func TestPromptShowsRanges(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	for name, want := range map[string]string{
		"copies": "How many printed copies — Whole number, 1 to 100.",
		"budget": "Upper bound — Number, 0 to 1000.",
		"email":  "Where the report is sent",
	} {
		found := false
		for _, o := range h.row(name).box.Objects {
			if l, ok := o.(*widget.Label); ok && l.Text == want {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no help line %q", name, want)
		}
	}
}

// TestLongMessageScrolls: a message of 2,000 lines scrolls inside a
// bounded box; neither prompt window grows past its cap of 720 units, and
// the buttons stay in view.
func TestLongMessageScrolls(t *testing.T) {
	var lines []string
	for i := range 2000 {
		lines = append(lines, fmt.Sprintf("line %d of the plan", i+1))
	}
	msg := strings.Join(lines, "\n")
	for _, kind := range []string{"form", "url"} {
		t.Run(kind, func(t *testing.T) {
			a := test.NewTempApp(t)
			var pw *PromptWindow
			var buttons fyne.CanvasObject
			if kind == "form" {
				_, form := loadCase(t, "bool-false-default.json")
				pw = ShowPrompt(a, &Prompt{Server: "deploy", Message: msg, Form: form}, func(Answer) {})
				buttons = pw.view.submit
			} else {
				pw = ShowURLPrompt(a, &URLPrompt{Server: "deploy", Message: msg, Check: elicit.CheckURL(sessionURL(t))}, func(Answer) {})
				buttons = pw.urlView.open
			}
			defer pw.Close()
			size, minSize := pw.win.Canvas().Size(), pw.win.Content().MinSize()
			if size.Height > 720 || minSize.Height > 720 {
				t.Errorf("window %v tall (content at least %v): the message grew it past 720", size.Height, minSize.Height)
			}
			var box *container.Scroll
			walkVisible(pw.win.Content(), func(o fyne.CanvasObject) bool {
				if s, ok := o.(*container.Scroll); ok {
					if l, ok := s.Content.(*bidiLabel); ok && strings.HasPrefix(l.Text, "line 1 of the plan\n") {
						box = s
					}
				}
				return true
			})
			if box == nil {
				t.Fatal("the message is not in a scroll box of its own")
			}
			if h := box.Size().Height; h > 160 || h < 40 {
				t.Errorf("message box %v tall, want at most 160 and room to read", h)
			}
			if box.Content.MinSize().Height <= box.Size().Height {
				t.Error("the message box does not scroll: all of the message fits")
			}
			if y := absY(buttons) + buttons.Size().Height; y > size.Height {
				t.Errorf("buttons end at y=%v, below the window's %v", y, size.Height)
			}
		})
	}
}

// TestPromptNumbersExactlyAsShown (issue 10): a default and a bound beyond
// what a float64 holds are shown to the digit, and what the entry shows or
// the user types is what Submit sends: 9007199254740993, not the float64
// 9007199254740992.
func TestPromptNumbersExactlyAsShown(t *testing.T) {
	test.NewTempApp(t)
	form, err := elicit.Parse(json.RawMessage(`{"type":"object","properties":{
		"account":{"type":"integer","title":"Account","minimum":9007199254740993,"maximum":1e30,"default":9007199254740993},
		"share":{"type":"number","title":"Share","default":0.1000000000000000000001},
		"reference":{"type":"integer","title":"Reference"},
		"ceiling":{"type":"number","title":"Ceiling"}},"required":["reference"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var answers []Answer
	v := newPromptView(&Prompt{Server: "bank", Message: "Transfer?", Form: form}, func(a Answer) { answers = append(answers, a) })
	w := test.NewTempWindow(t, v.content)
	rows := map[string]*fieldRow{}
	for _, r := range v.rows {
		rows[r.f.Name] = r
	}
	for name, want := range map[string]string{"account": "9007199254740993", "share": "0.1000000000000000000001"} {
		if got := rows[name].entry.Text; got != want {
			t.Errorf("%s shows %q, want the default %q to the digit", name, got, want)
		}
	}
	if got, want := rows["account"].entry.PlaceHolder, "whole number, 9007199254740993 to 1e30"; got != want {
		t.Errorf("account's range reads %q, want %q", got, want)
	}
	w.Canvas().Focus(rows["reference"].entry)
	test.Type(rows["reference"].entry, "9007199254740995")
	w.Canvas().Focus(rows["ceiling"].entry)
	test.Type(rows["ceiling"].entry, "1e400")
	test.Tap(v.submit)
	if len(answers) != 1 {
		t.Fatalf("%d answers, want one accept", len(answers))
	}
	b, err := json.Marshal(answers[0].Content)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"account":9007199254740993,"ceiling":1e400,"reference":9007199254740995,"share":0.1000000000000000000001}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("content the server receives mismatch (-want +got):\n%s", diff)
	}
}

// TestPromptExactBoundRefuses: one past a bound beyond 2^53 is refused
// under the field, where a float64 would round it onto the bound.
func TestPromptExactBoundRefuses(t *testing.T) {
	test.NewTempApp(t)
	form, err := elicit.Parse(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","title":"Account","maximum":9007199254740992}},"required":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	v := newPromptView(&Prompt{Server: "bank", Message: "Which?", Form: form}, func(Answer) {})
	w := test.NewTempWindow(t, v.content)
	e := v.rows[0].entry
	w.Canvas().Focus(e)
	test.Type(e, "9007199254740993")
	w.Canvas().Focus(nil)
	if !v.submit.Disabled() {
		t.Error("Submit is enabled for a value one past the maximum")
	}
	if got, want := v.rows[0].errLabel.Text, "Account must be at most 9007199254740992."; got != want {
		t.Errorf("error under the field %q, want %q", got, want)
	}
}

// TestClickGuard: a click on Submit, Decline or Open in browser in the
// first half second after the window appears — a click meant for whatever
// was under the pointer before the window popped up there — answers
// nothing; after it, the same click answers. Cancel is not delayed.
func TestClickGuard(t *testing.T) {
	a := test.NewTempApp(t)
	var got []Answer
	form, err := elicit.Parse(json.RawMessage(`{"type":"object","properties":{"go":{"type":"boolean","default":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, button := range []string{"submit", "decline"} {
		got = nil
		pw := ShowPrompt(a, &Prompt{Server: "github", Message: "Delete the repo?", Form: form}, func(an Answer) { got = append(got, an) })
		b := pw.view.submit
		if button == "decline" {
			b = pw.view.decline
		}
		test.Tap(b)
		if len(got) != 0 {
			t.Fatalf("%s clicked at once answered %+v", button, got)
		}
		pw.arm() // the guard has passed
		test.Tap(b)
		if len(got) != 1 {
			t.Fatalf("%s clicked after the guard answered %d times, want once", button, len(got))
		}
	}
	u := "https://auth.example.com/connect"
	got = nil
	pw := ShowURLPrompt(a, &URLPrompt{Server: "payments", Message: "Connect.", Check: elicit.CheckURL(u)}, func(an Answer) { got = append(got, an) })
	test.Tap(pw.urlView.open)
	if len(got) != 0 {
		t.Fatalf("Open in browser clicked at once answered %+v", got)
	}
	test.Tap(pw.urlView.cancel)
	if len(got) != 1 || got[0].Action != actionCancel {
		t.Fatalf("Cancel clicked at once answered %+v, want cancel", got)
	}
}

// A default the server got wrong is left out, and the field says so: empty
// without a word, it would look as if the server gave none.
func TestHelpTextSaysDefaultLeftOut(t *testing.T) {
	form, err := elicit.Parse([]byte(`{"type":"object","properties":{
		"n":{"type":"integer","description":"How many","maximum":10,"default":11},
		"c":{"type":"string","enum":["Red"],"default":"Purple"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{
		"How many — The server's default was left out (must be at most 10). — Whole number, at most 10.",
		`The server's default was left out ("Purple" is not one of the choices).`,
	} {
		if got := helpText(&form.Fields[i]); got != want {
			t.Errorf("help of %s = %q, want %q", form.Fields[i].Name, got, want)
		}
	}
}

// TestKeptPromptWindow: with KeepPromptWindows, a closed prompt's window
// hides, emptied, and is the next prompt's window, titled for it. Answers
// go to the prompt on screen only, and an old prompt's Close no longer
// touches its window.
func TestKeptPromptWindow(t *testing.T) {
	a := test.NewTempApp(t)
	KeepPromptWindows(a)
	t.Cleanup(func() { spare = spareWindow{} })
	_, form := loadCase(t, "bool-false-default.json")
	var answers []string
	show := func(server string) *PromptWindow {
		return ShowPrompt(a, &Prompt{Server: server, Message: server + "?", Form: form}, func(an Answer) {
			answers = append(answers, server+":"+an.Action)
		})
	}
	p1 := show("db")
	w1 := p1.win
	p1.view.onDecline()
	if contains(visibleTexts(w1.Content()), "db?") {
		t.Errorf("the kept window still shows the answered prompt: %v", visibleTexts(w1.Content()))
	}
	p2 := show("web")
	if p2.win != w1 {
		t.Fatalf("the next prompt got a new window, want the kept one")
	}
	if title := w1.Title(); title != "elicitray — web asks" {
		t.Errorf("the kept window is titled %q for the next prompt", title)
	}
	if !contains(visibleTexts(w1.Content()), "web?") {
		t.Errorf("the kept window shows %v, want the next prompt's message", visibleTexts(w1.Content()))
	}
	p1.Close() // late: the first prompt is over
	if !contains(visibleTexts(w1.Content()), "web?") {
		t.Fatalf("the first prompt's Close emptied the window the next prompt is in")
	}
	p3 := show("git") // while web's is open: a window of its own
	if p3.win == w1 {
		t.Fatalf("a prompt shown while the kept window is in use got it too")
	}
	p2.view.onCancel()
	p3.view.onCancel()
	if diff := cmp.Diff([]string{"db:decline", "web:cancel", "git:cancel"}, answers); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// TestPromptRequiredCheckBoxHasNoStar: a required check box sends false
// unticked, so it is not starred as if it had to be ticked (a new user
// read "I understand the risk *" so), and a form whose only required field
// is one says nothing of required fields.
func TestPromptRequiredCheckBoxHasNoStar(t *testing.T) {
	h := rememberHarness(t, `{"type":"object","properties":{"ack":{"type":"boolean","title":"I understand the risk"}},"required":["ack"]}`, Prompt{})
	texts := visibleTexts(h.v.content)
	if !contains(texts, "I understand the risk") || contains(texts, "* required") {
		t.Errorf("the window shows %q, want the check box unstarred and no \"* required\"", texts)
	}
	h.press(fyne.KeyReturn)
	if got := h.only().Content["ack"]; got != false {
		t.Errorf("Return sent ack %v, want false: unticked is an answer", got)
	}
}

// TestFieldErrorsInEveryScript (issue 24): the sentence under a field starts
// with the field's title as the server wrote it, its first character
// capitalised when its script has case. Capitalising the first byte showed
// "���务名 is required.".
func TestFieldErrorsInEveryScript(t *testing.T) {
	for _, tt := range []struct {
		field, typed, want string
	}{
		{`{"type":"string","title":"服务名"}`, "", "服务名 is required."},
		{`{"type":"integer","title":"副本数","maximum":10}`, "11", "副本数 must be at most 10."},
		{`{"type":"string","title":"اسم الخادم"}`, "", "اسم الخادم is required."},
		{`{"type":"string","title":"שם השרת"}`, "", "שם השרת is required."},
		{`{"type":"string","title":"सेवा का नाम"}`, "", "सेवा का नाम is required."},
		{`{"type":"string","title":"👍🏽 votes"}`, "", "👍🏽 votes is required."},
		{`{"type":"string","title":"👩‍👩‍👧‍👦 family"}`, "", "👩‍👩‍👧‍👦 family is required."},
		{`{"type":"string","title":"e\u0301tat"}`, "", "E\u0301tat is required."},
		{`{"type":"string","title":"état du service"}`, "", "État du service is required."},
	} {
		t.Run(tt.want, func(t *testing.T) {
			h := newSchemaHarness(t, schemaOf("f", tt.field, true))
			if tt.typed != "" {
				h.typeInto("f", tt.typed)
			}
			h.press(fyne.KeyReturn)
			// Drawn left to right as the window's sentences are, the
			// title in its own order (bidiSentence).
			if r := h.row("f"); !r.errLabel.Visible() || r.errLabel.Text != bidiSentence(tt.want) {
				t.Errorf("under the field: %q (visible %v), want %q", r.errLabel.Text, r.errLabel.Visible(), tt.want)
			}
			if len(h.answers) != 0 {
				t.Errorf("an invalid form answered %+v", h.answers)
			}
		})
	}
}
