package ui

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/ui/lang"
)

// The status line of a prompt, above its buttons: on the left the "Don't
// ask again for an hour" check box, on the right how long until the prompt
// is answered cancel and how many prompts wait behind it, e.g. "Cancels in
// 9:58 unless answered · 2 more waiting". The line is shared by the form and
// the URL prompt through promptBase.

// muteLabel is the text of the check box that sets Answer.MuteHour.
const muteLabel = "Don't ask again for an hour"

// countdownWarning is how long before the deadline the countdown turns to
// the warning colour.
const countdownWarning = time.Minute

// every calls f on the Fyne goroutine every d until stop is called: the
// countdown's clock. A variable so that tests drive the countdown by
// calling tick, without a goroutine and without sleeping.
var every = func(d time.Duration, f func()) (stop func()) {
	t := time.NewTicker(d)
	quit := make(chan struct{})
	go func() {
		defer t.Stop()
		for {
			select {
			case <-t.C:
				fyne.Do(f)
			case <-quit:
				return
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit) }) }
}

// ownPanel holds the window's own controls (the status line with "Don't
// ask again for an hour", "Always answer this way", the buttons) at the
// window's foot, on a band of the theme's header colour with rounded
// corners (issue 27: a server's check box titled like the mute was drawn
// exactly like it). The server's form is drawn in the scroll area above
// and cannot reach the band, and no schema makes a filled band: whatever
// sits on it is elicitray's, and the server's words it quotes (the fields
// to fix, fixHint) are in quotation marks. Server text that imitates these
// controls is flagged as well (sanitize.go).
func ownPanel(objs ...fyne.CanvasObject) *fyne.Container {
	band := canvas.NewRectangle(theme.Color(theme.ColorNameHeaderBackground))
	band.CornerRadius = theme.InputRadiusSize()
	return container.NewStack(band, container.NewPadded(container.NewVBox(objs...)))
}

// buildStatus makes the status line for a prompt answered cancel at
// deadline (zero: never, no countdown) with waiting prompts behind it.
func (b *promptBase) buildStatus(deadline time.Time, waiting int) fyne.CanvasObject {
	b.deadline, b.waiting = deadline, waiting
	b.mute = newKeyCheck(b.keys, lang.L(muteLabel), nil)
	b.status = widget.NewLabel("")
	b.status.SizeName = theme.SizeNameCaptionText
	b.status.Alignment = fyne.TextAlignTrailing
	b.status.Truncation = fyne.TextTruncateEllipsis
	b.refreshStatus()
	return container.NewBorder(nil, nil, b.mute, nil, b.status)
}

// startTicks starts the countdown's clock, if the prompt has a deadline.
func (b *promptBase) startTicks() {
	if b.deadline.IsZero() || b.stopTicks != nil {
		return
	}
	b.stopTicks = every(time.Second, b.tick)
}

// stopTicking stops the countdown's clock; a tick already on its way to
// the Fyne goroutine then changes nothing.
func (b *promptBase) stopTicking() {
	if b.stopTicks != nil {
		b.stopTicks()
	}
	b.ticksStopped = true
}

// tick shows the time left, read from b.now.
func (b *promptBase) tick() {
	if b.ticksStopped {
		return
	}
	b.refreshStatus()
}

// setWaiting shows that n more prompts wait behind this one.
func (b *promptBase) setWaiting(n int) {
	b.waiting = max(n, 0)
	b.refreshStatus()
}

// refreshStatus writes the status label: the countdown (until the answer is
// given) and the waiting prompts, joined; hidden when there is neither.
func (b *promptBase) refreshStatus() {
	if b.status == nil {
		return
	}
	var parts []string
	importance := widget.MediumImportance
	if b.steps > 1 {
		parts = append(parts, lang.L("Question {{.Step}} of {{.Steps}}", map[string]any{"Step": b.step, "Steps": b.steps}))
	}
	if !b.deadline.IsZero() && !b.finished {
		left := b.deadline.Sub(b.now())
		parts = append(parts, countdownText(left))
		if wholeSeconds(left) < int64(countdownWarning/time.Second) {
			// As the text counts: "1 minute" is not yet the last minute.
			importance = widget.WarningImportance
		}
	}
	if b.waiting > 0 {
		parts = append(parts, waitingText(b.waiting))
	}
	if len(parts) == 0 {
		b.status.Hide()
		return
	}
	text := strings.Join(parts, " · ")
	if text == b.status.Text && importance == b.status.Importance && b.status.Visible() {
		// Unchanged: no redraw. An open prompt nobody touches then draws
		// a frame once a minute, not once a second (issue 27: with Mesa's
		// software GL each frame of the window cost ~0.8 % of a core).
		return
	}
	b.status.Importance = importance
	b.status.SetText(text)
	b.status.Show()
}

// countdownText says how long is left before the prompt is answered
// cancel: in whole minutes rounded up while a minute or more is left
// ("Cancels in 10 minutes unless answered" from 10:00 down to 9:01), then
// in seconds ("Cancels in 0:59 unless answered", in the warning colour),
// and "Cancels now" once the time is up.
func countdownText(left time.Duration) string {
	secs := wholeSeconds(left)
	if secs <= 0 {
		return lang.L("Cancels now")
	}
	if secs >= 60 {
		mins := int((secs + 59) / 60)
		return lang.N("Cancels in {{.Count}} minutes unless answered", mins, lang.Count(mins))
	}
	return lang.L("Cancels in {{.Left}} unless answered", map[string]any{"Left": fmt.Sprintf("0:%02d", secs)})
}

// wholeSeconds is left in whole seconds, rounded up (a timeout near the
// largest duration does not overflow).
func wholeSeconds(left time.Duration) int64 {
	secs := int64(left / time.Second)
	if left%time.Second > 0 {
		secs++
	}
	return secs
}

// waitingText says how many prompts are queued behind this one.
func waitingText(n int) string {
	return lang.N("{{.Count}} more waiting", n, lang.Count(n))
}

// SetWaiting shows in the window that n more prompts are queued behind
// this one ("1 more waiting", "2 more waiting"; nothing at 0 or below). It
// may be called from any goroutine: the change is made inside fyne.Do.
// After the window closed it changes nothing anyone sees.
func (w *PromptWindow) SetWaiting(n int) {
	b := w.base
	fyne.Do(func() { b.setWaiting(n) })
}
