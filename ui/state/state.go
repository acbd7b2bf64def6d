// Package state holds what the hub and the windows hand each other as plain
// data: the settings the settings window edits (Settings, from and to
// config.toml), what the tray menu and the menu window show (MenuState),
// and the remembered answers. It has no Fyne and no behaviour, so the hub's
// engine, its wire to the window process and the windows (ui) share the
// types on every system without cgo.
package state

import "time"

// Settings is what the settings window edits.
type Settings struct {
	// Defaults apply to every server not in Servers.
	Defaults ServerPolicy
	// Servers are the servers with a policy of their own, in the order the
	// window lists them.
	Servers []ServerPolicy
	// Remember is the "Remembered answers" section (ui/settings_remember.go).
	Remember RememberSettings
	// Notice is the "When a prompt opens" section (ui/settings_notice.go).
	Notice NoticeSettings
	// Tools is the "Pinned tools" section (ui/settings_tools.go).
	Tools ToolSettings
}

// ToolSettings is the "Pinned tools" section of Settings: the tool
// definitions pinned per server (app/toolpins).
type ToolSettings struct {
	// Pins are every pinned tool, by server and then tool name.
	Pins []PinnedTool
	// Accept and Forget, in the Settings that Save hands over, are the
	// changes the user accepted and the pins they chose to forget; the
	// window ignores them on open.
	Accept, Forget []PinnedTool
}

// PinnedTool is one pinned tool as the window lists it.
type PinnedTool struct {
	Server, Tool string // untrusted text: the server chose the tool's name
	Since        time.Time
	// Change is what changed since (toolpins.Diff), "" when nothing waits;
	// ChangedAt is when it was first seen.
	Change    string
	ChangedAt time.Time
	// Warning says what in the change reads as orders to the AI, as the
	// change window said it; "" for nothing.
	Warning string
}

// ServerPolicy is how one server's prompts are handled, or, with an empty
// Name, every server's that has no policy of its own. It maps 1:1 to the
// config file: the top-level timeout and [rate] for the defaults,
// [servers.NAME] for a server.
type ServerPolicy struct {
	// Name is the server's configured name (--name); "" for the defaults.
	Name string
	// Rule is what happens to the server's prompts: "ask" (show them; ""
	// means the same), "decline" or "cancel" (answered so at once, without
	// a window), "accept-defaults" (a form whose every required field has a
	// default is accepted with the defaults; others are asked),
	// "accept-defaults-or-cancel" (the same, but what the defaults cannot
	// answer, links included, is answered cancel: never a window). The
	// settings window does not edit the defaults' Rule: it is saved as given.
	Rule string
	// Burst is how many prompts may come at once before the rate limit
	// applies; at least 1. For a server, zero: it follows the defaults.
	Burst int
	// Every is how often one more prompt may come once the burst is used
	// up; more than zero. Prompts over the limit are answered cancel. For a
	// server, zero: it follows the defaults.
	Every time.Duration
	// Timeout is how long a prompt waits for a person before it is answered
	// cancel; more than zero. For a server, zero: it follows the defaults.
	Timeout time.Duration
	// Guard lists patterns of tool names ("delete_*", "deploy") whose
	// calls wait for the user's approval (the tool-call guard); nil guards
	// none. GuardDestructive guards, besides, the tools the server marks
	// destructiveHint: true. Only a server has them: the defaults' are
	// unused.
	Guard            []string
	GuardDestructive bool
	// KeepAlive is how often the host hears progress for a tool call
	// while one of its prompts is open (config.toml's keep_alive); zero
	// sends none. Nil: for the defaults, the built-in 15 seconds
	// (DefaultKeepAlive); for a server, the defaults'.
	KeepAlive *time.Duration
	// Own says the server has settings of its own: given, that config.toml
	// has a table for it; saved, that it had one, or the user added the
	// server or changed its row in the window. A server without Own (one
	// listed only because it asked something) follows the defaults in
	// everything and need not be written. Unused for the defaults.
	Own bool
}

// NoticeSettings is the "When a prompt opens" section of Settings.
type NoticeSettings struct {
	// Notification is set when a prompt window comes with a desktop
	// notification naming the server and the tool ([notice] notification;
	// on unless the file turns it off).
	Notification bool
	// Sound is set when that notification plays the desktop's message
	// sound ([notice] sound; off unless set). It comes with the
	// notification only: the window keeps it, unused, while Notification
	// is off.
	Sound bool
}

// RememberSettings is the "Remembered answers" section of Settings.
type RememberSettings struct {
	// Prefill is set when a form asked again starts with the values last
	// given for the same question (never a secret's).
	Prefill bool
	// Rules are the remembered answers in force, in the order listed.
	Rules []RememberedAnswer
	// Forget, in the Settings that Save hands over, holds the IDs of the
	// rules the user chose to forget; the window ignores it on open.
	Forget []int
}

// RememberedAnswer is one remembered answer as the window lists it.
type RememberedAnswer struct {
	ID      int
	Server  string
	Message string // the server's message, untrusted text
	Answer  string // `decline`, or `accept {"city":"Lisbon"}`
	Expires time.Time
}

// MenuState is what the menu window shows: what the tray menu shows.
type MenuState struct {
	// Waiting is the number of prompts waiting for an answer, the one on
	// screen included.
	Waiting int
	// Problem says what keeps decisions out of history ("12 decisions not
	// saved: the disk is full"); "" when nothing does.
	Problem string
	// Paused is set while all prompts are paused.
	Paused bool
	// Servers are the servers the hub knows, each with its mute; the
	// window sorts them by name.
	Servers []TrayServer
}

// TrayServer is a server the hub has seen, as the tray's mute submenu
// shows it.
type TrayServer struct {
	// Name is the configured name (--name).
	Name string
	// MutedUntil is when the server's mute ends. Zero, or a time already
	// past, means the server is not muted.
	MutedUntil time.Time
}
