package ui

import (
	"embed"
	"log"
	"regexp"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
)

// translations holds what elicitray itself says, in every language it
// speaks: en.json and zh_Hans.json, keyed by the English text (lang.L) or,
// for counts, by the English plural (lang.N). The server's own text never
// goes through them. The files are for ui's windows and for app's
// notifications and doctor report alike: app imports ui, so they are loaded
// before any of app's code runs.
//
//go:embed translations
var translations embed.FS

func init() { loadTranslations() }

// loadTranslations adds elicitray's translations to Fyne's and chooses
// the language again from the environment (LC_ALL, LC_MESSAGES, LANG, then
// LANGUAGE; C or POSIX is English), as lang does each time translations are
// added: tests call it after changing LANG. It needs no Fyne driver, so the
// command line (doctor) speaks the same language as the windows.
func loadTranslations() {
	english, err := translations.ReadFile("translations/en.json")
	user, _, _ := strings.Cut(string(lang.SystemLocale()), "-") // "fr" of "fr-FR"
	if err == nil {
		// Only the user's: lang chooses the language again, and logs a
		// locale it cannot parse (C), at each language added.
		for _, l := range fyneOnly {
			if strings.HasPrefix(string(l), user) {
				if err = lang.AddTranslationsForLocale(english, l); err != nil {
					break
				}
			}
		}
	}
	if err == nil {
		err = lang.AddTranslationsFS(translations, "translations")
	}
	if err != nil {
		log.Printf("elicitray: loading translations: %v", err)
	}
}

// fyneOnly are the languages Fyne translates its own words into and
// elicitray does not (Fyne v2.7.1's lang/translations): elicitray's English
// is loaded as the user's one of them, so that their users read English throughout, never
// Fyne's "Annuler" beside elicitray's "Decline", and no lookup fails into
// the log.
var fyneOnly = []fyne.Locale{"cs", "de", "el", "es", "fr", "pl", "pt", "pt_BR", "ru", "sv", "ta", "uk"}

// Count is the template data of a translated count (lang.N's "{{.Count}}
// decisions"): n with commas between groups of three digits (Thousands).
func Count(n int) map[string]any { return map[string]any{"Count": Thousands(n)} }

// Sentences translate sentences that other parts of elicitray write in
// English, for hub.log, the host or the command line as much as for a
// window (bridge/elicit's field and link messages, the hub's reasons,
// doctor's findings from elsewhere): the first whose pattern matches says
// the sentence in the user's language, with what the pattern captured
// quoted as written.
type Sentences []Sentence

// Sentence is one sentence's pattern, anchored at both ends, and its
// translation from the pattern's submatches (lang.L with a constant key).
type Sentence struct {
	Pattern *regexp.Regexp
	Say     func(m []string) string
}

// Say is s in the user's language, and whether a pattern matched: s
// itself when none did.
func (ss Sentences) Say(s string) (string, bool) {
	for _, t := range ss {
		if m := t.Pattern.FindStringSubmatch(s); m != nil {
			return t.Say(m), true
		}
	}
	return s, false
}
