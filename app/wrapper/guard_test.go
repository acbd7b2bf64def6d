package wrapper

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/config"
	"github.com/google/go-cmp/cmp"
)

// watchProd watches the config file at path for the server "prod", whose
// guard and keep-alive start as config.Server{} and the default, until the
// test ends. relay is what the watch puts in force, and next returns the
// next line of its log (the test fails when the log ends). The test's
// clean-up waits for the watch to end (t's context is done by then) before
// its temporary directory is removed: Windows refuses to remove a
// directory still watched.
func watchProd(t *testing.T, path string) (relay *relaySettings, next func() string) {
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	lines := bufio.NewScanner(pr)
	relay = &relaySettings{}
	ended := WatchGuard(t.Context(), path, "prod", config.Server{}, config.DefaultKeepAlive, config.StampOf(path), relay, pw)
	t.Cleanup(func() { <-ended })
	return relay, func() string {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("the log ended: %v", lines.Err())
		}
		return lines.Text()
	}
}

// saveAsSettings writes text to the config file at path as Settings saves
// it: a new file renamed over the old.
func saveAsSettings(t *testing.T, path, text string) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// relaySettings records what WatchGuard puts in force.
type relaySettings struct {
	mu        sync.Mutex
	guard     []string
	destr     bool
	keepAlive time.Duration
}

func (r *relaySettings) SetGuard(p []string, d bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.guard, r.destr = p, d
}

func (r *relaySettings) SetKeepAlive(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keepAlive = d
}

// TestWatchGuardSaysWhatChanged: a running wrapper's watch of config.toml
// puts each change of its server's guard and keep-alive in force and says
// it in the host's log, a sentence each; says nothing for a change of
// another server; and keeps what it had through a file with mistakes,
// naming the first, and through the file's removal.
func TestWatchGuardSaysWhatChanged(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "elicitray", "config.toml") // no directory yet
	relay, next := watchProd(t, path)
	inForce := func(guard []string, destr bool, keepAlive time.Duration) {
		t.Helper()
		relay.mu.Lock()
		defer relay.mu.Unlock()
		if diff := cmp.Diff(guard, relay.guard); diff != "" || destr != relay.destr || keepAlive != relay.keepAlive {
			t.Errorf("in force: guard %q destructive %v keep-alive %v; want %q %v %v", relay.guard, relay.destr, relay.keepAlive, guard, destr, keepAlive)
		}
	}

	for _, tt := range []struct {
		text string
		says []string
	}{
		{"[servers.other]\nguard = [\"x\"]\n\n[servers.prod]\nguard = [\"deploy\", \"delete_*\"]\nguard_destructive = true\n",
			[]string{`elicitray: prod: config.toml changed: calls of "deploy", "delete_*" and of the tools the server marks destructive now wait for your approval.`}},
		{"[servers.other]\nguard = [\"y\"]\n\n[servers.prod]\nguard = [\"deploy\", \"delete_*\"]\nguard_destructive = true\nkeep_alive = \"5s\"\n",
			[]string{`elicitray: prod: config.toml changed: while a prompt is open, the host now hears progress every 5s.`}},
		{"timeout = \"soon\"\n[servers.prod]\nrule = \"maybe\"\n",
			[]string{`elicitray: prod: config.toml changed but cannot be used (line 1: timeout "soon" is not a duration like "10m" or "90s"; and 1 more mistake), so this wrapper keeps the settings it had: calls of "deploy", "delete_*" and of the tools the server marks destructive wait for your approval.`}},
		{"keep_alive = \"0s\"\n",
			[]string{`elicitray: prod: config.toml changed: no tool call waits for your approval.`,
				`elicitray: prod: config.toml changed: while a prompt is open, the host now hears no progress (keep_alive is 0s).`}},
	} {
		saveAsSettings(t, path, tt.text)
		for _, want := range tt.says {
			if got := next(); got != want {
				t.Errorf("after writing %q the log says\n%s\nwant\n%s", tt.text, got, want)
			}
		}
	}
	inForce(nil, false, 0)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	saveAsSettings(t, path, "[servers.prod]\nguard = [\"wipe\"]\n")
	for _, want := range []string{`elicitray: prod: config.toml changed: calls of "wipe" now wait for your approval.`,
		`elicitray: prod: config.toml changed: while a prompt is open, the host now hears progress every 15s.`} {
		if got := next(); got != want {
			t.Errorf("after the file was removed and written again the log says\n%s\nwant\n%s", got, want)
		}
	}
	inForce([]string{"wipe"}, false, config.DefaultKeepAlive)
}
