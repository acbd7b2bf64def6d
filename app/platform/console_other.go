//go:build !windows

package platform

// LeaveOwnConsole does nothing outside Windows, where no console window is
// opened for a program (see console_windows.go).
func LeaveOwnConsole() bool { return false }
