package bridge

import (
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// module is elicitray's module path; fyne is Fyne's, which only the
// packages that draw windows may link.
const (
	module = "github.com/elicitray/elicitray"
	fyne   = "fyne.io"
)

// drawsWindows are the packages that may link Fyne, under module: the
// program (main) and app, which composes everything; ui, the windows; the
// hub's process with its tray (app/desktop) and the window process
// (app/winui); and bench/fynewin, the bare Fyne window make bench measures
// against. Every other package of the module must not: the wrapper starts
// fast and works without a display, and make vet checks each of them for
// Linux, macOS and Windows without cgo.
var drawsWindows = []string{"", "/app", "/app/desktop", "/app/winui", "/ui", "/bench/fynewin"}

// TestNoFyneBelowApp keeps DESIGN.md's one-way dependencies: Fyne only
// where windows are drawn (drawsWindows), and bridge never links bbolt,
// history or app, nor history bridge.
func TestNoFyneBelowApp(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("it runs go list, which the Windows test binary has not under Wine; the packages are the same on Linux, which runs it")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports ","}} {{join .Deps ","}}`, "../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string][]string{}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 3 {
			f = append(f, "", "")
		}
		imports[f[0]] = strings.Split(f[1], ",")
		deps[f[0]] = strings.Split(f[2], ",")
	}
	if _, ok := deps[module+"/ui/lang"]; !ok {
		t.Fatalf("go list did not list the module's packages:\n%s", out)
	}
	banned := func(pkg string, prefixes ...string) []string {
		var found []string
		for _, dep := range deps[pkg] {
			for _, b := range prefixes {
				if dep == b || strings.HasPrefix(dep, b+"/") {
					found = append(found, dep)
				}
			}
		}
		return found
	}
	for pkg := range deps {
		if slices.Contains(drawsWindows, strings.TrimPrefix(pkg, module)) {
			continue
		}
		if linked := banned(pkg, fyne); len(linked) > 0 {
			// The module's imports that bring it in say where to cut.
			var through []string
			for _, imp := range imports[pkg] {
				if imp == fyne || strings.HasPrefix(imp, fyne+"/") || len(banned(imp, fyne)) > 0 {
					through = append(through, imp)
				}
			}
			t.Errorf("%s links %s, through %s", pkg, linked[0], strings.Join(through, ", "))
		}
	}
	for pkg := range deps {
		switch {
		case pkg == module+"/bridge" || strings.HasPrefix(pkg, module+"/bridge/"):
			for _, dep := range banned(pkg, "go.etcd.io/bbolt", module+"/history", module+"/app") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		case pkg == module+"/history" || strings.HasPrefix(pkg, module+"/history/"):
			for _, dep := range banned(pkg, module+"/bridge") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
		// app's processes stay apart: the wrapper and the window process
		// never link the hub's process, nor the engine either process.
		for _, rule := range processRules {
			if strings.TrimPrefix(pkg, module) == rule.pkg {
				for _, dep := range banned(pkg, rule.not...) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// processRules are the packages of app each process's code must not reach
// (how-it-works.md, "Packages").
var processRules = []struct {
	pkg string
	not []string
}{
	{"/app/wrapper", []string{module + "/app/hub", module + "/app/desktop", module + "/app/winui"}},
	{"/app/winui", []string{module + "/app/desktop", module + "/app/wrapper", module + "/app/session"}},
	{"/app/desktop", []string{module + "/app/winui", module + "/app/wrapper"}},
	{"/app/hub", []string{module + "/app/desktop", module + "/app/winui", module + "/app/wrapper", module + "/app/session"}},
	{"/app/hubapi", []string{module + "/app/hub", module + "/app/session", module + "/app/journal"}},
}
