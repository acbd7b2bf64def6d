package ui

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/ui/lang"
)

// The actions of an ElicitResult (PROTOCOL.md §5).
const (
	actionAccept  = "accept"
	actionDecline = "decline"
	actionCancel  = "cancel"
)

// now is the clock of the windows created after it is set: the key guard
// and the countdown read it. A variable so that tests can set the time.
var now = time.Now

// Prompt is one form-mode elicitation to put before the user.
type Prompt struct {
	// Server is the name the user configured for the server (--name). It is
	// the trusted identity and is shown first, in large type (PROTOCOL.md §6).
	Server string
	// ServerInfo is what the server calls itself, e.g.
	// "mcp-servers/everything 2.0.0", shown smaller as "calls itself …".
	// Empty hides that line.
	ServerInfo string
	// Tool is the tools/call in flight when the server asked; empty when
	// unknown, which hides that line.
	Tool string
	// Message is the server's message, shown as plain text.
	Message string
	// Form is the parsed requestedSchema. Nil shows no fields, so the user
	// can only confirm, decline or cancel. A field marked Sensitive is
	// masked and warned about (PROTOCOL.md §6).
	Form *elicit.Form
	// Deadline is when the hub answers the prompt cancel if nobody did;
	// the window counts down to it ("Cancels in 10 minutes unless answered"),
	// every second. Zero shows no countdown.
	Deadline time.Time
	// Waiting is how many prompts are queued behind this one, shown as
	// "2 more waiting"; 0 shows nothing. PromptWindow.SetWaiting changes it.
	Waiting int
	// Step and Steps place the prompt among the questions of one round of
	// its server's ("Question 2 of 50", first on the status line); 0 shows
	// nothing.
	Step, Steps int
	// CanRemember offers "Always answer this way" (remember.go); false
	// offers nothing (a form with a secret field is never remembered).
	CanRemember bool
	// Prefill holds values by property name that the form starts with: the
	// text last given for the same question. Only a field that may be
	// pre-filled takes one (elicit.Field.Prefillable: free text with no
	// server default, never a secret); the window marks it, and Return
	// does not send it (remember.go).
	Prefill map[string]any
	// ToolCall marks a prompt that asks to approve a host's tools/call
	// (the tool-call guard, issue 14): Message says what the call would do,
	// Form is nil, and the buttons read Deny (answering decline) and
	// Approve (accept). False: an elicitation (Decline, Submit).
	ToolCall bool
	// ToolChange marks, besides ToolCall, a prompt that tells of a tool's
	// changed definition (bridge.ModeToolChange): the buttons read Keep
	// asking (decline) and Accept the change (accept).
	ToolChange bool
	// Shown, when set, is called on the Fyne goroutine as soon as the
	// window was shown (mapped), before the key guard is set up (the focus
	// comes as it arms, keyGuard); it must not block. Nil: nothing is
	// told.
	Shown func()
}

// Answer is the user's decision on a Prompt: the ElicitResult to send
// (PROTOCOL.md §5).
type Answer struct {
	// Action is "accept" (submitted), "decline" (explicitly refused) or
	// "cancel" (dismissed: Escape, Cancel, window closed).
	Action string
	// Content holds the typed values with accept (string, json.Number,
	// bool, []string: see elicit.Field; unfilled optional fields are
	// absent), nil otherwise.
	Content map[string]any
	// MuteHour is set when the user ticked "Don't ask again for an hour"
	// before answering, whatever the answer: the hub is to stop showing
	// this server's prompts for an hour. It is not part of the
	// ElicitResult.
	MuteHour bool
	// Remember is set when the user ticked "Always answer this way": the
	// hub is to answer this question so from now on. It is not part of
	// the ElicitResult.
	Remember bool
}

// PromptWindow is an open prompt window: a form prompt (ShowPrompt) or a
// URL prompt (ShowURLPrompt).
type PromptWindow struct {
	win  fyne.Window
	app  fyne.App
	base *promptBase
	// Exactly one of these is set.
	view    *promptView
	urlView *urlPromptView
	// xid is the X window askAttention marked, 0 when none.
	xid uint32
	// stopArm stops the key guard's clock (after); nil until it runs.
	stopArm func()
}

// ShowPrompt opens a window for p and returns it. It must be called on the
// Fyne goroutine (inside fyne.Do). done is called exactly once, on the Fyne
// goroutine, with the user's Answer, unless Close is called first; it must
// not block. Escape, the Cancel button and closing the window answer
// cancel; Alt+D and the Decline button answer decline; Return and the
// Submit button answer accept once every field is valid. Keys pressed in
// the first half second are ignored, and the first field has the focus
// only after it (keyGuard). Whatever the answer, it carries
// MuteHour when the user ticked "Don't ask again for an hour" (Tab reaches
// the check box before the buttons). A Deadline is counted down every
// second until the window closes.
func ShowPrompt(a fyne.App, p *Prompt, done func(Answer)) *PromptWindow {
	v := newPromptView(p, done)
	title := promptTitle(p.Server)
	switch {
	case p.ToolChange:
		title = lang.L("elicitray — {{.Server}} changed a tool", map[string]any{"Server": p.Server})
	case p.ToolCall:
		title = toolCallTitle(p.Server)
	}
	v.shown = p.Shown
	pw := showPromptWindow(a, title, &v.promptBase, v.onCancel, v.content, v.size(), v.onArmed)
	pw.view = v
	return pw
}

