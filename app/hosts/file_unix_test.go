//go:build unix

package hosts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHostsReadConfigRefuses: a named pipe, a device or a directory where
// a config belongs is refused with a sentence before anything is read (a
// pipe used to hang `hosts list` and doctor until a writer came), and
// nothing is written to it.
func TestHostsReadConfigRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "mcp.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, what string }{
		{fifo, "a named pipe"},
		{link, "a named pipe"},
		{os.DevNull, "a device"},
		{dir, "a directory"},
	} {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			_, err := ReadConfig(tt.path)
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tt.path+" is "+tt.what+", not a config file") {
				t.Errorf("error %v, want ErrNotRegular saying %q", err, tt.what)
			}
			loc := Location{Path: tt.path, Format: FormatJSON, Servers: mcpServers}
			if r := Report(loc, true); !r.Exists || !errors.Is(r.Err, ErrNotRegular) {
				t.Errorf("report: exists %v, error %v", r.Exists, r.Err)
			}
		})
	}
	if _, err := WriteFile(fifo, nil, []byte("{}"), when); !errors.Is(err, ErrNotRegular) {
		t.Errorf("writing: error %v, want ErrNotRegular", err)
	}
	if bs, _ := Backups(fifo); len(bs) > 0 {
		t.Errorf("backups made: %v", bs)
	}
}
