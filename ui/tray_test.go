package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/ui/state"
)

// trayHarness is a tray menu, as SetupTray builds it, recording what its
// items do and how often the menu was redrawn.
type trayHarness struct {
	t         *testing.T
	tr        *Tray
	clock     *fakeClock
	calls     []string // "history", "settings", "quit", "paused:true", "mute:github", "unmute:github"
	refreshed int
}

func newTrayHarness(t *testing.T) *trayHarness {
	t.Helper()
	test.NewTempApp(t)
	h := &trayHarness{t: t, clock: &fakeClock{t: time.Date(2026, 1, 31, 13, 5, 0, 0, time.Local)}}
	record := func(s string) func() { return func() { h.calls = append(h.calls, s) } }
	h.tr = newTray(TrayActions{
		History:   record("history"),
		Settings:  record("settings"),
		Quit:      record("quit"),
		SetPaused: func(p bool) { h.calls = append(h.calls, fmt.Sprintf("paused:%v", p)) },
		Mute:      func(s string) { h.calls = append(h.calls, "mute:"+s) },
		Unmute:    func(s string) { h.calls = append(h.calls, "unmute:"+s) },
	})
	h.tr.now = h.clock.now
	h.tr.refresh = func() { h.refreshed++ }
	t.Cleanup(func() {
		if h.tr.expiry != nil {
			h.tr.expiry.Stop()
		}
	})
	return h
}

// lines is the menu as a tray host shows it: one line per item, "-----"
// for a separator, " [disabled]" after a greyed-out item, submenu items
// indented.
func (h *trayHarness) lines() []string {
	var out []string
	var walk func(m *fyne.Menu, indent string)
	walk = func(m *fyne.Menu, indent string) {
		for _, it := range m.Items {
			line := it.Label
			switch {
			case it.IsSeparator:
				line = "-----"
			case it.Disabled:
				line += " [disabled]"
			}
			out = append(out, indent+line)
			if it.ChildMenu != nil {
				walk(it.ChildMenu, indent+"  ")
			}
		}
	}
	walk(h.tr.menu, "")
	return out
}

// click runs the item whose line (as lines shows it, without indent) is
// line, as a tray host's click does.
func (h *trayHarness) click(line string) {
	h.t.Helper()
	var find func(m *fyne.Menu) *fyne.MenuItem
	find = func(m *fyne.Menu) *fyne.MenuItem {
		for _, it := range m.Items {
			if it.Label == line && !it.IsSeparator {
				return it
			}
			if it.ChildMenu != nil {
				if f := find(it.ChildMenu); f != nil {
					return f
				}
			}
		}
		return nil
	}
	it := find(h.tr.menu)
	if it == nil {
		h.t.Fatalf("the tray menu has no item %q:\n%s", line, strings.Join(h.lines(), "\n"))
	}
	if it.Disabled || it.Action == nil {
		h.t.Fatalf("the tray menu item %q does nothing when clicked", line)
	}
	it.Action()
}

func (h *trayHarness) wantLines(want []string) {
	h.t.Helper()
	if diff := cmp.Diff(want, h.lines()); diff != "" {
		h.t.Errorf("tray menu mismatch (-want +got):\n%s", diff)
	}
}

func (h *trayHarness) wantCalls(want ...string) {
	h.t.Helper()
	if diff := cmp.Diff(want, h.calls); diff != "" {
		h.t.Errorf("tray actions mismatch (-want +got):\n%s", diff)
	}
	h.calls = nil
}

func TestTrayMenu(t *testing.T) {
	h := newTrayHarness(t)
	h.wantLines([]string{
		"No prompts waiting [disabled]",
		"-----",
		"Pause all prompts",
		"Mute for an hour",
		"  (no servers yet) [disabled]",
		"-----",
		"History…",
		"Settings…",
		"-----",
		"Quit",
	})
	for _, line := range []string{"History…", "Settings…", "Quit"} {
		h.click(line)
	}
	h.wantCalls("history", "settings", "quit")
	if last := h.tr.menu.Items[len(h.tr.menu.Items)-1]; !last.IsQuit {
		t.Error("Quit is not marked IsQuit: Fyne would add a second Quit")
	}
	if h.refreshed != 0 {
		t.Errorf("the menu was redrawn %d times though nothing in it changed", h.refreshed)
	}
}

func TestTrayPending(t *testing.T) {
	h := newTrayHarness(t)
	for _, tt := range []struct {
		n    int
		want string
	}{
		{1, "1 prompt waiting"},
		{3, "3 prompts waiting"},
		{3, "3 prompts waiting"},
		{0, "No prompts waiting"},
	} {
		h.tr.SetPending(tt.n)
		if got := h.tr.menu.Items[0].Label; got != tt.want {
			t.Errorf("SetPending(%d): menu shows %q, want %q", tt.n, got, tt.want)
		}
	}
	if h.refreshed != 3 {
		t.Errorf("menu redrawn %d times for 3 changes", h.refreshed)
	}
}