// showPromptWindow puts content in a new window titled title, binds b's
// keys to it and dismiss to its close button, and shows it held (keyGuard);
// once the guard has passed it arms it, and ready gives the keyboard focus.
func showPromptWindow(a fyne.App, title string, b *promptBase, dismiss func(), content fyne.CanvasObject, size fyne.Size, ready func()) *PromptWindow {
	win := spare.take(a)
	kept := win != nil
	if kept {
		win.SetTitle(title)
	} else {
		win = a.NewWindow(title)
	}
	pw := &PromptWindow{win: win, app: a, base: b}
	b.closeWindow = pw.closeWindow
	// Under the content, a click anywhere the content takes none (its
	// text, the space between fields) is the person turning to the
	// window (promptBase.attend).
	win.SetContent(container.NewStack(newClickCatcher(func() { b.takes(false) }), content))
	b.attach(win.Canvas())
	win.SetCloseIntercept(dismiss)
	// Held before it is first drawn: the dimmed buttons never flash on.
	b.hold(ready)
	// No SetIcon: Fyne gives a new window the app's icon itself (a kept
	// one has it still), and each SetIcon decodes the icon and sends it to
	// the X server again before the window maps (~5 ms of a cold prompt's).
	win.Resize(size)
	win.CenterOnScreen()
	win.Show()
	if kept {
		// Fyne (v2.7.1, glfw window.doShowAgain) puts a window shown again
		// back where it was first shown, undoing CenterOnScreen: a 720-high
		// form in a window first centred at 400 would reach past the
		// screen's bottom, its buttons out of sight. Centred after Show,
		// it moves before its first frame.
		win.CenterOnScreen()
	}
	if b.shown != nil {
		b.shown()
	}
	// To the front, and the window manager asked to draw the eye to it
	// where it does not let it take the focus (attention_linux.go).
	win.RequestFocus()
	pw.xid = askAttention(win)
	b.startTicks()
	// Counted from when the window exists: creating it can take a while;
	// and again from each key that goes down while it is held.
	b.armedAt = b.now().Add(keyGuard)
	pw.stopArm = after(keyGuard, pw.arm)
	b.restart = func() {
		pw.stopArm()
		pw.stopArm = after(keyGuard, pw.arm)
	}
	b.keys.wentDown = b.keyWentDown
	// Back to the front after the user worked elsewhere, the window takes
	// no answering key until keyGuard passed with none going down: they
	// may still be typing what they meant for the other window.
	a.Lifecycle().SetOnEnteredForeground(b.refocused)
	// A desktop driver reports presses apart from auto-repeats.
	_, b.keys.presses = fyne.CurrentApp().Driver().(desktop.Driver)
	return pw
}

// Close closes the window without calling done: for a prompt the server
// cancelled or the hub timed out. Closing a window that is already closed
// does nothing.
func (w *PromptWindow) Close() {
	w.base.finished = true
	w.closeWindow()
}

func (w *PromptWindow) closeWindow() {
	w.base.stopTicking()
	if w.stopArm != nil {
		w.stopArm()
	}
	w.base.restart = nil
	if w.app != nil {
		w.app.Lifecycle().SetOnEnteredForeground(nil)
	}
	if w.win == nil {
		return
	}
	win := w.win
	w.win = nil
	dropAttention(w.xid)
	w.xid = 0
	if spare.keep(w.app, win) {
		return
	}
	win.Close()
}

// KeepPromptWindows makes a keep its last closed prompt window, hidden, to
// be the next prompt's window: a window made anew costs a GL context and
// its first frame (some 60 ms with Mesa's llvmpipe, most of a window's time
// on screen), one shown again a few milliseconds. For a process whose
// prompt windows come one after another (the hub's window process), where
// the hidden window is gone when the process goes; on the Fyne goroutine.
// A kept window holds nothing of its prompt: its content is emptied as it
// hides, and it is unmapped and mapped again for the next prompt, as a new
// window would be.
func KeepPromptWindows(a fyne.App) {
	spare.app = a
}

// spare is the hidden prompt window KeepPromptWindows keeps; on the Fyne
// goroutine only.
var spare spareWindow

type spareWindow struct {
	app fyne.App // the app that keeps one, or nil
	win fyne.Window
}

// take returns the kept window of a and forgets it; nil when there is none.
func (s *spareWindow) take(a fyne.App) fyne.Window {
	if s.app == nil || s.app != a || s.win == nil {
		return nil
	}
	win := s.win
	s.win = nil
	return win
}

// keep hides win, a closing prompt window of a, and keeps it when a keeps
// one and none is kept; it reports whether it did.
func (s *spareWindow) keep(a fyne.App, win fyne.Window) bool {
	if s.app == nil || s.app != a || s.win != nil {
		return false
	}
	win.Hide()
	// Shown again, it takes no input until the next prompt arms it.
	clearArmed(x11Window(win))
	// Nor does it show anything of this prompt over the next: a choice
	// list left open (a Select's pop-up) covered the next prompt's form
	// (a break-it session's finding).
	o := win.Canvas().Overlays()
	for top := o.Top(); top != nil; top = o.Top() {
		o.Remove(top)
	}
	// Its fields (a secret typed, say) do not outlive the prompt, and its
	// close button answers nothing.
	win.SetContent(widget.NewLabel(""))
	win.SetCloseIntercept(func() {})
	s.win = win
	return true
}

// promptTitle is the window title naming the asking server.
func promptTitle(server string) string {
	return lang.L("elicitray — {{.Server}} asks", map[string]any{"Server": server})
}

// toolCallTitle is the title of a tool-call approval window.
func toolCallTitle(server string) string {
	return lang.L("elicitray — approve a tool call to {{.Server}}?", map[string]any{"Server": server})
}

// promptWidth is how wide a form prompt opens.
const promptWidth = 560

