package ui

import (
	"image/color"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/state"
)

// TestHintsReadable: text of low importance, which Fyne draws in its
// disabled colour (1.2:1 to 1.4:1 to the background), reads at 4.5:1 or
// more in both theme variants wherever elicitray shows it: the prompt's
// "To submit, fix: …", Settings' "To save, fix: …", the notes of the
// history's detail pane and the menu's "(no servers yet)" (a new user could
// hardly read the prompt's). It is still dimmer than the rest of the text.
func TestHintsReadable(t *testing.T) {
	prompt := newHarness(t, "all-kinds.json") // its required name is empty
	if prompt.v.hint.Text == "" {
		t.Fatal("the prompt shows no hint: the test tells nothing apart")
	}
	settings := newSettingsHarness(t, sampleSettings())
	settings.retype("github", "Burst", "0")
	detail := showOne(t, history.Record{ID: 1, Time: t0, Server: "部署", Mode: "form", Message: "?", Action: "cancel", DecidedBy: "timeout", Elapsed: time.Minute})
	menu := newMenuHarness(t, state.MenuState{})

	fyne.CurrentApp().Settings().SetTheme(theme.DefaultTheme())
	base := theme.DefaultTheme()
	nrgba := func(c color.Color) color.NRGBA { return color.NRGBAModel.Convert(c).(color.NRGBA) }
	found := 0
	for where, o := range map[string]fyne.CanvasObject{"prompt": prompt.v.content, "settings": settings.v.content,
		"history": detail.v.content, "menu": menu.mw.view.content} {
		walkVisible(o, func(o fyne.CanvasObject) bool {
			l, ok := o.(*widget.Label)
			if !ok || l.Importance != widget.LowImportance || l.Text == "" {
				return true
			}
			found++
			for _, v := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
				text := nrgba(theme.CurrentForWidget(l).Color(theme.ColorNameDisabled, v))
				for _, bg := range []fyne.ThemeColorName{theme.ColorNameBackground, theme.ColorNameHeaderBackground, theme.ColorNameInputBackground} {
					if c := contrast(text, nrgba(base.Color(bg, v))); c < 4.5 {
						t.Errorf("%s: %q reads at %.1f:1 on %s in variant %d; want at least 4.5:1", where, l.Text, c, bg, v)
					}
				}
				fg := nrgba(base.Color(theme.ColorNameForeground, v))
				if under := nrgba(base.Color(theme.ColorNameBackground, v)); contrast(text, under) >= contrast(fg, under) {
					t.Errorf("%s: %q is as strong as the rest of the text in variant %d", where, l.Text, v)
				}
			}
			return true
		})
	}
	if found < 5 {
		t.Errorf("%d texts of low importance checked; want the prompt's, Settings', the history's two and the menu's", found)
	}
}
