package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/config"
	"github.com/google/go-cmp/cmp"
)

// TestConfigGuard: `guard` and `guard_destructive` under [servers.NAME] are
// what the wrapper of NAME guards; a pattern path.Match cannot read, or a
// guard that is not a list of names, is a mistake naming its line; and the
// Settings window's save writes the guard back as it read it.
func TestConfigGuard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name+".toml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	path := write("good", "[servers.prod]\nguard = [\"delete_*\", \"deploy\"]\nguard_destructive = true\n")
	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Server{Guard: []string{"delete_*", "deploy"}, GuardDestructive: true}
	if diff := cmp.Diff(want, c.Servers["prod"]); diff != "" {
		t.Errorf("prod's config mismatch (-want +got):\n%s", diff)
	}
	// Saved through the Settings window, and read again: the same guard.
	if err := config.Save(path, WithUnshown(ConfigOf(SettingsOf(c, map[string]bool{})), c)); err != nil {
		t.Fatal(err)
	}
	again, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, again.Servers["prod"]); diff != "" {
		t.Errorf("after a Settings save, prod's config mismatch (-want +got):\n%s", diff)
	}

	for _, tt := range []struct{ name, text, says string }{
		{"bad pattern", "[servers.prod]\nguard = [\"drop_[\"]\n", `line 2: servers.prod: guard "drop_[" is not a pattern`},
		{"not a list", "[servers.prod]\nguard = \"deploy\"\n", `line 2: servers.prod: guard must be a list of tool names`},
		{"not a flag", "[servers.prod]\nguard_destructive = \"yes\"\n", `line 2: servers.prod: guard_destructive must be true or false`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Load(write(tt.name, tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %v, want one saying %q", err, tt.says)
			}
		})
	}
}
