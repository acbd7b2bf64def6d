//go:build linux

package e2e

import (
	"strings"
)

// Helpers of the fault group's tests (fault, quit, sigterm, transcripts,
// keep-alive) for running in parallel: every process gets the test's own
// environment in exec.Cmd.Env, nothing is set in the test process.

// varIn is the value of key in the environment vars, the last entry
// winning as in exec.Cmd.Env; "" when it has none.
func varIn(vars []string, key string) string {
	v := ""
	for _, e := range vars {
		if k, val, ok := strings.Cut(e, "="); ok && k == key {
			v = val
		}
	}
	return v
}