// size is 560 wide and as tall as the whole form wants, with room for an
// error line, within bounds that keep a long form on the screen (the form
// scrolls).
func (v *promptView) size() fyne.Size {
	const width = promptWidth
	// Wrapped text (a warning, a long description) is as tall as the width
	// makes it: lay out once at about the window's width before measuring,
	// or the first layout leaves gaps where a narrow label was measured.
	inner := width - 2*theme.Padding()
	v.top.Resize(fyne.NewSize(inner, v.top.MinSize().Height))
	v.form.Resize(fyne.NewSize(inner-2*theme.Padding(), v.form.MinSize().Height))
	h := v.top.MinSize().Height + v.form.MinSize().Height + v.bottom.MinSize().Height +
		4*theme.Padding() + 2*theme.TextSize()
	return fyne.NewSize(width, min(max(h, 320), 720))
}

// promptBase is what every prompt window shares: the answer, given once;
// the window, closed after it; and the window-wide keys, guarded by keyGuard.
type promptBase struct {
	done func(Answer)
	// shown is the Prompt's or URLPrompt's Shown.
	shown func()

	// closeWindow closes the window once the answer is given.
	closeWindow func()
	// now, armedAt and held implement keyGuard: input before armedAt is
	// ignored, and so is all input while held (hold, until arm). The zero
	// armedAt and held false take input at once (a view without a window,
	// in tests).
	now     func() time.Time
	armedAt time.Time
	held    bool
	// keysAt is when the keys that answer (Return, Alt+D, Escape) count
	// again after a key went down too soon (keyWentDown): not before
	// armedAt either. restart starts the wait to arm again (a key went
	// down while held); nil without a window.
	keysAt  time.Time
	restart func()
	// typedWhileHeld: a key went down while the window was held (the
	// person was typing for another window as it opened); the keys that
	// answer then wait until attended, a click in the window or Tab.
	typedWhileHeld, attended bool
	// While held: ready is what arm does last (the keyboard focus), cue
	// the label that says the window is held (the view's hint line; nil
	// for none) and cueWas what it said before, and dimmed the buttons
	// hold disabled.
	ready  func()
	cue    *widget.Label
	cueWas string
	dimmed []*keyButton
	// answering are the buttons that answer for the user (Submit,
	// Decline, Open in browser): disabled while held.
	answering []*keyButton
	// finished is set once done was called or the window was closed from
	// outside; nothing is answered after it.
	finished bool

	keys   *promptKeys
	canvas fyne.Canvas // set by attach; nil until then

	// The status line (status.go): the mute check box, the countdown to
	// deadline (zero: none) and the count of prompts waiting. stopTicks
	// stops the countdown's clock, nil until it runs; ticksStopped is set
	// once the window closed.
	mute         *keyCheck
	remember     *keyCheck // "Always answer this way"; nil when not offered
	status       *widget.Label
	deadline     time.Time
	waiting      int
	step, steps  int // Prompt.Step and Steps
	stopTicks    func()
	ticksStopped bool
}

// setup readies b to hand the answer to done; submit is what Return does
// where no focused widget takes it.
func (b *promptBase) setup(done func(Answer), submit func()) {
	b.done = done
	b.closeWindow = func() {}
	b.now = now
	b.keys = &promptKeys{
		escape:  b.guarded(b.onCancel),
		submit:  b.guarded(submit),
		decline: b.guarded(b.onDecline),
		now:     func() time.Time { return b.now() },
	}
	b.keys.takes = b.takes
}

// attach binds the prompt's keys to c, the canvas showing the content.
func (b *promptBase) attach(c fyne.Canvas) {
	b.canvas = c
	b.keys.bindCanvas(c)
}

func (b *promptBase) onDecline() {
	b.finish(Answer{Action: actionDecline})
}

func (b *promptBase) onCancel() {
	b.finish(Answer{Action: actionCancel})
}

// finish hands a to done once and closes the window.
func (b *promptBase) finish(a Answer) {
	if b.finished {
		return
	}
	b.finished = true
	b.answer(a)
	b.closeWindow()
}

// answer hands a to done with the mute choice: whatever the user answers,
// a ticked "Don't ask again for an hour" goes with it.
func (b *promptBase) answer(a Answer) {
	a.MuteHour = b.mute != nil && b.mute.Checked
	a.Remember = b.remember != nil && b.remember.Checked
	b.done(a)
}

// promptHeader is the top of every prompt: the configured name in large
// bold type beside its badge (badge.go), then what the server calls itself
// and the tool call in flight, each hidden when empty (PROTOCOL.md §6: the
// name the user configured first).
func promptHeader(server, serverInfo, tool string) fyne.CanvasObject {
	header := container.New(layout.NewCustomPaddedVBoxLayout(0))
	name := boldLabel(server)
	name.SizeName = theme.SizeNameHeadingText
	header.Add(container.NewBorder(nil, nil, newBadge(server), nil, name))
	if serverInfo != "" {
		header.Add(smallLabel(lang.L("calls itself “{{.Name}}”", map[string]any{"Name": oneLine(serverInfo)})))
	}
	if tool != "" {
		header.Add(smallLabel(lang.L("during tool call {{.Tool}}", map[string]any{"Tool": oneLine(tool)})))
	}
	return header
}

// maxMessageHeight is the most height the server's message takes in a
// prompt window; a longer message scrolls inside it, so that the window
// stays within its cap (720) with the buttons in view.
const maxMessageHeight = 160

