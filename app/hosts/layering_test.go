package hosts

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHostsNoFyne keeps the package what doctor and the CLI can call
// anywhere: no Fyne, no bbolt, nothing of the hub or the relay.
func TestHostsNoFyne(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no Go toolchain where the test runs (a Windows test binary under Wine): the layering is checked where the code is built")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"fyne.io", "go.etcd.io/bbolt", "github.com/elicitray/elicitray/bridge", "github.com/elicitray/elicitray/history", "github.com/elicitray/elicitray/ui"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("app/hosts depends on %s", dep)
			}
		}
		if dep == "github.com/elicitray/elicitray/app" {
			t.Errorf("app/hosts depends on app")
		}
	}
}
