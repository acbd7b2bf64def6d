//go:build race

package app

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/session"
)

// Under `go test -race` the binary the tests run (wrapper, hub) is built
// with the race detector too (testkit.Binary), so the fault suite checks the real processes;
// a race stops the process, so the test sees it.
func init() {
	os.Setenv("GORACE", "halt_on_error=1 exitcode=66")
}

// TestRaceBuild: the wrapper and hub the race run starts are race builds,
// and a race halts them (GORACE reaches the hub too, hubEnvVars): else the
// fault suite under -race would check the real processes for nothing.
func TestRaceBuild(t *testing.T) {
	out, err := exec.Command("go", "version", "-m", testkit.Binary(t)).Output()
	if err != nil {
		t.Fatalf("go version -m %s: %v", testkit.Binary(t), err)
	}
	if !strings.Contains(string(out), "\tbuild\t-race=true\n") {
		t.Errorf("%s is not built with -race:\n%s", testkit.Binary(t), out)
	}
	env := session.HubEnv([]string{"GORACE=" + os.Getenv("GORACE"), "SECRET=x"})
	if len(env) != 1 || !strings.Contains(env[0], "halt_on_error=1") {
		t.Errorf("a hub started from the race run gets %q, want GORACE with halt_on_error=1 only", env)
	}
}