// messageBox shows the server's message as wrapped plain text, clipped by
// messageText, scrolling beyond maxMessageHeight.
func messageBox(m string) fyne.CanvasObject {
	// Server text is untrusted: a plain label, never markdown.
	msg := newBidiLabel(messageText(m), true)
	return container.New(&maxHeightLayout{max: maxMessageHeight, inner: msg}, container.NewVScroll(msg))
}

// promptView is the content of a form prompt window, without the window,
// so that tests can drive it on a test canvas.
type promptView struct {
	promptBase
	// hiddenChars: the server's text had invisible characters, removed.
	hiddenChars bool
	p           *Prompt

	// attempted is set once the user tried to submit an invalid form: from
	// then on every field shows its error, touched or not.
	attempted bool

	top     fyne.CanvasObject
	form    *fyne.Container
	scroll  *container.Scroll // around form
	bottom  fyne.CanvasObject
	rows    []*fieldRow
	hint    *widget.Label
	cancel  *keyButton
	decline *keyButton
	submit  *keyButton
	content fyne.CanvasObject

	// lastBar says that fields hold the user's last answers and offers
	// clearLast, which empties them (remember.go); nil without prefill.
	lastBar   *fyne.Container
	clearLast *keyButton

	// formLayout lays out form; validate tells it when a field's error
	// line came or went.
	formLayout *formLayout
}

// newPromptView builds the content for p; done receives the answer.
func newPromptView(p *Prompt, done func(Answer)) *promptView {
	p, hidden := cleanPrompt(p)
	v := &promptView{p: p, hiddenChars: hidden}
	v.setup(done, v.onReturn)
	v.content = v.build()
	v.validate()
	return v
}

func (v *promptView) build() fyne.CanvasObject {
	tool := v.p.Tool
	if v.p.ToolChange {
		tool = "" // no call is in flight; the message names the tool
	}
	header := promptHeader(v.p.Server, v.p.ServerInfo, tool)
	if v.hiddenChars {
		header = container.NewVBox(header, hiddenCharsWarning())
	}
	if l := imitationIn(v.p); l != "" {
		header = container.NewVBox(header, imitationWarning(l))
	}
	// Rows are gathered first and laid out once: Container.Add lays out
	// again each time.
	var rows []fyne.CanvasObject
	top := []fyne.CanvasObject{header, widget.NewSeparator()}
	if v.p.Form == nil || len(v.p.Form.Fields) == 0 {
		// Nothing to fill in (a tool call's approval, a tool change): the
		// message is the window's body, as tall as it is up to the
		// window's cap, scrolling beyond; in a box of its own it hid a
		// call's arguments below the first, over empty space.
		rows = append(rows, newBidiLabel(messageText(v.p.Message), true))
	} else {
		top = append(top, messageBox(v.p.Message), widget.NewSeparator())
	}
	if v.p.Form != nil {
		defaults := v.p.Form.Defaults()
		checks := checkBoxes(v.p.Form)
		anyRequired := false
		for i := range v.p.Form.Fields {
			f := &v.p.Form.Fields[i]
			initial, last := initialValue(f, defaults, v.p.Prefill)
			r := newFieldRow(f, v.keys, initial, v.onFieldChanged)
			r.last = last
			r.list = asList(f, checks)
			r.server = v.p.Server
			r.onFocus = v.reveal
			r.wheel = wheelTo(&v.scroll)
			v.rows = append(v.rows, r)
			rows = append(rows, r.build())
			anyRequired = anyRequired || f.Required && f.Kind != elicit.KindBoolean
		}
		if anyRequired {
			rows = append(rows, smallLabel(lang.L("* required")))
		}
	}
	v.formLayout = &formLayout{}
	v.form = container.New(v.formLayout, rows...)
	form := v.form

	v.cancel = newKeyButton(v.keys, lang.L("Cancel"), v.onCancel, v.keys.escape)
	declineText, submitText := lang.L("Decline"), lang.L("Submit")
	switch {
	case v.p.ToolChange:
		declineText, submitText = lang.L("Keep asking"), lang.L("Accept the change")
	case v.p.ToolCall:
		declineText, submitText = lang.L("Deny"), lang.L("Approve")
	}
	v.decline = newKeyButton(v.keys, declineText, v.tapGuarded(v.onDecline), v.keys.decline)
	// The button sends what the form holds, last answers included: the
	// user chose it in this window. Return elsewhere does not (onReturn).
	v.submit = newKeyButton(v.keys, submitText, v.tapGuarded(v.onSubmit), v.guarded(v.onSubmit))
	v.submit.Importance = widget.HighImportance
	v.hint = widget.NewLabel("")
	v.hint.Truncation = fyne.TextTruncateEllipsis
	v.hint.Importance = widget.LowImportance
	v.cue = v.hint
	v.answering = []*keyButton{v.decline, v.submit}
	buttons := container.NewBorder(nil, nil, nil,
		container.NewHBox(v.cancel, v.decline, v.submit), hinted(v.hint))

	v.top = container.NewVBox(top...)
	if len(v.rememberedRows()) > 0 {
		v.top.(*fyne.Container).Add(v.buildLastAnswers())
	}
	v.step, v.steps = v.p.Step, v.p.Steps
	status := v.buildStatus(v.p.Deadline, v.p.Waiting)
	if v.p.ToolCall {
		// Muting the server would deny its guarded calls for an hour, not
		// approve them, as "Don't ask again" may be read: not offered.
		v.mute.Hide()
	}
	own := []fyne.CanvasObject{status}
	if v.p.CanRemember && !v.p.ToolCall && !hasSecretField(v.p.Form) {
		own = append(own, v.rememberBox())
	}
	v.bottom = ownPanel(append(own, buttons)...)
	// Room on the right for the scroll bar, which Fyne draws over the content.
	padded := container.New(layout.NewCustomPaddedLayout(0, 0, 0, 2*theme.Padding()), form)
	v.scroll = container.NewVScroll(padded)
	return container.NewBorder(v.top, v.bottom, nil, nil, v.scroll)
}

