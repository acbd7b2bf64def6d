package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// promptKeys are the window-wide keys of a prompt: Escape cancels, Return
// submits, Alt+D declines. Fyne hands a key to the focused widget only
// (canvas.SetOnTypedKey and desktop.Canvas.SetOnKeyDown see nothing while a
// widget is focused, and a focused widget.Entry swallows Escape), so every
// focusable widget of the prompt is one of the types below, which forward
// these keys here before doing their own work.
type promptKeys struct {
	escape  func()
	submit  func()
	decline func()
}

// declineShortcut is Alt+D.
var declineShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyD, Modifier: fyne.KeyModifierAlt}

// isDecline reports whether s is Alt+D.
func isDecline(s fyne.Shortcut) bool {
	return s.ShortcutName() == declineShortcut.ShortcutName()
}

// bindCanvas registers the window-wide keys on c for when no widget has the
// focus (Escape, Return) and for widgets that do not handle shortcuts (Alt+D).
func (k *promptKeys) bindCanvas(c fyne.Canvas) {
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		switch ev.Name {
		case fyne.KeyEscape:
			k.escape()
		case fyne.KeyReturn, fyne.KeyEnter:
			k.submit()
		}
	})
	c.AddShortcut(declineShortcut, func(fyne.Shortcut) { k.decline() })
}

// keyEntry is a single-line entry that passes Escape and Alt+D to the prompt
// and reports when it loses the focus. Return reaches OnSubmitted.
type keyEntry struct {
	widget.Entry
	keys        *promptKeys
	onFocus     func()
	onFocusLost func()
}

func newKeyEntry(keys *promptKeys) *keyEntry {
	e := &keyEntry{keys: keys}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey catches Escape, which widget.Entry would swallow.
func (e *keyEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape {
		e.keys.escape()
		return
	}
	e.Entry.TypedKey(ev)
}

// TypedShortcut catches Alt+D: a focused entry receives shortcuts instead of
// the canvas.
func (e *keyEntry) TypedShortcut(s fyne.Shortcut) {
	if isDecline(s) {
		e.keys.decline()
		return
	}
	e.Entry.TypedShortcut(s)
}

// FocusGained selects a pre-filled value, so that typing replaces it
// rather than prepending to it, and lets the prompt scroll the field into
// view: Fyne's scroll containers do not follow the keyboard focus.
func (e *keyEntry) FocusGained() {
	e.Entry.FocusGained()
	if e.Text != "" {
		e.Entry.TypedShortcut(&fyne.ShortcutSelectAll{})
	}
	if e.onFocus != nil {
		e.onFocus()
	}
}

// FocusLost marks the field as touched through onFocusLost.
func (e *keyEntry) FocusLost() {
	e.Entry.FocusLost()
	if e.onFocusLost != nil {
		e.onFocusLost()
	}
}

// keyCheck is a check box that passes Escape and Return to the prompt.
// Multi selects use one per option instead of widget.CheckGroup, whose
// inner check boxes cannot be given these keys.
type keyCheck struct {
	widget.Check
	keys    *promptKeys
	onFocus func()
}

// FocusGained lets the prompt scroll the field into view.
func (c *keyCheck) FocusGained() {
	c.Check.FocusGained()
	if c.onFocus != nil {
		c.onFocus()
	}
}

func newKeyCheck(keys *promptKeys, label string, changed func(bool)) *keyCheck {
	c := &keyCheck{keys: keys}
	c.Text = label
	c.OnChanged = changed
	c.ExtendBaseWidget(c)
	return c
}

// TypedKey forwards Escape and Return; Space still toggles (TypedRune).
func (c *keyCheck) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyEscape:
		c.keys.escape()
	case fyne.KeyReturn, fyne.KeyEnter:
		c.keys.submit()
	default:
		c.Check.TypedKey(ev)
	}
}

// keySelect is a drop-down that passes Escape and Return to the prompt.
// Single selects always use it, rather than a widget.RadioGroup whose radio
// items cannot be given these keys.
type keySelect struct {
	widget.Select
	keys    *promptKeys
	onFocus func()
}

// FocusGained lets the prompt scroll the field into view.
func (s *keySelect) FocusGained() {
	s.Select.FocusGained()
	if s.onFocus != nil {
		s.onFocus()
	}
}

func newKeySelect(keys *promptKeys, options []string, changed func(string)) *keySelect {
	s := &keySelect{keys: keys}
	s.Options = options
	s.OnChanged = changed
	s.ExtendBaseWidget(s)
	return s
}

// TypedKey forwards Escape and Return; Space and the arrows still open the
// list or change the choice.
func (s *keySelect) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyEscape:
		s.keys.escape()
	case fyne.KeyReturn, fyne.KeyEnter:
		s.keys.submit()
	default:
		s.Select.TypedKey(ev)
	}
}

// keyButton is a button that passes Escape to the prompt and is activated
// by Space or Return, through press, which applies the prompt's guard
// against keys pressed before the window appeared.
type keyButton struct {
	widget.Button
	keys  *promptKeys
	press func()
}

func newKeyButton(keys *promptKeys, label string, tapped, press func()) *keyButton {
	b := &keyButton{keys: keys, press: press}
	b.Text = label
	b.OnTapped = tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey forwards Escape and activates the button on Space or Return.
func (b *keyButton) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyEscape:
		b.keys.escape()
	case fyne.KeySpace, fyne.KeyReturn, fyne.KeyEnter:
		if !b.Disabled() {
			b.press()
		}
	}
}
