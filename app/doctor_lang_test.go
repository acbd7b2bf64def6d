package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/elicitray/elicitray/app/autostart"
	"github.com/elicitray/elicitray/app/paths"
)

// chineseLocale makes lang choose Simplified Chinese for t, as a doctor run
// with LANG=zh_CN.UTF-8 does (ui/lang follows the environment), and
// English again after it.
func chineseLocale(t *testing.T) {
	t.Helper()
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANGUAGE"} {
		t.Setenv(k, "")
	}
	t.Setenv("LANG", "zh_CN.UTF-8")
}

// TestDoctorSentencesTranslated: the autostart line and where the display
// was found, which doctor takes from app/autostart and session.go, read in
// English exactly as those write them, and in Chinese for a Chinese user.
func TestDoctorSentencesTranslated(t *testing.T) {
	states := []autostart.State{
		{Where: "/a.desktop"},
		{Where: "/a.desktop", On: true, Missing: true, Exe: "/gone"},
		{Where: "/a.desktop", On: true, SameExe: true},
		{Where: "/a.desktop", On: true, Exe: "/other"},
		{Where: "/a.desktop", On: true},
		{Where: "/a.desktop", On: true, Current: true},
	}
	froms := []string{"this login session", "this process's environment", "the systemd user manager's environment",
		"the environment of bash (pid 12), which started this one", "the environment of go (pid 7), a process of yours",
		"logind session 3 (x11)"}
	for _, st := range states {
		if got, want := autostartSentence(st), st.Sentence(); got != want {
			t.Errorf("in English %q, want %q as `autostart status` says it", got, want)
		}
	}
	for _, f := range froms {
		if got := sessionFrom(f); got != f {
			t.Errorf("in English %q, want %q as written", got, f)
		}
	}
	chineseLocale(t)
	han := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
	}
	for _, st := range states {
		if got := autostartSentence(st); !han(got) {
			t.Errorf("a Chinese user reads %q", got)
		}
	}
	for _, f := range froms {
		if got := sessionFrom(f); !han(got) {
			t.Errorf("a Chinese user reads %q for %q", got, f)
		}
	}
}

// TestRunDirRefusalTranslated: doctor's refusal of the hub's directory, as
// checkRunDir writes it for a directory open to others, reads in English as
// written and in Chinese for a Chinese user, the path as it is.
func TestRunDirRefusalTranslated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	err := paths.CheckRunDir(dir)
	if err == nil {
		t.Fatal("a directory open to all is trusted")
	}
	written := strings.TrimSuffix(err.Error(), ": "+paths.ErrUntrusted.Error())
	if got := runDirRefusal(written); got != written {
		t.Errorf("in English %q reads %q", written, got)
	}
	chineseLocale(t)
	if got := runDirRefusal(written); !strings.Contains(got, "中枢") || !strings.Contains(got, dir) {
		t.Errorf("a Chinese user reads %q", got)
	}
}
