//go:build linux

package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostsWrapWhileHostWrites: Claude Code rewrites ~/.claude.json often,
// and `hosts wrap` used to replace some of its versions with an edit of an
// older one (11 in 763 wraps with a write every 10 ms). Here a host rewrites
// the file in a tight loop, each version with the next count in its
// numStartups member, written the two ways hosts write (a temporary file
// renamed over it, and in place), while the real binary wraps and unwraps
// its server hundreds of times. The host reads the file back before each
// write and must always find the count it wrote last (or a later one): a
// smaller one means an edit replaced a version it had not read. Every
// command either edits or says that nothing was changed; once the host
// stops, a wrap leaves the host's last count and the wrapped entry.
func TestHostsWrapWhileHostWrites(t *testing.T) {
	testHome(t)
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".claude.json")
	// A megabyte of the host's own state, as ~/.claude.json holds (the
	// break test's was 38 MB): reading and comparing it is what takes time
	// between the check and the swap.
	var state strings.Builder
	for i := range 8000 {
		fmt.Fprintf(&state, ",\n    \"/home/you/project-%d\": {\"allowedTools\": [], \"history\": [{\"display\": \"fix the tests, then run them again\"}]}", i)
	}
	writeFile(t, path, "{\n  \"numStartups\": 0,\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"mcp-server-fs\", \"args\": [\"/tmp\"]}\n  },\n  \"projects\": {\n    \"/\": {}"+state.String()+"\n  }\n}\n", 0o600)

	h := startBusyHost(t, path)
	// Each version the host found replaced by an edit of an older one must
	// be in a backup (kept, before later commands prune it).
	var kept, lost []int
	sort := func() {
		for _, n := range h.takeStale() {
			if inBackup(t, path, n) {
				kept = append(kept, n)
			} else {
				lost = append(lost, n)
			}
		}
	}
	var edited, retried int
	refused := map[string]int{}
	for range 100 {
		for _, verb := range []string{"wrap", "unwrap"} {
			stdout, stderr, code := runBin(t, home, home, "hosts", verb, "claude-code", "fs", "--scope", "user")
			sort()
			switch {
			case code == 0:
				edited++
				if strings.Contains(stdout, "the host rewrote the file while elicitray was editing it") {
					retried++
				}
			case code == 1 && strings.Contains(stderr, "the host keeps rewriting it; nothing was changed"):
				refused["the host keeps rewriting it"]++
			case code == 1 && strings.Contains(stderr, "(the host may have rewritten it); nothing was written"):
				refused["the file changed"]++ // before: no second try
			case code == 1 && strings.Contains(stderr, "(nothing was changed)"):
				refused["half-written by the host"]++ // read as an in-place write left it for a moment
			case code == 2 && strings.Contains(stderr, `claude-code has no server "fs"`):
				refused["empty"]++ // the same, just truncated
			default:
				t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", verb, code, stdout, stderr)
			}
		}
	}
	count, err := h.stop()
	if err != nil {
		t.Fatal(err)
	}
	sort()
	t.Logf("host versions written: %d; commands that edited: %d (%d after the host wrote meanwhile); that changed nothing: %v; host versions an edit of an older one replaced: %d lost, %d kept in a backup", count, edited, retried, refused, len(lost), len(kept))
	if len(lost) > 0 {
		t.Errorf("%d versions of the host's were replaced by an edit of an older one and are in no backup: %v", len(lost), lost)
	}
	if edited == 0 || retried+len(refused) == 0 {
		t.Errorf("%d commands edited, %d after the host wrote meanwhile, and %v changed nothing: the race was not run", edited, retried, refused)
	}

	if stdout, stderr, code := runBin(t, home, home, "hosts", "wrap", "claude-code", "fs", "--scope", "user"); code != 0 {
		t.Fatalf("wrap once the host is idle: exit %d\n%s%s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), fmt.Sprintf(`"numStartups": %d`, count)) || !strings.Contains(string(data), `"command": "`+elicitrayBin+`", "args": ["wrap", "--name", "fs", "--", "mcp-server-fs", "/tmp"]`) {
		t.Errorf("after the host's last version (%d) and a wrap, the file holds:\n%s", count, data)
	}
	if left, _ := filepath.Glob(filepath.Join(home, "..claude.json.elicitray-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// busyHost rewrites a config as fast as it can, as a host that keeps its
// state there does: it reads the file (keeping what others wrote in it,
// such as a wrapped entry), counts its numStartups member one up and writes
// it back, in turn in place (truncated, then written) and by a temporary
// file renamed over it. It renames with RENAME_EXCHANGE, only to see what
// its rename replaced. A count smaller than the one it wrote last, in what
// it reads or in what it replaced, means that its last version was
// replaced by an edit of an older one: stale holds such versions.
type busyHost struct {
	quit chan struct{}
	done chan struct{}
	n    int // the count it wrote last
	err  error

	mu    sync.Mutex
	stale []int
}

// startBusyHost starts a host rewriting path until stop.
func startBusyHost(t *testing.T, path string) *busyHost {
	h := &busyHost{quit: make(chan struct{}), done: make(chan struct{})}
	t.Cleanup(func() { h.stop() }) // a test that ends early
	tmp := path + ".host-tmp"
	go func() {
		defer close(h.done)
		for i := 0; ; i++ {
			select {
			case <-h.quit:
				return
			default:
			}
			data, err := os.ReadFile(path)
			if err == nil {
				err = h.check(data, h.n)
			}
			if err != nil {
				h.err = err
				return
			}
			h.n++
			m := startups.FindSubmatchIndex(data)
			next := slices.Concat(data[:m[2]], strconv.AppendInt(nil, int64(h.n), 10), data[m[3]:])
			if i%2 == 0 {
				err = os.WriteFile(path, next, 0o600)
			} else if err = os.WriteFile(tmp, next, 0o600); err == nil {
				if err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE); err == nil {
					replaced, rerr := os.ReadFile(tmp)
					if err = rerr; err == nil {
						err = h.check(replaced, h.n-1)
					}
					os.Remove(tmp)
				}
			}
			if err != nil {
				h.err = err
				return
			}
		}
	}()
	return h
}

var startups = regexp.MustCompile(`"numStartups": (\d+)`) // the first member: found at once

// check notes version last as stale when data holds an older count.
func (h *busyHost) check(data []byte, last int) error {
	m := startups.FindSubmatch(data)
	if m == nil {
		return fmt.Errorf("the host found %.200q", data)
	}
	if n, _ := strconv.Atoi(string(m[1])); n < last {
		h.mu.Lock()
		h.stale = append(h.stale, last)
		h.mu.Unlock()
	}
	return nil
}

// takeStale returns the versions found stale since it was last called.
func (h *busyHost) takeStale() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.stale
	h.stale = nil
	return s
}

// inBackup reports whether a backup of path holds version n of the host's.
func inBackup(t *testing.T, path string, n int) bool {
	for _, b := range backups(t, path) {
		if data, err := os.ReadFile(b); err == nil && bytes.Contains(data, fmt.Appendf(nil, `"numStartups": %d,`, n)) {
			return true
		}
	}
	return false
}

// stop stops the host and returns the count it wrote last, or what kept
// it from writing.
func (h *busyHost) stop() (int, error) {
	select {
	case <-h.quit:
	default:
		close(h.quit)
	}
	<-h.done
	return h.n, h.err
}
