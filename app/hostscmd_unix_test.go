//go:build linux

package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// TestHostsNotRegular: a named pipe where Cursor's config belongs (the
// break test's mkfifo) no longer hangs list and wrap: both say what it is,
// as they do for a symbolic link to nothing where Gemini's belongs (once
// "no config file yet"). And a config nested two million deep is refused
// with a sentence, not a Go stack overflow.
func TestHostsNotRegular(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	hostsEnv(t, home, project)
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	os.Remove(cursor)
	if err := syscall.Mkfifo(cursor, 0o600); err != nil {
		t.Fatal(err)
	}
	gemini := filepath.Join(home, ".gemini", "settings.json")
	os.Remove(gemini)
	if err := os.Symlink(filepath.Join(home, "dotfiles", "gemini.json"), gemini); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(project, "deep.json")
	testkit.WriteFile(t, deep, strings.Repeat("[", 2_000_000), 0o600)
	for _, tt := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"hosts", "list"}, 0, "Cursor (user) — ~/.cursor/mcp.json\n  cannot read it: ~/.cursor/mcp.json is a named pipe, not a regular file: elicitray reads and writes only regular files", ""},
		{[]string{"hosts", "wrap", "cursor", "--all"}, 1, "", cursor + " is a named pipe, not a regular file: elicitray reads and writes only regular files"},
		{[]string{"hosts", "list"}, 0, "Gemini CLI (user) — ~/.gemini/settings.json\n  cannot read it: ~/.gemini/settings.json is a symbolic link to nothing (~/dotfiles/gemini.json, which does not exist): point it at the config file, or remove it\n", ""},
		{[]string{"hosts", "wrap", "gemini", "--all"}, 1, "", gemini + " is a symbolic link to nothing"},
		{[]string{"hosts", "list", "--config", deep}, 1, "", deep + ":1:1001: arrays and objects are nested more than 1000 levels deep here"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tt.args, nil, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
		})
	}
}
