//go:build !linux

package ui

import "fyne.io/fyne/v2"

// askAttention does nothing here yet: the window comes to the front
// (RequestFocus) and the hub's notification tells of it. On Linux it sets
// the window manager's urgency hints (attention_linux.go).
func askAttention(fyne.Window) uint32 { return 0 }

// dropAttention ends what askAttention asked: nothing here.
func dropAttention(uint32) {}

// markArmed does nothing here: ArmedProperty is an X11 property.
func markArmed(uint32) {}

// clearArmed does nothing here.
func clearArmed(uint32) {}

// x11Window is 0: the window's X id is Linux's.
func x11Window(fyne.Window) uint32 { return 0 }
