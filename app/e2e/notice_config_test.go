//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/desktop"
	"github.com/elicitray/elicitray/app/internal/testkit"

	"github.com/elicitray/elicitray/app/hub"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
)

// TestConfigNotice: [notice] turns the prompt notification off and its
// sound on; with nothing said the notification is on and silent; a value
// that is not true or false is a mistake that says so; and a save from the
// Settings window, which shows [notice], keeps it as it was shown.
func TestConfigNotice(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		path := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tt := range []struct {
		text            string
		notifies, sound bool
	}{
		{"", true, false},
		{"[notice]\nsound = true\n", true, true},
		{"[notice]\nnotification = false\n", false, false},
		{"[notice]\nnotification = true\nsound = false\n", true, false},
	} {
		c, err := config.Load(write(tt.text))
		if err != nil {
			t.Fatalf("%q: %v", tt.text, err)
		}
		if c.Notice.Notifies() != tt.notifies || c.Notice.Sound != tt.sound {
			t.Errorf("%q: notification %v, sound %v; want %v, %v", tt.text, c.Notice.Notifies(), c.Notice.Sound, tt.notifies, tt.sound)
		}
	}

	_, problems, err := config.Check(write("[notice]\nsound = \"yes\"\nbeep = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		`line 2: notice: sound must be true or false (without quotes), not "yes"`,
		`line 3: "notice.beep" is not a setting elicitray knows; it is ignored (see the README's Configuration)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems mismatch (-want +got):\n%s", diff)
	}

	// Saved as the Settings window saves, and read back.
	off := false
	path := filepath.Join(dir, "saved.toml")
	h := &hub.Hub{Config: config.Config{Notice: config.Notice{Notification: &off, Sound: true}}}
	w := &desktop.Windows{Hub: h, Paths: paths.Paths{Config: path}}
	if err := w.SaveSettings(desktop.SettingsOf(h.Config, nil)); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Notice.Notifies() || !c.Notice.Sound {
		t.Errorf("after a save from Settings, notification %v and sound %v, want false and true as configured", c.Notice.Notifies(), c.Notice.Sound)
	}
}

// TestNoticeText: the notification names the configured server and the
// tool, and carries nothing a notification server could read as markup,
// nor anything the server wrote.
func TestNoticeText(t *testing.T) {
	for _, tt := range []struct {
		req  bridge.Request
		want desktop.Note
	}{
		{bridge.Request{Server: "github", Tool: "create_repo", Mode: "form", Message: "<b>Name?</b>"},
			desktop.Note{Title: "elicitray: github asks", Body: "During the tool call create_repo. The prompt window is waiting for your answer."}},
		{bridge.Request{Server: "github", Mode: "form"},
			desktop.Note{Title: "elicitray: github asks", Body: "The prompt window is waiting for your answer."}},
		{bridge.Request{Server: "pay", Tool: "checkout", Mode: "url"},
			desktop.Note{Title: "elicitray: pay asks", Body: "During the tool call checkout: a link to open. The prompt window is waiting for you."}},
		{bridge.Request{Server: "x", Tool: "<a href='http://evil'>x</a>\u202e&amp;", Mode: "form"},
			desktop.Note{Title: "elicitray: x asks", Body: "During the tool call a href='http://evil'x/aamp;. The prompt window is waiting for your answer."}},
		{bridge.Request{Server: "x", Tool: "👩‍👩‍👧‍👦_invite\u200b_a\u200db", Mode: "form"},
			desktop.Note{Title: "elicitray: x asks", Body: "During the tool call 👩‍👩‍👧‍👦_invite_ab. The prompt window is waiting for your answer."}},
	} {
		if got := desktop.NoticeOf(&tt.req, false); got != tt.want {
			t.Errorf("noticeOf(%+v) = %+v, want %+v", tt.req, got, tt.want)
		}
	}
	// A long name is cut to 80 characters, between characters: a skin
	// tone or an accent is a rune of its own (issue 24).
	for _, c := range []string{"t", "👍🏽", "e\u0301", "数"} {
		long := desktop.NoticeOf(&bridge.Request{Server: "s", Tool: strings.Repeat(c, 100), Mode: "form"}, true)
		if want := "During the tool call " + strings.Repeat(c, 79) + "…. The prompt window is waiting for your answer."; long.Body != want || !long.Sound {
			t.Errorf("a long tool name: %+v, want the name cut at 80 characters and the sound asked for", long)
		}
	}
}

// answeringPrompter answers every prompt at once, as it is shown.
type answeringPrompter struct{}

func (answeringPrompter) Show(p *hub.Prompt, answer func(bridge.Result)) func() {
	answer(bridge.Result{Action: bridge.ActionCancel})
	return func() {}
}

// TestNoticeWithdrawnWhenAnsweredFirst: a prompt answered before the
// notification server even answered the Notify still has its notification
// withdrawn, once it has an id.
func TestNoticeWithdrawnWhenAnsweredFirst(t *testing.T) {
	addr := testkit.SessionBus(t, t.TempDir())
	conn := trayConnect(t, addr)
	notes := serveNotices(t, conn)
	note := &desktop.Notifier{Addr: addr}
	t.Cleanup(note.Close)
	h := &hub.Hub{}
	n := &desktop.Noticer{Prompter: answeringPrompter{}, Hub: h, Note: note}
	req := &bridge.Request{Server: "github", Tool: "deploy", Mode: "form"}
	answered := make(chan bridge.Result, 1)
	n.Show(&hub.Prompt{Request: req}, func(r bridge.Result) { answered <- r })
	<-answered
	var shown shownNotice
	select {
	case shown = <-notes.notes:
	case <-time.After(desktopWait):
		t.Fatal("no notification")
	}
	select {
	case id := <-notes.closed:
		if id != shown.id {
			t.Errorf("CloseNotification(%d), want %d", id, shown.id)
		}
	case <-time.After(desktopWait):
		t.Fatal("the notification of a prompt answered at once was never withdrawn")
	}
}
