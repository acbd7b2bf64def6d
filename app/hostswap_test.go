//go:build linux

package app

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
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
	var edited, retried, refused int
	for range 100 {
		for _, verb := range []string{"wrap", "unwrap"} {
			stdout, stderr, code := runBin(t, home, home, "hosts", verb, "claude-code", "fs", "--scope", "user")
			switch {
			case code == 0:
				edited++
				if strings.Contains(stdout, "the host rewrote the file while elicitray was editing it") {
					retried++
				}
			case code == 1 && (strings.Contains(stderr, "nothing was changed") || strings.Contains(stderr, "nothing was written")):
				refused++
			case code == 2 && strings.Contains(stderr, `claude-code has no server "fs"`):
				refused++ // it read the file as the host's in-place write left it for a moment: empty
			default:
				t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", verb, code, stdout, stderr)
			}
		}
	}
	count, err := h.stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("host versions written: %d; commands that edited: %d (%d of them after the host wrote meanwhile), that changed nothing: %d", count, edited, retried, refused)
	if len(h.lost) > 0 {
		t.Errorf("the host found %d of its versions gone, replaced by an edit of an older one; the first: %s", len(h.lost), h.lost[0])
	}
	if edited == 0 || retried+refused == 0 {
		t.Errorf("%d commands edited, %d after the host wrote meanwhile, %d changed nothing: the race was not run", edited, retried, refused)
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

// busyHost rewrites a config as fast as it can, as a host does that keeps
// state in it.
type busyHost struct {
	quit chan struct{}
	done chan struct{}
	n    int      // the count it wrote last
	lost []string // the versions it found gone
	err  error
}

// startBusyHost starts a host rewriting path until stop.
func startBusyHost(t *testing.T, path string) *busyHost {
	h := &busyHost{quit: make(chan struct{}), done: make(chan struct{})}
	t.Cleanup(func() { h.stop() }) // a test that ends early
	count := regexp.MustCompile(`"numStartups": (\d+)`) // the first member: found at once
	go func() {
		defer close(h.done)
		for i := 0; ; i++ {
			select {
			case <-h.quit:
				return
			default:
			}
			data, err := os.ReadFile(path)
			m := count.FindSubmatchIndex(data)
			if err != nil || m == nil {
				h.err = fmt.Errorf("the host read %.200q (%v)", data, err)
				return
			}
			if n, _ := strconv.Atoi(string(data[m[2]:m[3]])); n < h.n {
				h.lost = append(h.lost, fmt.Sprintf("version %d, replaced by an edit of version %d", h.n, n))
			}
			h.n++
			next := slices.Concat(data[:m[2]], strconv.AppendInt(nil, int64(h.n), 10), data[m[3]:])
			if i%2 == 0 {
				err = os.WriteFile(path, next, 0o600) // in place: truncated, then written
			} else if err = os.WriteFile(path+".host-tmp", next, 0o600); err == nil {
				err = os.Rename(path+".host-tmp", path)
			}
			if err != nil {
				h.err = err
				return
			}
		}
	}()
	return h
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
