package ui

import (
	"log"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	fynelang "fyne.io/fyne/v2/lang"

	"github.com/elicitray/elicitray/ui/lang"
)

// translations are elicitray's translation files (ui/lang), which Fyne's
// lang gets too: Fyne's own words (a dialog's buttons, an entry's menu)
// then come from the same files, in the language ui/lang chooses for
// elicitray's (TestFyneSpeaksAsElicitray).
var translations = lang.Files

// LoadTranslations gives Fyne elicitray's translations, once: the window
// process calls it before its Fyne app starts. Other processes (wrapper,
// hub, CLI) draw no Fyne widget and do not pay for it at start.
func LoadTranslations() { loadOnce.Do(loadTranslations) }

var loadOnce sync.Once

// loadTranslations adds elicitray's translations to Fyne's and lets Fyne
// choose the language again from the environment, as it does each time
// translations are added: tests call it after changing LANG (ui/lang
// follows the environment by itself).
func loadTranslations() {
	english, err := translations.ReadFile("translations/en.json")
	user, _, _ := strings.Cut(string(fynelang.SystemLocale()), "-") // "fr" of "fr-FR"
	if err == nil {
		// Only the user's: lang chooses the language again, and logs a
		// locale it cannot parse (C), at each language added.
		for _, l := range lang.FyneOnly {
			if strings.HasPrefix(l, user) {
				if err = fynelang.AddTranslationsForLocale(english, fyne.Locale(l)); err != nil {
					break
				}
			}
		}
	}
	if err == nil {
		err = fynelang.AddTranslationsFS(translations, "translations")
	}
	if err != nil {
		log.Printf("elicitray: loading translations: %v", err)
	}
}
