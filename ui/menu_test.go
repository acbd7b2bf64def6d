package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/ui/state"
)

// menuHarness is a menu window on a test app, recording what its items do.
type menuHarness struct {
	t     *testing.T
	a     fyne.App
	mw    *MenuWindow
	clock *fakeClock
	calls []string // as trayHarness's
	// timers are the pending after funcs, by when they fire.
	timers map[time.Time]func()
}

func newMenuHarness(t *testing.T, st state.MenuState) *menuHarness {
	t.Helper()
	h := &menuHarness{t: t, a: test.NewTempApp(t), timers: map[time.Time]func(){},
		clock: &fakeClock{t: time.Date(2026, 1, 31, 13, 5, 0, 0, time.Local)}}
	record := func(s string) func() { return func() { h.calls = append(h.calls, s) } }
	h.mw = ShowMenu(h.a, state.MenuState{}, TrayActions{
		History:   record("history"),
		Settings:  record("settings"),
		Quit:      record("quit"),
		SetPaused: func(p bool) { h.calls = append(h.calls, fmt.Sprintf("paused:%v", p)) },
		Mute:      func(s string) { h.calls = append(h.calls, "mute:"+s) },
		Unmute:    func(s string) { h.calls = append(h.calls, "unmute:"+s) },
	})
	v := h.mw.view
	v.now = h.clock.now
	v.after = func(d time.Duration, f func()) func() bool {
		at := h.clock.t.Add(d)
		h.timers[at] = f
		return func() bool { delete(h.timers, at); return true }
	}
	h.mw.SetState(st)
	return h
}

// lines is the window as a user reads it, top to bottom: a label's text,
// "[text]" for a button, "-----" for a separator; a server's row is its
// label and its button on one line.
func (h *menuHarness) lines() []string {
	var out []string
	var walk func(o fyne.CanvasObject) string
	walk = func(o fyne.CanvasObject) string {
		if !o.Visible() {
			return ""
		}
		switch w := o.(type) {
		case *widget.Label:
			return w.Text
		case *closeButton:
			return "[" + w.Text + "]"
		case *widget.Separator:
			return "-----"
		case *container.ThemeOverride:
			return walk(w.Content)
		case *fyne.Container:
			var parts []string
			for _, c := range w.Objects {
				if s := walk(c); s != "" {
					parts = append(parts, s)
				}
			}
			return strings.Join(parts, " ")
		}
		return ""
	}
	for _, o := range h.mw.view.content.(*fyne.Container).Objects {
		if o == h.mw.view.servers {
			for _, row := range h.mw.view.servers.Objects {
				out = append(out, walk(row))
			}
			continue
		}
		if s := walk(o); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// press taps the button that reads text (a server's, with server set).
func (h *menuHarness) press(server, text string) {
	h.t.Helper()
	if b := h.button(server, text); b != nil {
		test.Tap(b)
		return
	}
	h.t.Fatalf("no button %q (server %q) in %q", text, server, h.lines())
}

func (h *menuHarness) button(server, text string) *closeButton {
	v := h.mw.view
	if server != "" {
		if b := v.mutes[server]; b != nil && b.Text == text {
			return b
		}
		return nil
	}
	var found *closeButton
	walkVisible(v.content, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*closeButton); ok && b.Text == text {
			found = b
		}
		return found == nil
	})
	return found
}

func (h *menuHarness) wantLines(want []string) {
	h.t.Helper()
	if diff := cmp.Diff(want, h.lines()); diff != "" {
		h.t.Errorf("menu window mismatch (-want +got):\n%s", diff)
	}
}

func (h *menuHarness) wantCalls(want ...string) {
	h.t.Helper()
	if diff := cmp.Diff(want, h.calls); diff != "" {
		h.t.Errorf("actions mismatch (-want +got):\n%s", diff)
	}
}

// TestMenuWindow: the menu window lists what the tray menu does, in the
// same order, with the hub's state: the prompts waiting, what keeps
// decisions out of history, pause, each server's mute (sorted by name),
// History, Settings and Quit.
func TestMenuWindow(t *testing.T) {
	clock := time.Date(2026, 1, 31, 13, 5, 0, 0, time.Local)
	for _, tt := range []struct {
		name string
		st   state.MenuState
		want []string
	}{
		{"nothing yet", state.MenuState{}, []string{
			"No prompts waiting", "-----", "[Pause all prompts]", "Mute for an hour", "(no servers yet)",
			"-----", "[History…]", "[Settings…]", "-----", "[Quit elicitray]"}},
		{"busy, paused, one muted, disk full", state.MenuState{Waiting: 3, Paused: true, Problem: "2 decisions not saved: the disk is full",
			Servers: []state.TrayServer{{Name: "github"}, {Name: "ci", MutedUntil: clock.Add(30 * time.Minute)}}}, []string{
			"3 prompts waiting", "⚠ 2 decisions not saved: the disk is full", "-----", "[Resume prompts]", "Mute for an hour",
			"ci — muted until 13:35 [Unmute]", "github [Mute]",
			"-----", "[History…]", "[Settings…]", "-----", "[Quit elicitray]"}},
		{"a mute already over", state.MenuState{Waiting: 1, Servers: []state.TrayServer{{Name: "ci", MutedUntil: clock.Add(-time.Minute)}}}, []string{
			"1 prompt waiting", "-----", "[Pause all prompts]", "Mute for an hour", "ci [Mute]",
			"-----", "[History…]", "[Settings…]", "-----", "[Quit elicitray]"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newMenuHarness(t, tt.st)
			h.wantLines(tt.want)
			if got := h.mw.Window().Title(); got != "elicitray — menu" {
				t.Errorf("title %q", got)
			}
		})
	}
}

