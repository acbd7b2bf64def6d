package ui

import (
	"errors"
	"net/url"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

func TestCountdownText(t *testing.T) {
	for _, tt := range []struct {
		left time.Duration
		want string
	}{
		// Whole minutes, rounded up, while a minute or more is left: the
		// text, and so the window, changes once a minute.
		{10 * time.Minute, "Cancels in 10 minutes unless answered"},
		{9*time.Minute + 58*time.Second, "Cancels in 10 minutes unless answered"},
		{9*time.Minute + 1*time.Millisecond, "Cancels in 10 minutes unless answered"},
		{9 * time.Minute, "Cancels in 9 minutes unless answered"},
		{time.Minute, "Cancels in 1 minute unless answered"},
		{59*time.Second + 200*time.Millisecond, "Cancels in 1 minute unless answered"}, // 60 whole seconds
		{time.Duration(1<<63 - 1), "Cancels in 153,722,868 minutes unless answered"},   // no overflow
		// Seconds in the last minute.
		{59 * time.Second, "Cancels in 0:59 unless answered"},
		{time.Millisecond, "Cancels in 0:01 unless answered"},
		{time.Hour, "Cancels in 60 minutes unless answered"},
		{25*time.Hour + 61*time.Second, "Cancels in 1,502 minutes unless answered"},
		{0, "Cancels now"},
		{-5 * time.Second, "Cancels now"},
	} {
		if got := countdownText(tt.left); got != tt.want {
			t.Errorf("countdownText(%v) = %q, want %q", tt.left, got, tt.want)
		}
	}
}

// fakeTicks replaces every for a test: it records the clock a window starts
// and whether it was stopped, and ticks only when the test says so.
type fakeTicks struct {
	interval time.Duration
	tick     func()
	stopped  int
}

func useFakeTicks(t *testing.T) *fakeTicks {
	f := &fakeTicks{}
	saved := every
	every = func(d time.Duration, tick func()) func() {
		f.interval, f.tick = d, tick
		return func() { f.stopped++ }
	}
	t.Cleanup(func() { every = saved })
	return f
}

// useClock makes the windows created from now on read the time from the
// returned clock, set to a fixed time, until the test ends.
func useClock(t *testing.T) *fakeClock {
	c := &fakeClock{t: time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC)}
	saved := now
	now = c.now
	t.Cleanup(func() { now = saved })
	return c
}

// statusOf is the status line's text as the user sees it; "" when hidden.
func statusOf(b *promptBase) string {
	if !b.status.Visible() {
		return ""
	}
	return b.status.Text
}

