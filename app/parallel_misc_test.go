//go:build linux

package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hub"
	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/wrapper"
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

// runTestHubAt is runTestHub under home (newTestEnv's), set in no
// environment: the wrappers the test starts are given it.
func runTestHubAt(t *testing.T, home string, timeout time.Duration) (*hub.Hub, *scriptedPrompter, *wrapper.Approver) {
	t.Helper()
	p := homePaths(home)
	h, sp := serveTestHubAt(t, p, nil)
	h.Timeout = timeout
	if fi, err := os.Stat(filepath.Join(home, "run")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory: %v, mode %v; want 0700", err, fi.Mode().Perm())
	}
	return h, sp, &wrapper.Approver{Paths: p, StartWait: time.Second}
}
