//go:build linux

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPackage: `make package` builds the two Linux release artifacts of
// this build: the tarball of `fyne package -os linux`, whose own Makefile
// installs a binary of the stamped version and a launcher entry that opens
// History, and a .deb holding exactly what make install puts under /usr,
// with its version, architecture and dependencies in its control file.
// FyneApp.toml, which fyne package rewrites, is left as it was.
func TestPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds elicitray with make: not in the short tier (-short)")
	}
	t.Parallel() // its own directories; most of it is make's building
	for _, tool := range []string{"make", "dpkg-deb", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	fyneApp, err := os.ReadFile("../../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	// XZ_OPT (make passes it on to tar's xz): the fastest compression.
	// The test reads what the tarball holds, not how small it is, and xz's
	// default level spends some 20 s of CPU on the binary.
	makeIn(t, "package", "DIST="+dist, "BIN="+filepath.Join(tmp, "build", "elicitray"), "XZ_OPT=-0")
	if after, _ := os.ReadFile("../../FyneApp.toml"); !bytes.Equal(after, fyneApp) {
		t.Errorf("make package changed FyneApp.toml:\n%s", after)
	}
	stamped, err := exec.Command("make", "-C", "../..", "-s", "--no-print-directory", "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(stamped))
	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	var tarball, deb string
	for _, e := range entries {
		switch {
		case strings.HasSuffix(e.Name(), ".tar.xz"):
			tarball = filepath.Join(dist, e.Name())
		case strings.HasSuffix(e.Name(), ".deb"):
			deb = filepath.Join(dist, e.Name())
		default:
			t.Errorf("make package left %s in dist/", e.Name())
		}
	}
	if tarball == "" || deb == "" {
		t.Fatalf("make package made %v: want a .tar.xz and a .deb", entries)
	}
	if want := "elicitray-" + version + "-linux-"; !strings.HasPrefix(filepath.Base(tarball), want) {
		t.Errorf("the tarball is %s, want it named %s…", filepath.Base(tarball), want)
	}

	// The tarball, installed by its own Makefile.
	x := filepath.Join(tmp, "tarball")
	if err := os.MkdirAll(x, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "xJf", tarball, "-C", x).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	root := filepath.Join(tmp, "root")
	if out, err := exec.Command("make", "-C", filepath.Join(x, "elicitray"), "install", "DESTDIR="+root, "PREFIX=/usr").CombinedOutput(); err != nil {
		t.Fatalf("the tarball's make install: %v\n%s", err, out)
	}
	checkVersion(t, filepath.Join(root, "usr/bin/elicitray"), version)
	entry := desktopEntry(t, filepath.Join(root, "usr/share/applications", appID+".desktop"))
	if entry["Exec"] != "elicitray history window" || entry["Icon"] != appID {
		t.Errorf("the tarball's launcher entry runs %q with icon %q: want History and %s", entry["Exec"], entry["Icon"], appID)
	}

	// The .deb.
	fields, err := exec.Command("dpkg-deb", "-f", deb, "Package", "Version", "Architecture", "Depends").Output()
	if err != nil {
		t.Fatalf("dpkg-deb -f: %v", err)
	}
	goarch, _ := exec.Command("go", "env", "GOARCH").Output()
	debVersion := strings.NewReplacer("-dev", "~dev").Replace(version)
	for _, want := range []string{"Package: elicitray", "Version: " + strings.SplitN(debVersion, "-", 2)[0], "Architecture: " + strings.TrimSpace(string(goarch)), "libgl1", "libx11-6"} {
		if !strings.Contains(string(fields), want) {
			t.Errorf("the .deb's control file lacks %q:\n%s", want, fields)
		}
	}
	debRoot := filepath.Join(tmp, "deb")
	if out, err := exec.Command("dpkg-deb", "-x", deb, debRoot).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v\n%s", err, out)
	}
	var want []string
	for _, f := range installedFiles() {
		want = append(want, filepath.Join("usr", f))
	}
	if got := filesUnder(t, debRoot); !slices.Equal(got, want) {
		t.Errorf("the .deb holds:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkVersion(t, filepath.Join(debRoot, "usr/bin/elicitray"), version)
	if got := desktopEntry(t, filepath.Join(debRoot, "usr/share/applications", appID+".desktop"))["Exec"]; got != `"/usr/bin/elicitray" history window` {
		t.Errorf("the .deb's launcher entry runs %q, want /usr/bin/elicitray's History", got)
	}
}

// checkVersion runs bin version and wants the stamped version.
func checkVersion(t *testing.T, bin, want string) {
	t.Helper()
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s version: %v\n%s", bin, err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "elicitray "+want {
		t.Errorf("%s says %q, want elicitray %s", bin, got, want)
	}
}
