package session

// What a hub process and the one who started it agree on: how the hub
// says it could not start, and that it listens.

// HubFailPrefix starts the hub's last line when it cannot start; the rest
// of the line is a sentence for the user (runHub, hubFailure).
const HubFailPrefix = "elicitray hub: cannot start: "

// ExitNoDisplay is the exit status of a hub whose display did not open
// (the last line of its log says why): the wrapper that started it in a
// desktop session it found tries the next one (sessionFinder.each). The hub
// checks its display before anything else, as `elicitray probe-display`
// does, so that a wrapper needs no process of its own to check a session
// before it starts a hub there: one process less on a cold prompt's way to
// the screen (issue 12).
const ExitNoDisplay = 3

// HubStartedLine is in the line a hub writes once it listens.
const HubStartedLine = "elicitray hub: listening on "
