//go:build linux

package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// Helpers of the tests that run in parallel: every process such a test
// starts gets the test's own environment in exec.Cmd.Env (a testEnv's
// vars, a desktop's env and hostEnv), and nothing is set in the test
// process.

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
	return testkit.RunBinary(t, e.vars, prefix, extra, args...)
}

// binary runs the built elicitray with args in d's environment, as Main
// would run in a test alone, and returns what it wrote and its exit code.
func (d *testDesktop) binary(args ...string) (stdout, stderr string, code int) {
	d.t.Helper()
	return testkit.RunBinary(d.t, d.env, nil, nil, args...)
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

// sessionBus is the address of the session bus of d's processes (the last
// DBUS_SESSION_BUS_ADDRESS entry of d.env, the one they see): the test's
// own, for a desktop of newParallelDesktop.
func (d *testDesktop) sessionBus() string {
	if v := varIn(d.env, "DBUS_SESSION_BUS_ADDRESS"); v != "" {
		return v
	}
	d.t.Fatal("the test's processes have no session bus")
	return ""
}

// newParallelDesktopOn is newParallelDesktop on the X server at display,
// the test's own (startX), which the test may end and start again; extra
// are more entries of the environment its processes get. The caller calls
// t.Parallel first.
func newParallelDesktopOn(t *testing.T, display string, extra ...string) *testDesktop {
	t.Helper()
	needDesktopTools(t)
	home := testkit.TempHome(t)
	env := slices.Concat(os.Environ(),
		[]string{"ELICITRAY_HOME=" + home, "DISPLAY=" + display, "DBUS_SESSION_BUS_ADDRESS=" + trayStartBus(t)}, extra)
	d := &testDesktop{t: t, home: home, display: display, env: env, hostEnv: env}
	d.unmaps = newUnmapWatch(t, d.display)
	d.paths = homePaths(d.home)
	d.mark = "ELICITRAY_HOME=" + d.home
	t.Cleanup(d.stop)
	return d
}

// unusedDisplay is a display number (":N") no X server holds, far above
// those Xvfb -displayfd takes (the lowest free), so that a display a test
// ends is not taken by another test's X server before it starts it again.
func unusedDisplay(t *testing.T) string {
	t.Helper()
	for range 100 {
		n := 1000 + rand.IntN(30000)
		_, errLock := os.Lstat(fmt.Sprintf("/tmp/.X%d-lock", n))
		_, errSocket := os.Lstat(fmt.Sprintf("/tmp/.X11-unix/X%d", n))
		if os.IsNotExist(errLock) && os.IsNotExist(errSocket) {
			return fmt.Sprintf(":%d", n)
		}
	}
	t.Fatal("found no unused X display number")
	return ""
}
