//go:build linux

package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/desktop"

	"github.com/elicitray/elicitray/app/hub"
	"github.com/elicitray/elicitray/ui/state"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/paths"
)

// TestSettingsShowKeepAliveAndNotice: the Settings window shows
// keep_alive (the file's and each server's) and [notice]; a save through
// it (the hub's saveSettings) writes the user's changes to config.toml,
// keeps what it does not show ([history]), and what it wrote shows the
// same when the window opens again.
func TestSettingsShowKeepAliveAndNotice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	text := "keep_alive = \"20s\"\n\n[history]\nkeep = \"720h\"\n\n[notice]\nnotification = false\nsound = true\n\n" +
		"[servers.github]\nrule = \"decline\"\nkeep_alive = \"0s\"\n\n[servers.slow]\nkeep_alive = \"5s\"\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	dur := func(d time.Duration) *time.Duration { return &d }
	s := desktop.SettingsOf(c, map[string]bool{"seen": true})
	type shown struct {
		Name      string
		KeepAlive *time.Duration
	}
	keepAlives := func(s state.Settings) []shown {
		out := []shown{{"(defaults)", s.Defaults.KeepAlive}}
		for _, sp := range s.Servers {
			out = append(out, shown{sp.Name, sp.KeepAlive})
		}
		return out
	}
	want := []shown{{"(defaults)", dur(20 * time.Second)}, {"github", dur(0)}, {"seen", nil}, {"slow", dur(5 * time.Second)}}
	if diff := cmp.Diff(want, keepAlives(s)); diff != "" {
		t.Errorf("keep-alives shown mismatch (-want +got):\n%s", diff)
	}
	if want := (state.NoticeSettings{Notification: false, Sound: true}); s.Notice != want {
		t.Errorf("notice shown %+v, want %+v", s.Notice, want)
	}

	save := func(s state.Settings) (config.Config, string) {
		t.Helper()
		h := &hub.Hub{Config: c}
		w := &desktop.Windows{Hub: h, Paths: paths.Paths{Config: path}}
		if err := w.SaveSettings(s); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		back, err := config.Load(path)
		if err != nil {
			t.Fatalf("the file Settings wrote does not load: %v\n%s", err, b)
		}
		return back, string(b)
	}

	// Saved unchanged: every interval and the notice apply as before.
	back, written := save(s)
	for name, want := range map[string]time.Duration{"github": 0, "slow": 5 * time.Second, "seen": 20 * time.Second} {
		if got := back.KeepAliveFor(name); got != want {
			t.Errorf("keep-alive for %s is %v after saving Settings, want %v; the file:\n%s", name, got, want, written)
		}
	}
	if back.Notice.Notifies() || !back.Notice.Sound || back.History.Keep.Duration != 720*time.Hour {
		t.Errorf("saving Settings changed [notice] or lost [history]; the file:\n%s", written)
	}
	if _, ok := back.Servers["seen"]; ok {
		t.Errorf("a server only seen got a table; the file:\n%s", written)
	}

	// Changed: the defaults' keep-alive back to the built-in one (empty),
	// slow's taken away (it follows), github's set; the notification on,
	// the sound off.
	c = back
	s = desktop.SettingsOf(c, nil)
	s.Defaults.KeepAlive = nil
	for i := range s.Servers {
		switch s.Servers[i].Name {
		case "slow":
			s.Servers[i].KeepAlive = nil
		case "github":
			s.Servers[i].KeepAlive = dur(time.Minute)
		}
	}
	s.Notice = state.NoticeSettings{Notification: true}
	back, written = save(s)
	for name, want := range map[string]time.Duration{"github": time.Minute, "slow": config.DefaultKeepAlive, "other": config.DefaultKeepAlive} {
		if got := back.KeepAliveFor(name); got != want {
			t.Errorf("keep-alive for %s is %v after the change, want %v; the file:\n%s", name, got, want, written)
		}
	}
	if !back.Notice.Notifies() || back.Notice.Sound {
		t.Errorf("notification %v, sound %v after turning it on and the sound off; the file:\n%s", back.Notice.Notifies(), back.Notice.Sound, written)
	}
	// Only what differs from the defaults is written.
	for _, key := range []string{"keep_alive = \"15s\"", "[notice]", "notification"} {
		if strings.Contains(written, key) {
			t.Errorf("the file repeats a default (%s):\n%s", key, written)
		}
	}
	again := desktop.SettingsOf(back, nil)
	want = []shown{{"(defaults)", nil}, {"github", dur(time.Minute)}, {"slow", nil}}
	if diff := cmp.Diff(want, keepAlives(again)); diff != "" {
		t.Errorf("keep-alives shown after the save mismatch (-want +got):\n%s", diff)
	}
}
