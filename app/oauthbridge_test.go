//go:build linux

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/wrapper"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/app/oauth"
	"github.com/elicitray/elicitray/app/oauth/oauthtest"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
)

// signInApprover stands for the hub: it notes each sign-in request, agrees,
// and opens the browser (oauthtest.Agree), as a user choosing Open would.
type signInApprover struct {
	mu    sync.Mutex
	reqs  []*bridge.Request
	pages chan string
}

func (a *signInApprover) Approve(ctx context.Context, req *bridge.Request) (*bridge.Result, error) {
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()
	if err := oauthtest.Agree(a.pages)(ctx, req.URL); err != nil {
		return nil, err
	}
	return &bridge.Result{Action: bridge.ActionAccept, DecidedBy: bridge.DecidedByUser}, nil
}

func (a *signInApprover) asked() []*bridge.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*bridge.Request(nil), a.reqs...)
}

// remoteSession runs one wrapper's worth of the bridge's HTTP server side
// with sign-in on: initialize and tools/call whoami, as a host writes them,
// and returns the tool's text.
func remoteSession(t *testing.T, p paths.Paths, url string, approver bridge.Approver, log *testkit.SyncBuf) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	logf := func(f string, a ...any) { fmt.Fprintf(log, f+"\n", a...) }
	o := bridge.HTTPOptions{URL: url}
	if err := wrapper.WithRemoteOAuth(&o, p, "remote", oauth.Registration{}, approver, logf); err != nil {
		t.Fatal(err)
	}
	srv := bridge.HTTP(o)
	conn, err := srv.Start(ctx, logf)
	if err != nil {
		t.Fatal(err)
	}
	reply := func(id int, line string) map[string]any {
		t.Helper()
		if err := conn.Write([]byte(line+"\n"), true); err != nil {
			t.Fatal(err)
		}
		for {
			msg, err := conn.Read()
			if err != nil {
				t.Fatalf("reading the reply to %d: %v\nlog:\n%s", id, err, log)
			}
			var m map[string]any
			if json.Unmarshal(msg, &m) == nil && m["id"] == float64(id) {
				return m
			}
		}
	}
	init := reply(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`)
	if init["error"] != nil {
		t.Fatalf("initialize: %v\nlog:\n%s", init["error"], log)
	}
	if err := conn.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"), true); err != nil {
		t.Fatal(err)
	}
	call := reply(2, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`)
	conn.CloseWrite()
	srv.Wait()
	b, _ := json.Marshal(call)
	return string(b)
}

// The bridge's Streamable HTTP side (bridge/http.go) with elicitray's
// sign-in: the first session asks the user once and gets through; the next
// uses the stored token, and no request but the first initialize and the
// probe of its 401 goes without it.
func TestRemoteSignInOverBridge(t *testing.T) {
	testkit.Home(t)
	p := paths.FromEnv(os.Getenv)
	as := oauthtest.NewAuthServer(t, oauthtest.Options{})
	rs := oauthtest.NewResourceServer(t, as)
	approver := &signInApprover{pages: make(chan string, 2)}

	log := &testkit.SyncBuf{}
	if got := remoteSession(t, p, rs.URL, approver, log); !strings.Contains(got, `"text":"signed in"`) {
		t.Fatalf("the first session's tools/call: %s\nlog:\n%s", got, log)
	}
	if page := <-approver.pages; !strings.Contains(page, "Signed in") {
		t.Errorf("the browser showed %q", page)
	}
	asked := approver.asked()
	if len(asked) != 1 {
		t.Fatalf("the user was asked %d times, want once", len(asked))
	}
	if r := asked[0]; r.Mode != "url" || r.Server != "remote" || !strings.HasPrefix(r.URL, as.URL+"/authorize?") || !strings.Contains(r.Message, "remote needs you to sign in") {
		t.Errorf("the consent request: %+v", r)
	}
	if !strings.Contains(log.String(), "remote: asking you to sign in at "+as.URL) || !strings.Contains(log.String(), "remote: signed in") {
		t.Errorf("the wrapper's log does not say what happened:\n%s", log)
	}

	log = &testkit.SyncBuf{}
	if got := remoteSession(t, p, rs.URL, approver, log); !strings.Contains(got, `"text":"signed in"`) {
		t.Fatalf("the second session's tools/call: %s\nlog:\n%s", got, log)
	}
	if n := len(approver.asked()); n != 1 {
		t.Errorf("the second session asked the user again")
	}
	// Without a token: the first initialize and the probe of its 401.
	if diff := cmp.Diff([]string{"POST", "POST"}, rs.Anonymous()); diff != "" {
		t.Errorf("requests without a bearer token mismatch (-want +got):\n%s", diff)
	}
}
