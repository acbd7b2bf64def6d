//go:build linux

// Package e2e holds elicitray's end-to-end tests: they run the built binary
// (testkit.Binary, once per run) as wrapper, hub, window process and CLI
// for real hosts and servers (the official Go SDK, mcp-go, the TypeScript
// SDK, server-everything, the MCP Inspector, the conformance suite) and
// drive its windows under Xvfb with xdotool. A test that runs in parallel
// has an X server, session bus and ELICITRAY_HOME of its own
// (newParallelDesktop, newTestEnv; env_test.go); the rest run one at a
// time on the run's display.
//
// Files: desktop_test.go (the desktop harness: windows, keys, screens),
// env_test.go (TestMain, testEnv, helpers of parallel tests), e2e_*_test.go (one
// concern each), fault_test.go (kill -9, full disk, locked history),
// interop_test.go and nodehosts_test.go (the SDK peers), the rest named
// after the command or window they test.
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
	"github.com/elicitray/elicitray/app/paths"
)

func TestMain(m *testing.M) {
	// TestInterop (interop_test.go) runs this test binary again as an MCP
	// server behind `elicitray wrap`: with ELICITRAY_INTEROP_SERVER=gosdk or
	// =mcpgo it serves MCP with that SDK on stdin/stdout and runs no test.
	if sdk := os.Getenv(interopServerEnv); sdk != "" {
		os.Exit(interopServe(sdk))
	}
	// TestDeliveryToldInHistory (e2e_delivery_test.go) runs it as a server
	// that closes its input; checked first, as it goes with the fault
	// server's variable.
	if os.Getenv(closingServerEnv) != "" {
		os.Exit(closingServe())
	}
	// The fault suite (fault_test.go) runs it as its server.
	if os.Getenv(faultServerEnv) != "" {
		os.Exit(faultServe())
	}
	// TestEndToEndSafety (e2e_safety_test.go) runs it as its "ask" server.
	if os.Getenv(askServerEnv) != "" {
		os.Exit(askServe())
	}
	// TestEndToEndValuesOnDesktop (e2e_values_test.go) runs it as its raw
	// "ask" server.
	if os.Getenv(rawAskServerEnv) != "" {
		os.Exit(rawAskServe())
	}
	// TestEndToEndToolChanged (e2e_toolpins_test.go) runs it as a server
	// that rewrites a tool.
	if os.Getenv(rugPullServerEnv) != "" {
		os.Exit(rugPullServe())
	}
	// TestServerGoneBeforeAnyoneAnswered (server_gone_test.go) runs it as a
	// server that asks and exits.
	if n := os.Getenv(goneServerEnv); n != "" {
		os.Exit(goneServe(n))
	}
	os.Exit(testkit.Run(m))
}

// testEnv is the environment one test gives every process it starts (the
// binary as wrapper, hub and CLI; hosts), passed in exec.Cmd.Env, never set
// in the test process, so that tests using it may run in parallel: its own
// ELICITRAY_HOME and, for a test that shows windows, its own X server and
// session bus, whose keyboard, focus and tray no other test shares.
type testEnv struct {
	home    string
	display string   // the X display the test's windows go to (":N")
	vars    []string // the test process's environment, the test's own entries last
}

// newTestEnv is a testEnv with a home of its own and, with ownDisplay, an
// X server (Xvfb) and session bus (dbus-daemon) of its own, ended after the
// test; without, the run's (DISPLAY, DBUS_SESSION_BUS_ADDRESS).
func newTestEnv(t *testing.T, ownDisplay bool) *testEnv {
	t.Helper()
	e := &testEnv{home: testkit.TempHome(t), display: os.Getenv("DISPLAY")}
	e.vars = append(os.Environ(), "ELICITRAY_HOME="+e.home)
	if ownDisplay {
		e.display = startX(t, "").display
		e.vars = append(e.vars, "DISPLAY="+e.display, "DBUS_SESSION_BUS_ADDRESS="+trayStartBus(t))
	}
	return e
}

// command is name args… in e's environment.
func (e *testEnv) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = e.vars
	return cmd
}

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
	d.paths = paths.Under(d.home)
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