// TestMenuWindowPauseAndMute: pausing and muting act at once, show the
// change at once and keep the window open; a mute's end shows by itself
// when it comes; the hub's next state wins.
func TestMenuWindowPauseAndMute(t *testing.T) {
	h := newMenuHarness(t, state.MenuState{Servers: []state.TrayServer{{Name: "github"}}})
	h.press("", "Pause all prompts")
	h.press("", "Resume prompts")
	h.press("github", "Mute")
	h.wantCalls("paused:true", "paused:false", "mute:github")
	h.wantLines([]string{"No prompts waiting", "-----", "[Pause all prompts]", "Mute for an hour",
		"github — muted until 14:05 [Unmute]", "-----", "[History…]", "[Settings…]", "-----", "[Quit elicitray]"})
	if !isOpen(h.a, h.mw.Window()) {
		t.Fatal("pausing or muting closed the menu window")
	}

	// The hour passes: the timer the window armed shows the mute's end.
	if len(h.timers) != 1 {
		t.Fatalf("%d timers armed for one mute, want 1", len(h.timers))
	}
	for at, f := range h.timers {
		if want := h.clock.t.Add(time.Hour); !at.Equal(want) {
			t.Errorf("the mute's end shows at %v, want %v", at, want)
		}
		h.clock.t = at
		f()
	}
	if got := h.lines()[4]; got != "github [Mute]" {
		t.Errorf("after the hour the row reads %q, want it muted no more", got)
	}

	// The hub says: muted again (by `elicitray mute`), and a prompt waits.
	h.mw.SetState(state.MenuState{Waiting: 1, Servers: []state.TrayServer{{Name: "github", MutedUntil: h.clock.t.Add(time.Hour)}}})
	if got := h.lines(); got[0] != "1 prompt waiting" || got[4] != "github — muted until 15:05 [Unmute]" {
		t.Errorf("after the hub's state the window reads %q", got)
	}
	h.press("github", "Unmute")
	h.wantCalls("paused:true", "paused:false", "mute:github", "unmute:github")
	if got := h.lines()[4]; got != "github [Mute]" {
		t.Errorf("after Unmute the row reads %q", got)
	}
}

// TestMenuWindowItemsClose: History…, Settings… and Quit do what they say
// and close the window, as a menu closes once an item is chosen.
func TestMenuWindowItemsClose(t *testing.T) {
	for _, tt := range []struct{ button, call string }{
		{"History…", "history"},
		{"Settings…", "settings"},
		{"Quit elicitray", "quit"},
	} {
		t.Run(tt.call, func(t *testing.T) {
			h := newMenuHarness(t, state.MenuState{})
			h.press("", tt.button)
			h.wantCalls(tt.call)
			if isOpen(h.a, h.mw.Window()) {
				t.Errorf("%s left the menu window open", tt.button)
			}
		})
	}
}

// TestMenuWindowKeys: the focus starts on the pause button, Tab goes down
// the items, Space presses the focused one, and a server's button pressed
// keeps the focus (its row is rebuilt); Escape and Ctrl+W close the window
// wherever the focus is.
func TestMenuWindowKeys(t *testing.T) {
	h := newMenuHarness(t, state.MenuState{Servers: []state.TrayServer{{Name: "ci"}, {Name: "github"}}})
	c := h.mw.Window().Canvas()
	if c.Focused() != h.mw.view.pause {
		t.Fatalf("focus on %T as the window opens, want the pause button", c.Focused())
	}
	var order []string
	for range 5 {
		c.FocusNext()
		order = append(order, c.Focused().(*closeButton).Text)
	}
	if diff := cmp.Diff([]string{"Mute", "Mute", "History…", "Settings…", "Quit elicitray"}, order); diff != "" {
		t.Errorf("Tab order mismatch (-want +got):\n%s", diff)
	}
	c.Focus(h.mw.view.mutes["github"])
	pressKey(c, fyne.KeySpace)
	h.wantCalls("mute:github")
	if c.Focused() != h.mw.view.mutes["github"] || h.mw.view.mutes["github"].Text != "Unmute" {
		t.Errorf("after Space on github's Mute the focus is on %v, want github's Unmute", c.Focused())
	}
	for _, key := range closeKeys {
		for _, focus := range []string{"pause", "server", "nothing"} {
			t.Run(key.name+"/"+focus, func(t *testing.T) {
				h := newMenuHarness(t, state.MenuState{Servers: []state.TrayServer{{Name: "ci"}}})
				c := h.mw.Window().Canvas()
				switch focus {
				case "server":
					c.Focus(h.mw.view.mutes["ci"])
				case "nothing":
					c.Unfocus()
				}
				key.press(c)
				if isOpen(h.a, h.mw.Window()) {
					t.Errorf("%s with the focus on %s left the menu window open", key.name, focus)
				}
				h.wantCalls()
			})
		}
	}
}

