//go:build linux

package app

import (
	"os"
	"os/exec"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/paths"
)

func TestMain(m *testing.M) {
	// TestFlood (flood_test.go) runs this test binary again as its
	// flooding server behind `elicitray wrap`.
	if os.Getenv(floodServerEnv) != "" {
		os.Exit(floodServe())
	}
	os.Exit(testkit.Run(m))
}

// testEnv is the environment one test gives every process it starts (the
// binary as wrapper, hub and CLI; hosts), passed in exec.Cmd.Env, never set
// in the test process, so that tests using it may run in parallel: its own
// ELICITRAY_HOME. (app/e2e's gives a test that shows windows its own X
// server and session bus too.)
type testEnv struct {
	home string
	vars []string // the test process's environment, the test's own entries last
}

// newTestEnv is a testEnv with a home of its own.
func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	e := &testEnv{home: testkit.TempHome(t)}
	e.vars = append(os.Environ(), "ELICITRAY_HOME="+e.home)
	return e
}

// command is name args… in e's environment.
func (e *testEnv) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = e.vars
	return cmd
}

// homePaths are the files of a hub whose ELICITRAY_HOME is home.
func homePaths(home string) paths.Paths { return paths.Under(home) }
