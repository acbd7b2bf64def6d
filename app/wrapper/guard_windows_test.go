package wrapper

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWatchGuardFileHeldOpen: another program (an editor saving, a virus
// scanner) has config.toml open, shared with nobody, while the user's new
// guard is written, and keeps it past the wrapper's quick re-reads: the
// log says the file cannot be read and the old guard stays. Once the
// program lets go, the wrapper reads it and puts the guard in force,
// though letting go raises no event to wake it.
func TestWatchGuardFileHeldOpen(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "elicitray", "config.toml")
	_, next := watchProd(t, path) // which makes the directory

	name, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := syscall.CreateFile(name, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0 /* shared with nobody */, nil,
		syscall.CREATE_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatal(err)
	}
	held := os.NewFile(uintptr(h), path)
	if _, err := held.WriteString("[servers.prod]\nguard = [\"deploy\"]\n"); err != nil {
		t.Fatal(err)
	}
	if got, want := next(), `elicitray: prod: config.toml changed but cannot be read (`; !strings.HasPrefix(got, want) {
		t.Fatalf("log says\n%s\nwant it to start\n%s", got, want)
	}
	if err := held.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := next(), `elicitray: prod: config.toml changed: calls of "deploy" now wait for your approval.`; got != want {
		t.Fatalf("log says\n%s\nwant\n%s", got, want)
	}
}
