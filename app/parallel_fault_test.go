//go:build linux

package app

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/hub"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/history"
)

// Helpers of the fault group's tests (fault, quit, sigterm, transcripts,
// keep-alive) for running in parallel: every process gets the test's own
// environment in exec.Cmd.Env, nothing is set in the test process.

// varIn is the value of key in the environment vars, the last entry
// winning as in exec.Cmd.Env; "" when it has none.
func varIn(vars []string, key string) string {
	v := ""
	for _, e := range vars {
		if k, val, ok := strings.Cut(e, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// serveTestHubAt is serveTestHub at the paths p instead of a home set in
// the test process: it serves a Hub there with a scripted person, on the
// listener wrap makes of the socket's (nil: as it is), until the test
// ends. Set its fields before a wrapper connects.
func serveTestHubAt(t *testing.T, p paths.Paths, wrap func(net.Listener) net.Listener) (*hub.Hub, *scriptedPrompter) {
	t.Helper()
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
	h := &hub.Hub{Store: store, Prompter: sp, Timeout: time.Hour, Config: config.Config{Rate: config.Rate{Burst: 1000}}}
	if wrap != nil {
		ln = wrap(ln)
	}
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
	return h, sp
}
