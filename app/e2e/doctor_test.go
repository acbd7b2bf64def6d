//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/session"
)

// holdLock starts another process that holds an exclusive flock on path, as
// a long `history export` or any program holding the file would, and ends
// it when the test does. It returns the holder's pid.
func holdLock(t *testing.T, path string) int {
	t.Helper()
	pid, _ := testkit.HoldLock(t, path)
	return pid
}

// TestDoctor (issue 9): doctor's findings for what stops prompts, each as a
// sentence, and its exit status.
func TestDoctor(t *testing.T) {
	t.Parallel()
	t.Run("all well", func(t *testing.T) {
		needDisplay(t)
		e := newTestEnv(t, false)
		out, stderr, code := e.run(t, nil, nil, "doctor")
		if code != 0 || !strings.Contains(out, "Prompts can be shown.") {
			t.Fatalf("exit %d:\n%s%s", code, out, stderr)
		}
		for topic, want := range map[string]string{
			"Display":          "✓ Display: " + e.display + " opens (found in this process's environment).",
			"Socket directory": "does not exist yet: the first hub makes it, mode 0700.",
			"Hub":              "✓ Hub: not running; the first prompt starts one.",
			"History":          "is not made yet",
			"Config":           "does not exist: the defaults apply.",
		} {
			if l := testkit.DoctorLine(out, topic); !strings.Contains(l, want) {
				t.Errorf("%s line %q, want it to say %q\n%s", topic, l, want, out)
			}
		}
	})
	t.Run("no display", func(t *testing.T) {
		e := newTestEnv(t, false)
		out, _, code := e.run(t, testkit.NoSession(t), []string{"DISPLAY=", "WAYLAND_DISPLAY="}, "doctor")
		if code != 1 {
			t.Errorf("exit %d, want 1 (prompts cannot be shown)", code)
		}
		if l := testkit.DoctorLine(out, "Display"); !strings.HasPrefix(l, "✗ Display: no desktop session of yours was found: DISPLAY is not set here") {
			t.Errorf("Display line %q\n%s", l, out)
		}
		if !strings.Contains(out, "Prompts cannot be shown: no desktop session was found to start a hub in.") {
			t.Errorf("no conclusion saying why:\n%s", out)
		}
	})
	t.Run("bad display", func(t *testing.T) {
		e := newTestEnv(t, false)
		out, _, code := e.run(t, testkit.NoSession(t), []string{"DISPLAY=:97"}, "doctor")
		if l := testkit.DoctorLine(out, "Display"); code != 1 || !strings.Contains(l, "display :97 (from this process's environment) did not open: no X server is running at DISPLAY=:97") {
			t.Errorf("exit %d, Display line %q\n%s", code, l, out)
		}
	})
	t.Run("run directory open to others", func(t *testing.T) {
		needDisplay(t)
		e := newTestEnv(t, false)
		home := e.home
		if err := os.Mkdir(filepath.Join(home, "run"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(home, "run"), 0o755) // past the umask
		out, _, code := e.run(t, nil, nil, "doctor")
		want := "✗ Socket directory: the hub's directory " + filepath.Join(home, "run") + " is open to other users (mode 0755, want 0700)."
		if l := testkit.DoctorLine(out, "Socket directory"); code != 1 || l != want {
			t.Errorf("exit %d, line %q, want %q\n%s", code, l, want, out)
		}
	})
	t.Run("run directory of another user", func(t *testing.T) {
		needDisplay(t)
		if os.Getuid() != 0 {
			t.Skip("only root can give a directory to another user: skipped")
		}
		e := newTestEnv(t, false)
		home := e.home
		run := filepath.Join(home, "run")
		if err := os.Mkdir(run, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(run, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		out, _, code := e.run(t, nil, nil, "doctor")
		if l := testkit.DoctorLine(out, "Socket directory"); code != 1 || !strings.Contains(l, "belongs to "+hubapi.UserName(65534)+", not to you") {
			t.Errorf("exit %d, line %q\n%s", code, l, out)
		}
	})
	t.Run("run directory is a link", func(t *testing.T) {
		needDisplay(t)
		e := newTestEnv(t, false)
		home := e.home
		elsewhere := t.TempDir()
		if err := os.Symlink(elsewhere, filepath.Join(home, "run")); err != nil {
			t.Fatal(err)
		}
		out, _, code := e.run(t, nil, nil, "doctor")
		if l := testkit.DoctorLine(out, "Socket directory"); code != 1 || !strings.Contains(l, "is a symbolic link (to "+elsewhere+"), not a directory of your own") {
			t.Errorf("exit %d, line %q\n%s", code, l, out)
		}
	})
	t.Run("history locked", func(t *testing.T) {
		needDisplay(t)
		e := newTestEnv(t, false)
		pid := holdLock(t, paths.Under(e.home).History)
		out, _, code := e.run(t, nil, nil, "doctor")
		l := testkit.DoctorLine(out, "History")
		// A locked history costs no prompt: the hub spools (issue 10); it
		// is a ✗ all the same, and doctor exits 1 (issue 24).
		if code != 1 || !strings.HasPrefix(l, "✗ History: ") || !strings.Contains(l, "is in use by another process (pid ") ||
			!strings.Contains(l, "flock --exclusive") || !strings.Contains(l, "a hub keeps decisions in the spool until it is free") {
			t.Errorf("exit %d, History line %q (holder pid %d)\n%s", code, l, pid, out)
		}
	})
	t.Run("bad config", func(t *testing.T) {
		needDisplay(t)
		e := newTestEnv(t, false)
		home := e.home
		cfg := "timeout = \"ten minutes\"\n[servers.github]\nrule = \"ask-me\"\n[server.typo]\nrule = \"ask\"\n"
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		out, _, code := e.run(t, nil, nil, "doctor")
		if l := testkit.DoctorLine(out, "Config"); code != 1 || !strings.HasPrefix(l, "✗ Config: ") {
			t.Errorf("exit %d, Config line %q\n%s", code, l, out)
		}
		for _, want := range []string{"ten minutes", "ask-me", "server.typo"} {
			if !strings.Contains(out, want) {
				t.Errorf("the report does not name the mistake %q:\n%s", want, out)
			}
		}
	})
	t.Run("hosts", func(t *testing.T) {
		needDisplay(t)
		e := newTestEnv(t, false)
		userHome := t.TempDir()
		cursor := `{"mcpServers": {
  "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
  "old": {"command": "/gone/bin/elicitray", "args": ["wrap", "--name", "old", "--", "old-server"]},
  "docs": {"url": "https://docs.example.com/mcp"}
}}`
		if err := os.MkdirAll(filepath.Join(userHome, ".cursor"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(userHome, ".cursor", "mcp.json"), []byte(cursor), 0o600); err != nil {
			t.Fatal(err)
		}
		out, _, code := e.run(t, nil, []string{"HOME=" + userHome}, "doctor")
		want := "✗ Cursor (user): ~/.cursor/mcp.json: wrapped: old; not wrapped: github; remote: docs."
		if l := testkit.DoctorLine(out, "Cursor (user)"); l != want {
			t.Errorf("Cursor line %q, want %q\n%s", l, want, out)
		}
		// Prompts can still be shown, but a server whose elicitray is gone
		// asks nothing: a ✗, so doctor exits 1 (issue 24).
		if code != 1 || !strings.Contains(out, "Prompts can be shown.") {
			t.Errorf("exit %d, want 1 for the ✗ line\n%s", code, out)
		}
		for _, more := range []string{
			"    - old runs /gone/bin/elicitray, which does not exist: `elicitray hosts wrap cursor old` points it at this binary",
			"    - `elicitray hosts wrap cursor --all` wraps the rest",
		} {
			if !strings.Contains(out, more+"\n") {
				t.Errorf("the report lacks %q:\n%s", more, out)
			}
		}
	})
	t.Run("hosts, warnings only", func(t *testing.T) {
		needDisplay(t)
		e := newTestEnv(t, false)
		userHome := t.TempDir()
		cursor := `{"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}}}`
		if err := os.MkdirAll(filepath.Join(userHome, ".cursor"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(userHome, ".cursor", "mcp.json"), []byte(cursor), 0o600); err != nil {
			t.Fatal(err)
		}
		out, _, code := e.run(t, nil, []string{"HOME=" + userHome}, "doctor")
		// A server not yet wrapped is a !, a warning: doctor exits 0.
		if l := testkit.DoctorLine(out, "Cursor (user)"); code != 0 || !strings.HasPrefix(l, "! Cursor (user): ") || strings.Contains(out, "✗") {
			t.Errorf("exit %d, Cursor line %q, want ! and exit 0\n%s", code, l, out)
		}
	})
	t.Run("full disk", func(t *testing.T) {
		needDisplay(t)
		dir := smallFileSystem(t)
		fill(t, dir)
		out, _, code := testkit.RunBinary(t, os.Environ(), nil, []string{"ELICITRAY_HOME=" + dir}, "doctor")
		if l := testkit.DoctorLine(out, "History"); code != 1 || !strings.HasPrefix(l, "✗ History: ") || !strings.Contains(out, "the disk is full: decisions are kept in memory, and saved once space is freed") {
			t.Errorf("exit %d, History line %q\n%s", code, l, out)
		}
	})
}

// smallFileSystem mounts a 1 MiB tmpfs for the test and unmounts it after;
// it needs root.
func smallFileSystem(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("a full file system needs root to mount a small tmpfs: skipped")
	}
	dir, err := os.MkdirTemp("", "er-full-")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		os.Remove(dir)
		t.Skipf("mounting a tmpfs: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		// A process killed a moment ago may still be closing its files
		// there: try again for a while before giving up.
		var out []byte
		var err error
		for range 100 {
			if out, err = exec.Command("umount", dir).CombinedOutput(); err == nil {
				os.Remove(dir)
				return
			}
			time.Sleep(pollEvery)
		}
		t.Errorf("umount %s: %v\n%s", dir, err, out)
		_ = exec.Command("umount", "-l", dir).Run()
		os.Remove(dir)
	})
	return dir
}

// fill writes into dir until its file system is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	for {
		if _, err := f.Write(chunk[:512]); err != nil {
			return
		}
	}
}

// TestHubStartFailures (issue 9): a hub that cannot start says why in one
// sentence, to the wrapper or command that started it — never a stack
// trace.
func TestHubStartFailures(t *testing.T) {
	t.Parallel()
	t.Run("bad display, hub run directly", func(t *testing.T) {
		e := newTestEnv(t, false)
		_, stderr, code := e.run(t, nil, []string{"DISPLAY=:97"}, "hub")
		if code != session.HubExitNoDisplay || !strings.Contains(stderr, session.HubFailPrefix+"no X server is running at DISPLAY=:97") || strings.Contains(stderr, "goroutine") {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
	})
	t.Run("bad display, settings", func(t *testing.T) {
		e := newTestEnv(t, false)
		_, stderr, code := e.run(t, testkit.NoSession(t), []string{"DISPLAY=:97"}, "settings")
		want := "elicitray: the Settings window: no elicitray hub is running and none could be started: no desktop session of yours was found: display :97 (from this process's environment) did not open: no X server is running at DISPLAY=:97"
		if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("exit %d, stderr:\n%s\nwant it to say %q", code, stderr, want)
		}
	})
	t.Run("history locked", func(t *testing.T) {
		// The hub starts all the same (prompts work, issue 10); the
		// history window cannot open until the lock goes, and says why.
		d := newParallelDesktop(t)
		holdLock(t, d.paths.History)
		_, stderr, code := testkit.RunBinary(t, d.env, nil, nil, "history", "window")
		want := "elicitray: the history window: the history is not available: the history file " + d.paths.History + " is in use by another process (pid "
		if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "flock --exclusive") {
			t.Errorf("exit %d, stderr:\n%s\nwant it to say %q", code, stderr, want)
		}
		if st, _, _ := testkit.RunBinary(t, d.env, nil, nil, "status"); !strings.Contains(st, "history cannot be written: the history file "+d.paths.History+" is in use") {
			t.Errorf("status with the history locked:\n%s", st)
		}
	})
}

// TestHubFailureSentence: the sentence doctor and a starting wrapper show is
// the last failed start's, and none once a later hub started.
func TestHubFailureSentence(t *testing.T) {
	for _, tt := range []struct {
		name, log, want string
	}{
		{"none", "2026-12-01 10:00:00 " + session.HubStartedLine + "/run/user/1000/elicitray/hub.sock\n", ""},
		{"failed", "2026-12-01 10:00:00 " + session.HubFailPrefix + "no X server is running at DISPLAY=:5\n", "no X server is running at DISPLAY=:5"},
		{"failed twice", session.HubFailPrefix + "first\n" + session.HubFailPrefix + "second\n", "second"},
		{"failed, then started", session.HubFailPrefix + "the history file is in use\n" + session.HubStartedLine + "sock\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "hub.log")
			if err := os.WriteFile(path, []byte(tt.log), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := session.HubFailure(path, 0); got != tt.want {
				t.Errorf("hubFailure = %q, want %q", got, tt.want)
			}
		})
	}
}
