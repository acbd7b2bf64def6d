package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binDir holds the binary Binary builds; Run makes it and removes it after
// the last test.
var binDir string

// Run runs a package's tests (m.Run) in a TestMain that uses Binary.
func Run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "elicitray-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	return m.Run()
}

// built is the binary's build, done once per test process, by the first
// test that needs it: a race build under `go test -race` (race.go), so
// that the fault tests check the real processes for races too.
var built = sync.OnceValues(func() (string, error) {
	if binDir == "" {
		return "", fmt.Errorf("testkit.Binary needs the package's TestMain to call testkit.Run")
	}
	bin := filepath.Join(binDir, "elicitray")
	args := []string{"build", "-o", bin}
	if raceBuild {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, "github.com/elicitray/elicitray")...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building elicitray: %v\n%s", err, out)
	}
	return bin, nil
})

// Binary is the real elicitray binary, for tests that start wrappers and
// hubs as a host and the desktop would. It is built on the first call, so
// a run of unit tests builds none; under -short (make check) a test that
// needs it is skipped: the short tier starts no elicitray process.
func Binary(t testing.TB) string {
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
