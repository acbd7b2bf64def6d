package ui

import (
	"image/color"
	"math"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// An entry's text is drawn by Fyne as any text is (docs/bidi.md), so
// right-to-left words split by punctuation or digits show swapped: a
// server's default "ملاحظة: تم" or the user's own pasted Hebrew. Reordering
// the entry's text itself would put its cursor and selection elsewhere than
// the user sees them. So while the entry is not being edited, its text is
// drawn in the Unicode Bidirectional Algorithm's order by a label over it
// (bidiText), the entry's own text made invisible beneath; while it has the
// focus, the entry shows its text itself, to edit as Fyne lays it out. The
// text, what is sent and what is kept, is the entry's as typed.

// bidiEntry is an entry with the label that draws its text in order.
type bidiEntry struct {
	entry *keyEntry
	cover *widget.Label   // the text in visual order, over the entry
	stack *fyne.Container // the entry (or under), and cover on it
	// under holds the entry once it was first covered: a theme override
	// whose text colour is transparent while covered. Made only then: a
	// theme override starts a theme scope of its own, whose texts Fyne
	// measures afresh, and a form of 500 fields took four times as long to
	// open with one around each.
	under   *container.ThemeOverride
	covered bool
}

// newBidiEntry wraps e; it returns what the form shows. e's onFocus and
// onFocusLost are kept and run first.
func newBidiEntry(e *keyEntry) (*bidiEntry, fyne.CanvasObject) {
	b := &bidiEntry{entry: e, cover: widget.NewLabel("")}
	b.cover.Truncation = fyne.TextTruncateClip
	b.cover.Hide()
	b.stack = container.NewStack(e, b.cover)
	focus, lost := e.onFocus, e.onFocusLost
	e.onFocus = func() {
		if focus != nil {
			focus()
		}
		b.show(false)
	}
	e.onFocusLost = func() {
		if lost != nil {
			lost()
		}
		b.coverIf(false) // the canvas names it focused until this returns
	}
	b.update()
	return b, b.stack
}

// update covers the entry while it is not focused and its text holds a
// right-to-left letter; call it when the text changed from outside.
func (b *bidiEntry) update() {
	c := fyne.CurrentApp().Driver().CanvasForObject(b.entry)
	b.coverIf(c != nil && c.Focused() == b.entry)
}

// coverIf covers the entry when it is not focused and its text holds a
// right-to-left letter, and uncovers it otherwise.
func (b *bidiEntry) coverIf(focused bool) {
	b.show(!focused && !b.entry.Password && strings.ContainsFunc(b.entry.Text, rtlRune))
}

// show covers the entry, or shows it as it is.
func (b *bidiEntry) show(covered bool) {
	if covered {
		b.cover.SetText(bidiText(b.entry.Text))
	}
	showIf(b.cover, covered)
	if covered == b.covered {
		return
	}
	b.covered = covered
	if b.under == nil {
		b.under = container.NewThemeOverride(b.entry, appTheme{hideText: true})
		b.stack.Objects[0] = b.under
		b.stack.Refresh()
		return
	}
	b.under.Theme = appTheme{hideText: covered}
	b.under.Refresh()
}

// appTheme is the app's theme as it is at each call (a change of the
// desktop's light or dark follows), its text colour transparent when
// hideText is set: the entry's border, background and placeholder stay.
type appTheme struct {
	hideText bool
	// readable: read-only widgets' text in the text colour, not the
	// disabled one, which the default themes keep at about 1.2:1 to
	// the background (a record's answers in the history window).
	readable bool
	// hint: text of low importance (a hint, a note) in hintColor, not the
	// disabled colour Fyne draws it in, 1.2:1 to 1.4:1 to the background
	// (a new user could hardly read "To submit, fix: …").
	hint bool
}

// hinted is o with its text of low importance drawn readable
// (appTheme.hint).
func hinted(o fyne.CanvasObject) fyne.CanvasObject {
	return container.NewThemeOverride(o, appTheme{hint: true})
}

// hintColor is the colour of text that says less than the rest, in the
// variant v of th: between its text colour and its background, the
// nearest to the background that still reads at 4.5:1 (WCAG AA) against
// each background such text sits on (the window's, a field's, the
// window's own band).
func hintColor(th fyne.Theme, v fyne.ThemeVariant) color.Color {
	nrgba := func(n fyne.ThemeColorName) color.NRGBA {
		return color.NRGBAModel.Convert(th.Color(n, v)).(color.NRGBA)
	}
	fg := nrgba(theme.ColorNameForeground)
	bgs := []color.NRGBA{nrgba(theme.ColorNameBackground), nrgba(theme.ColorNameInputBackground), nrgba(theme.ColorNameHeaderBackground)}
	mix := func(a, b uint8, t float64) uint8 { return uint8(math.Round(float64(a)*t + float64(b)*(1-t))) }
	for t := 0.4; t < 1; t += 0.02 {
		c := color.NRGBA{R: mix(fg.R, bgs[0].R, t), G: mix(fg.G, bgs[0].G, t), B: mix(fg.B, bgs[0].B, t), A: 0xff}
		if !slices.ContainsFunc(bgs, func(bg color.NRGBA) bool { return contrast(c, bg) < 4.5 }) {
			return c
		}
	}
	return fg
}

func (a appTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	switch {
	case a.hideText && n == theme.ColorNameForeground:
		return color.Transparent
	case a.readable && n == theme.ColorNameDisabled:
		n = theme.ColorNameForeground
	case a.hint && n == theme.ColorNameDisabled:
		return hintColor(fyne.CurrentApp().Settings().Theme(), v)
	}
	return fyne.CurrentApp().Settings().Theme().Color(n, v)
}

func (appTheme) Font(s fyne.TextStyle) fyne.Resource {
	return fyne.CurrentApp().Settings().Theme().Font(s)
}

func (appTheme) Icon(n fyne.ThemeIconName) fyne.Resource {
	return fyne.CurrentApp().Settings().Theme().Icon(n)
}

func (appTheme) Size(n fyne.ThemeSizeName) float32 {
	return fyne.CurrentApp().Settings().Theme().Size(n)
}
