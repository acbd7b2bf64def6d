package wrapper

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/elicitray/elicitray/app/config"
)

// TestWatchGuardFileHeldOpen: another program (an editor saving, a virus
// scanner) has config.toml open, shared with nobody, while the user's new
// guard is written: the wrapper cannot read the file then. It reads it
// again once the program lets go, and puts the guard in force, though no
// change of the file follows to wake it.
func TestWatchGuardFileHeldOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "elicitray")
	path := filepath.Join(dir, "config.toml")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// Not parallel: the hook is the package's.
	unread := make(chan struct{})
	var once sync.Once
	testHookUnread = func(p string) {
		if p == filepath.Clean(path) {
			once.Do(func() { close(unread) })
		}
	}
	t.Cleanup(func() { testHookUnread = nil })
	relay := &relaySettings{}
	log, next := watchLog(t)
	watchEnded(t, WatchGuard(t.Context(), path, "prod", config.Server{}, config.DefaultKeepAlive, config.StampOf(path), relay, log))

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
	<-unread // the wrapper tried, and could not open it
	if err := held.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := next(), `elicitray: prod: config.toml changed: calls of "deploy" now wait for your approval.`; got != want {
		t.Fatalf("log says\n%s\nwant\n%s", got, want)
	}
}
