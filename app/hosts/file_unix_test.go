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
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tt.path+" is "+tt.what+", not a regular file: elicitray reads and writes only regular files") {
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

// TestHostsWriteFileOwner: the rewritten config keeps its owner: through
// the user's own symbolic link to a file of another user (the break test
// saw nobody's file become the user's), and when root edits a user's
// file. Where the owner cannot be kept (elicitray is not root), the file is
// refused with a sentence and nothing is changed.
func TestHostsWriteFileOwner(t *testing.T) {
	setup := func(t *testing.T, uid int) (dir, link, target string) {
		dir = t.TempDir()
		target = filepath.Join(dir, "shared", "mcp.json")
		os.Mkdir(filepath.Dir(target), 0o755)
		os.WriteFile(target, []byte("old"), 0o644)
		if err := os.Chown(target, uid, uid); err != nil {
			t.Skipf("cannot give a file another owner: %v", err)
		}
		link = filepath.Join(dir, "mcp.json")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		return dir, link, target
	}
	ownerOf := func(path string) uint32 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Uid
	}
	t.Run("through the user's own link, as root", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("giving a file another owner needs root")
		}
		_, link, target := setup(t, 4242)
		if _, err := WriteFile(link, []byte("old"), []byte("new"), when); err != nil {
			t.Fatal(err)
		}
		checkFile(t, target, "new", 0o644)
		if uid := ownerOf(target); uid != 4242 {
			t.Errorf("owner %d, want 4242", uid)
		}
	})
	t.Run("someone else's file, not as root", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("giving a file another owner needs root")
		}
		dir, link, target := setup(t, 4242)
		os.Lchown(link, 1000, 1000) // the user's own link
		getuid = func() int { return 1000 }
		t.Cleanup(func() { getuid = os.Getuid })
		_, err := WriteFile(link, []byte("old"), []byte("new"), when)
		if !errors.Is(err, ErrOwner) || !strings.Contains(err.Error(), target+" is owned by user 4242: the file is not yours; elicitray replaces a config with a new file, which would be yours") {
			t.Errorf("error %v, want ErrOwner with a sentence", err)
		}
		checkFile(t, target, "old", 0o644)
		checkClean(t, dir, "mcp.json", "shared")
	})
	t.Run("the owner cannot be given", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("giving a file another owner needs root")
		}
		dir, link, target := setup(t, 4242)
		chown = func(*os.File, int, int) error { return syscall.EPERM }
		t.Cleanup(func() { chown = func(f *os.File, uid, gid int) error { return f.Chown(uid, gid) } })
		_, err := WriteFile(link, []byte("old"), []byte("new"), when)
		if !errors.Is(err, ErrOwner) || !strings.HasSuffix(err.Error(), "nothing was changed") {
			t.Errorf("error %v, want ErrOwner saying nothing was changed", err)
		}
		checkFile(t, target, "old", 0o644)
		checkClean(t, dir, "mcp.json", "shared")
		checkClean(t, filepath.Dir(target), "mcp.json")
	})
}
