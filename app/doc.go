// Package app is elicitray's composition root: the CLI (cobra), paths and
// config, the hub (socket server, prompt queue, timeouts, history
// recording, and its desktop Prompter), and the wrapper's hub client, which
// is the bridge.Approver the relay asks.
//
// Goroutines: the hub serves each wrapper connection on its own goroutine;
// the Fyne event loop owns the main goroutine in `elicitray hub`, and
// everything that touches widgets goes through fyne.Do. The wrapper's hub
// client reads replies on one goroutine per connection.
package app
