// Package app is elicitray's composition root: Main and one file per
// command (cobra). Everything else lives in packages below it, each
// importing only the ones beneath it:
//
//	paths      where elicitray's files are; private directories
//	config     config.toml: settings, reading and checking it
//	journal    the history record of a decision, the journal and the spool
//	remember   remembered answers and the values last given
//	hubapi     the hub protocol and the peer check
//	hub        the engine: serve, queue, policy, decisions
//	winproto   the hub ↔ window process messages
//	session    finding the desktop session and its display, starting a hub
//	wrapper    the wrapper's Approver: asks the hub, keeps what it sent
//	desktop    the hub process (`elicitray hub`): display, lock, tray,
//	           notifications, the window process from the hub's side
//	winui      the window process (`elicitray ui`): the Fyne app
//	hosts, oauth, autostart, platform, demo, earlylog: as their doc.go says
//
// Fyne is in no package but desktop (its tray), winui and ui: the layering
// test (bridge/layering_test.go) keeps it so. Below Main nothing reads the
// environment to find paths: Main's commands make paths.FromEnv once and
// pass it down.
//
// Files: main.go (Main, the root, wrap, hub, ui and the small commands),
// client.go (cliHub: the commands' one hubapi.Client), *cmd.go (one
// command each), doctor*.go, history*.go, hosts*.go (the larger commands
// and their output), remote.go, oauthconsent.go (the wrap command's remote
// servers and sign-in), flags.go (flag types), resident_*.go (the start-up
// pages a long-lived process gives back).
//
// The tests of this package run its commands (Main) in the test process
// against a hub served there too (internal/hubkit), and the built binary
// (internal/testkit) where a command must be its own process. The
// end-to-end tests, which run the binary as host, wrapper and hub with
// windows under Xvfb, are app/e2e's. Both are Linux's (//go:build linux);
// the unit tests live with their packages and run anywhere.
package app