// TestHistoryOffersMenu: the history window shows Menu… only once offered
// (the hub has no tray), at the bottom left, and it opens the menu.
func TestHistoryOffersMenu(t *testing.T) {
	a := test.NewTempApp(t)
	hw := showHistory(a, newFakeHistory(sampleRecords()...), &historyOptions{spawn: func(f func()) { f() }})
	t.Cleanup(hw.Window().Close)
	menuShown := func() bool {
		for _, b := range buttonsOf(hw.view.content) {
			if b.Text == "Menu…" {
				return true
			}
		}
		return false
	}
	if menuShown() {
		t.Fatal("the history window shows Menu… with a tray (nothing offered it)")
	}
	opened := 0
	hw.OfferMenu(func() { opened++ })
	if !menuShown() {
		t.Fatal("OfferMenu showed no Menu… button")
	}
	if sz := hw.view.menuB.Size(); sz.Width < hw.view.menuB.MinSize().Width || sz.Height < hw.view.menuB.MinSize().Height {
		t.Fatalf("Menu… is shown at %v, smaller than it needs (%v): the bar was not laid out again", sz, hw.view.menuB.MinSize())
	}
	test.Tap(hw.view.menuB)
	if opened != 1 {
		t.Errorf("Menu… opened the menu %d times, want once", opened)
	}
	if !isOpen(a, hw.Window()) {
		t.Error("Menu… closed the history window")
	}
}

// buttonsOf lists the visible elicitray buttons under o.
func buttonsOf(o fyne.CanvasObject) []*closeButton {
	var out []*closeButton
	walkVisible(o, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*closeButton); ok {
			out = append(out, b)
			return false
		}
		return true
	})
	return out
}

// TestMenuWindowLaysOutChanges: lines that come, go or grow while the
// window is open (a problem, servers) are laid out again: none overlaps
// another or is squeezed below its size, and none leaves a gap.
func TestMenuWindowLaysOutChanges(t *testing.T) {
	busy := state.MenuState{Problem: "2 decisions not saved: the disk is full",
		Servers: []state.TrayServer{{Name: "ci"}, {Name: "github"}, {Name: "jira"}}}
	for _, tt := range []struct {
		name     string
		from, to state.MenuState
	}{
		{"lines come", state.MenuState{}, busy},
		{"lines go", busy, state.MenuState{Servers: []state.TrayServer{{Name: "ci"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newMenuHarness(t, tt.from)
			w := h.mw.Window()
			w.Resize(w.Content().MinSize())
			h.mw.SetState(tt.to)
			// The desktop's driver keeps a window at least its content's
			// size (the test window does not by itself).
			w.Resize(w.Content().MinSize().Max(w.Canvas().Size()))
			v := h.mw.view
			var objs []fyne.CanvasObject
			for _, o := range v.content.(*fyne.Container).Objects {
				if o == v.servers {
					objs = append(objs, v.servers.Objects...)
				} else if o.Visible() {
					objs = append(objs, o)
				}
			}
			bottom := float32(0)
			for i, o := range objs {
				pos := o.Position()
				if slices.Contains(v.servers.Objects, o) {
					pos = pos.Add(v.servers.Position())
				}
				if o.Size().Height < o.MinSize().Height {
					t.Errorf("line %d (%T) is %v high, less than its %v", i, o, o.Size().Height, o.MinSize().Height)
				}
				if pos.Y < bottom {
					t.Errorf("line %d (%T) at y=%v overlaps the one above (down to %v)", i, o, pos.Y, bottom)
				}
				if gap := pos.Y - bottom; i > 0 && gap > 2*theme.Padding() {
					t.Errorf("line %d (%T) at y=%v leaves a gap of %v under the one above", i, o, pos.Y, gap)
				}
				bottom = pos.Y + o.Size().Height
			}
		})
	}
}
