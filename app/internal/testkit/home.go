package testkit

import (
	"os"
	"testing"
)

// TempHome is a new directory for an ELICITRAY_HOME, removed after the
// test. Unix socket paths are limited to about 100 bytes, so it lives
// under a short temporary directory.
func TempHome(t testing.TB) string {
	t.Helper()
	home, err := os.MkdirTemp("", "er-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	return home
}

// Home gives a test its own ELICITRAY_HOME, set in the test process
// (t.Setenv), so hubs, sockets and history of different tests never meet;
// such a test cannot run in parallel (give the processes it starts a
// TempHome in their environment instead).
func Home(t testing.TB) string {
	t.Helper()
	home := TempHome(t)
	t.Setenv("ELICITRAY_HOME", home)
	return home
}
