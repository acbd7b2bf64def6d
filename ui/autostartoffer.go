package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/ui/lang"
)

// ShowAutostartOffer opens the window an installed elicitray shows at its
// first start: "Start elicitray when you log in?", with Start at login and
// Not now. answer receives the choice once: true for Start at login, false
// for Not now, Escape, Ctrl+W or the window's close button (each a "no"
// the user gave). The window then closes. No button has the focus as it
// opens: it comes up unasked, and a Space or Return meant for another
// window must not answer it; Tab reaches Not now, then Start at login.
//
// It must be called on the Fyne goroutine, and answer runs there: it must
// return promptly.
func ShowAutostartOffer(a fyne.App, answer func(yes bool)) fyne.Window {
	w, _ := showAutostartOffer(a, answer)
	return w
}

// showAutostartOffer is ShowAutostartOffer, returning the view too (tests).
func showAutostartOffer(a fyne.App, answer func(yes bool)) (fyne.Window, *offerView) {
	w := a.NewWindow(lang.L("elicitray — start at login?"))
	v := newOfferView(answer, w.Close)
	w.SetContent(v.content)
	v.keys.bind(w.Canvas())
	w.SetCloseIntercept(func() { v.answer(false) })
	if a.Icon() != nil {
		w.SetIcon(a.Icon())
	}
	w.Resize(fyne.NewSize(420, 0))
	w.CenterOnScreen()
	w.Show()
	return w, v
}

// offerView is the offer window's content, without the window (tests).
type offerView struct {
	done    func(bool)
	close   func()
	keys    *windowKeys
	yes, no *closeButton
	content fyne.CanvasObject
}

func newOfferView(done func(bool), close func()) *offerView {
	v := &offerView{done: done, close: close}
	v.keys = &windowKeys{close: func() { v.answer(false) }}
	text := widget.NewLabel(lang.L("Then the hub is there before an MCP server asks anything: " +
		"its tray icon, where the desktop shows one, and its prompt windows. " +
		"The command elicitray autostart on, or off, changes it any time."))
	text.Wrapping = fyne.TextWrapWord
	v.no = newCloseButton(v.keys, lang.L("Not now"), nil, func() { v.answer(false) })
	v.yes = newCloseButton(v.keys, lang.L("Start at login"), theme.ConfirmIcon(), func() { v.answer(true) })
	v.yes.Importance = widget.HighImportance
	v.content = container.NewVBox(
		heading(lang.L("Start elicitray when you log in?")),
		text,
		container.NewHBox(layout.NewSpacer(), v.no, v.yes),
	)
	return v
}

// answer hands the choice on, once, and closes the window.
func (v *offerView) answer(yes bool) {
	if v.done == nil {
		return
	}
	done := v.done
	v.done = nil
	done(yes)
	v.close()
}
