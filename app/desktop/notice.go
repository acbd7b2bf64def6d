package desktop

import (
	"context"
	"strings"
	"sync"
	"unicode"

	"github.com/elicitray/elicitray/app/hub"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/ui/lang"
)

// Noticer is the hub's Prompter around the windows (issue 14, "a prompt
// you notice"): every prompt put on screen comes with one desktop
// notification naming the server and the tool, for the user who is in
// another window, on another workspace or away — the prompt window itself
// comes to the front and asks the window manager for attention (ui), which
// a desktop that keeps new windows from taking the focus may show only as a
// blinking taskbar entry. The notification is withdrawn as soon as the
// prompt is decided, however it is (answered, cancelled by the server,
// timed out), so that none is left telling of a prompt that is gone; with
// one window at a time, at most one is on screen. config.toml's [notice]
// turns it off, or on with the desktop's sound (Notice).
type Noticer struct {
	hub.Prompter
	Hub  *hub.Hub
	Note *Notifier
}

// Show shows p through the windows and, unless the config turned it off,
// a notification of it, withdrawn when the prompt ends.
func (n *Noticer) Show(p *hub.Prompt, answer func(bridge.Result)) func() {
	cfg := n.Hub.Settings().Notice
	if !cfg.Notifies() || n.Note == nil {
		return n.Prompter.Show(p, answer)
	}
	sn := &shownNote{n: n.Note}
	go sn.send(NoticeOf(p.Request, cfg.Sound))
	dismiss := n.Prompter.Show(p, func(res bridge.Result) {
		sn.end()
		answer(res)
	})
	return func() {
		sn.end()
		dismiss()
	}
}

// shownNote is the notification of one prompt on screen.
type shownNote struct {
	n *Notifier

	mu    sync.Mutex
	id    uint32 // the server's id once it answered; 0 before or on failure
	ended bool   // the prompt was decided: withdraw it (once it has an id)
}

// send shows m; when the prompt ended meanwhile, it is withdrawn at once.
func (s *shownNote) send(m Note) {
	id, err := s.n.send(context.Background(), m)
	if err != nil {
		s.n.failedOnce(err)
		return
	}
	s.mu.Lock()
	s.id = id
	ended := s.ended
	s.mu.Unlock()
	if ended {
		s.withdraw(id)
	}
}

// end withdraws the notification: the prompt was decided. Only the first
// call does anything.
func (s *shownNote) end() {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	id := s.id
	s.mu.Unlock()
	if id != 0 {
		go s.withdraw(id)
	}
}

func (s *shownNote) withdraw(id uint32) {
	// A server that cannot close notifications leaves this one to time out
	// by itself: nothing for the user to do or read about.
	_ = s.n.withdraw(context.Background(), id)
}

// NoticeOf is the notification of a prompt for r: the configured server
// name (the trusted identity, PROTOCOL.md §6) in the title, the tool in
// flight in the body. Nothing the server wrote goes in it — the window
// shows the message, cleaned (ui) — and the tool's name, from the host's
// call, is cut short and kept to plain printable text, so that a
// notification server that reads markup finds none.
func NoticeOf(r *bridge.Request, sound bool) Note {
	d := map[string]any{"Server": plainText(r.Server, 64), "Tool": plainText(r.Tool, 80)}
	title := lang.L("elicitray: {{.Server}} asks", d)
	var body string
	switch {
	case r.Mode == bridge.ModeToolChange:
		body = lang.L("It changed the definition of its tool {{.Tool}}. The window shows what changed.", d)
	case r.Mode == bridge.ModeToolCall:
		body = lang.L("The host wants to run the tool {{.Tool}}. It runs only if you approve it in the window.", d)
	case r.Mode == "url" && r.Tool != "":
		body = lang.L("During the tool call {{.Tool}}: a link to open. The prompt window is waiting for you.", d)
	case r.Mode == "url":
		body = lang.L("A link to open. The prompt window is waiting for you.")
	case r.Tool != "":
		body = lang.L("During the tool call {{.Tool}}. The prompt window is waiting for your answer.", d)
	default:
		body = lang.L("The prompt window is waiting for your answer.")
	}
	return Note{Title: title, Body: body, Sound: sound}
}

// plainText is s with only printable characters, none of the markup
// characters <, > and &, and at most max characters (an ellipsis ends one
// cut short).
func plainText(s string, max int) string {
	// Visible leaves only the zero-width joiners that join emoji into one
	// character (👩‍👩‍👧‍👦), which are not printable on their own.
	s, _ = elicit.Visible(s)
	return chars.Cut(strings.Map(func(r rune) rune {
		if (!unicode.IsPrint(r) && r != '\u200D') || strings.ContainsRune("<>&", r) {
			return -1
		}
		return r
	}, s), max)
}