// Decisions that are not in history show in the menu until they are.
func TestTrayProblem(t *testing.T) {
	h := newTrayHarness(t)
	h.tr.SetProblem("12 decisions not saved: the disk is full")
	h.tr.SetProblem("12 decisions not saved: the disk is full")
	h.wantLines([]string{
		"No prompts waiting [disabled]",
		"⚠ 12 decisions not saved: the disk is full [disabled]",
		"-----",
		"Pause all prompts",
		"Mute for an hour",
		"  (no servers yet) [disabled]",
		"-----",
		"History…",
		"Settings…",
		"-----",
		"Quit",
	})
	h.tr.SetProblem("")
	if got := h.lines()[1]; got != "-----" {
		t.Errorf("after the problem went, the second line is %q", got)
	}
	if h.refreshed != 2 {
		t.Errorf("menu redrawn %d times for 2 changes", h.refreshed)
	}
}

func TestTrayPause(t *testing.T) {
	h := newTrayHarness(t)
	h.click("Pause all prompts")
	h.wantCalls("paused:true")
	// The menu follows the click at once, before the hub confirms.
	if got := h.tr.pause.Label; got != "Resume prompts" {
		t.Errorf("after Pause all prompts, the menu shows %q, want Resume prompts", got)
	}
	h.tr.SetPaused(true) // the hub confirms: nothing changes
	h.click("Resume prompts")
	h.wantCalls("paused:false")
	if got := h.tr.pause.Label; got != "Pause all prompts" {
		t.Errorf("after Resume prompts, the menu shows %q, want Pause all prompts", got)
	}

	// Paused elsewhere (`elicitray` CLI, a restart): the hub tells the tray.
	h.tr.SetPaused(true)
	if got := h.tr.pause.Label; got != "Resume prompts" {
		t.Errorf("SetPaused(true): the menu shows %q, want Resume prompts", got)
	}
	h.wantCalls() // SetPaused does not call back
	if h.refreshed != 3 {
		t.Errorf("menu redrawn %d times for 3 changes", h.refreshed)
	}
}

func TestTrayMute(t *testing.T) {
	h := newTrayHarness(t)
	now := h.clock.t
	servers := []state.TrayServer{
		{Name: "github", MutedUntil: now.Add(time.Hour)},
		{Name: "everything"},
		{Name: "jira", MutedUntil: now.Add(-time.Minute)}, // ended
	}
	h.tr.SetServers(servers)
	servers[0].Name = "changed" // the tray keeps its own copy
	wantMute := func(lines ...string) {
		t.Helper()
		var got []string
		for _, it := range h.tr.mute.ChildMenu.Items {
			got = append(got, it.Label)
		}
		if diff := cmp.Diff(lines, got); diff != "" {
			t.Errorf("mute submenu mismatch (-want +got):\n%s", diff)
		}
	}
	wantMute("everything", "github — muted until 14:05", "jira")
	if h.refreshed != 1 {
		t.Errorf("menu redrawn %d times for one change", h.refreshed)
	}

	h.click("everything")
	h.wantCalls("mute:everything")
	wantMute("everything — muted until 14:05", "github — muted until 14:05", "jira")

	h.click("github — muted until 14:05")
	h.wantCalls("unmute:github")
	wantMute("everything — muted until 14:05", "github", "jira")

	// The hub's list is the truth, and a mute ends by itself.
	h.tr.SetServers([]state.TrayServer{{Name: "everything", MutedUntil: now.Add(time.Minute)}, {Name: "github"}})
	wantMute("everything — muted until 13:06", "github")
	if h.tr.expiry == nil {
		t.Fatal("no timer set for the end of everything's mute")
	}
	h.clock.t = now.Add(time.Minute)
	h.tr.showServers() // what the timer does
	wantMute("everything", "github")
	if h.tr.expiry != nil {
		t.Error("a timer is still set though no server is muted")
	}

	h.tr.SetServers(nil)
	wantMute("(no servers yet)")
	h.wantCalls()
}

func TestTrayMuteEndsOnItsOwn(t *testing.T) {
	h := newTrayHarness(t)
	h.tr.now = time.Now
	// The Fyne goroutine is played by the test's: what the timer hands over
	// runs here.
	fyneQueue := make(chan func(), 1)
	h.tr.do = func(f func()) { fyneQueue <- f }
	h.tr.SetServers([]state.TrayServer{{Name: "github", MutedUntil: time.Now().Add(50 * time.Millisecond)}})
	(<-fyneQueue)()
	if got := h.lines()[4]; !strings.HasPrefix(got, "  github — muted until ") {
		t.Fatalf("mute submenu shows %q, want github muted", got)
	}
	select {
	case f := <-fyneQueue:
		f()
	case <-time.After(5 * time.Second):
		t.Fatal("the menu was not updated when github's mute ended")
	}
	if got := h.lines()[4]; got != "  github" {
		t.Errorf("after its mute ended, the menu shows %q, want github unmuted", got)
	}
}

func TestTrayNilDoesNothing(t *testing.T) {
	var none *Tray // no tray host
	none.SetPending(2)
	none.SetPaused(true)
	none.SetServers([]state.TrayServer{{Name: "github"}})
}

func TestTrayNilActionsDoNothing(t *testing.T) {
	test.NewTempApp(t)
	tr := newTray(TrayActions{})
	tr.refresh = func() {}
	var walk func(m *fyne.Menu)
	walk = func(m *fyne.Menu) {
		for _, it := range m.Items {
			if it.Action != nil {
				it.Action() // must not panic
			}
			if it.ChildMenu != nil {
				walk(it.ChildMenu)
			}
		}
	}
	tr.SetServers([]state.TrayServer{{Name: "github"}})
	walk(tr.menu)
}
