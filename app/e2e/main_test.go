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
// main_test.go (TestMain, testEnv), env_test.go, e2e_*_test.go (one
// concern each), fault_test.go (kill -9, full disk, locked history),
// interop_test.go and nodehosts_test.go (the SDK peers), the rest named
// after the command or window they test.
package e2e

import (
	"os"
	"os/exec"
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

// homePaths are the files of a hub whose ELICITRAY_HOME is home.
func homePaths(home string) paths.Paths { return paths.Under(home) }
