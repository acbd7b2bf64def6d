//go:build linux

package e2e

import (
	"bytes"
	"context"
	"debug/pe"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// TestWindowsInstallerUnderWine (issue 28): the Windows installer that
// make package-windows builds, run under Wine on a fresh Windows whose
// user is "Zoë Ångström" (a profile folder with a space and non-ASCII
// letters), as that user runs it.
//
// A silent install puts elicitray.exe (with its icon, manifest and version)
// and the uninstaller under %LOCALAPPDATA%\Programs\elicitray, a Start-menu
// entry that opens History, the app's entry in Settings > Apps with the
// version, and the start at sign-in. The installed elicitray.exe wraps the
// servers of a Claude Desktop config at its Windows place, %APPDATA%\Claude,
// with Windows line ends. The uninstaller gives that config back byte for
// byte and leaves none of the program, its entries or its sign-in start,
// and keeps the user's history and settings; but while a host runs a
// server through the program, or a host's config cannot be given back, it
// changes nothing and exits 2. Installed again while the program is in use
// and without the start at sign-in, the new program goes in, the old is
// moved aside, and the start at sign-in goes. Installed once more and
// uninstalled with /REMOVEDATA, nothing of elicitray is left.
//
// make test-windows runs it (ELICITRAY_WINE_SETUP, the installer;
// WINEPREFIX, the tests' Wine prefix, which has the Go runtime's shim);
// elsewhere it is skipped.
func TestWindowsInstallerUnderWine(t *testing.T) {
	setup, exe := os.Getenv("ELICITRAY_WINE_SETUP"), os.Getenv("ELICITRAY_WINE_EXE")
	if setup == "" || exe == "" || os.Getenv("WINEPREFIX") == "" {
		t.Skip("make test-windows runs it: it needs the installer make package-windows builds and a Wine prefix (ELICITRAY_WINE_SETUP, ELICITRAY_WINE_EXE, WINEPREFIX)")
	}
	w := newWineUser(t, "Zoë Ångström")
	local, appData := w.folder("Local"), w.folder("Roaming")
	inst := filepath.Join(local, "Programs", "elicitray")
	lnk := filepath.Join(appData, "Microsoft", "Windows", "Start Menu", "Programs", "elicitray.lnk")
	data := filepath.Join(local, "elicitray")
	fyneStore := filepath.Join(appData, "fyne")
	leftovers := func() []string {
		var left []string
		for _, p := range []string{inst, lnk, data, fyneStore} {
			if _, err := os.Lstat(p); err == nil {
				left = append(left, p)
			}
		}
		if v, ok := w.reg(uninstallKey, "DisplayName"); ok {
			left = append(left, uninstallKey+" ("+v+")")
		}
		if v, ok := w.reg(runKey, "elicitray"); ok {
			left = append(left, runKey+`\elicitray (`+v+")")
		}
		return left
	}

	// Claude Desktop's config, at its Windows place, with Windows line ends.
	claude := filepath.Join(appData, "Claude", "claude_desktop_config.json")
	orig := []byte(crlfClaudeConfig)
	if err := os.MkdirAll(filepath.Dir(claude), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(claude, orig, 0o600); err != nil {
		t.Fatal(err)
	}

	if out, err := w.run(setup, "/S"); err != nil {
		t.Fatalf("the silent install: %v\n%s", err, out)
	}
	installed := filepath.Join(inst, "elicitray.exe")
	if a, b := fileBytes(t, installed), fileBytes(t, exe); !bytes.Equal(a, b) {
		t.Fatalf("%s is not the elicitray.exe that was packaged (%d bytes, want %d)", installed, len(a), len(b))
	}
	uninstaller := filepath.Join(inst, "Uninstall elicitray.exe")
	if _, err := os.Stat(uninstaller); err != nil {
		t.Errorf("no uninstaller: %v", err)
	}
	out, err := w.run(installed, "version")
	version := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out), "elicitray "))
	if err != nil || version == "" {
		t.Fatalf("the installed elicitray.exe version: %v\n%s", err, out)
	}
	checkResources(t, installed, version)
	// The Start-menu entry starts the installed program and opens History.
	if b, err := os.ReadFile(lnk); err != nil {
		t.Errorf("no Start-menu entry: %v", err)
	} else if !containsText(b, "history window") || !containsText(b, "elicitray.exe") {
		t.Errorf("the Start-menu entry %s does not run elicitray.exe history window", lnk)
	}
	// Settings > Apps lists it with its version and how to remove it.
	if v, _ := w.reg(uninstallKey, "DisplayVersion"); v != version {
		t.Errorf("Settings > Apps says version %q, want %q", v, version)
	}
	if v, _ := w.reg(uninstallKey, "UninstallString"); !strings.Contains(v, `\Uninstall elicitray.exe`) {
		t.Errorf("Settings > Apps would remove it with %q", v)
	}
	if v, ok := w.reg(runKey, "elicitray"); !ok || !strings.Contains(strings.ToLower(v), `\programs\elicitray\elicitray.exe`) {
		t.Errorf("the start at sign-in is %q (set %v), want the installed elicitray.exe", v, ok)
	}
	if out, _ := w.run(installed, "autostart", "status"); !strings.HasPrefix(out, "autostart on:") {
		t.Errorf("autostart status after the install says:\n%s", out)
	}

	// The installed program wraps Claude Desktop's servers where Windows
	// keeps them.
	if out, err := w.run(installed, "hosts", "wrap", "claude-desktop", "--all"); err != nil {
		t.Fatalf("hosts wrap claude-desktop: %v\n%s", err, out)
	}
	if e := claudeEntry(t, claude); !strings.EqualFold(e.Command, w.winPath(installed)) {
		t.Errorf("Claude Desktop's entry runs %q %q, want the installed elicitray.exe", e.Command, e.Args)
	}
	settings := filepath.Join(data, "config.toml")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte("[servers.files]\nburst = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// A host runs a server through the installed program while the user
	// installs again, without the start at sign-in: the program in use is
	// moved aside, the new one goes in, and the start at sign-in goes.
	server := exec.Command("wine", installed, "demo-server")
	server.Env = w.env
	serverIn, err := server.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	stopServer := func() { serverIn.Close(); _ = server.Wait() }
	defer stopServer()
	if out, err := w.run(setup, "/S", "/AUTOSTART=0"); err != nil {
		t.Fatalf("installing over a program in use: %v\n%s", err, out)
	}
	if !bytes.Equal(fileBytes(t, installed), fileBytes(t, exe)) {
		t.Errorf("after installing over a program in use, %s is not the packaged one", installed)
	}
	if _, err := os.Stat(filepath.Join(inst, "elicitray-old-1.exe")); err != nil {
		t.Errorf("the program in use was not moved aside: %v", err)
	}
	if v, ok := w.reg(runKey, "elicitray"); ok {
		t.Errorf("installed again with /AUTOSTART=0, elicitray still starts at sign-in: %q", v)
	}
	// The uninstaller changes nothing while the program is in use, nor
	// while a host's config cannot be given back.
	unchanged := func(when string) {
		t.Helper()
		if _, err := os.Stat(installed); err != nil {
			t.Errorf("%s, the uninstaller took the program: %v", when, err)
		}
		if _, ok := w.reg(uninstallKey, "DisplayName"); !ok {
			t.Errorf("%s, the uninstaller took the Settings > Apps entry", when)
		}
		if e := claudeEntry(t, claude); !strings.EqualFold(e.Command, w.winPath(installed)) {
			t.Errorf("%s, Claude Desktop's entry was changed to %q %q", when, e.Command, e.Args)
		}
	}
	w.uninstall(uninstaller, "/S")
	unchanged("with the program in use")
	stopServer()
	if err := os.Chmod(claude, 0o444); err != nil { // Wine's read-only attribute
		t.Fatal(err)
	}
	w.uninstall(uninstaller, "/S")
	unchanged("with a read-only host config")
	if err := os.Chmod(claude, 0o644); err != nil {
		t.Fatal(err)
	}

	w.uninstall(uninstaller, "/S")
	if back, _ := os.ReadFile(claude); !bytes.Equal(back, orig) {
		t.Errorf("after the uninstall Claude Desktop's config is\n%q\nwant it as it was:\n%q", back, orig)
	}
	if left := leftovers(); len(left) != 1 || left[0] != data {
		t.Errorf("the uninstall left %q, want only the user's history and settings (%s)", left, data)
	}
	if _, err := os.Stat(settings); err != nil {
		t.Errorf("the uninstall took the user's settings: %v", err)
	}

	// Again, without the start at sign-in; then uninstalled with the
	// user's data.
	if out, err := w.run(setup, "/S", "/AUTOSTART=0"); err != nil {
		t.Fatalf("the second install: %v\n%s", err, out)
	}
	if out, err := w.run(installed, "version"); err != nil || !strings.Contains(out, version) {
		t.Fatalf("elicitray.exe installed again: %v\n%s", err, out)
	}
	if v, ok := w.reg(runKey, "elicitray"); ok {
		t.Errorf("installed with /AUTOSTART=0, elicitray starts at sign-in: %q", v)
	}
	w.uninstall(uninstaller, "/S", "/REMOVEDATA")
	if left := leftovers(); len(left) > 0 {
		t.Errorf("the uninstall with /REMOVEDATA left %q", left)
	}
}

