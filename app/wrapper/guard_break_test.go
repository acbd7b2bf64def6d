package wrapper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWatchGuardDirectoryRecreated: the user removes the elicitray
// directory (a reset, or a dotfiles tool putting it back) and writes
// config.toml again: the running wrapper follows the new file, as it did
// the old one.
func TestWatchGuardDirectoryRecreated(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "elicitray")
	path := filepath.Join(dir, "config.toml")
	_, next := watchProd(t, path)
	saveAsSettings(t, path, "[servers.prod]\nguard = [\"deploy\"]\n")
	if got, want := next(), `elicitray: prod: config.toml changed: calls of "deploy" now wait for your approval.`; got != want {
		t.Fatalf("log says\n%s\nwant\n%s", got, want)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	saveAsSettings(t, path, "[servers.prod]\nguard = [\"wipe\"]\n")
	// Whatever the log says of the removal, it ends by saying the new
	// guard is in force.
	for {
		got := next()
		if got == `elicitray: prod: config.toml changed: calls of "wipe" now wait for your approval.` {
			break
		}
		if !strings.HasPrefix(got, "elicitray: prod: ") {
			t.Fatalf("log says %q", got)
		}
		t.Logf("log: %s", got)
	}
}

// TestWatchGuardSameSizeSameTime: two saves of config.toml in the same
// tick of the file system's clock, of the same size (guard = ["a"], then
// ["b"]; a script toggling it, say): the second, a new file renamed over
// the first, is put in force, though its size and time are the first's.
func TestWatchGuardSameSizeSameTime(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "elicitray")
	path := filepath.Join(dir, "config.toml")
	_, next := watchProd(t, path)
	var first os.FileInfo
	for _, name := range []string{"a", "b"} {
		tmp := path + ".new"
		if err := os.WriteFile(tmp, []byte("[servers.prod]\nguard = [\""+name+"\"]\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if first != nil {
			// The same tick: the clock of the file system is coarse.
			if err := os.Chtimes(tmp, first.ModTime(), first.ModTime()); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		if got, want := next(), `elicitray: prod: config.toml changed: calls of "`+name+`" now wait for your approval.`; got != want {
			t.Fatalf("log says\n%s\nwant\n%s", got, want)
		}
		if first == nil {
			var err error
			if first, err = os.Stat(path); err != nil {
				t.Fatal(err)
			}
		}
	}
}
