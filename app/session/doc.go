// Package session finds the user's desktop session from wherever elicitray
// runs (a host's stripped environment, an ssh terminal, a service): its
// display, bus and variables (Finder, from the process's ancestors, systemd,
// logind and the user's processes), checks that a window can be drawn
// there (ProbeDisplay), holds a display open for the hub (OpenDisplay), and
// starts a hub there when none runs (Starter), reading why one could not
// start from its log.
//
// Files: session.go (finding the session), display.go (the X display),
// starter.go (starting a hub).
package session
