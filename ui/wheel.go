package ui

import (
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// wheelPass is laid over a one-line entry of a scrolled form (the prompt,
// the history's detail pane, Settings): the mouse wheel over the entry
// scrolls the form, as it does over the rest of it and as in a browser.
// Fyne gives the wheel to the innermost scrollable object under the
// pointer, and a one-line entry holds a scroll of its own that takes a
// vertical wheel and has nowhere to go with it, so the form stopped
// scrolling under the pointer wherever an entry was. It is scrollable and
// nothing else: clicks, drags, hovering and the pointer's shape still
// reach the entry beneath it. While the entry's text is wider than the
// entry, it steps aside (Visible): the entry's scroll has somewhere to go
// then, and the wheel scrolls the text sideways, as Fyne's entries do;
// unless cover, a label drawn over the entry in its place (bidiEntry), is
// showing: the entry's scrolled text would not be seen.
type wheelPass struct {
	widget.BaseWidget
	entry *widget.Entry
	cover fyne.CanvasObject
	to    func(*fyne.ScrollEvent)

	// The last measure (Visible): Fyne asks at every frame drawn and at
	// every move of the pointer, and the text is measured again only
	// when it or the room for it changed.
	text     string
	room     float32
	fits     bool
	measured bool
}

// passWheel is shown (entry, with cover over it or nil) with the mouse
// wheel over it sent to to (the form's scroll), or shown itself when to
// is nil.
func passWheel(shown fyne.CanvasObject, entry *widget.Entry, cover fyne.CanvasObject, to func(*fyne.ScrollEvent)) fyne.CanvasObject {
	if to == nil {
		return shown
	}
	p := &wheelPass{entry: entry, cover: cover, to: to}
	p.ExtendBaseWidget(p)
	return container.NewStack(shown, p)
}

func (p *wheelPass) Scrolled(ev *fyne.ScrollEvent) { p.to(ev) }

// Visible is false while the entry draws its own text, wider than the
// room in it: a secret as the dots it shows, beside Fyne's button that
// reveals it.
func (p *wheelPass) Visible() bool {
	if !p.BaseWidget.Visible() {
		return false
	}
	if p.cover != nil && p.cover.Visible() {
		return true
	}
	e := p.entry
	room := e.Size().Width - 2*theme.InnerPadding()
	if e.ActionItem != nil {
		room -= e.ActionItem.MinSize().Width
	}
	if !p.measured || e.Text != p.text || room != p.room {
		text := e.Text
		if e.Password {
			text = strings.Repeat("•", utf8.RuneCountInString(text))
		}
		p.text, p.room, p.measured = e.Text, room, true
		p.fits = fyne.MeasureText(text, theme.TextSize(), e.TextStyle).Width <= room
	}
	return p.fits
}

// wheelTo is what passWheel takes to send the wheel to *s, a window's
// scroll made after its fields are.
func wheelTo(s **container.Scroll) func(*fyne.ScrollEvent) {
	return func(ev *fyne.ScrollEvent) {
		if *s != nil {
			(*s).Scrolled(ev)
		}
	}
}

func (p *wheelPass) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout())
}
