//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/elicitray/elicitray/app"
	"github.com/elicitray/elicitray/app/internal/testkit"
)

// appID is FyneApp.toml's ID: the launcher entry's, the icons' and the
// AppStream component's name.
const appID = "io.github.elicitray"

// iconSizes are the hicolor sizes make install puts in place, besides the
// scalable icon.
var iconSizes = []int{16, 22, 24, 32, 48, 64, 128, 256, 512}

// installedFiles are the files make install puts under its prefix.
func installedFiles() []string {
	files := []string{
		"bin/elicitray",
		"share/applications/" + appID + ".desktop",
		"share/metainfo/" + appID + ".metainfo.xml",
		"share/icons/hicolor/scalable/apps/" + appID + ".svg",
	}
	for _, s := range iconSizes {
		files = append(files, filepath.Join("share/icons/hicolor", sizeDir(s), "apps", appID+".png"))
	}
	slices.Sort(files)
	return files
}

func sizeDir(s int) string { return fmt.Sprintf("%dx%d", s, s) }

// TestInstallUninstall: `make install` into a user's prefix builds
// elicitray with its version stamped in, and puts the binary, a launcher
// entry that opens History (valid for desktop-file-validate, and saying
// what FyneApp.toml says), the icons in every hicolor size and scalable,
// and AppStream metadata of the same version in place; `make uninstall`
// gives the host's servers their own commands back, removes the
// start-at-login entry of the installed binary, and removes exactly the
// installed files, leaving the rest of the prefix alone.
func TestInstallUninstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds elicitray with make: not in the short tier (-short)")
	}
	t.Parallel() // its own directories; most of it is make's building
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	tmp := t.TempDir()
	prefix := filepath.Join(tmp, "home", ".local")
	// Another program's files in the same prefix.
	others := []string{"bin/other-tool", "share/applications/other.desktop", "share/icons/hicolor/48x48/apps/other.png"}
	for _, f := range others {
		testkit.WriteFile(t, filepath.Join(prefix, f), "another program's\n", 0o644)
	}
	makeIn(t, "install", "PREFIX="+prefix, "BIN="+filepath.Join(tmp, "build", "elicitray"))

	if got, want := filesUnder(t, prefix), sortedUnion(installedFiles(), others); !slices.Equal(got, want) {
		t.Fatalf("make install left these files under the prefix:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range installedFiles() {
		want := fs.FileMode(0o644)
		if f == "bin/elicitray" {
			want = 0o755
		}
		if fi, err := os.Stat(filepath.Join(prefix, f)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", f, fi.Mode().Perm(), want, err)
		}
	}

	// The binary says the version make stamped into it: the commit's.
	bin := filepath.Join(prefix, "bin", "elicitray")
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("the installed elicitray version: %v\n%s", err, out)
	}
	version := strings.TrimPrefix(strings.TrimSpace(string(out)), "elicitray ")
	stamped, err := exec.Command("make", "-C", "../..", "-s", "--no-print-directory", "version").Output()
	if err != nil {
		t.Fatalf("make version: %v", err)
	}
	if want := strings.TrimSpace(string(stamped)); version != want || version == app.Version {
		t.Errorf("the installed binary says version %q, want %q (git describe's, stamped in by make)", version, want)
	}

	meta := fyneMetadata(t)
	checkDesktopEntry(t, filepath.Join(prefix, "share/applications", appID+".desktop"), bin, meta)
	checkMetainfo(t, filepath.Join(prefix, "share/metainfo", appID+".metainfo.xml"), version)
	checkIcons(t, filepath.Join(prefix, "share/icons/hicolor"))

	// The user's host runs a server through the installed elicitray, which
	// also starts at login; another elicitray's entry is not the
	// uninstalled one's.
	home := filepath.Join(tmp, "home")
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=", "ELICITRAY_HOME=", "PATH=" + os.Getenv("PATH")}
	hostConfig := filepath.Join(home, ".claude.json")
	original := `{"mcpServers": {"文件": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}}}` + "\n"
	testkit.WriteFile(t, hostConfig, original, 0o600)
	for _, args := range [][]string{{"hosts", "wrap", "claude-code", "文件"}, {"autostart", "on"}} {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("elicitray %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if b, _ := os.ReadFile(hostConfig); !strings.Contains(string(b), bin) {
		t.Fatalf("hosts wrap left the host's config without the installed elicitray:\n%s", b)
	}
	entry := filepath.Join(home, ".config", "autostart", appID+".desktop")

	said := makeInEnv(t, env, "uninstall", "PREFIX="+prefix)
	if b, err := os.ReadFile(hostConfig); err != nil || string(b) != original {
		t.Errorf("after make uninstall the host's config is\n%s(%v)\nwant its own command back:\n%s", b, err, original)
	}
	if _, err := os.Lstat(entry); err == nil || !strings.Contains(said, "removed "+entry+", which started elicitray at login") {
		t.Errorf("make uninstall left the autostart entry %s (%v), or did not say it removed it:\n%s", entry, err, said)
	}
	if got := filesUnder(t, prefix); !slices.Equal(got, sortedUnion(others)) {
		t.Fatalf("after make uninstall the prefix holds:\n%s\nwant only the other program's:\n%s", strings.Join(got, "\n"), strings.Join(others, "\n"))
	}
	for _, d := range []string{"share/metainfo", "share/icons/hicolor/scalable", "share/icons/hicolor/512x512"} {
		if _, err := os.Stat(filepath.Join(prefix, d)); err == nil {
			t.Errorf("make uninstall left the directory %s, which only elicitray's files were in", d)
		}
	}
}

