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
// wrapper needs them only for a guard window's text (English).
package lang

import (
	"embed"
	"encoding/json"
	"log"
	"os"
	"slices"
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
func L(key string, data ...any) string { return User.L(key, data...) }

// N is the plural form of key that fits count, in the user's language, its
// template filled in from data[0] (Count's map, for "{{.Count}} decisions").
func N(key string, count int, data ...any) string { return User.N(key, count, data...) }

// A Speaker says elicitray's sentences in one language, as L and N do: User
// in the user's language, English in English whatever the environment.
// Code that writes one text for a window and for what is kept (bridge's
// guard windows: the window says it in the user's language, the history
// record and the logs in English) takes a Speaker, and names it say: the
// translation test finds the keys of say.L and say.N as it does lang.L's.
// The zero Speaker is English.
type Speaker struct{ user bool }

var (
	User    = Speaker{user: true}
	English = Speaker{}
)

// L is key in s's language, as the package's L.
func (s Speaker) L(key string, data ...any) string { return s.localize(key, nil, data) }

// N is the plural form of key in s's language, as the package's N.
func (s Speaker) N(key string, count int, data ...any) string { return s.localize(key, count, data) }

func (sp Speaker) localize(key string, count any, data []any) string {
	var d any
	if len(data) > 0 {
		d = data[0]
	}
	loc := english()
	if sp.user {
		loc = localizer()
	}
	s, err := loc.Localize(&i18n.LocalizeConfig{
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

// files are the translation files, parsed once: English and Chinese.
var files = sync.OnceValue(func() []*i18n.MessageFile {
	var fs []*i18n.MessageFile
	for _, name := range []string{"en.json", "zh_Hans.json"} {
		data, err := Files.ReadFile("translations/" + name)
		var f *i18n.MessageFile
		if err == nil {
			f, err = i18n.ParseMessageFileBytes(data, name, map[string]i18n.UnmarshalFunc{"json": json.Unmarshal})
		}
		if err != nil {
			log.Printf("elicitray: loading translations: %v", err)
			continue
		}
		fs = append(fs, f)
	}
	return fs
})

// speaker is the language chosen for an environment.
type speaker struct {
	env [4]string // the variables it was chosen from
	loc *i18n.Localizer
}

var current atomic.Pointer[speaker]

// localeVars are what go-locale reads on Unix; elsewhere it asks the
// system, which does not change under a running process.
var localeVars = [4]string{"LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"}

// localizer is the language of the environment as it is now.
func localizer() *i18n.Localizer {
	var env [4]string
	for i, k := range localeVars {
		env[i] = os.Getenv(k)
	}
	if s := current.Load(); s != nil && s.env == env {
		return s.loc
	}
	s := &speaker{env: env, loc: choose()}
	current.Store(s)
	return s.loc
}

// english speaks English whatever the environment.
var english = sync.OnceValue(func() *i18n.Localizer {
	b := i18n.NewBundle(language.English)
	for _, f := range files() {
		if f.Tag == language.English {
			if err := b.AddMessages(language.English, f.Messages...); err != nil {
				log.Printf("elicitray: loading translations: %v", err)
			}
		}
	}
	return i18n.NewLocalizer(b, language.English.String())
})

// choose matches the user's locales against the languages Fyne's lang has
// with elicitray's files added (English first, FyneOnly, Chinese), as
// go-i18n does for Fyne: Chinese, or English, under the language matched.
func choose() *i18n.Localizer {
	b := i18n.NewBundle(language.English)
	add := func(tag language.Tag, m []*i18n.Message) {
		if err := b.AddMessages(tag, m...); err != nil {
			log.Printf("elicitray: loading translations: %v", err)
		}
	}
	var english []*i18n.Message
	for _, f := range files() {
		if f.Tag == language.English {
			english = f.Messages
		}
	}
	add(language.English, english)
	for _, l := range FyneOnly {
		add(language.Make(l), nil) // matched, but given English only if chosen
	}
	for _, f := range files() {
		if f.Tag != language.English {
			add(f.Tag, f.Messages)
		}
	}
	// go-locale returns nothing for C and POSIX: English, the first.
	locales, _ := locale.GetLocales()
	var want []language.Tag
	for _, l := range locales {
		if t, _, err := language.ParseAcceptLanguage(l); err == nil {
			want = append(want, t...)
		}
	}
	have := b.LanguageTags()
	_, i, _ := language.NewMatcher(have).Match(want...)
	if tag := have[i]; slices.ContainsFunc(FyneOnly, func(l string) bool { return language.Make(l) == tag }) {
		add(tag, english)
	}
	// The tag as the bundle has it: go-i18n matches it again at every call.
	return i18n.NewLocalizer(b, have[i].String())
}
