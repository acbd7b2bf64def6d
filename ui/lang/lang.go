// Package lang is what elicitray says to a person, in their language: the
// translations (translations/en.json and zh_Hans.json, keyed by the English
// text, or for counts by the English plural), the choice of language, and
// the helpers that write counts and translate sentences written in
// English elsewhere. The windows (ui), the tray, notifications, doctor and
// the command line all speak through it, so they speak one language; it
// imports no Fyne, so the hub's engine and the command line can use it on
// any system without cgo. ui feeds the same files to Fyne's lang for
// Fyne's own words (ui/lang.go).
//
// The language is the environment's, chosen as Fyne's lang chooses it, with
// the same libraries (github.com/jeandeaual/go-locale, go-i18n): LC_ALL,
// LC_MESSAGES, LANG, then LANGUAGE on Unix (C or POSIX is English), the
// system's setting elsewhere; matched against the languages Fyne speaks,
// where those elicitray has no file of its own read English. It is chosen
// again whenever those variables change (tests set them), and is safe for
// concurrent use. The files are parsed at the first call, not at start: the
// wrapper never needs them.
package lang

import (
	"embed"
	"encoding/json"
	"log"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/jeandeaual/go-locale"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// Files holds translations/en.json and translations/zh_Hans.json.
//
//go:embed translations
var Files embed.FS

// FyneOnly are the languages Fyne translates its own words into and
// elicitray does not (Fyne v2.7.1's lang/translations): a user of one reads
// elicitray's English throughout, never Fyne's "Annuler" beside "Decline",
// with that language's plural rules, as Fyne's lang does with the English
// file ui loads under the user's one of them.
var FyneOnly = []string{"cs", "de", "el", "es", "fr", "pl", "pt", "pt_BR", "ru", "sv", "ta", "uk"}

// L is key in the user's language, its template filled in from data[0] (a
// map or a struct); key itself, filled in, when no translation has it.
func L(key string, data ...any) string { return localize(key, nil, data) }

// N is the plural form of key that fits count, in the user's language, its
// template filled in from data[0] (Count's map, for "{{.Count}} decisions").
func N(key string, count int, data ...any) string { return localize(key, count, data) }

func localize(key string, count any, data []any) string {
	var d any
	if len(data) > 0 {
		d = data[0]
	}
	s, err := localizer().Localize(&i18n.LocalizeConfig{
		DefaultMessage: &i18n.Message{ID: key, Other: key},
		PluralCount:    count,
		TemplateData:   d,
	})
	if err != nil {
		log.Printf("elicitray: translating %q: %v", key, err)
		t, err := template.New("").Parse(key)
		if err != nil {
			return key
		}
		var b strings.Builder
		_ = t.Execute(&b, d)
		return b.String()
	}
	return s
}

// bundle is every translation, parsed once: English under "en" and under
// each of FyneOnly, Chinese under "zh-Hans".
var bundle = sync.OnceValue(func() *i18n.Bundle {
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	for _, name := range []string{"en.json", "zh_Hans.json"} {
		data, err := Files.ReadFile("translations/" + name)
		var f *i18n.MessageFile
		if err == nil {
			f, err = b.ParseMessageFileBytes(data, name)
		}
		if err != nil {
			log.Printf("elicitray: loading translations: %v", err)
			continue
		}
		if f.Tag != language.English {
			continue
		}
		for _, l := range FyneOnly {
			if err := b.AddMessages(language.Make(l), f.Messages...); err != nil {
				log.Printf("elicitray: loading translations: %v", err)
			}
		}
	}
	return b
})

// speaker is the language chosen for an environment.
type speaker struct {
	env string // the variables it was chosen from
	loc *i18n.Localizer
}

var current atomic.Pointer[speaker]

// localizer is the language of the environment as it is now.
func localizer() *i18n.Localizer {
	env := localeEnv()
	if s := current.Load(); s != nil && s.env == env {
		return s.loc
	}
	// go-locale returns nothing for C and POSIX: English, the bundle's first.
	locales, _ := locale.GetLocales()
	s := &speaker{env: env, loc: i18n.NewLocalizer(bundle(), locales...)}
	current.Store(s)
	return s.loc
}

// localeEnv is what go-locale reads on Unix; elsewhere it asks the system,
// which does not change under a running process.
func localeEnv() string {
	var b strings.Builder
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"} {
		b.WriteString(os.Getenv(k))
		b.WriteByte(0)
	}
	return b.String()
}