// TestPromptCountdown: a prompt with a deadline counts down every second,
// turns to the warning colour in its last minute, and stops counting when
// its window closes.
func TestPromptCountdown(t *testing.T) {
	for _, kind := range []string{"form", "url"} {
		t.Run(kind, func(t *testing.T) {
			ticks := useFakeTicks(t)
			a := test.NewTempApp(t)
			clock := useClock(t)
			deadline := clock.t.Add(10 * time.Minute)
			var pw *PromptWindow
			if kind == "form" {
				pw = ShowPrompt(a, &Prompt{Server: "github", Message: "Go?", Deadline: deadline}, func(Answer) {})
			} else {
				pw = ShowURLPrompt(a, &URLPrompt{Server: "github", Message: "Go?", Deadline: deadline}, func(Answer) {})
			}
			b := pw.base
			if got, want := statusOf(b), "Cancels in 10 minutes unless answered"; got != want {
				t.Errorf("at open the status reads %q, want %q", got, want)
			}
			if ticks.interval != time.Second || ticks.tick == nil {
				t.Fatalf("the countdown ticks every %v, want every second", ticks.interval)
			}

			clock.t = deadline.Add(-(9*time.Minute + 58*time.Second))
			ticks.tick()
			if got, want := statusOf(b), "Cancels in 10 minutes unless answered"; got != want {
				t.Errorf("2 s later the status reads %q, want %q", got, want)
			}
			clock.t = deadline.Add(-(8*time.Minute + 30*time.Second))
			ticks.tick()
			if got, want := statusOf(b), "Cancels in 9 minutes unless answered"; got != want {
				t.Errorf("90 s later the status reads %q, want %q", got, want)
			}
			if b.status.Importance == widget.WarningImportance {
				t.Error("the countdown warns with ten minutes left")
			}
			clock.t = deadline.Add(-(59*time.Second + 500*time.Millisecond))
			ticks.tick()
			if got := statusOf(b); got != "Cancels in 1 minute unless answered" || b.status.Importance == widget.WarningImportance {
				t.Errorf("59.5 s before the deadline the status reads %q (importance %v): want 1 minute, not yet the warning", got, b.status.Importance)
			}
			clock.t = deadline.Add(-59 * time.Second)
			ticks.tick()
			if got, want := statusOf(b), "Cancels in 0:59 unless answered"; got != want {
				t.Errorf("in the last minute the status reads %q, want %q", got, want)
			}
			if b.status.Importance != widget.WarningImportance {
				t.Error("the countdown does not warn in its last minute")
			}

			pw.Close()
			if ticks.stopped != 1 {
				t.Errorf("closing the window stopped the countdown %d times, want once", ticks.stopped)
			}
			clock.t = deadline.Add(-10 * time.Second)
			ticks.tick() // already on its way when the window closed
			if got := statusOf(b); got != "Cancels in 0:59 unless answered" {
				t.Errorf("a tick after the window closed changed the status to %q", got)
			}
		})
	}
}

// TestPromptCountdownStopsWhenAnswered: answering closes the window and
// stops the clock too.
func TestPromptCountdownStopsWhenAnswered(t *testing.T) {
	ticks := useFakeTicks(t)
	a := test.NewTempApp(t)
	pw := ShowPrompt(a, &Prompt{Server: "github", Message: "Go?", Deadline: time.Now().Add(time.Minute)}, func(Answer) {})
	pw.arm() // the click guard's end: this test is not about it
	test.Tap(pw.view.decline)
	if ticks.stopped != 1 {
		t.Errorf("answering stopped the countdown %d times, want once", ticks.stopped)
	}
}

func TestPromptWithoutDeadlineHasNoCountdown(t *testing.T) {
	ticks := useFakeTicks(t)
	a := test.NewTempApp(t)
	pw := ShowPrompt(a, &Prompt{Server: "github", Message: "Go?"}, func(Answer) {})
	if ticks.tick != nil {
		t.Error("a prompt without a deadline started a clock")
	}
	if got := statusOf(pw.base); got != "" {
		t.Errorf("status reads %q, want nothing", got)
	}
	pw.Close()
}

// TestEvery: the real clock calls its function again and again, and stop
// may be called twice.
func TestEvery(t *testing.T) {
	test.NewTempApp(t)
	ticked := make(chan struct{}, 1)
	stop := every(time.Millisecond, func() {
		select {
		case ticked <- struct{}{}:
		default: // the test has not taken the last one yet
		}
	})
	for range 2 {
		select {
		case <-ticked:
		case <-time.After(10 * time.Second):
			t.Fatal("no tick in 10 s")
		}
	}
	stop()
	stop()
}

// TestSetWaiting: the queue behind a prompt is shown, from the start and
// when the hub changes it from its own goroutine, after the countdown.
func TestSetWaiting(t *testing.T) {
	useFakeTicks(t)
	a := test.NewTempApp(t)
	clock := useClock(t)
	deadline := clock.t.Add(10 * time.Minute)
	pw := ShowPrompt(a, &Prompt{Server: "github", Message: "Go?", Waiting: 3}, func(Answer) {})
	if got, want := statusOf(pw.base), "3 more waiting"; got != want {
		t.Errorf("at open the status reads %q, want %q", got, want)
	}
	var got []string
	for _, n := range []int{2, 1, 0, -1} {
		done := make(chan struct{})
		go func() { // the hub's goroutine
			pw.SetWaiting(n)
			close(done)
		}()
		<-done
		got = append(got, statusOf(pw.base))
	}
	if diff := cmp.Diff([]string{"2 more waiting", "1 more waiting", "", ""}, got); diff != "" {
		t.Errorf("status mismatch (-want +got):\n%s", diff)
	}
	pw.Close()

	pw = ShowURLPrompt(a, &URLPrompt{Server: "github", Message: "Go?", Deadline: deadline}, func(Answer) {})
	clock.t = deadline.Add(-9 * time.Minute)
	pw.SetWaiting(2)
	if got, want := statusOf(pw.base), "Cancels in 9 minutes unless answered · 2 more waiting"; got != want {
		t.Errorf("status reads %q, want %q", got, want)
	}
	pw.Close()
}

