//go:build race

package app

// Under `go test -race` the binary the tests run (wrapper, hub) is built
// with the race detector too, so the fault suite checks the real processes.
func init() { buildFlags = append(buildFlags, "-race") }
