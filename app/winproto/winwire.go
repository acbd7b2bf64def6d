package winproto

import (
	"time"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/state"
)

// The hub draws no windows itself: Fyne's GL loop polls sixty times a
// second from app.Run until the process ends, windows or not, and keeps
// the GL driver's memory after the last window closed (issue 12). The
// windows live in a window process, `elicitray ui` (hidden), that the hub
// starts when a window is wanted and that exits a little while after the
// last one closed. The two speak winMsg, one JSON object per line, over a
// socketpair the window process inherits as file descriptor 3 (on Windows
// two anonymous pipes, its stdin and stdout: platform.ChildConn): no path
// another process could open. The hub alone holds the history, the config
// and the policy; the window process asks for what it shows.
//
// hub → window process:
//
//	{"op":"show","id":1,"request":{…},"deadline":"…","waiting":2,"canRemember":true,"prefill":{…}}   a prompt
//	{"op":"dismiss","id":1}            the prompt ended otherwise (timeout, server cancelled)
//	{"op":"waiting","count":3}         prompts queued behind the one on screen
//	{"op":"history","noTray":true}     open (or bring forward) the history window; with no tray, it offers Menu…
//	{"op":"settings","settings":{…}}   open (or bring forward) Settings on these values
//	{"op":"changed"}                   history changed: the history window reloads
//	{"op":"menu","menu":{…}}           open (or bring forward) the menu window on this state
//	{"op":"menu-state","menu":{…}}     the hub's state changed: an open menu window shows it
//	{"op":"offer-autostart"}           ask once whether to start at login (firstrun.go)
//	{"op":"reply","id":7,…}            the answer to the window process's call 7
//	{"op":"data","id":7,"data":"…"}    a chunk of export 7, before its reply
//
// window process → hub:
//
//	{"op":"answer","id":1,"result":{"action":…,"content":…},"muteHour":true,"remember":true}
//	{"op":"shown","id":1}   prompt 1's window is on the screen (made, and shown)
//	{"op":"idle","seq":5}   no window open, having read every window-opening message up to the 5th
//	{"op":"list"|"get"|"count"|"delete"|"clear"|"export"|"servers","id":7,…}   history calls
//	{"op":"save-settings","id":8,"settings":{…}}   Settings' Save
//	{"op":"open","id":9,"url":"https://…"}         open a link the user agreed to
//	{"op":"menu-do","id":10,"do":"mute","server":"github"}   a menu window's item: pause, resume, mute, unmute, history, settings, quit
//	{"op":"autostart-answer","id":11,"yes":true}   the answer to offer-autostart
//
// Window-opening messages (show, history, settings, menu, offer-autostart) are numbered from 1 in
// the order sent (seq, implicit); idle names the last one read, so that
// the hub, which alone decides when the window process goes, never lets
// it go with a window on its way.
type Message struct {
	Op       string          `json:"op"`
	ID       uint64          `json:"id,omitempty"`
	Seq      uint64          `json:"seq,omitempty"`
	Request  *bridge.Request `json:"request,omitempty"`
	Deadline time.Time       `json:"deadline,omitzero"`
	Waiting  int             `json:"waiting,omitempty"`
	Result   *bridge.Result  `json:"result,omitempty"`
	MuteHour bool            `json:"muteHour,omitempty"`
	// CanRemember, on show, offers "Always answer this way"; Remember, on
	// answer, says the user chose it (remember.go). Prefill, on show, holds
	// the values last given for the question.
	CanRemember bool            `json:"canRemember,omitempty"`
	Remember    bool            `json:"remember,omitempty"`
	Prefill     map[string]any  `json:"prefill,omitempty"`
	Settings    *state.Settings `json:"settings,omitempty"`

	Query    *history.Query   `json:"query,omitempty"`
	RecordID uint64           `json:"recordId,omitempty"`
	Records  []history.Record `json:"records,omitempty"`
	Count    int              `json:"count,omitempty"`
	Servers  []string         `json:"servers,omitempty"`
	Format   string           `json:"format,omitempty"`
	Data     []byte           `json:"data,omitempty"`
	URL      string           `json:"url,omitempty"`
	// Menu is the menu window's state (menu, menu-state).
	Menu *state.MenuState `json:"menu,omitempty"`
	// Do is the menu item chosen (menu-do), one of the menuDo… values;
	// Server names the server of mute and unmute.
	Do     string `json:"do,omitempty"`
	Server string `json:"server,omitempty"`
	// Yes is the answer to offer-autostart: start at login (true) or not
	// now.
	Yes bool `json:"yes,omitempty"`
	// NoTray, on history, says the hub has no tray icon: the history
	// window offers the menu window (Menu…).
	NoTray bool `json:"noTray,omitempty"`

	Error string `json:"error,omitempty"`
	// Kind says which of history's errors Error is (history.ErrorKind):
	// "not-found" for a record deleted meanwhile, which the history
	// window tells from a failure, "unreadable" for an export that left
	// out records it could not read.
	Kind string `json:"kind,omitempty"`
}

// SetError makes m the reply that fails with err.
func (m *Message) SetError(err error) {
	m.Error, m.Kind = err.Error(), history.ErrorKind(err)
}

// Window process protocol operations.
const (
	OpShow         = "show"
	OpDismiss      = "dismiss"
	OpWaiting      = "waiting"
	OpHistory      = "history"
	OpSettings     = "settings"
	OpChanged      = "changed"
	OpReply        = "reply"
	OpData         = "data"
	OpAnswer       = "answer"
	OpIdle         = "idle"
	OpShown        = "shown"
	OpList         = "list"
	OpGet          = "get"
	OpCount        = "count"
	OpDelete       = "delete"
	OpClear        = "clear"
	OpExport       = "export"
	OpServers      = "servers"
	OpSaveSettings = "save-settings"
	OpOpen         = "open"
	OpMenu         = "menu"
	OpMenuState    = "menu-state"
	OpMenuDo       = "menu-do"
	OpOffer        = "offer-autostart"
	OpOfferAnswer  = "autostart-answer"
)

// opensWindow reports whether a message of op opens a window (and so
// counts in seq).
func opensWindow(op string) bool {
	return op == OpShow || op == OpHistory || op == OpSettings || op == OpMenu || op == OpOffer
}

// Error is the error a reply carries, nil when it carries none; the
// kind it was to errors.Is (SetError).
func Error(m Message) error {
	if m.Error == "" {
		return nil
	}
	return history.Said(m.Error, m.Kind)
}

// The items of a menu-do call.
const (
	MenuPause    = "pause"
	MenuResume   = "resume"
	MenuMute     = "mute"
	MenuUnmute   = "unmute"
	MenuHistory  = "history"
	MenuSettings = "settings"
	MenuQuit     = "quit"
	MenuMenu     = "menu" // the history window's Menu…
)
