package app

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRunDirFitsASocket: the run directory comes from the uid and the home
// alone, and a home too long for a socket path gets /tmp/elicitray-UID.
func TestRunDirFitsASocket(t *testing.T) {
	if userRuntimeDir(4242) != "" {
		t.Skip("/run/user/4242 exists here")
	}
	short := "/home/ada"
	if got, want := runDir(short, 4242), "/home/ada/.local/state/elicitray/run"; got != want {
		t.Errorf("runDir(%q) = %q, want %q", short, got, want)
	}
	long := "/home/" + strings.Repeat("a", 80)
	got := runDir(long, 4242)
	if want := "/tmp/elicitray-4242"; got != want {
		t.Errorf("runDir(a %d-byte home) = %q, want %q", len(long), got, want)
	}
	if n := len(filepath.Join(got, socketName)); n > maxSocketPath {
		t.Errorf("the socket path is %d bytes", n)
	}
}
