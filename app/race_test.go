//go:build race

package app

import "os"

// Under `go test -race` the binary the tests run (wrapper, hub) is built
// with the race detector too, so the fault suite checks the real processes;
// a race stops the process, so the test sees it.
func init() {
	buildFlags = append(buildFlags, "-race")
	os.Setenv("GORACE", "halt_on_error=1 exitcode=66")
}
