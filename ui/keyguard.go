package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/ui/lang"
)

// The key guard (DESIGN.md, "Behaviour that users rely on": "A key pressed
// just before a window appears must not answer it"; issue 14: the window
// comes to the front "without stealing keystrokes"): a prompt window opens
// held, taking no input, and arms keyGuard later. promptKeys (keys.go)
// carries it to every widget of the prompt.

// keyGuard is how long after a prompt appears it takes no input, so that a
// key pressed (or auto-repeating) just before the window took the focus
// neither answers it nor types into it (DESIGN.md, "Behaviour that users
// rely on": "A key pressed just before a window appears must not answer
// it"). Until then the window is held (hold): no field has the focus,
// what is typed goes nowhere, a click on Submit, Decline or Open in
// browser or on a check box does nothing, and the window says so ("Ready
// for input in a moment…", those buttons dimmed). Then it arms (arm): the
// first field gets the focus, and a key must have gone down after that to
// count (see guarded). Cancel and closing the window are not delayed.
//
// A key that goes down while the window is held starts the wait again:
// the window arms only once keyGuard passed with no key going down, so
// that someone typing into another window when this one took the focus,
// or took the place of the prompt before it, does not answer it with the
// rest of their sentence and its Return (a break-it session's finding).
// Brought back to the front later, it takes the keys that answer only
// once keyGuard passed with none going down (refocused, keysAt); typing
// and clicks are not held then.
const keyGuard = 500 * time.Millisecond

// heldCue is what a held prompt says beside its buttons (see keyGuard).
const heldCue = "Ready for input in a moment…"

// attendCue is what a prompt says beside its buttons once it arms, when
// keys went down while it was held: the person was typing for another
// window as it opened, and must show this one their attention first (see
// attend). What to do first: a line this long may be cut at its end.
const attendCue = "Click in the window to answer: keys were typed as it opened."

// ArmedProperty is the X window property (CARDINAL, 1) a prompt window has
// once it takes input (keyGuard): a program that types into prompts, such
// as a test or a benchmark, waits for it rather than for a guessed time.
// A window kept for the next prompt (KeepPromptWindows) loses it before it
// is shown again. Set on X11 only.
const ArmedProperty = "_ELICITRAY_ARMED"

// after calls f on the Fyne goroutine once d has passed, unless stop is
// called first: the key guard's clock. A variable so that tests arm a
// prompt by calling its arm, without a goroutine and without sleeping.
var after = func(d time.Duration, f func()) (stop func()) {
	t := time.AfterFunc(d, func() { fyne.Do(f) })
	return func() { t.Stop() }
}

// arm ends the key guard of the prompt on screen: it takes input from now
// on, and says so to programs through ArmedProperty. On the Fyne goroutine;
// a window closed meanwhile is let be.
func (w *PromptWindow) arm() {
	if w.win == nil || !w.base.held {
		return
	}
	w.base.arm()
	markArmed(w.xid)
}

// takes reports whether the prompt takes input now: not while held, not
// before armedAt, and, for typing (typed), only from a key that went down
// since armedAt, so that a key held since before the window appeared does
// not go on typing into the field that gets the focus (see promptKeys).
func (b *promptBase) takes(typed bool) bool {
	if b.held || b.now().Before(b.armedAt) {
		return false
	}
	if !typed {
		b.attend() // a click in the window, once it takes input
		return true
	}
	return b.keys.pressedAnySince(b.armedAt)
}

// attend notes that the person turned to this window (a click anywhere in
// it, or Tab to what they mean to press): the keys that answer count from
// now on even when keys went down while it was held (typedWhileHeld).
func (b *promptBase) attend() {
	if b.attended {
		return
	}
	b.attended = true
	b.unsay(lang.L(attendCue))
}

// say shows text on the cue line, keeping what it said for unsay.
func (b *promptBase) say(text string) {
	if b.cue == nil || b.cue.Text == text {
		return
	}
	b.cueWas = b.cue.Text
	b.cue.SetText(text)
}

// unsay puts back what the cue line said before text, if it says text
// still (the line is the user's language: text is too).
func (b *promptBase) unsay(text string) {
	if b.cue != nil && b.cue.Text == text {
		b.cue.SetText(b.cueWas)
	}
}

// hold makes the prompt take no input until arm: it says so in cue, dims
// the buttons that answer for the user, and keeps ready, which gives the
// keyboard focus, for arm. Nothing has the focus meanwhile, so what is
// typed goes nowhere.
func (b *promptBase) hold(ready func()) {
	b.held = true
	b.ready = ready
	b.say(lang.L(heldCue))
	b.dimmed = b.dimmed[:0]
	for _, k := range b.answering {
		if k != nil && !k.Disabled() {
			k.Disable()
			b.dimmed = append(b.dimmed, k)
		}
	}
}