// TestStatusSaysTheStep: a question of a round of several says where it
// is in the round, before the countdown and the queue (issue 27: a round
// of 50 inputs came as 50 windows that said nothing of it); a round of one
// says nothing.
func TestStatusSaysTheStep(t *testing.T) {
	useFakeTicks(t)
	a := test.NewTempApp(t)
	clock := useClock(t)
	pw := ShowPrompt(a, &Prompt{Server: "github", Message: "Go?", Step: 2, Steps: 50, Waiting: 1, Deadline: clock.t.Add(9 * time.Minute)}, func(Answer) {})
	if got, want := statusOf(pw.base), "Question 2 of 50 · Cancels in 9 minutes unless answered · 1 more waiting"; got != want {
		t.Errorf("status reads %q, want %q", got, want)
	}
	pw.Close()
	pw = ShowPrompt(a, &Prompt{Server: "github", Message: "Go?", Step: 1, Steps: 1}, func(Answer) {})
	if got := statusOf(pw.base); got != "" {
		t.Errorf("a round of one question: status reads %q, want nothing", got)
	}
	pw.Close()
}

// TestPromptMuteHour: with "Don't ask again for an hour" ticked, every
// answer carries MuteHour; unticked, none does.
func TestPromptMuteHour(t *testing.T) {
	for _, tt := range []struct {
		name string
		act  func(h *promptHarness)
		want string
	}{
		{"Submit", func(h *promptHarness) { test.Tap(h.v.submit) }, "accept"},
		{"Decline", func(h *promptHarness) { test.Tap(h.v.decline) }, "decline"},
		{"Cancel", func(h *promptHarness) { test.Tap(h.v.cancel) }, "cancel"},
		{"closing the window", func(h *promptHarness) { h.v.onCancel() }, "cancel"},
		{"Escape in a field", func(h *promptHarness) { h.c.Focus(h.row("fullName").entry); h.press(fyne.KeyEscape) }, "cancel"},
		{"Return on the check box submits", func(h *promptHarness) { h.c.Focus(h.v.mute); h.press(fyne.KeyReturn) }, "accept"},
		{"Escape on the check box cancels", func(h *promptHarness) { h.c.Focus(h.v.mute); h.press(fyne.KeyEscape) }, "cancel"},
		{"Alt+D on the check box declines", func(h *promptHarness) { h.c.Focus(h.v.mute); h.shortcut(declineShortcut) }, "decline"},
	} {
		for _, mute := range []bool{true, false} {
			name := tt.name + ", unticked"
			if mute {
				name = tt.name + ", ticked"
			}
			t.Run(name, func(t *testing.T) {
				h := newHarness(t, "all-kinds.json")
				h.typeInto("fullName", "Ada")
				if mute {
					test.Tap(h.v.mute)
				}
				tt.act(h)
				got := h.only()
				if got.Action != tt.want || got.MuteHour != mute {
					t.Errorf("answer %q with MuteHour %v, want %q with %v", got.Action, got.MuteHour, tt.want, mute)
				}
			})
		}
	}
}

