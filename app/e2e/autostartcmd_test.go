//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/autostart"
	"github.com/elicitray/elicitray/app/internal/testkit"
)

// TestAutostartOnOffStatus: `elicitray autostart on` writes the XDG
// autostart entry that starts this binary's hub at login, status and
// doctor say so, off removes it; a link planted where the entry goes is
// refused and left as it was.
func TestAutostartOnOffStatus(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	cfg := filepath.Join(tmp, "config")
	env := []string{"HOME=" + tmp, "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=" + cfg, "ELICITRAY_HOME=" + filepath.Join(tmp, "eh")}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(testkit.Binary(t), args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := run(args...)
		if err != nil {
			t.Fatalf("elicitray %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	entry := filepath.Join(cfg, "autostart", autostart.ID+".desktop")
	if out := must("autostart", "status"); !strings.HasPrefix(out, "autostart off") {
		t.Errorf("status before on: %q", out)
	}
	if out := must("autostart", "on"); !strings.Contains(out, entry) {
		t.Errorf("on says %q, want the entry's path %s", out, entry)
	}
	exe, err := filepath.EvalSymlinks(testkit.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	want := autostart.XDGEntry(autostart.Target{Exe: exe, Home: filepath.Join(tmp, "eh")})
	if string(got) != string(want) {
		t.Errorf("the autostart entry:\n%s\nwant:\n%s", got, want)
	}
	if fi, _ := os.Stat(entry); fi == nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the entry's mode is %v, want 0644", fi.Mode())
	}
	if out := must("autostart", "status"); !strings.HasPrefix(out, "autostart on: ") {
		t.Errorf("status after on: %q", out)
	}
	out, _ := run("doctor")
	if !strings.Contains(out, "Autostart") || !strings.Contains(out, "autostart on: ") {
		t.Errorf("doctor does not report autostart on:\n%s", out)
	}
	// Another ELICITRAY_HOME's hub is not the one the entry starts.
	env[len(env)-1] = "ELICITRAY_HOME=" + filepath.Join(tmp, "other")
	if out := must("autostart", "status"); !strings.Contains(out, "another ELICITRAY_HOME") {
		t.Errorf("status for another ELICITRAY_HOME: %q", out)
	}
	if out := must("autostart", "off"); !strings.Contains(out, "removed") {
		t.Errorf("off says %q", out)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("after off the entry is still there (%v)", err)
	}
	if out := must("autostart", "off"); !strings.Contains(out, "was off") {
		t.Errorf("off again says %q", out)
	}

	// A link planted in the entry's place: on and off leave it, and what
	// it points at, alone.
	target := filepath.Join(tmp, "elsewhere")
	if err := os.WriteFile(target, []byte("not elicitray's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, entry); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"on", "off"} {
		out, err := run("autostart", verb)
		if err == nil || !strings.Contains(out, "not a regular file") {
			t.Errorf("autostart %s over a planted link: %v, %q; want it refused", verb, err, out)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "not elicitray's\n" {
		t.Errorf("the link's target now holds %q", b)
	}
	if fi, err := os.Lstat(entry); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the planted link is gone or replaced (%v)", err)
	}
}
