//go:build linux

package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/hub"
	"github.com/elicitray/elicitray/history"
)

// runHubIn is runTestHub for a test that runs in parallel with others: the
// scripted Hub serves in home, which the test gives the processes it starts
// as ELICITRAY_HOME, never setting it in the test process.
func runHubIn(t *testing.T, home string, timeout time.Duration) (*hub.Hub, *scriptedPrompter) {
	t.Helper()
	p := homePaths(home)
	ln, lock, err := hub.Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	store, err := history.Open(p.History, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp := &scriptedPrompter{shown: make(chan shownPrompt, 16)}
	// The queue's tests ask often; the rate limit has tests of its own.
	h := &hub.Hub{Store: store, Prompter: sp, Timeout: timeout, Config: config.Config{Rate: config.Rate{Burst: 1000}}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := h.Serve(ctx, ln); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		store.Close()
		lock.Close()
	})
	if fi, err := os.Stat(filepath.Join(home, "run")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory: %v, mode %v; want 0700", err, fi.Mode().Perm())
	}
	return h, sp
}
