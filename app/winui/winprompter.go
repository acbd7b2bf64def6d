package winui

import (
	"fmt"
	"github.com/elicitray/elicitray/ui/lang"
	"net/url"
	"os"
	"sync"

	fyneapp "fyne.io/fyne/v2/app"

	"fyne.io/fyne/v2"
	"github.com/elicitray/elicitray/app/hub"
	"github.com/elicitray/elicitray/assets"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/ui"
)

// newFyneApp starts Fyne and opens the display. Fyne panics when the display
// refuses it; that becomes an error here, after openDisplay had its say.
func newFyneApp() (a fyne.App, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("the desktop's graphics could not start on DISPLAY=%s: %v", os.Getenv("DISPLAY"), r)
		}
	}()
	ui.LoadTranslations()
	a = fyneapp.NewWithID("io.github.elicitray")
	// The hub keeps no Fyne preferences, yet Fyne saves them as it stops,
	// and its own watcher of their file may read it half written: "Fyne
	// error: Preferences load error: EOF" in hub.log on quit. With nothing
	// to save, that save goes (the hook serves it alone).
	if lc, ok := a.Lifecycle().(interface{ SetOnStoppedHookExecuted(func()) }); ok {
		lc.SetOnStoppedHookExecuted(nil)
	}
	a.SetIcon(fyne.NewStaticResource("elicitray.png", assets.Icon))
	// Fyne quits when its last window closes; the hub outlives its prompt
	// windows, so one window stays, never shown.
	a.NewWindow("elicitray")
	return a, nil
}

// guiPrompter shows prompts as desktop windows (package ui), in the window
// process (wincmd.go).
type Prompter struct {
	app fyne.App
	// open opens a link the user agreed to: the hub's browserOpener, by a
	// call to the hub. Nil leaves it to Fyne.
	open func(*url.URL) error

	mu      sync.Mutex
	current *ui.PromptWindow // the window on screen, or nil
	waiting int              // prompts queued behind it
}

// setWaiting tells the window on screen how many prompts wait behind it.
func (g *Prompter) setWaiting(n int) {
	g.mu.Lock()
	g.waiting = max(n, 0)
	pw := g.current
	g.mu.Unlock()
	if pw != nil {
		pw.SetWaiting(max(n, 0))
	}
}

func (g *Prompter) Show(p *hub.Prompt, answer func(bridge.Result)) func() {
	var pw *ui.PromptWindow
	done := func(a ui.Answer) {
		// Muting, recording and replying touch disk and socket: not on the
		// Fyne goroutine (STYLE.md §7).
		go p.Decided(bridge.Result{Action: a.Action, Content: a.Content}, a.MuteHour, a.Remember, answer)
	}
	fyne.Do(func() {
		// The count as of now, not as of Show: prompts that came since
		// (setWaiting found no window of this prompt's yet) count too.
		g.mu.Lock()
		waiting := g.waiting
		g.mu.Unlock()
		fp := uiPrompt(p)
		fp.Waiting = waiting
		if p.URL != nil {
			pw = ui.ShowURLPrompt(g.app, &ui.URLPrompt{Server: fp.Server, ServerInfo: fp.ServerInfo,
				Tool: fp.Tool, Message: fp.Message, Check: *p.URL, Deadline: p.Deadline, Waiting: waiting, Open: g.opener(), Shown: p.Shown}, done)
		} else {
			pw = ui.ShowPrompt(g.app, fp, done)
		}
		g.mu.Lock()
		g.current = pw
		now := g.waiting
		g.mu.Unlock()
		if now != waiting { // changed while the window was made
			pw.SetWaiting(now)
		}
	})
	return func() {
		// Runs after the fyne.Do above: fyne.Do keeps order.
		fyne.Do(func() {
			pw.Close()
			g.mu.Lock()
			if g.current == pw {
				g.current = nil
			}
			g.mu.Unlock()
		})
	}
}

// opener is what opens a link the user agreed to; nil leaves it to Fyne.
func (g *Prompter) opener() func(*url.URL) error {
	return g.open
}

func uiPrompt(p *hub.Prompt) *ui.Prompt {
	r := p.Request
	return &ui.Prompt{Server: r.Server, ServerInfo: ui.Called(r.ServerInfo), Tool: r.Tool, Message: r.Said(lang.User), Form: p.Form, Deadline: p.Deadline, Step: r.Step, Steps: r.Steps,
		CanRemember: p.Remember != nil, Prefill: p.Prefill, ToolCall: bridge.Guards(r.Mode),
		ToolChange: r.Mode == bridge.ModeToolChange, Shown: p.Shown}
}
