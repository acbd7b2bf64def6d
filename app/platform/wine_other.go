//go:build !windows

package platform

// UnderWine reports whether a Windows build runs under Wine: never, off
// Windows (file_windows.go).
func UnderWine() bool { return false }
