package desktop

import "syscall"

// createNoWindow is CREATE_NO_WINDOW (processthreadsapi.h); the package's
// own type windows keeps golang.org/x/sys/windows out of this file.
const createNoWindow = 0x08000000

// windowProcAttr starts the window process without a console window: the
// hub runs detached (no console of its own), and Windows would give a
// console program started from it a new, visible one. The window process
// stops when its pipes to the hub end.
func windowProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: createNoWindow, HideWindow: true}
}