// reveal scrolls the form so that o, a field getting the keyboard focus,
// is in view: Fyne's scroll containers do not follow the focus.
func (v *promptView) reveal(o fyne.CanvasObject) {
	if v.canvas == nil {
		return
	}
	d := fyne.CurrentApp().Driver()
	top := d.AbsolutePositionForObject(o).Y - d.AbsolutePositionForObject(v.form).Y
	bottom := top + o.Size().Height
	view := v.scroll.Size().Height
	offset := v.scroll.Offset.Y
	switch {
	case top < offset:
		offset = top
	case bottom > offset+view:
		offset = min(top, bottom-view)
	default:
		return
	}
	v.scroll.ScrollToOffset(fyne.NewPos(0, max(offset, 0)))
}

// onArmed is what the form does as its key guard ends: Submit and the hint
// as the fields make them, and the focus on the first field.
func (v *promptView) onArmed() {
	v.validate()
	v.focusFirst()
}

// focusFirst gives the keyboard focus to the first field, if any.
func (v *promptView) focusFirst() {
	if len(v.rows) > 0 && v.canvas != nil {
		v.canvas.Focus(v.rows[0].focusTarget())
	}
}

func (v *promptView) onFieldChanged() {
	v.showLastAnswers()
	v.validate()
}

// values reads every field, returning the typed values and the error of
// each field whose text could not be read or whose value is invalid.
func (v *promptView) values() (map[string]any, map[string]error) {
	values := make(map[string]any, len(v.rows))
	errs := make(map[string]error)
	for _, r := range v.rows {
		val, err := r.value()
		if err != nil {
			errs[r.f.Name] = err
			continue
		}
		values[r.f.Name] = val
	}
	if v.p.Form != nil {
		for name, err := range v.p.Form.Validate(values) {
			if err != nil && errs[name] == nil {
				errs[name] = err
			}
		}
	}
	return values, errs
}

// validate shows the errors of touched fields (all fields once submit was
// attempted), enables Submit only when the form is valid, and says in the
// hint which fields are still missing. It reports whether the form is valid.
func (v *promptView) validate() bool {
	_, errs := v.values()
	var missing []string
	for _, r := range v.rows {
		err := errs[r.f.Name]
		r.showError(err, r.touched || v.attempted)
		if err != nil {
			missing = append(missing, r.f.Label())
		}
	}
	v.formLayout.changed()
	if v.held {
		// Submit stays dimmed and the hint says the window is held;
		// onArmed validates again.
		return len(missing) == 0
	}
	v.hint.Importance = widget.LowImportance
	if len(missing) == 0 {
		v.submit.Enable()
		v.hint.SetText("")
		return true
	}
	v.submit.Disable()
	v.hint.SetText(bidiSentence(fixHint(missing)))
	return false
}

// hintNames is how many fields the hint names: it is one line beside the
// buttons, and a form may have hundreds of fields to fix.
const hintNames = 5

// fixHint says which fields keep the form from being submitted: "To
// submit, fix: “Name”, “Email”", or with more than hintNames, how many
// first: "To submit, fix 100 fields: “Field 0”, “Field 5”, …". The titles
// are the server's, quoted: the hint sits on the window's own band
// (ownPanel), where nothing unquoted is the server's.
func fixHint(names []string) string {
	names = slices.Clone(names)
	for i, n := range names {
		names[i] = "“" + n + "”"
		if strings.ContainsFunc(n, rtlRune) {
			// A strong left-to-right mark between it and the next: two
			// right-to-left titles with only ", " between them would make
			// one right-to-left stretch, drawn last title first.
			names[i] += string(lrm)
		}
	}
	if len(names) <= hintNames {
		return lang.L("To submit, fix: {{.Fields}}", map[string]any{"Fields": strings.Join(names, lang.L(", "))})
	}
	return lang.N("To submit, fix {{.Count}} fields: {{.Fields}}", len(names), map[string]any{
		"Count": lang.Thousands(len(names)), "Fields": strings.Join(names[:hintNames], lang.L(", ")) + lang.L(", ") + "…"})
}

// onReturn is Return pressed anywhere but on a button: it submits like
// Submit, unless a field still holds the user's last answer, which only
// the button sends (remember.go).
func (v *promptView) onReturn() {
	if v.finished {
		return
	}
	if rows := v.rememberedRows(); len(rows) > 0 && v.validate() {
		v.holdLastAnswers(rows)
		return
	}
	v.onSubmit()
}

func (v *promptView) onSubmit() {
	if v.finished {
		return
	}
	if !v.validate() {
		// Return on an invalid form: show every error and go to the first.
		v.attempted = true
		v.validate()
		for _, r := range v.rows {
			if r.err != nil {
				if v.canvas != nil {
					v.canvas.Focus(r.focusTarget())
				}
				break
			}
		}
		return
	}
	values, _ := v.values()
	content := map[string]any{}
	if v.p.Form != nil {
		var err error
		content, err = v.p.Form.Content(values)
		if err != nil {
			// The fields were valid one by one; the whole was not. Say so
			// and keep the window open rather than send invalid content.
			v.hint.SetText(bidiSentence(formSentence(err)))
			return
		}
	}
	v.finish(Answer{Action: actionAccept, Content: content})
}

