// Package hubkit serves a real hub in the test process, with a scripted
// person in place of the desktop, for tests of the hub, the CLI and the
// wrapper against it (app, app/e2e).
package hubkit

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/hub"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/wrapper"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
)

// ScriptedPrompter stands in for the desktop of an in-process hub: it
// reports each prompt shown on Shown and lets the test answer it.
type ScriptedPrompter struct {
	Shown chan ShownPrompt
}

// ShownPrompt is one prompt the hub showed: the test answers it with
// Answer, and Dismissed closes when the hub takes the window away.
type ShownPrompt struct {
	Prompt    *hub.Prompt
	Answer    func(bridge.Result)
	Dismissed chan struct{}
}

// Show is hub.Prompter's.
func (s *ScriptedPrompter) Show(p *hub.Prompt, answer func(bridge.Result)) func() {
	sp := ShownPrompt{Prompt: p, Answer: answer, Dismissed: make(chan struct{})}
	s.Shown <- sp
	var once sync.Once
	return func() { once.Do(func() { close(sp.Dismissed) }) }
}

// ServeHub serves a Hub at the paths p with a scripted person, on the
// listener wrap makes of the socket's (nil: as it is), until the test
// ends: a real socket and bbolt file, set in no environment. Set its
// fields before a wrapper connects.
func ServeHub(t testing.TB, p paths.Paths, wrap func(net.Listener) net.Listener) (*hub.Hub, *ScriptedPrompter) {
	t.Helper()
	ln, lock, err := hub.Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	store, err := history.Open(p.History, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp := &ScriptedPrompter{Shown: make(chan ShownPrompt, 16)}
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

// RunHub is ServeHub under home with prompts timing out after timeout,
// and an Approver connected to it as a wrapper's would be.
func RunHub(t testing.TB, home string, timeout time.Duration) (*hub.Hub, *ScriptedPrompter, *wrapper.Approver) {
	t.Helper()
	p := paths.Under(home)
	h, sp := ServeHub(t, p, nil)
	h.Timeout = timeout
	if fi, err := os.Stat(filepath.Join(home, "run")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory: %v, mode %v; want 0700", err, fi.Mode().Perm())
	}
	return h, sp, &wrapper.Approver{Paths: p, StartWait: time.Second}
}

// FormRequest is a form elicitation from server asking message, with
// one required integer field n.
func FormRequest(server, message string) *bridge.Request {
	return &bridge.Request{Server: server, Mode: "form", Message: message, ServerInfo: bridge.ServerInfo{Name: "srv", Version: "1"},
		RequestedSchema: []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`)}
}

// Approval is what an Approve call returned.
type Approval struct {
	Res *bridge.Result
	Err error
}

// ApproveAsync calls c.Approve for req on a goroutine of its own.
func ApproveAsync(c *wrapper.Approver, ctx context.Context, req *bridge.Request) <-chan Approval {
	ch := make(chan Approval, 1)
	go func() {
		res, err := c.Approve(ctx, req)
		ch <- Approval{res, err}
	}()
	return ch
}

// WaitQueued waits until n prompts are queued at the hub.
func WaitQueued(t testing.TB, h *hub.Hub, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.Mu.Lock()
		got := len(h.Queue)
		h.Mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d prompts queued, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}
