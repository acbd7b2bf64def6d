package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// promptKeys are the window-wide keys of a prompt: Escape cancels, Return
// submits (a form; a URL prompt opens its link only from its own button),
// Alt+D declines. Fyne hands a key to the focused widget only
// (canvas.SetOnTypedKey and desktop.Canvas.SetOnKeyDown see nothing while a
// widget is focused, and a focused widget.Entry swallows Escape), so every
// focusable widget of the prompt is one of the types below, which forward
// these keys here before doing their own work.
type promptKeys struct {
	escape  func()
	submit  func()
	decline func()

	// presses says whether the driver reports key presses and releases (a
	// desktop window; Fyne's test driver only types). When it does, current
	// is the key being handled, downAt when each key last went down in this
	// window, typed how many typed events it made since, and pending the
	// action waiting for its release.
	//
	// A key held since before the window appeared must not answer it. Its
	// auto-repeat reaches the new window as a press (the window never saw
	// it go down, so GLFW reports the first repeat as one), then as typed
	// events with no press: so an answering key acts when it is released,
	// and only if it typed once. A key held until it repeats answers
	// nothing; released and pressed again, it does.
	presses bool
	current fyne.KeyName
	downAt  map[fyne.KeyName]time.Time
	typed   map[fyne.KeyName]int
	pending map[fyne.KeyName]func()
	now     func() time.Time
	// lastDown is when any key last went down in this window: a rune (which
	// names no key) counts only if one did since the guard ended.
	lastDown time.Time

	// takes reports whether the prompt takes input now, typing (typed) or
	// a click (promptBase.takes): the widgets below drop what comes while
	// it does not. Nil takes everything.
	takes func(typed bool) bool
	// wentDown is told of every press (promptBase.keyWentDown); nil for
	// none.
	wentDown func(fyne.KeyName)
}

// typing reports whether what is typed now may change a field.
func (k *promptKeys) typing() bool { return k.takes == nil || k.takes(true) }

// clicking reports whether a click now may change a field.
func (k *promptKeys) clicking() bool { return k.takes == nil || k.takes(false) }

// handling notes the key an event carries before it reaches an action, and
// counts it: a second typed event before a release is an auto-repeat.
func (k *promptKeys) handling(name fyne.KeyName) {
	k.current = name
	if !k.presses {
		return
	}
	if k.typed == nil {
		k.typed = map[fyne.KeyName]int{}
	}
	k.typed[name]++
	if k.typed[name] > 1 {
		delete(k.pending, name)
	}
}

// keyDown records a press (desktop.Keyable); repeats do not come here.
func (k *promptKeys) keyDown(ev *fyne.KeyEvent) {
	if k.downAt == nil {
		k.downAt = map[fyne.KeyName]time.Time{}
	}
	k.downAt[ev.Name] = k.now()
	k.lastDown = k.downAt[ev.Name]
	delete(k.typed, ev.Name)
	delete(k.pending, ev.Name)
	if k.wentDown != nil {
		k.wentDown(ev.Name)
	}
}

// keyUp runs the action a key's press asked for, if it typed once.
func (k *promptKeys) keyUp(ev *fyne.KeyEvent) {
	f := k.pending[ev.Name]
	delete(k.pending, ev.Name)
	if f != nil && k.typed[ev.Name] == 1 {
		f()
	}
}

// act runs f for the key being handled: at once where the driver reports
// no releases, else when the key is released (see promptKeys).
func (k *promptKeys) act(f func()) {
	if !k.presses {
		f()
		return
	}
	if k.typed[k.current] > 1 {
		return // auto-repeating
	}
	if k.pending == nil {
		k.pending = map[fyne.KeyName]func(){}
	}
	k.pending[k.current] = f
}

// pressedSince reports whether the key being handled went down at or after
// t (always true when the driver reports no presses).
func (k *promptKeys) pressedSince(t time.Time) bool {
	if !k.presses {
		return true
	}
	at, ok := k.downAt[k.current]
	return ok && !at.Before(t)
}

// pressedAnySince reports whether any key went down at or after t (always
// true when the driver reports no presses).
func (k *promptKeys) pressedAnySince(t time.Time) bool {
	return !k.presses || !k.lastDown.Before(t)
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
	if dc, ok := c.(desktop.Canvas); ok {
		dc.SetOnKeyDown(k.keyDown)
		dc.SetOnKeyUp(k.keyUp)
	}
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		k.handling(ev.Name)
		switch ev.Name {
		case fyne.KeyEscape:
			k.escape()
		case fyne.KeyReturn, fyne.KeyEnter:
			k.submit()
		}
	})
	c.AddShortcut(declineShortcut, func(fyne.Shortcut) {
		k.handling(declineShortcut.KeyName)
		k.decline()
	})
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