// fieldRow is one field of the form: its label, its input widget, its help
// text and its error line.
type fieldRow struct {
	f        *elicit.Field
	server   string // the configured name, for the secret warning
	keys     *promptKeys
	changed  func()
	initial  any
	onFocus  func(fyne.CanvasObject) // called with box when a widget of the row gets the focus
	wheel    func(*fyne.ScrollEvent) // scrolls the form (passWheel)
	list     bool                    // a select shown as a choiceList (asList)
	box      *fyne.Container
	err      error
	edited   bool // the user changed the entry's text
	touched  bool
	errLabel *widget.Label

	// last: the entry was pre-filled with the user's last answer to the
	// question and not cleared; while its text is still that answer,
	// lastMark says so under it (remembered, remember.go).
	last     bool
	lastMark fyne.CanvasObject

	// Exactly one of these is set, according to f.Kind and, for a
	// select, its number of choices.
	entry   *keyEntry   // string, number, integer
	bidi    *bidiEntry  // around entry: its right-to-left text in order
	check   *keyCheck   // boolean
	sel     *keySelect  // single select of up to longList choices
	multi   []*keyCheck // multi select of up to longList choices, one per option
	choices *choiceList // a select of more (choicelist.go)
}

// noneLabel is the choice of an optional single select that sends nothing.
const noneLabel = "(none)"

func newFieldRow(f *elicit.Field, keys *promptKeys, initial any, changed func()) *fieldRow {
	return &fieldRow{f: f, keys: keys, initial: initial, changed: changed}
}

func (r *fieldRow) build() fyne.CanvasObject {
	r.box = container.NewVBox()
	box := r.box
	focused := func() {
		if r.onFocus != nil {
			r.onFocus(r.box)
		}
	}
	label := chars.CutMiddle(oneLine(r.f.Label()), maxLabel)
	// A check box always sends true or false: required, it asks for no
	// tick, and a star would say it did.
	if r.f.Required && r.f.Kind != elicit.KindBoolean {
		label += " *"
	}
	if r.list {
		box.Add(fieldLabel(label))
		r.choices = newChoiceList(r.f, r.keys, r.initial, r.onTouched)
		r.choices.onFocus = focused
		box.Add(r.choices.build())
		return r.finishBuild()
	}
	switch r.f.Kind {
	case elicit.KindBoolean:
		r.check = newKeyCheck(r.keys, bidiText(label), func(bool) { r.onTouched() })
		r.check.onFocus = focused
		if b, ok := r.initial.(bool); ok {
			r.check.Checked = b
		}
		box.Add(r.check)
	case elicit.KindSelect:
		box.Add(fieldLabel(label))
		opts := make([]string, 0, len(r.f.Options)+1)
		if !r.f.Required {
			opts = append(opts, lang.L(noneLabel))
		}
		for i, l := range optionLabels(r.f.Options) {
			if l == lang.L(noneLabel) && !r.f.Required {
				l += " (" + chars.CutMiddle(oneLine(r.f.Options[i].Value), maxLabel/2) + ")"
			}
			opts = append(opts, l)
		}
		r.sel = newKeySelect(r.keys, opts, nil)
		r.sel.PlaceHolder = lang.L("Choose…")
		if s, ok := r.initial.(string); ok {
			if i := r.optionIndex(s); i >= 0 {
				r.sel.SetSelectedIndex(i + r.noneOffset())
			}
		}
		r.sel.OnChanged = func(string) { r.onTouched() }
		r.sel.onFocus = focused
		box.Add(r.sel)
	case elicit.KindMultiSelect:
		box.Add(fieldLabel(label))
		ticked := map[string]bool{}
		if ss, ok := r.initial.([]string); ok {
			for _, s := range ss {
				ticked[s] = true
			}
		}
		labels := optionLabels(r.f.Options)
		for i, o := range r.f.Options {
			c := newKeyCheck(r.keys, labels[i], func(bool) { r.onTouched() })
			c.Checked = ticked[o.Value]
			c.onFocus = focused
			r.multi = append(r.multi, c)
			box.Add(c)
		}
	default:
		box.Add(fieldLabel(label))
		if r.f.Sensitive {
			box.Add(secretWarning(r.server))
		}
		r.entry = newKeyEntry(r.keys)
		// A secret is masked as it is typed, with Fyne's button to show it.
		r.entry.Password = r.f.Sensitive
		r.entry.PlaceHolder = placeholder(r.f)
		r.entry.SetText(valueText(r.initial))
		r.entry.OnChanged = func(string) {
			r.edited = true
			r.bidi.update() // the text may have changed from outside (Clear last answers)
			r.changed()
		}
		r.entry.OnSubmitted = func(string) { r.keys.submit() }
		// An entry's error waits until the user leaves it after typing:
		// "not an email" while the address is half typed helps nobody, and
		// tabbing through an empty field is not a mistake yet.
		r.entry.onFocus = focused
		r.entry.onFocusLost = func() {
			if r.edited {
				r.onTouched()
			}
		}
		var shown fyne.CanvasObject
		r.bidi, shown = newBidiEntry(r.entry)
		box.Add(passWheel(shown, &r.entry.Entry, r.bidi.cover, r.wheel))
		if r.last {
			r.lastMark = lastAnswerMark()
			box.Add(r.lastMark)
		}
	}
	return r.finishBuild()
}

// finishBuild adds the help text and the error line under the field.
func (r *fieldRow) finishBuild() fyne.CanvasObject {
	if help := helpText(r.f); help != "" {
		r.box.Add(fieldHelp(help))
	}
	r.errLabel = widget.NewLabel("")
	r.errLabel.Wrapping = fyne.TextWrapWord
	r.errLabel.Importance = widget.DangerImportance
	r.errLabel.Hide()
	r.box.Add(r.errLabel)
	return r.box
}

