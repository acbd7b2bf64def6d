package platform

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	kernel32                  = windows.NewLazySystemDLL("kernel32.dll")
	procGetConsoleProcessList = kernel32.NewProc("GetConsoleProcessList")
	procFreeConsole           = kernel32.NewProc("FreeConsole")
)

// LeaveOwnConsole closes the console window Windows opened for this
// process alone, and reports whether there was one. elicitray is a console
// program (hosts talk to its wrapper over stdio, and its commands print),
// so a hub started by the Run key or from Explorer gets a console window of
// its own, which would stay open as long as the hub runs. A console shared
// with others (a shell's: the hub started from cmd.exe) is left alone, and
// a hub a wrapper started has none (StartDetached).
func LeaveOwnConsole() bool {
	var pids [2]uint32
	n, _, _ := procGetConsoleProcessList.Call(uintptr(unsafe.Pointer(&pids[0])), uintptr(len(pids)))
	if n != 1 {
		return false // none (0), or a shell's too (2 or more)
	}
	ok, _, _ := procFreeConsole.Call()
	return ok != 0
}