// KeyDown records the press for the prompt's guard.
func (e *keyEntry) KeyDown(ev *fyne.KeyEvent) {
	e.keys.keyDown(ev)
	e.Entry.KeyDown(ev)
}

// KeyUp lets the prompt act on a released key.
func (e *keyEntry) KeyUp(ev *fyne.KeyEvent) {
	e.Entry.KeyUp(ev)
	e.keys.keyUp(ev)
}

// Tapped is a click in the entry: the person turned to the window
// (promptBase.attend), once it takes input.
func (e *keyEntry) Tapped(ev *fyne.PointEvent) {
	e.keys.clicking()
	e.Entry.Tapped(ev)
}

// TypedRune types r, unless the prompt takes no input yet (keyGuard): a
// key meant for another window goes nowhere.
func (e *keyEntry) TypedRune(r rune) {
	if !e.keys.typing() {
		return
	}
	e.Entry.TypedRune(r)
}

// TypedKey catches Escape, which widget.Entry would swallow; the editing
// keys wait for the key guard as typing does.
func (e *keyEntry) TypedKey(ev *fyne.KeyEvent) {
	e.keys.handling(ev.Name) // Return reaches OnSubmitted from here
	if ev.Name == fyne.KeyEscape {
		e.keys.escape()
		return
	}
	if !e.keys.typing() {
		return
	}
	e.Entry.TypedKey(ev)
}

// TypedShortcut catches Alt+D: a focused entry receives shortcuts instead of
// the canvas. The others (paste, cut, undo) wait for the key guard.
func (e *keyEntry) TypedShortcut(s fyne.Shortcut) {
	if isDecline(s) {
		e.keys.handling(declineShortcut.KeyName)
		e.keys.decline()
		return
	}
	if !e.keys.typing() {
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

// KeyDown records the press for the prompt's guard.
func (c *keyCheck) KeyDown(ev *fyne.KeyEvent) { c.keys.keyDown(ev) }

// KeyUp lets the prompt act on a released key.
func (c *keyCheck) KeyUp(ev *fyne.KeyEvent) { c.keys.keyUp(ev) }

// Tapped toggles the box, unless the prompt takes no input yet
// (keyGuard): a click meant for another window changes nothing.
func (c *keyCheck) Tapped(ev *fyne.PointEvent) {
	if !c.keys.clicking() {
		return
	}
	c.Check.Tapped(ev)
}

// TypedRune toggles the box on Space, unless the prompt takes no input
// yet.
func (c *keyCheck) TypedRune(r rune) {
	if !c.keys.typing() {
		return
	}
	c.Check.TypedRune(r)
}

// TypedKey forwards Escape and Return; Space still toggles (TypedRune).
func (c *keyCheck) TypedKey(ev *fyne.KeyEvent) {
	c.keys.handling(ev.Name)
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

// KeyDown records the press for the prompt's guard.
func (s *keySelect) KeyDown(ev *fyne.KeyEvent) { s.keys.keyDown(ev) }

// KeyUp lets the prompt act on a released key.
func (s *keySelect) KeyUp(ev *fyne.KeyEvent) { s.keys.keyUp(ev) }

// TypedKey forwards Escape and Return; Space and the arrows still open the
// list or change the choice, once the prompt takes input (keyGuard).
func (s *keySelect) TypedKey(ev *fyne.KeyEvent) {
	s.keys.handling(ev.Name)
	switch ev.Name {
	case fyne.KeyEscape:
		s.keys.escape()
	case fyne.KeyReturn, fyne.KeyEnter:
		s.keys.submit()
	default:
		if s.keys.typing() {
			s.Select.TypedKey(ev)
		}
	}
}

// TypedRune opens the list on Space, once the prompt takes input.
func (s *keySelect) TypedRune(r rune) {
	if s.keys.typing() {
		s.Select.TypedRune(r)
	}
}

// Tapped opens the list, once the prompt takes input.
func (s *keySelect) Tapped(ev *fyne.PointEvent) {
	if s.keys.clicking() {
		s.Select.Tapped(ev)
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

// KeyDown records the press for the prompt's guard.
func (b *keyButton) KeyDown(ev *fyne.KeyEvent) { b.keys.keyDown(ev) }

// KeyUp lets the prompt act on a released key.
func (b *keyButton) KeyUp(ev *fyne.KeyEvent) { b.keys.keyUp(ev) }

// TypedKey forwards Escape and activates the button on Space or Return.
func (b *keyButton) TypedKey(ev *fyne.KeyEvent) {
	b.keys.handling(ev.Name)
	switch ev.Name {
	case fyne.KeyEscape:
		b.keys.escape()
	case fyne.KeySpace, fyne.KeyReturn, fyne.KeyEnter:
		if !b.Disabled() {
			b.press()
		}
	}
}