// TestPromptMuteByKeyboard: Tab reaches the check box, Space ticks it
// without answering, and the answer then carries it.
func TestPromptMuteByKeyboard(t *testing.T) {
	h := newHarness(t, "bool-false-default.json") // one field: the check box "ok"
	test.FocusNext(h.c)
	if h.c.Focused() != h.v.mute {
		t.Fatalf("Tab from the only field reached %T, want the mute check box", h.c.Focused())
	}
	test.Type(h.v.mute, " ")
	if !h.v.mute.Checked {
		t.Fatal("Space did not tick the mute check box")
	}
	if len(h.answers) != 0 {
		t.Fatalf("ticking the check box answered %+v", h.answers)
	}
	test.FocusNext(h.c) // Cancel
	test.FocusNext(h.c) // Decline
	h.press(fyne.KeySpace)
	if diff := cmp.Diff(Answer{Action: "decline", MuteHour: true}, h.only()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestPromptMuteKeyGuard: Return on the check box is a keyboard answer
// like any other, ignored while the key guard holds.
func TestPromptMuteKeyGuard(t *testing.T) {
	h := newHarness(t, "all-kinds.json")
	h.typeInto("fullName", "Ada")
	clock := &fakeClock{t: time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC)}
	h.v.now = clock.now
	h.v.armedAt = clock.t.Add(keyGuard)
	h.c.Focus(h.v.mute)
	h.press(fyne.KeyReturn)
	h.press(fyne.KeyEscape)
	h.shortcut(declineShortcut)
	if len(h.answers) != 0 {
		t.Fatalf("keys pressed as the window appeared answered it: %+v", h.answers)
	}
	clock.t = clock.t.Add(keyGuard)
	h.press(fyne.KeyReturn)
	if got := h.only().Action; got != "accept" {
		t.Errorf("action = %q, want accept", got)
	}
}

// TestURLPromptMuteHour: the URL prompt offers the same choice; opening the
// link with it ticked still opens it, after the answer.
func TestURLPromptMuteHour(t *testing.T) {
	for _, tt := range []struct {
		name   string
		act    func(h *urlHarness)
		events func(u string) []string
	}{
		{"Open in browser", func(h *urlHarness) { test.Tap(h.v.open) }, opened},
		{"Decline", func(h *urlHarness) { test.Tap(h.v.decline) }, answered("decline")},
		{"Escape on the check box", func(h *urlHarness) { h.c.Focus(h.v.mute); pressKey(h.c, fyne.KeyEscape) }, answered("cancel")},
		{"Return on the check box does nothing", func(h *urlHarness) { h.c.Focus(h.v.mute); pressKey(h.c, fyne.KeyReturn) }, nothing},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := sessionURL(t)
			h := newURLHarness(t, elicit.CheckURL(u))
			var muted []bool
			done := h.v.done
			h.v.done = func(a Answer) { muted = append(muted, a.MuteHour); done(a) }
			test.Tap(h.v.mute)
			tt.act(h)
			if diff := cmp.Diff(tt.events(u), h.events); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			for _, m := range muted {
				if !m {
					t.Error("an answer given with the box ticked lacks MuteHour")
				}
			}
		})
	}
}

// TestURLPromptOpenFailsHidesCountdown: once the user accepted and the
// browser failed, the window stays for the link, without a countdown to a
// cancel that can no longer come, and without a mute choice to change.
func TestURLPromptOpenFailsHidesCountdown(t *testing.T) {
	test.NewTempApp(t)
	deadline := time.Now().Add(time.Minute)
	v := newURLPromptView(&URLPrompt{Server: "github", Check: elicit.CheckURL(sessionURL(t)), Deadline: deadline}, func(Answer) {})
	v.closeWindow = func() {}
	v.openURL = func(*url.URL) error { return errors.New("no browser") }
	v.onError = func(string, error) {}
	if statusOf(&v.promptBase) == "" {
		t.Fatal("no countdown at open")
	}
	test.Tap(v.open)
	if got := statusOf(&v.promptBase); got != "" {
		t.Errorf("status reads %q after the answer", got)
	}
	v.tick()
	if got := statusOf(&v.promptBase); got != "" {
		t.Errorf("status reads %q at the next tick", got)
	}
	if !v.mute.Disabled() {
		t.Error("the mute check box can still be changed after the answer")
	}
}
