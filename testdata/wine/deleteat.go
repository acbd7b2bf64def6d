// This file is added to the standard library's testing package in the
// Windows test binaries that make test-windows builds to run under Wine
// (go test -overlay; see testdata/wine/README.md). It is never part of
// elicitray.
//
// Under Wine 8, NtSetInformationFile refuses FileDispositionInformationEx
// with a status Go does not read as "not supported", so os.RemoveAll, and
// with it every t.TempDir's cleanup, fails ("unlinkat …: Invalid
// function"). Go keeps a fallback for Windows older than 10 1607 and for
// file systems without POSIX deletion; under Wine, and only there, the
// tests take it.

package testing

import (
	"internal/syscall/windows"
	"syscall"
)

func init() {
	ntdll, err := syscall.LoadDLL("ntdll.dll")
	if err != nil {
		return
	}
	if _, err := ntdll.FindProc("wine_get_version"); err == nil {
		windows.TestDeleteatFallback = true
	}
}
