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
	"testing"
	"unsafe"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"golang.org/x/sys/unix"
)

// TestHostsWrapWhileHostWrites: Claude Code rewrites ~/.claude.json often,
// and `hosts wrap` used to replace some of its versions with an edit of an
// older one (11 in 763 wraps with a write every 10 ms), deleting them. Here
// the host writes at the worst moments: it watches its directory and
// writes its next version (the next count in its numStartups member) as
// soon as elicitray has closed the backup, or its new version, of a
// command, once a command; by a file renamed over the config or in place
// (truncated, then written), in turn. The real binary wraps and unwraps
// the server thirty-two times (whichever edits the file). After each command the config
// holds the host's last count; where it holds an older one (an edit of a
// version before the host's replaced it), the host's version must be in a
// backup. Every command edits (once more on the host's version where it
// wrote meanwhile) or says that nothing was changed.
func TestHostsWrapWhileHostWrites(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".claude.json")
	// A megabyte of the host's own state, as ~/.claude.json holds (the
	// break test's was 38 MB).
	var state strings.Builder
	for i := range 8000 {
		fmt.Fprintf(&state, ",\n    \"/home/you/project-%d\": {\"allowedTools\": [], \"history\": [{\"display\": \"fix the tests, then run them again\"}]}", i)
	}
	testkit.WriteFile(t, path, "{\n  \"numStartups\": 0,\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"mcp-server-fs\", \"args\": [\"/tmp\"]}\n  },\n  \"projects\": {\n    \"/\": {}"+state.String()+"\n  }\n}\n", 0o600)

	h := watchingHost(t, path)
	var edited, retried, wrote, kept int
	var lost []string
	refused := map[string]int{}
	for i := range 32 {
		verb := "wrap" // or unwrap, so that every command edits
		if data, _ := os.ReadFile(path); bytes.Contains(data, []byte(`"command": "`+testkit.Binary(t))) {
			verb = "unwrap"
		}
		trigger := []string{".claude.json.elicitray-backup-", "..claude.json.elicitray-"}[i%2] // the backup, or the new version
		inPlace := i/2%2 == 0
		h.arm(trigger, inPlace)
		stdout, stderr, code := runBinEnv(t, e.vars, home, home, "hosts", verb, "claude-code", "fs", "--scope", "user")
		n, ok := h.settle()
		if ok {
			wrote++
		}
		switch got := count(t, path); {
		case got >= n:
		case inBackup(t, path, n):
			kept++
		default:
			lost = append(lost, fmt.Sprintf("%s, the host writing %s when elicitray closed %s…: version %d replaced by an edit of version %d", verb, map[bool]string{true: "in place", false: "by rename"}[inPlace], trigger, n, got))
		}
		switch {
		case code == 0:
			edited++
			if strings.Contains(stdout, "the host rewrote the file while elicitray was editing it: edited its new version") {
				retried++
			}
		case code == 1 && strings.Contains(stderr, "(the host may have rewritten it); nothing was written"):
			refused["the file changed"]++ // before: no second try
		default:
			t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", verb, code, stdout, stderr)
		}
	}
	t.Logf("commands: %d edited (%d once more on the host's version), %v changed nothing; host versions written meanwhile: %d, replaced by an edit of an older one: %d kept in a backup, %d lost", edited, retried, refused, wrote, kept, len(lost))
	if len(lost) > 0 {
		t.Errorf("%d versions of the host's were replaced by an edit of an older one and are in no backup:\n%s", len(lost), strings.Join(lost, "\n"))
	}
	if wrote < 32 {
		t.Errorf("the host wrote during %d commands of 32: the race was not run", wrote)
	}

	if stdout, stderr, code := runBinEnv(t, e.vars, home, home, "hosts", "wrap", "claude-code", "fs", "--scope", "user"); code != 0 {
		t.Fatalf("wrap once the host is idle: exit %d\n%s%s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(path)
	if !bytes.Contains(data, fmt.Appendf(nil, `"numStartups": %d,`, h.n)) || !bytes.Contains(data, []byte(`"command": "`+testkit.Binary(t)+`", "args": ["wrap", "--name", "fs", "--", "mcp-server-fs", "/tmp"]`)) {
		t.Errorf("after the host's last version (%d) and a wrap, the file holds:\n%.300s", h.n, data)
	}
	if left, _ := filepath.Glob(filepath.Join(home, "..claude.json.elicitray-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

var startups = regexp.MustCompile(`"numStartups": (\d+)`) // the first member: found at once

// count returns the host's count in the config at path.
func count(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	m := startups.FindSubmatch(data)
	if err != nil || m == nil {
		t.Fatalf("the config holds %.200q (%v)", data, err)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
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

// host writes its config once, when a file whose name starts with a prefix
// is closed after writing in the config's directory (inotify): the moment
// elicitray has written its backup, or its new version, and is about to
// check and swap. Its next version is the config as it is when armed (the
// last wrap or unwrap kept), with the next count, made beforehand so that
// writing it takes as little as a host's write can.
type host struct {
	path    string
	fd      int
	settled chan bool // after each command: whether it wrote
	armed   chan arming
	n       int // the count it wrote last
}

type arming struct {
	prefix  string
	next    []byte
	inPlace bool
}

// watchingHost starts a host watching path's directory.
func watchingHost(t *testing.T, path string) *host {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.InotifyAddWatch(fd, filepath.Dir(path), unix.IN_CLOSE_WRITE); err != nil {
		t.Fatal(err)
	}
	h := &host{path: path, fd: fd, settled: make(chan bool), armed: make(chan arming, 1)}
	done := make(chan struct{})
	go h.watch(done)
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(filepath.Dir(path), "quit"), nil, 0o600)
		<-done
		unix.Close(fd)
	})
	return h
}

// arm makes the host write its next version when a file named prefix… is
// next closed.
func (h *host) arm(prefix string, inPlace bool) {
	data, _ := os.ReadFile(h.path)
	m := startups.FindSubmatchIndex(data)
	h.n++
	next := slices.Concat(data[:m[2]], strconv.AppendInt(nil, int64(h.n), 10), data[m[3]:])
	if !inPlace {
		os.WriteFile(h.path+".host", next, 0o600)
	}
	h.armed <- arming{prefix, next, inPlace}
}

// settle waits until the host has seen every file closed so far, and
// returns the count it wrote last and whether it wrote since arm.
func (h *host) settle() (int, bool) {
	os.WriteFile(filepath.Join(filepath.Dir(h.path), "settle"), nil, 0o600)
	wrote := <-h.settled
	if !wrote {
		h.n-- // it did not write that version
	}
	return h.n, wrote
}

func (h *host) watch(done chan<- struct{}) {
	defer close(done)
	var a *arming
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(h.fd, buf)
		if err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if a == nil {
				select {
				case next := <-h.armed:
					a = &next
				default:
				}
			}
			switch {
			case name == "quit":
				return
			case name == "settle":
				if a != nil && !a.inPlace {
					os.Remove(h.path + ".host")
				}
				h.settled <- a == nil
				a = nil
			case a != nil && strings.HasPrefix(name, a.prefix):
				if a.inPlace {
					os.WriteFile(h.path, a.next, 0o600)
				} else {
					os.Rename(h.path+".host", h.path)
				}
				a = nil
			}
		}
	}
}