// TestInstallStaged: a package build stages the files under DESTDIR, and
// the launcher entry names the binary where the package puts it (PREFIX),
// not where it was staged.
func TestInstallStaged(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	t.Parallel() // its own directories; make only copies the built binary (INSTALL_BIN)
	stage := t.TempDir()
	makeIn(t, "install", "DESTDIR="+stage, "PREFIX=/usr", "INSTALL_BIN="+testkit.Binary(t))
	var want []string
	for _, f := range installedFiles() {
		want = append(want, filepath.Join("usr", f))
	}
	if got := filesUnder(t, stage); !slices.Equal(got, want) {
		t.Fatalf("make install DESTDIR=… PREFIX=/usr staged:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	entry := desktopEntry(t, filepath.Join(stage, "usr/share/applications", appID+".desktop"))
	if got, want := entry["Exec"], `"/usr/bin/elicitray" history window`; got != want {
		t.Errorf("the staged launcher entry runs %q, want %q", got, want)
	}
	makeIn(t, "uninstall", "DESTDIR="+stage, "PREFIX=/usr")
	if got := filesUnder(t, stage); len(got) != 0 {
		t.Errorf("make uninstall DESTDIR=… left %v", got)
	}
}

// makeIn runs make in the repository and fails the test with its output
// when it fails.
func makeIn(t *testing.T, args ...string) {
	t.Helper()
	makeInEnv(t, nil, args...)
}

// makeInEnv is makeIn with env added to the test's environment.
func makeInEnv(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"-C", "../..", "--no-print-directory"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// filesUnder lists the regular files under dir, relative to it and sorted.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

func sortedUnion(lists ...[]string) []string {
	var all []string
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// fyneApp is what the test reads of FyneApp.toml.
type fyneApp struct {
	Details struct {
		ID   string
		Name string
	}
	LinuxAndBSD struct {
		GenericName string
		Categories  []string
		Comment     string
		Keywords    []string
		ExecParams  string
	}
}

func fyneMetadata(t *testing.T) fyneApp {
	t.Helper()
	var m fyneApp
	if _, err := toml.DecodeFile("../../FyneApp.toml", &m); err != nil {
		t.Fatalf("FyneApp.toml: %v", err)
	}
	if m.Details.ID != appID {
		t.Fatalf("FyneApp.toml's ID is %q, the packaging files' %q", m.Details.ID, appID)
	}
	return m
}

// desktopEntry returns the keys of a launcher entry's [Desktop Entry] group.
func desktopEntry(t *testing.T, path string) map[string]string {
	t.Helper()
	return desktopGroup(t, path, "[Desktop Entry]")
}

// desktopGroup returns the keys of one group of a launcher entry.
func desktopGroup(t *testing.T, path, name string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string]string{}
	group := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "["):
			group = line
		case group == name && strings.Contains(line, "="):
			k, v, _ := strings.Cut(line, "=")
			keys[k] = v
		}
	}
	return keys
}

