package bridge

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoFyneBelowApp keeps DESIGN.md's one-way dependencies: the relay, the
// elicitation model and history never link Fyne (the wrapper must start
// fast and work without a display), and bridge never links bbolt.
func TestNoFyneBelowApp(t *testing.T) {
	for _, tt := range []struct {
		pkgs   []string
		banned []string
	}{
		{[]string{"./...", "../history/..."}, []string{"fyne.io"}},
		{[]string{"./..."}, []string{"go.etcd.io/bbolt", "github.com/elicitray/elicitray/history", "github.com/elicitray/elicitray/app"}},
		{[]string{"../history/..."}, []string{"github.com/elicitray/elicitray/bridge"}},
	} {
		out, err := exec.Command("go", append([]string{"list", "-deps"}, tt.pkgs...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range tt.banned {
				if dep == b || strings.HasPrefix(dep, b+"/") {
					t.Errorf("%v depends on %s", tt.pkgs, dep)
				}
			}
		}
	}
}
