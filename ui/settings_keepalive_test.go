package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/ui/state"
)

// TestSettingsKeepAlive: the defaults and each server show their
// keep-alive as given ("0s" for none, empty for a server that follows the
// defaults, whose placeholder says the value it follows); a value that is
// no duration, or a negative one, is refused with a sentence and keeps
// Save disabled; the defaults' left empty is the built-in 15s; and what
// the user typed is saved.
func TestSettingsKeepAlive(t *testing.T) {
	dur := func(d time.Duration) *time.Duration { return &d }
	s := sampleSettings()
	s.Defaults.KeepAlive = dur(20 * time.Second)
	s.Servers[0].KeepAlive = dur(0) // github: none
	h := newSettingsHarness(t, s)
	for _, tt := range []struct{ server, text, placeholder string }{
		{"", "20s", "15s (default)"},
		{"github", "0s", ""},
		{"everything", "", "20s (default)"},
	} {
		e := h.field(tt.server, "Keep-alive").entry
		if e.Text != tt.text || (tt.placeholder != "" && e.PlaceHolder != tt.placeholder) {
			t.Errorf("%q's Keep-alive shows %q (placeholder %q), want %q (%q)", tt.server, e.Text, e.PlaceHolder, tt.text, tt.placeholder)
		}
	}

	for _, tt := range []struct{ server, text, wantErr, where string }{
		{"", "abc", "Keep-alive must be a duration like 15s or 1m, or 0s for none.", "defaults"},
		{"", "-1s", "Keep-alive cannot be negative: 0s sends none.", "defaults"},
		{"", "500ms", "Keep-alive must be at least 1s, or 0s for none.", "defaults"},
		{"everything", "15", "Keep-alive must be a duration like 15s or 1m, or 0s for none.", "everything"},
	} {
		h.retype(tt.server, "Keep-alive", tt.text)
		if got := h.errorText(tt.server, "Keep-alive"); got != tt.wantErr {
			t.Errorf("%q typed: error %q, want %q", tt.text, got, tt.wantErr)
		}
		if want := "To save, fix: Keep-alive (" + tt.where + ")"; !h.v.saveBtn.Disabled() || h.v.hint.Text != want {
			t.Errorf("%q typed: Save disabled %v, hint %q; want disabled, %q", tt.text, h.v.saveBtn.Disabled(), h.v.hint.Text, want)
		}
		if tt.server == "" {
			if p := h.field("everything", "Keep-alive").entry.PlaceHolder; p != "as the defaults" {
				t.Errorf("with the defaults' keep-alive %q, a server's placeholder says %q", tt.text, p)
			}
		}
		h.retype(tt.server, "Keep-alive", "")
	}
	if p := h.field("everything", "Keep-alive").entry.PlaceHolder; p != "15s (default)" {
		t.Errorf("with the defaults' keep-alive empty, a server's placeholder says %q, want the built-in 15s", p)
	}
	h.retype("", "Keep-alive", "0s")
	if p := h.field("everything", "Keep-alive").entry.PlaceHolder; p != "0s, none (default)" {
		t.Errorf("with the defaults' keep-alive 0s, a server's placeholder says %q", p)
	}
	h.retype("", "Keep-alive", "")
	h.retype("everything", "Keep-alive", "1m")
	test.Tap(h.v.saveBtn)
	got := h.onlySaved()
	type keep struct {
		Name      string
		KeepAlive *time.Duration
	}
	gotKeep := []keep{{"", got.Defaults.KeepAlive}}
	for _, sp := range got.Servers {
		gotKeep = append(gotKeep, keep{sp.Name, sp.KeepAlive})
	}
	want := []keep{{"", nil}, {"everything", dur(time.Minute)}, {"github", dur(0)}}
	if diff := cmp.Diff(want, gotKeep); diff != "" {
		t.Errorf("saved keep-alives mismatch (-want +got):\n%s", diff)
	}
	if !got.Servers[0].Own {
		t.Errorf("everything, whose keep-alive was changed, is not saved as having settings of its own")
	}
}

// TestSettingsNotice: the "When a prompt opens" check boxes show [notice]
// as given; the sound can be chosen only with the notification, which
// carries it; a change counts as one (Close asks before discarding it);
// and Save hands over what is ticked.
func TestSettingsNotice(t *testing.T) {
	s := sampleSettings()
	s.Notice = state.NoticeSettings{Notification: false, Sound: true}
	h := newSettingsHarness(t, s)
	asked := 0
	h.v.confirm = func(title, message, ok, dismiss string, done func(bool)) { asked++ }
	n := h.v.notice
	if n.notification.Checked || !n.sound.Checked {
		t.Errorf("notification %v, sound %v shown; want off and on as given", n.notification.Checked, n.sound.Checked)
	}
	if !n.sound.Disabled() {
		t.Errorf("the sound can be chosen while the notification that carries it is off")
	}
	test.Tap(n.notification)
	if !n.notification.Checked || n.sound.Disabled() {
		t.Errorf("after ticking the notification: notification %v, sound disabled %v", n.notification.Checked, n.sound.Disabled())
	}
	h.v.onClose()
	if asked != 1 || h.closed != 0 {
		t.Errorf("Close after ticking the notification asked %d times and closed %d; want it to ask first", asked, h.closed)
	}
	test.Tap(n.sound)
	test.Tap(h.v.saveBtn)
	if got := h.onlySaved().Notice; got != (state.NoticeSettings{Notification: true, Sound: false}) {
		t.Errorf("saved notice %+v, want the notification on and the sound off", got)
	}
}
