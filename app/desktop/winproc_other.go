//go:build !linux && !windows

package desktop

import "syscall"

// windowProcAttr is nothing special where there is no parent-death signal:
// the window process stops when its socket to the hub ends.
func windowProcAttr() *syscall.SysProcAttr { return nil }