const (
	uninstallKey = `HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\elicitray`
	runKey       = `HKCU\Software\Microsoft\Windows\CurrentVersion\Run`
)

// wineUser runs Windows programs as a Windows user of a Wine prefix of
// the test's own (a fresh Windows, as a user installs on it), with no
// ELICITRAY_HOME: what the installer does is to the user's own folders and
// registry.
type wineUser struct {
	t      *testing.T
	env    []string
	user   string
	driveC string // the prefix's drive_c, where C:\ is
	// holder is a Windows program that waits on its stdin, holding the
	// Wine session up between the test's commands: without it each one
	// starts Wine's services anew, 3.4 s.
	holder *exec.Cmd
	stdin  io.WriteCloser
	tmp    string // where commands' output goes
	prefix string
}

// newWineUser makes a prefix whose user is named user, with the Go
// runtime's shim from the tests' prefix (.ci/test-windows puts it there).
func newWineUser(t *testing.T, user string) *wineUser {
	t.Helper()
	prefix := t.TempDir()
	w := &wineUser{t: t, user: user, driveC: filepath.Join(prefix, "drive_c"), tmp: t.TempDir(), prefix: prefix}
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "ELICITRAY_HOME", "WINEPREFIX", "USER", "LOGNAME", "LC_ALL":
			continue
		}
		w.env = append(w.env, kv)
	}
	// Wine names the profile folder after USER when it makes the prefix,
	// in the locale's encoding: C.UTF-8 is there on every Debian (a
	// locale not generated would leave Wine ASCII, and no folder).
	w.env = append(w.env, "WINEPREFIX="+prefix, "USER="+user, "LOGNAME="+user, "LC_ALL=C.UTF-8", "WINEDEBUG=-all")
	t.Cleanup(func() {
		w.release()
		cmd := exec.Command("wineserver", "-k")
		cmd.Env = w.env
		_ = cmd.Run()
	})
	if err := w.wine("wineboot", "-i"); err != nil {
		t.Fatalf("making a Wine prefix: %v", err)
	}
	shim := filepath.Join(os.Getenv("WINEPREFIX"), "drive_c", "windows", "system32", "bcryptprimitives.dll")
	if err := os.WriteFile(filepath.Join(w.driveC, "windows", "system32", "bcryptprimitives.dll"), fileBytes(t, shim), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// run runs a Windows program and returns what it printed.
func (w *wineUser) run(prog string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), desktopWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "wine", append([]string{prog}, args...)...)
	cmd.Env = w.env
	// Into a file, not a pipe: the wineserver a command starts holds
	// its output open for as long as it runs.
	f, err := os.CreateTemp(w.tmp, "out")
	if err != nil {
		w.t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Run()
	out, _ := os.ReadFile(f.Name())
	return string(out), err
}