// secretWarning is the note above a field that looks like it asks for a
// secret (elicit.Field.Sensitive), naming server, the configured name:
// PROTOCOL.md §6, "servers must not ask for secrets there (passwords, API
// keys, tokens, payment data). Treat such fields as a warning sign."
func secretWarning(server string) fyne.CanvasObject {
	return note(theme.NewWarningThemedResource(theme.WarningIcon()), widget.WarningImportance, secretNote(server))
}

// secretNote is the text of secretWarning.
func secretNote(server string) string {
	name := chars.Cut(oneLine(server), maxLabel)
	return lang.L("{{.Server}} asks for what looks like a secret. MCP forbids servers to ask for passwords, keys, "+
		"tokens or payment details in a form: fill this in only if you trust {{.Server}}.", map[string]any{"Server": name})
}

// onTouched marks the field as touched, so that its error shows.
func (r *fieldRow) onTouched() {
	r.touched = true
	r.changed()
}

// noneOffset is 1 when the select starts with noneLabel.
func (r *fieldRow) noneOffset() int {
	if r.f.Required {
		return 0
	}
	return 1
}

// optionIndex is the index in f.Options of the option with value v, or -1.
func (r *fieldRow) optionIndex(v string) int {
	for i, o := range r.f.Options {
		if o.Value == v {
			return i
		}
	}
	return -1
}

// value is the typed value of the field: nil when unfilled (booleans are
// always filled), or the error that reading the text gave.
func (r *fieldRow) value() (any, error) {
	switch {
	case r.check != nil:
		return r.check.Checked, nil
	case r.choices != nil:
		return r.choices.value(), nil
	case r.sel != nil:
		i := r.sel.SelectedIndex() - r.noneOffset()
		if i < 0 || i >= len(r.f.Options) {
			return nil, nil
		}
		return r.f.Options[i].Value, nil
	case r.multi != nil:
		var vals []string
		for i, c := range r.multi {
			if c.Checked {
				vals = append(vals, r.f.Options[i].Value)
			}
		}
		if len(vals) == 0 {
			return nil, nil
		}
		return vals, nil
	case r.entry != nil:
		return r.f.ParseText(r.entry.Text)
	}
	return nil, nil
}

// focusTarget is the widget that gets the focus for this field.
func (r *fieldRow) focusTarget() fyne.Focusable {
	switch {
	case r.check != nil:
		return r.check
	case r.choices != nil:
		return r.choices.filter
	case r.sel != nil:
		return r.sel
	case len(r.multi) > 0:
		return r.multi[0]
	}
	return r.entry
}

// showError records err and shows it under the field when visible.
func (r *fieldRow) showError(err error, visible bool) {
	r.err = err
	if err == nil || !visible {
		r.errLabel.Hide()
		return
	}
	r.errLabel.SetText(bidiSentence(fieldMessage(err)))
	r.errLabel.Show()
}

// fieldMessage is the sentence shown under a field: "Copies must be at
// most 100.", "Channels: choose at most 3.". Most of elicit's messages
// complete the field's label; the others follow it after a colon.
func fieldMessage(err error) string {
	var fe *elicit.FieldError
	if !errors.As(err, &fe) {
		return sentence(err)
	}
	if s, ok := elicitSentence(fe.Label, fe.Msg); ok {
		return s
	}
	if strings.HasPrefix(fe.Msg, "is ") || strings.HasPrefix(fe.Msg, "must ") {
		return sentence(errors.New(fe.Label + " " + fe.Msg))
	}
	return sentence(errors.New(fe.Label + ": " + fe.Msg))
}

// placeholder hints at the expected text: the format of a string, the range
// of a number.
func placeholder(f *elicit.Field) string {
	switch f.Kind {
	case elicit.KindNumber, elicit.KindInteger:
		what := lang.L("number")
		if f.Kind == elicit.KindInteger {
			what = lang.L("whole number")
		}
		d := map[string]any{"What": what}
		if f.Minimum != nil {
			d["Min"] = elicit.NumberText(*f.Minimum)
		}
		if f.Maximum != nil {
			d["Max"] = elicit.NumberText(*f.Maximum)
		}
		switch {
		case f.Minimum != nil && f.Maximum != nil:
			return lang.L("{{.What}}, {{.Min}} to {{.Max}}", d)
		case f.Minimum != nil:
			return lang.L("{{.What}}, at least {{.Min}}", d)
		case f.Maximum != nil:
			return lang.L("{{.What}}, at most {{.Max}}", d)
		}
		return what
	}
	switch f.Format {
	case "date":
		return lang.L("YYYY-MM-DD")
	case "date-time":
		return lang.L("YYYY-MM-DDThh:mm:ssZ")
	case "email":
		return lang.L("name@example.com")
	case "uri":
		return lang.L("https://…")
	}
	return ""
}

// helpText is the line under a field: its description and, for a number
// with bounds, the range — shown from the start, since a pre-filled default
// hides the placeholder that also gives it.
func helpText(f *elicit.Field) string {
	help := chars.Cut(f.Description, maxDescription)
	if f.DefaultRefused != "" {
		// Silently empty, the field would look as if the server gave none.
		help = helpAndOurs(help, lang.L("The server's default was left out ({{.Reason}}).", map[string]any{"Reason": chars.Cut(f.DefaultRefused, 200)}))
	}
	if (f.Kind == elicit.KindNumber || f.Kind == elicit.KindInteger) && (f.Minimum != nil || f.Maximum != nil) {
		help = helpAndOurs(help, chars.Capitalize(placeholder(f))+lang.L("."))
	}
	return help
}

