//go:build linux

package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/elicitray/elicitray/app/paths"
)

func TestMain(m *testing.M) {
	// TestInterop (interop_test.go) runs this test binary again as an MCP
	// server behind `elicitray wrap`: with ELICITRAY_INTEROP_SERVER=gosdk or
	// =mcpgo it serves MCP with that SDK on stdin/stdout and runs no test.
	if sdk := os.Getenv(interopServerEnv); sdk != "" {
		os.Exit(interopServe(sdk))
	}
	// TestFlood (flood_test.go) runs it as its flooding server.
	if os.Getenv(floodServerEnv) != "" {
		os.Exit(floodServe())
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
	os.Exit(run(m))
}

// buildFlags are the flags the elicitray binary is built with (race_test.go
// adds -race).
var buildFlags []string

// binDir holds the binary elicitrayBin builds: made by run, removed after
// the last test.
var binDir string

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "elicitray-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	return m.Run()
}

// built is the binary's build, done once, by the first test that needs it.
var built = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "elicitray")
	out, err := exec.Command("go", append(append([]string{"build"}, buildFlags...), "-o", bin, "..")...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building elicitray: %v\n%s", err, out)
	}
	return bin, nil
})

// elicitrayBin is the real binary, for tests that start wrappers and hubs
// as the host and the desktop would. It is built on the first call, so a
// run of unit tests builds none; under -short (make check) a test that
// needs it is skipped: the short tier starts no elicitray process.
func elicitrayBin(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the elicitray binary: not in the short tier (-short)")
	}
	bin, err := built()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// testHome gives a test its own ELICITRAY_HOME, set in the test process
// (t.Setenv), so hubs, sockets and history of different tests never meet;
// such a test cannot run in parallel (newTestEnv can).
func testHome(t *testing.T) string {
	t.Helper()
	home := tempHome(t)
	t.Setenv("ELICITRAY_HOME", home)
	return home
}

// tempHome is a new directory for an ELICITRAY_HOME, removed after the
// test. Unix socket paths are limited to about 100 bytes, so it lives under
// a short temporary directory.
func tempHome(t *testing.T) string {
	t.Helper()
	home, err := os.MkdirTemp("", "er-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	return home
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
	e := &testEnv{home: tempHome(t), display: os.Getenv("DISPLAY")}
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
