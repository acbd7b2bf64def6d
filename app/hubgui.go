package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/elicitray/elicitray/assets"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui"
)

// ErrNoDisplay is returned by the hub when the session has no display to
// show windows on.
var ErrNoDisplay = errors.New("no display: set DISPLAY or WAYLAND_DISPLAY (the hub shows desktop windows)")

// haveDisplay reports whether windows can be shown: on Linux an X11 or
// Wayland display must be named.
func haveDisplay() bool {
	return runtime.GOOS != "linux" || os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// runHub runs the desktop hub until Quit or ctx ends.
func runHub(ctx context.Context, p Paths, stderr io.Writer) error {
	// The hub's log is read later, from hub.log: each line says when.
	stderr = &stampWriter{w: stderr, now: time.Now}
	if !haveDisplay() {
		return runErr(ErrNoDisplay)
	}
	cfg, err := LoadConfig(p.Config)
	if err != nil {
		return runErr(err)
	}
	// Open the display first (Fyne does when the first window is made): a
	// hub that cannot draw must fail before it takes the socket, so that
	// no wrapper hands it a prompt.
	a := fyneapp.NewWithID("io.github.elicitray")
	a.SetIcon(fyne.NewStaticResource("elicitray.png", assets.Icon))
	// Fyne quits when its last window closes; the hub outlives its prompt
	// windows, so one window stays, never shown.
	a.NewWindow("elicitray")

	ln, lock, err := Listen(p)
	if errors.Is(err, ErrHubRunning) {
		fmt.Fprintf(stderr, "elicitray: %v\n", err)
		return nil
	}
	if err != nil {
		return runErr(err)
	}
	defer lock.Close()
	defer ln.Close()
	store, err := history.Open(p.History, nil)
	if err != nil {
		return runErr(fmt.Errorf("opening history: %w", err))
	}
	defer store.Close()

	hub := &Hub{Store: store, Prompter: &guiPrompter{app: a}, Timeout: cfg.Timeout.Duration, Log: stderr}
	var history fyne.Window
	showHistory := func() {
		if history != nil {
			history.Show()
			history.RequestFocus()
			return
		}
		history = ui.ShowHistory(a, store)
		history.SetOnClosed(func() { history = nil })
	}
	var tray *ui.Tray
	if ui.TrayAvailable() {
		tray = ui.SetupTray(a, showHistory, a.Quit)
	} else {
		fmt.Fprintln(stderr, "elicitray hub: this session has no tray host (StatusNotifier on DBus); running without a tray icon — windows and `elicitray history` still work")
	}
	hub.Changed = func(n int) { fyne.Do(func() { tray.SetPending(n) }) }
	hub.Quit = func() { fyne.Do(a.Quit) }
	hub.ShowHistory = func() { fyne.Do(showHistory) }

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		if err := hub.Serve(ctx, ln); err != nil {
			fmt.Fprintf(stderr, "elicitray hub: %v\n", err)
		}
		fyne.Do(a.Quit)
	}()
	fmt.Fprintf(stderr, "elicitray hub: listening on %s, history in %s\n", p.Socket, p.History)
	a.Run()
	return nil
}

// guiPrompter shows prompts as desktop windows (package ui).
type guiPrompter struct {
	app fyne.App
}

var _ Prompter = (*guiPrompter)(nil)

func (g *guiPrompter) Show(p *Prompt, answer func(bridge.Result)) func() {
	var pw *ui.PromptWindow
	done := func(a ui.Answer) {
		// Recording and replying touch disk and socket: not on the Fyne
		// goroutine (STYLE.md 7).
		go answer(bridge.Result{Action: a.Action, Content: a.Content})
	}
	fyne.Do(func() {
		fp := uiPrompt(p)
		if p.URL != nil {
			pw = ui.ShowURLPrompt(g.app, &ui.URLPrompt{Server: fp.Server, ServerInfo: fp.ServerInfo,
				Tool: fp.Tool, Message: fp.Message, Check: *p.URL}, done)
			return
		}
		pw = ui.ShowPrompt(g.app, fp, done)
	})
	return func() {
		// Runs after the fyne.Do above: fyne.Do keeps order.
		fyne.Do(func() { pw.Close() })
	}
}

func uiPrompt(p *Prompt) *ui.Prompt {
	r := p.Request
	info := r.ServerInfo.Name
	if r.ServerInfo.Title != "" {
		info = r.ServerInfo.Title
	}
	if info != "" && r.ServerInfo.Version != "" {
		info += " " + r.ServerInfo.Version
	}
	return &ui.Prompt{Server: r.Server, ServerInfo: info, Tool: r.Tool, Message: r.Message, Form: p.Form}
}

// stampWriter starts each line written to w with the local time.
type stampWriter struct {
	mu      sync.Mutex
	w       io.Writer
	now     func() time.Time
	midLine bool
}

func (s *stampWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []byte
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !s.midLine {
			out = append(out, s.now().Format("2006-01-02 15:04:05 ")...)
		}
		out = append(out, line...)
		s.midLine = line[len(line)-1] != '\n'
	}
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