// wine runs a Windows program and waits until every program it started
// has ended too (the uninstaller runs on from a copy of itself in %TEMP%):
// until the Wine session ends, so the holder lets it go meanwhile.
func (w *wineUser) wine(prog string, args ...string) error {
	w.release()
	out, err := w.run(prog, args...)
	if err != nil {
		w.t.Logf("wine %s %q: %v\n%s", filepath.Base(prog), args, err, out)
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), desktopWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "wineserver", "-w")
	cmd.Env = w.env
	if err := cmd.Run(); err != nil {
		return err
	}
	w.hold()
	return nil
}

// uninstall runs an NSIS uninstaller and waits for it to end: it starts a
// copy of itself in %TEMP%\~nsuN.tmp, which does the work, and returns at
// once (the copy's exit code reaches nobody). The copy is a Linux process
// of this prefix whose command line names that folder.
func (w *wineUser) uninstall(prog string, args ...string) {
	w.t.Helper()
	if out, err := w.run(prog, args...); err != nil {
		w.t.Fatalf("%s %q: %v\n%s", filepath.Base(prog), args, err, out)
	}
	running := func() bool {
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			cmdline, _ := os.ReadFile(p)
			env, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "environ"))
			if bytes.Contains(cmdline, []byte(`\~nsu`)) && bytes.Contains(env, []byte("WINEPREFIX="+w.prefix+"\x00")) {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(desktopWait); running(); time.Sleep(pollEvery) {
		if time.Now().After(deadline) {
			w.t.Fatalf("the uninstaller %s %q still runs after %v", filepath.Base(prog), args, desktopWait)
		}
	}
}