func checkDesktopEntry(t *testing.T, path, bin string, meta fyneApp) {
	t.Helper()
	e := desktopEntry(t, path)
	for k, want := range map[string]string{
		"Type":        "Application",
		"Name":        meta.Details.Name,
		"GenericName": meta.LinuxAndBSD.GenericName,
		"Comment":     meta.LinuxAndBSD.Comment,
		"Categories":  strings.Join(meta.LinuxAndBSD.Categories, ";") + ";",
		"Keywords":    strings.Join(meta.LinuxAndBSD.Keywords, ";") + ";",
		"Exec":        `"` + bin + `" ` + strings.TrimSpace(meta.LinuxAndBSD.ExecParams),
		"TryExec":     bin,
		"Icon":        appID,
		"Terminal":    "false",
	} {
		if e[k] != want {
			t.Errorf("the launcher entry's %s is %q, want %q (FyneApp.toml says the same for fyne package)", k, e[k], want)
		}
	}
	// The launcher's actions are the tray menu's, each an elicitray command;
	// the first opens that menu in a window, for desktops without a tray.
	if got, want := e["Actions"], "Menu;Settings;Pause;Resume;Quit;"; got != want {
		t.Errorf("the launcher entry's actions are %q, want %q", got, want)
	}
	for _, action := range strings.Split(strings.TrimSuffix(e["Actions"], ";"), ";") {
		a := desktopGroup(t, path, "[Desktop Action "+action+"]")
		args := strings.Fields(a["Exec"])
		if a["Name"] == "" || len(args) != 2 || args[0] != `"`+bin+`"` {
			t.Errorf("the action %s is %v: want a name and %q COMMAND", action, a, bin)
			continue
		}
		if out, err := exec.Command(bin, args[1], "--help").CombinedOutput(); err != nil {
			t.Errorf("the action %s runs `elicitray %s`, which is no command: %v\n%s", action, args[1], err, out)
		}
	}
	if a := desktopGroup(t, path, "[Desktop Action Menu]"); a["Name"] != "Open Menu" || a["Exec"] != `"`+bin+`" menu` {
		t.Errorf("the launcher's Menu action is %v, want Open Menu running %q menu", a, bin)
	}
	if strings.TrimSpace(meta.LinuxAndBSD.ExecParams) != "history window" {
		t.Errorf("the launcher entry opens %q, want the History window", meta.LinuxAndBSD.ExecParams)
	}
	validate, err := exec.LookPath("desktop-file-validate")
	if err != nil {
		t.Fatal("desktop-file-validate is missing: make deps-system installs it (Debian's desktop-file-utils)")
	}
	if out, err := exec.Command(validate, path).CombinedOutput(); err != nil || bytes.Contains(out, []byte("error:")) || bytes.Contains(out, []byte("warning:")) {
		t.Errorf("desktop-file-validate %s: %v\n%s", path, err, out)
	}
}

// metainfo is what the test reads of the AppStream metadata.
type metainfo struct {
	XMLName    xml.Name `xml:"component"`
	Type       string   `xml:"type,attr"`
	ID         string   `xml:"id"`
	Name       string   `xml:"name"`
	Summary    string   `xml:"summary"`
	Launchable string   `xml:"launchable"`
	Binary     string   `xml:"provides>binary"`
	Releases   []struct {
		Version string `xml:"version,attr"`
		Date    string `xml:"date,attr"`
	} `xml:"releases>release"`
}

func checkMetainfo(t *testing.T, path, version string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m metainfo
	if err := xml.Unmarshal(b, &m); err != nil {
		t.Fatalf("the AppStream metadata is no XML: %v", err)
	}
	if m.Type != "desktop-application" || m.ID != appID || m.Launchable != appID+".desktop" || m.Binary != "elicitray" || m.Summary == "" {
		t.Errorf("the AppStream metadata says %+v: want a desktop-application %s launched by %s.desktop, providing elicitray", m, appID, appID)
	}
	if len(m.Releases) != 1 || m.Releases[0].Version != version {
		t.Errorf("the AppStream metadata's releases are %+v, want the installed version %q", m.Releases, version)
	} else if _, err := time.Parse(time.DateOnly, m.Releases[0].Date); err != nil {
		t.Errorf("the release date %q is no date: %v", m.Releases[0].Date, err)
	}
	if cli, err := exec.LookPath("appstreamcli"); err == nil {
		if out, err := exec.Command(cli, "validate", "--no-net", path).CombinedOutput(); err != nil {
			t.Errorf("appstreamcli validate %s: %v\n%s", path, err, out)
		}
	} else {
		t.Log("appstreamcli is not installed: the AppStream metadata was checked only by this test")
	}
}

func checkIcons(t *testing.T, hicolor string) {
	t.Helper()
	for _, s := range iconSizes {
		path := filepath.Join(hicolor, sizeDir(s), "apps", appID+".png")
		f, err := os.Open(path)
		if err != nil {
			t.Error(err)
			continue
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != s || cfg.Height != s {
			t.Errorf("%s: %dx%d (%v), want a %dx%d PNG", path, cfg.Width, cfg.Height, err, s, s)
		}
	}
	svg, err := os.ReadFile(filepath.Join(hicolor, "scalable", "apps", appID+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	var root struct {
		XMLName xml.Name
		ViewBox string `xml:"viewBox,attr"`
	}
	if err := xml.Unmarshal(svg, &root); err != nil || root.XMLName.Local != "svg" || root.ViewBox == "" {
		t.Errorf("the scalable icon is no SVG with a viewBox: %v %+v", err, root)
	}
}
