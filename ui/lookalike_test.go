package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// TestPromptFlagsImitatedControls: server text that passes for the
// window's own controls, a check box titled "Don't ask again for an hour",
// a message line "☑ Always answer this way", a line "[ Submit ]", gets a
// warning that names the control and says where the real ones are (issue
// 27: a server's field was drawn exactly like the window's own check
// box). Text that only shares a word with them, and choices named like
// buttons, do not.
func TestPromptFlagsImitatedControls(t *testing.T) {
	for _, tt := range []struct {
		name, message, schema string
		want                  string // the control named, "" for no warning
	}{
		{"a check box titled like the mute", "Deploy?", `{"type":"object","properties":{"m":{"type":"boolean","title":"Don't ask again for an hour"}}}`, "Don't ask again for an hour"},
		{"curly apostrophe, other case", "Deploy?", `{"type":"object","properties":{"m":{"type":"boolean","title":"DON’T ASK AGAIN FOR AN HOUR"}}}`, "Don't ask again for an hour"},
		{"a ticked box in the message", "Deploy?\n☑ Always answer this way", `{"type":"object","properties":{}}`, rememberLabel},
		{"a button in the message", "Deploy?\n[ Submit ]", `{"type":"object","properties":{}}`, "Submit"},
		{"a description line", "Deploy?", `{"type":"object","properties":{"n":{"type":"string","description":"Your name\n✔ Always answer this way"}}}`, rememberLabel},
		{"a choice like the remember box", "Pick", `{"type":"object","properties":{"c":{"type":"string","oneOf":[{"const":"a","title":"Always answer this way"},{"const":"b","title":"Ask me"}]}}}`, rememberLabel},
		{"choices named like buttons", "Your decision?", `{"type":"object","properties":{"d":{"type":"string","enum":["Approve","Decline"]}}}`, ""},
		{"words in a sentence", "Submit the form below to deploy; cancel to stop.", `{"type":"object","properties":{"a":{"type":"boolean","title":"Ask again next time"}}}`, ""},
		{"Chinese text", "部署到生产环境？", `{"type":"object","properties":{"n":{"type":"string","title":"名字"}}}`, ""},
		{"a check box titled like a button", "Review the pull request", `{"type":"object","properties":{"ok":{"type":"boolean","title":"Approve"}}}`, ""},
		// Written so as to slip past a comparison of letters (the break-it
		// session's): look-alike letters, spaces, apostrophes, a bar of
		// buttons on one line, hidden and fullwidth letters.
		{"a Cyrillic o", "Deploy?", `{"type":"object","properties":{"m":{"type":"boolean","title":"D\u043en't ask again for an hour"}}}`, "Don't ask again for an hour"},
		{"a Cyrillic A", "Deploy?\n☑ \u0410lways answer this way", `{"type":"object","properties":{}}`, rememberLabel},
		{"two spaces", "Deploy?", `{"type":"object","properties":{"m":{"type":"boolean","title":"Don't  ask again for an hour"}}}`, "Don't ask again for an hour"},
		{"no apostrophe", "Deploy?", `{"type":"object","properties":{"m":{"type":"boolean","title":"Dont ask again for an hour"}}}`, "Don't ask again for an hour"},
		{"a bar of buttons", "Deploy?\n[ Submit ]   [ Decline ]", `{"type":"object","properties":{}}`, "Submit"},
		{"a zero-width space inside", "Deploy?\n[ Sub\u200bmit ]", `{"type":"object","properties":{}}`, "Submit"},
		{"fullwidth", "Deploy?\n［ Ｓｕｂｍｉｔ ］", `{"type":"object","properties":{}}`, "Submit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			test.NewTempApp(t)
			form, err := elicit.Parse([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			v := newPromptView(&Prompt{Server: "github", Message: tt.message, Form: form}, func(Answer) {})
			var warning string
			for _, s := range visibleTexts(v.content) {
				if strings.HasPrefix(s, "This request has text that looks like elicitray's own") {
					warning = s
				}
			}
			switch {
			case tt.want == "" && warning != "":
				t.Errorf("warned %q, though nothing imitates a control", warning)
			case tt.want != "" && !strings.Contains(warning, "“"+tt.want+"”"):
				t.Errorf("warning %q, want one naming “%s”", warning, tt.want)
			}
		})
	}
}

// TestOwnControlsOnTheirBand: the window's own controls, and only they,
// sit on the shaded band at the window's foot (issue 27: a server's check
// box titled like the mute was drawn exactly like it); the server's field
// of that title is in the scroll area above, off the band.
func TestOwnControlsOnTheirBand(t *testing.T) {
	for _, kind := range []string{"form", "url"} {
		t.Run(kind, func(t *testing.T) {
			test.NewTempApp(t)
			var bottom, above fyne.CanvasObject
			if kind == "form" {
				form, err := elicit.Parse([]byte(`{"type":"object","properties":{"m":{"type":"boolean","title":"Don't ask again for an hour"}}}`))
				if err != nil {
					t.Fatal(err)
				}
				v := newPromptView(&Prompt{Server: "github", Message: "Deploy?", Form: form, CanRemember: true}, func(Answer) {})
				bottom, above = v.bottom, v.scroll
			} else {
				v := newURLPromptView(&URLPrompt{Server: "github", Message: "Sign in", Check: elicit.CheckURL("https://example.com/login")}, func(Answer) {})
				bottom, above = v.bottom, v.body
			}
			band, ok := bottom.(*fyne.Container)
			if !ok || len(band.Objects) == 0 {
				t.Fatalf("the foot is %T, want the band", bottom)
			}
			rect, ok := band.Objects[0].(*canvas.Rectangle)
			if !ok || rect.FillColor != theme.Color(theme.ColorNameHeaderBackground) || rect.CornerRadius == 0 {
				t.Fatalf("the foot's back is %#v, want a rounded rectangle of the header colour", band.Objects[0])
			}
			own := []string{muteLabel}
			if kind == "form" {
				own = append(own, rememberLabel)
			}
			onBand := visibleTexts(bottom)
			for _, label := range own {
				if !contains(onBand, label) {
					t.Errorf("%q is not on the band: %q", label, onBand)
				}
			}
			if kind == "form" && !contains(visibleTexts(above), muteLabel) {
				t.Errorf("the server's check box titled like the mute is not above the band: %q", visibleTexts(above))
			}
		})
	}
}
