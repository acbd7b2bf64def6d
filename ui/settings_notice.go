package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"github.com/elicitray/elicitray/ui/lang"
	"github.com/elicitray/elicitray/ui/state"
)

// The settings window's "When a prompt opens" section: config.toml's
// [notice] (app/desktop/notice.go). The window always comes to the front
// and asks the window manager for attention; these say what comes with it.

// noticeSection is the section's check boxes.
type noticeSection struct {
	notification, sound *closeCheck
}

// buildNotice makes the section for s.
func (v *settingsView) buildNotice(s state.NoticeSettings) fyne.CanvasObject {
	sec := &noticeSection{}
	v.notice = sec
	sec.sound = newCloseCheck(v.keys, lang.L("Play the desktop's message sound with the notification"), func(bool) { v.validate() })
	sec.sound.Checked = s.Sound
	sec.notification = newCloseCheck(v.keys, lang.L("Show a desktop notification naming the server and the tool"), func(on bool) {
		sec.soundFollows()
		v.validate()
	})
	sec.notification.Checked = s.Notification
	sec.soundFollows()
	return container.NewVBox(heading(lang.L("When a prompt opens")),
		helpLabel(lang.L("The prompt window always comes to the front and asks for your attention, without taking "+
			"the keys you are typing elsewhere.")),
		sec.notification, sec.sound)
}

// soundFollows enables the sound's check box only with the notification,
// which carries the sound.
func (sec *noticeSection) soundFollows() {
	if sec.notification.Checked {
		sec.sound.Enable()
	} else {
		sec.sound.Disable()
	}
}

// now is the section as the window holds it, for Save.
func (sec *noticeSection) now() state.NoticeSettings {
	if sec == nil {
		return state.NoticeSettings{}
	}
	return state.NoticeSettings{Notification: sec.notification.Checked, Sound: sec.sound.Checked}
}

// snapshot is the section's state for settingsView.snapshot.
func (sec *noticeSection) snapshot() string {
	if sec == nil {
		return ""
	}
	return fmt.Sprintf("notification=%v sound=%v", sec.notification.Checked, sec.sound.Checked)
}