// helpAndOurs is a field's help line, the server's words, with a sentence
// of ours after a dash. Server words in a right-to-left script make the
// line right to left (its first letter's direction), and ours then ends
// with a strong left-to-right mark: without it, its full stop, between
// its last word and the end of a right-to-left line, is drawn at the
// line's far left, away from the sentence it ends.
func helpAndOurs(help, ours string) string {
	if help == "" {
		return ours
	}
	if strings.ContainsFunc(help, rtlRune) {
		ours += string(lrm)
	}
	return strings.TrimRight(help, " ") + " — " + ours
}

// valueText is the text an entry shows for a typed default: a number's
// JSON text exactly, so that the entry shows every digit the server will
// receive if the user leaves it (ParseText reads it back unchanged).
func valueText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return string(v)
	}
	return ""
}

// sentence turns an error into text for people: first letter upper case,
// final full stop.
func sentence(err error) string {
	if err == nil {
		return ""
	}
	s := strings.TrimSpace(err.Error())
	if s == "" {
		return lang.L("Something went wrong.")
	}
	s = chars.Capitalize(s)
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

// oneLine keeps server-sent text that belongs on one line from spreading
// over several.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Limits on server-sent text, in characters. Fyne measures and wraps text
// on every layout, so a 50 000-character title or a megabyte of message
// would stall the hub and push the server's name off screen; the history
// keeps the full text. The message scrolls (maxMessageHeight), but its
// limit stays at 2,000: Fyne's word wrapping costs more than linearly, and
// 8,000 characters of prose took 2.5 s to lay out on the 2-core
// development machine, again at every resize.
const (
	maxLabel       = 60   // field titles and option labels: one line in the window
	maxDescription = 600  // help text under a field
	maxMessage     = 2000 // the server's message
)

// messageText is the message as shown: blank runs collapsed (see
// collapseBlank), then whole, or its start and a note.
//
// A message too long keeps its start and its end, and says how much of the
// middle is not shown: a message cut at its end hid what came last — the
// question itself, or "ALSO: this lets me delete the database" — and the
// history, which keeps all of it, holds the prompt only once it is
// answered.
func messageText(m string) string {
	m = collapseBlank(m)
	if len(m) <= maxMessage {
		return m
	}
	n := chars.Count(m)
	if n <= maxMessage {
		return m
	}
	head := maxMessage * 2 / 3
	tail := maxMessage - head
	return m[:chars.Index(m, head)] + "\n\n[… " +
		lang.N("{{.Count}} characters of the message not shown here; the history keeps all of it once answered", n-head-tail,
			map[string]any{"Count": lang.Thousands(n - head - tail)}) +
		" …]\n\n" + m[chars.Index(m, n-tail):]
}

func boldLabel(s string) *bidiLabel {
	l := newBidiLabel(s, false)
	l.TextStyle.Bold = true
	return l
}

// fieldLabel is the bold label above a field. Only a label that could be
// cut gets Fyne's ellipsis: a truncating label shapes its text anew at
// every layout, with no cache, and the labels of a 500-field form took
// 0.6 s that way (issue 10). A label no wider than maxUncutLabel fits any
// window it stops from narrowing further.
func fieldLabel(s string) *bidiLabel {
	l := boldLabel(s)
	cutIfWide(&l.Label)
	return l
}

// maxUncutLabel is the widest a label of the form may be without an
// ellipsis.
const maxUncutLabel = 320

// cutIfWide gives l, holding its text, an ellipsis only if the text is
// wider than maxUncutLabel (see fieldLabel); measuring is cached.
func cutIfWide(l *widget.Label) {
	size := theme.TextSize()
	if l.SizeName != "" {
		size = theme.Size(l.SizeName)
	}
	l.Truncation = fyne.TextTruncateOff
	if fyne.MeasureText(l.Text, size, l.TextStyle).Width > maxUncutLabel {
		l.Truncation = fyne.TextTruncateEllipsis
	}
}

func smallLabel(s string) *bidiLabel {
	l := newBidiLabel(s, false)
	l.SizeName = theme.SizeNameCaptionText
	return l
}

// fieldHelp is the help line under a field, broken into lines for the
// width the window opens at (prewrap): the window's, less its padding, the
// room kept for the scroll bar and the label's own padding. Fyne does not
// wrap it again: its word wrapping measures prefix after prefix of a
// paragraph to find where each line ends, at every width the form is laid
// out at, and Fyne lays a window's content out at its narrowest first.
// A form of 500 fields with two-line descriptions took 2 s to open that
// way, about 0.4 s now (issue 10). So a window with long help lines does not
// get narrower than it opens.
func fieldHelp(s string) *widget.Label {
	l := helpLabel(s)
	width := promptWidth - 4*theme.Padding() - 2*theme.InnerPadding()
	l.Text = bidiWrapped(s, width, theme.Size(l.SizeName), l.TextStyle)
	l.Wrapping = fyne.TextWrapOff
	return l
}

func helpLabel(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.SizeName = theme.SizeNameCaptionText
	l.TextStyle.Italic = true
	l.Wrapping = fyne.TextWrapWord
	return l
}

// maxHeightLayout gives its single object the height that inner wants, up to
// max: a short message takes little room, a long one scrolls.
type maxHeightLayout struct {
	max   float32
	inner fyne.CanvasObject
}

func (l *maxHeightLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l *maxHeightLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	h := l.inner.MinSize().Height
	return fyne.NewSize(0, min(h, l.max))
}