// arm ends hold: the prompt takes input from now on, a key counting only
// if it went down from now on.
func (b *promptBase) arm() {
	if b.finished {
		return
	}
	b.held = false
	b.armedAt = b.now()
	b.keysAt = b.armedAt
	for _, k := range b.dimmed {
		k.Enable()
	}
	b.dimmed = nil
	b.unsay(lang.L(heldCue))
	if b.ready != nil {
		b.ready()
		b.ready = nil
	}
	if b.typedWhileHeld && !b.attended {
		// Said now, not after a refused key: the window looks ready.
		b.say(lang.L(attendCue))
	}
}

// clickCatcher takes the clicks that land on nothing else of a prompt.
type clickCatcher struct {
	widget.BaseWidget
	clicked func()
}

func newClickCatcher(clicked func()) *clickCatcher {
	c := &clickCatcher{clicked: clicked}
	c.ExtendBaseWidget(c)
	return c
}

func (c *clickCatcher) Tapped(*fyne.PointEvent) { c.clicked() }

func (c *clickCatcher) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout()) // as wheelPass: nothing drawn
}

// guarded wraps a keyboard action in the keyGuard check: the key must come
// after the guard, and must have gone down after it too — a key held down
// since before (auto-repeating) answers nothing until released and pressed
// again. On a desktop the action runs when the key is released, and only
// if it did not repeat (promptKeys).
func (b *promptBase) guarded(f func()) func() {
	return func() {
		from := b.armedAt
		if b.keysAt.After(from) {
			from = b.keysAt
		}
		if b.held || b.now().Before(from) || !b.keys.pressedSince(from) {
			if !b.held && b.now().Before(b.keysAt) {
				b.heldAgain() // back at the front a moment ago
			}
			return
		}
		if b.typedWhileHeld && !b.attended {
			// Half a second's pause in someone's typing (to read what
			// they wrote) armed the window; their Return is not an answer
			// to a window they never looked at. The window says why.
			b.say(lang.L(attendCue))
			return
		}
		b.keys.act(f)
	}
}

// keyWentDown starts the key guard's wait again: while held, the window
// arms keyGuard after this key (restart), and its keys that answer wait
// for the person to turn to it (typedWhileHeld, attend); armed, within
// keyGuard of the window coming back to the front, they count keyGuard
// after it (keysAt). Tab, once armed, is the person moving through it.
func (b *promptBase) keyWentDown(name fyne.KeyName) {
	if b.finished {
		return
	}
	now := b.now()
	switch {
	case b.held:
		b.typedWhileHeld = true
		b.armedAt = now.Add(keyGuard)
		if b.restart != nil {
			b.restart()
		}
	case now.Before(b.keysAt):
		b.keysAt = now.Add(keyGuard)
	case name == fyne.KeyTab:
		b.attend() // moving through the window, once it takes input
	}
}

// heldAgain says, for a key that answers refused because the window came
// back to the front a moment ago (keysAt), that the window takes input in
// a moment, and says what it said before once it does: a Return ignored
// with nothing on the screen to say why read as a window that does not
// work.
func (b *promptBase) heldAgain() {
	if b.cue == nil || b.cue.Text == lang.L(heldCue) {
		return
	}
	b.say(lang.L(heldCue))
	var back func()
	back = func() {
		if b.finished || b.cue.Text != lang.L(heldCue) {
			return
		}
		if wait := b.keysAt.Sub(b.now()); wait > 0 {
			after(wait, back) // a key went down since: later
			return
		}
		b.cue.SetText(b.cueWas)
	}
	after(b.keysAt.Sub(b.now()), back)
}

// refocused holds the keys that answer for keyGuard: the window came back
// to the front (Fyne's app entered the foreground).
func (b *promptBase) refocused() {
	if b.held || b.finished {
		return
	}
	b.keysAt = b.now().Add(keyGuard)
}

// tapGuarded wraps a button that answers for the user (Submit, Decline,
// Open in browser) in the keyGuard's time check: a click that lands in the
// first half second — meant for the window that was there before this one
// popped up under the pointer — answers nothing. Cancel and closing the
// window, which send nothing the user did not choose, are not delayed.
func (b *promptBase) tapGuarded(f func()) func() {
	return func() {
		if !b.takes(false) {
			return
		}
		f()
	}
}
