package platform

import (
	"runtime"
	"strings"
)

// windowsEnv are the variables a Windows process needs to run at all
// (SYSTEMROOT: the system's DLLs, Winsock; the profile's directories:
// where config, history and the socket live; TEMP), which a hub started
// from a wrapper keeps. The SDKs' hosts pass these on to servers.
var windowsEnv = []string{
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT",
	"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "TEMP", "TMP",
	"USERNAME", "USERDOMAIN", "PROGRAMFILES", "PROGRAMDATA", "PROCESSOR_ARCHITECTURE", "NUMBER_OF_PROCESSORS", "OS",
}

// SystemEnv returns the variables this system's processes need beyond the
// portable ones (HOME, PATH, …): windowsEnv on Windows, none elsewhere.
func SystemEnv() []string {
	if runtime.GOOS == "windows" {
		return windowsEnv
	}
	return nil
}

// SameEnvName reports whether a and b name the same environment variable:
// exactly on Unix, ignoring case on Windows ("Path" is PATH there).
func SameEnvName(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}
