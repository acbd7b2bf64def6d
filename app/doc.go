// Package app is elicitray's composition root: the CLI (cobra), paths and
// config, the hub's desktop Prompter, and the commands, which reach the hub
// through the one hubapi.Client cliHub builds (client.go); the wrapper's
// bridge.Approver is app/wrapper's.
//
// Processes: `elicitray hub` runs no Fyne driver, so that a hub with no
// window open sleeps (Fyne's GL loop polls from app.Run until the process
// ends; issue 12). It holds the socket, the policy, the queue, history, the
// notifications and the tray icon (fyne.io/systray over DBus); its windows
// are drawn by a window process, the hidden `elicitray ui`, which it starts
// when a window is wanted, speaks to over an inherited socketpair (two
// pipes on Windows: platform.ChildConn; winwire.go), and lets go a little
// while after the last window closed.
// The window process dies with the hub.
//
// Goroutines: the hub serves each wrapper connection on its own goroutine,
// and reads its window process on one more while it runs; a change of what
// the menu window shows (the tray's items without a tray, menuwin.go) is
// sent on a short-lived one. In `elicitray
// ui` the Fyne event loop owns the main goroutine, and everything that
// touches widgets goes through fyne.Do. The wrapper's hub client
// (hubapi.Client) reads replies on one goroutine per connection, and one
// more watches
// config.toml, putting a change of the server's guard or keep-alive in
// force in the running relay (wrapper.WatchGuard).
//
// Systems: what differs between Linux, macOS and Windows (locks, owners and
// private directories, peer credentials, the socket, the detached hub,
// paths) is in app/platform, behind build tags. The tests of this package
// are Linux's (//go:build linux on every _test.go file): they run the
// built binary under Xvfb with a private session bus and read /proc. On
// Windows this package is cross-built and vetted with mingw-w64 (`make
// cross-windows`); on macOS it is not built here (no SDK), only its
// cgo-free packages are vetted.
package app
