//go:build linux

package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// Helpers for the tests of hostswap, winproc, notice, firstrun,
// display_lost, tray and install that run in parallel: each gives the
// processes it starts its own environment (testEnv), never the test
// process's.

// sessionBus is the address of the session bus of d's processes (the last
// DBUS_SESSION_BUS_ADDRESS entry of d.env, the one they see): the test's
// own, for a desktop of newParallelDesktop.
func (d *testDesktop) sessionBus() string {
	for _, kv := range slices.Backward(d.env) {
		if v, ok := strings.CutPrefix(kv, "DBUS_SESSION_BUS_ADDRESS="); ok {
			return v
		}
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
