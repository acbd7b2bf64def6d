// Package desktop is the hub process (`elicitray hub`): it holds the
// display and the single-hub lock, runs the engine (app/hub) with the
// journal, shows the tray icon and desktop notifications, and draws its
// windows through a window process (`elicitray ui`, app/winui) that it
// starts when a window is wanted, speaks to over an inherited socketpair
// (app/winproto) and lets go a while after the last window closed. It runs
// no Fyne driver itself, so that a hub with no window open sleeps.
//
// Files: hubgui.go (Run: the hub process from start to stop, and the
// Settings ↔ config.toml mapping), winproc*.go (the window process, from
// the hub's side), menuwin.go (the menu window's state and clicks),
// firstrun.go (the first run's offers), notify.go and notice.go (desktop
// notifications of prompts).
package desktop
