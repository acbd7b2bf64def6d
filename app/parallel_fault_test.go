//go:build linux

package app

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// Helpers of the fault group's tests (fault, quit, sigterm, transcripts,
// keep-alive) for running in parallel: every process gets the test's own
// environment in exec.Cmd.Env, nothing is set in the test process.

// runElicitrayIn is runElicitray in the environment env (a testEnv's vars,
// a desktop's env) instead of the test process's: it runs the real binary
// with args and returns stdout, stderr and the exit code.
func runElicitrayIn(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(elicitrayBin(t), args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running elicitray %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

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
