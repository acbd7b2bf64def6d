// Package hub is the engine of the per-user hub process, with no window in
// it: it serves the hub's socket (Serve: one goroutine per connection,
// each operation's handler from one table, hub.go's operations),
// queues prompts in arrival order and shows one at a time through a
// Prompter, times them out, applies the policy (pause, mutes, rate limits,
// rules, remembered answers) and has every decision recorded (app/journal).
// The desktop process gives it its Prompter (the windows) and its hooks.
//
// Files: hub.go (the socket, the queue, the decision path), policy.go
// (pause, mutes, limits, rules, retention), remember_hub.go (remembered
// answers and pre-fill), suggest.go (did you mean).
package hub
