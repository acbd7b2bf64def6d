package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// windowKeys closes a window on Escape and on Ctrl+W (Cmd+W on macOS), as
// the history and settings windows do, wherever the focus is (issue 9).
// Fyne hands a key to the focused widget only: the canvas's OnTypedKey
// sees nothing while a widget has the focus, a focused widget.Entry
// swallows Escape and every shortcut it does not know, and buttons, selects
// and lists swallow Escape (see promptKeys). So the canvas handles the keys
// while nothing is focused, and every focusable widget of those windows is
// one of the types below, which hand the keys here first. Ctrl+W reaches
// the canvas's shortcuts from any widget that is not an entry.
type windowKeys struct {
	// close closes the window, or asks first (the settings window with
	// changes not saved).
	close func()
	// overlays is the canvas's, when bound: while a dialog or a pop-up is
	// open, Escape is not the window's.
	overlays func() fyne.OverlayStack
}

// closeShortcut is Ctrl+W; Cmd+W on macOS.
var closeShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierShortcutDefault}

// isClose reports whether s is closeShortcut.
func isClose(s fyne.Shortcut) bool { return s.ShortcutName() == closeShortcut.ShortcutName() }

// bind registers the keys on c, for when no widget has the focus and for
// widgets that do not take shortcuts.
func (k *windowKeys) bind(c fyne.Canvas) {
	k.overlays = c.Overlays
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape {
			k.escape()
		}
	})
	c.AddShortcut(closeShortcut, func(fyne.Shortcut) { k.close() })
}

// escape closes the window unless a dialog or pop-up is over it: Escape
// there means that one (a pop-up menu closes itself on it).
func (k *windowKeys) escape() {
	if k.overlays != nil && k.overlays().Top() != nil {
		return
	}
	k.close()
}

// typedKey handles Escape for a focused widget, and hands it every other
// key (next: the widget's own TypedKey).
func (k *windowKeys) typedKey(ev *fyne.KeyEvent, next func(*fyne.KeyEvent)) {
	if ev.Name == fyne.KeyEscape {
		k.escape()
		return
	}
	next(ev)
}

// typedShortcut handles Ctrl+W for a focused widget, which receives
// shortcuts instead of the canvas, and hands it every other shortcut.
func (k *windowKeys) typedShortcut(s fyne.Shortcut, next func(fyne.Shortcut)) {
	if isClose(s) {
		k.close()
		return
	}
	next(s)
}

// closeEntry is an entry that hands Escape and Ctrl+W to its window.
type closeEntry struct {
	widget.Entry
	keys *windowKeys
}

func newCloseEntry(keys *windowKeys) *closeEntry {
	e := &closeEntry{keys: keys}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey catches Escape, which widget.Entry would swallow.
func (e *closeEntry) TypedKey(ev *fyne.KeyEvent) { e.keys.typedKey(ev, e.Entry.TypedKey) }

// TypedShortcut catches Ctrl+W: a focused entry receives shortcuts
// instead of the canvas.
func (e *closeEntry) TypedShortcut(s fyne.Shortcut) { e.keys.typedShortcut(s, e.Entry.TypedShortcut) }

// closeSelectEntry is a select entry (text with a drop-down of choices)
// that hands Escape and Ctrl+W to its window.
type closeSelectEntry struct {
	widget.SelectEntry
	keys *windowKeys
}

func newCloseSelectEntry(keys *windowKeys, options []string) *closeSelectEntry {
	e := &closeSelectEntry{keys: keys}
	e.ExtendBaseWidget(e)
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip) // as widget.NewSelectEntry
	e.SetOptions(options)
	return e
}

// TypedKey catches Escape, which widget.Entry would swallow.
func (e *closeSelectEntry) TypedKey(ev *fyne.KeyEvent) { e.keys.typedKey(ev, e.SelectEntry.TypedKey) }

// TypedShortcut catches Ctrl+W.
func (e *closeSelectEntry) TypedShortcut(s fyne.Shortcut) {
	e.keys.typedShortcut(s, e.SelectEntry.TypedShortcut)
}

// closeSelect is a drop-down that hands Escape to its window; Space and
// the arrows still open it or change the choice.
type closeSelect struct {
	widget.Select
	keys *windowKeys
}

func newCloseSelect(keys *windowKeys, options []string, changed func(string)) *closeSelect {
	s := &closeSelect{keys: keys}
	s.Options = options
	s.OnChanged = changed
	s.ExtendBaseWidget(s)
	return s
}

// TypedKey catches Escape, which widget.Select would swallow.
func (s *closeSelect) TypedKey(ev *fyne.KeyEvent) { s.keys.typedKey(ev, s.Select.TypedKey) }

// closeButton is a button that hands Escape to its window; Space and
// Return still press it.
type closeButton struct {
	widget.Button
	keys *windowKeys
}

func newCloseButton(keys *windowKeys, label string, icon fyne.Resource, tapped func()) *closeButton {
	b := &closeButton{keys: keys}
	b.Text = label
	b.Icon = icon
	b.OnTapped = tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey catches Escape, which widget.Button would swallow.
func (b *closeButton) TypedKey(ev *fyne.KeyEvent) { b.keys.typedKey(ev, b.Button.TypedKey) }
