package app

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// windowProcAttr starts the window process without a console window: the
// hub runs detached (no console of its own), and Windows would give a
// console program started from it a new, visible one. The window process
// stops when its pipes to the hub end.
func windowProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW, HideWindow: true}
}