// hold starts the holder.
func (w *wineUser) hold() {
	w.holder = exec.Command("wine", "cmd")
	w.holder.Env = w.env
	var err error
	if w.stdin, err = w.holder.StdinPipe(); err != nil {
		w.t.Fatal(err)
	}
	if err := w.holder.Start(); err != nil {
		w.t.Fatal(err)
	}
}

// release ends the holder: cmd ends at the end of its input.
func (w *wineUser) release() {
	if w.holder == nil {
		return
	}
	w.stdin.Close()
	_ = w.holder.Wait()
	w.holder = nil
}

// folder is the Linux path of the user's AppData folder name (Local,
// Roaming): C:\users\USER\AppData\NAME, where Windows' LOCALAPPDATA and
// APPDATA are.
func (w *wineUser) folder(name string) string {
	w.t.Helper()
	dir := filepath.Join(w.driveC, "users", w.user, "AppData", name)
	if _, err := os.Stat(dir); err != nil {
		out, _ := exec.Command("find", w.driveC+"/users", "-maxdepth", "3").CombinedOutput()
		w.t.Fatalf("the Wine prefix has no AppData\\%s: %v\n%s", name, err, out)
	}
	return dir
}

// winPath is the Windows path of a path under the prefix's drive_c.
func (w *wineUser) winPath(p string) string {
	return `C:` + strings.ReplaceAll(strings.TrimPrefix(p, w.driveC), "/", `\`)
}

// reg is a registry value as `reg query` prints it, and whether it is set.
func (w *wineUser) reg(key, value string) (string, bool) {
	out, err := w.run("reg", "query", key, "/v", value)
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == value && strings.HasPrefix(f[1], "REG_") {
			_, v, _ := strings.Cut(line, f[1])
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// containsText says whether b holds s, in UTF-16 (as Windows writes it in
// a shortcut or a resource) or in bytes.
func containsText(b []byte, s string) bool {
	var u []byte
	for _, c := range utf16.Encode([]rune(s)) {
		u = append(u, byte(c), byte(c>>8))
	}
	return bytes.Contains(b, u) || bytes.Contains(b, []byte(s))
}

// checkResources: the program carries what Explorer and Task Manager
// show of it: its resources hold an icon, the manifest and the version.
func checkResources(t *testing.T, path, version string) {
	t.Helper()
	f, err := pe.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".rsrc")
	if s == nil {
		t.Fatalf("%s has no resources: no icon, manifest or version", path)
	}
	b, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ProductVersion", version, "PerMonitorV2", "longPathAware"} {
		if !containsText(b, want) {
			t.Errorf("%s's resources lack %q", path, want)
		}
	}
	// An icon: PNG data (the 256-pixel image) or a bitmap header of 40 bytes.
	if !bytes.Contains(b, []byte("\x89PNG")) && !bytes.Contains(b, []byte{40, 0, 0, 0, 16, 0, 0, 0, 32, 0, 0, 0}) {
		t.Errorf("%s's resources hold no icon", path)
	}
}

// claudeEntry is the files server's entry in a Claude Desktop config.
func claudeEntry(t *testing.T, path string) (e struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}) {
	t.Helper()
	var cfg struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	b := fileBytes(t, path)
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("%s is no JSON (%v):\n%s", path, err, b)
	}
	if err := json.Unmarshal(cfg.MCPServers["files"], &e); err != nil {
		t.Fatalf("%s has no files server:\n%s", path, b)
	}
	return e
}
