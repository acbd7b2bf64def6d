//go:build linux

package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/elicitray/elicitray/app/config"
)

// TestConfigTroubleInTheUsersLanguage (issue 24): the notification of a
// config.toml the hub cannot use has its title and what applies meanwhile
// in the user's language, and so are the mistakes it lists (Shown); the
// log keeps the English.
func TestConfigTroubleInTheUsersLanguage(t *testing.T) {
	mistake := &config.Errors{Path: "/home/u/.config/elicitray/config.toml", Problems: []config.Problem{
		{Line: 1, Key: "timeout", Message: "must be a duration"},
		{Line: 2, Key: "burst", Message: "must be a number"},
	}}
	one := errors.New("config.toml: line 1: bad")
	for _, err := range []error{one, mistake} {
		lines, title, body := config.Trouble(err, config.DefaultSettings)
		if !strings.HasSuffix(body, "The default settings apply until it is fixed.") || !strings.HasPrefix(title, "elicitray: config.toml has ") {
			t.Errorf("in English: %q / %q", title, body)
		}
		if !strings.Contains(lines[0], config.DefaultSettings) {
			t.Errorf("the log says %q, want it to say %q", lines[0], config.DefaultSettings)
		}
	}
	chineseLocale(t)
	for _, err := range []error{one, mistake} {
		lines, title, body := config.Trouble(err, config.KeptSettings)
		if !strings.HasSuffix(body, "在修正之前，当前生效的设置保持不变。") || !strings.Contains(title, "错误") {
			t.Errorf("a Chinese user reads %q / %q", title, body)
		}
		if !strings.Contains(lines[0], config.KeptSettings) {
			t.Errorf("the log changed language: %q", lines[0])
		}
	}
}

// TestConfigProblemsShownTranslated (issue 24): doctor and the
// notification show each mistake in config.toml in the user's language
// (Shown), in English exactly as hub.log keeps it (String); the setting's
// name and the value quoted stay as written.
func TestConfigProblemsShownTranslated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	text := "timeout = \"ten minutes\"\nrules = \"ask\"\n[rate]\nburst = -2\nevery = 3\n[servers.github]\nrule = \"maybe\"\nburst = 1.5\nguard = \"x\"\n[servers.jira]\nevery = \"-1s\"\nprompt = [\n"
	for _, broken := range []bool{false, true} {
		body := text
		if !broken {
			body = strings.TrimSuffix(text, "prompt = [\n")
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, problems, err := config.Check(path)
		if err != nil || len(problems) == 0 {
			t.Fatalf("CheckConfig: %v, %d problems", err, len(problems))
		}
		for _, p := range problems {
			if p.Shown() != p.String() {
				t.Errorf("in English %q is shown as %q", p.String(), p.Shown())
			}
		}
		t.Run(fmt.Sprint("broken=", broken), func(t *testing.T) {
			chineseLocale(t)
			for _, p := range problems {
				got := p.Shown()
				if !strings.ContainsFunc(got, func(r rune) bool { return unicode.Is(unicode.Han, r) }) || !strings.Contains(got, p.Key) {
					t.Errorf("a Chinese user reads %q for %q", got, p.String())
				}
			}
		})
	}
}
