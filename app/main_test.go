//go:build linux

package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// elicitrayBin is the real binary, built once per test run by TestMain, for
// tests that start wrappers and hubs as the host and the desktop would.
var elicitrayBin string

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

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "elicitray-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	elicitrayBin = filepath.Join(dir, "elicitray")
	build := exec.Command("go", append(append([]string{"build"}, buildFlags...), "-o", elicitrayBin, "..")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building elicitray: %v\n", err)
		return 1
	}
	return m.Run()
}

// testHome gives a test its own ELICITRAY_HOME, so hubs, sockets and
// history of different tests never meet. Unix socket paths are limited to
// about 100 bytes, so it lives under a short temporary directory.
func testHome(t *testing.T) string {
	t.Helper()
	home, err := os.MkdirTemp("", "er-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	t.Setenv("ELICITRAY_HOME", home)
	return home
}
