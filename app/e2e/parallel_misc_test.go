//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// Helpers of the tests that moved from the test process's environment to
// their own (newParallelDesktop, newTestEnv): every process they start gets
// that environment in exec.Cmd.Env.

// binCmd is the real binary with args in d's environment (d.environ), for
// a test that looks at how it ended itself.
func (d *testDesktop) binCmd(args ...string) *exec.Cmd {
	d.t.Helper()
	cmd := exec.Command(testkit.Binary(d.t), args...)
	cmd.Env = d.environ()
	return cmd
}

// setenv adds the entries "KEY=value" to the environment of every process
// d starts from now on, wrappers and hosts (and so the hubs and window
// processes they start); a later entry wins over an earlier one of the
// same key.
func (d *testDesktop) setenv(entries ...string) {
	d.env = append(slices.Clone(d.environ()), entries...)
	host := d.hostEnv
	if host == nil {
		host = os.Environ()
	}
	d.hostEnv = append(slices.Clone(host), entries...)
}

// run is runElicitray in e's environment.
func (e *testEnv) run(t *testing.T, prefix []string, extra []string, args ...string) (string, string, int) {
	t.Helper()
	return runElicitrayEnv(t, e.vars, prefix, extra, args...)
}
