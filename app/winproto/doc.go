// Package winproto is what the hub and its window process (`elicitray ui`)
// say to each other over the inherited socketpair (two pipes on Windows):
// one JSON object a line, the hub asking for windows and the window
// process answering with what the person did.
//
// Files: winwire.go.
package winproto
