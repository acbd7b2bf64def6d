//go:build unix

package hubapi

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/history"
	"github.com/google/go-cmp/cmp"
)

// fakeHub listens where a hub does in a private run directory of its own
// and answers as serve says; it returns the Paths that reach it.
func fakeHub(t *testing.T, serve func(conn *Conn)) paths.Paths {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, paths.SocketName))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				serve(NewConn(c, 0))
			}()
		}
	}()
	return paths.Paths{RunDir: dir, Socket: filepath.Join(dir, paths.SocketName)}
}

// TestClientMultiplexes: two calls at once on the one connection each get
// their own reply, though the hub answers them in the other order.
func TestClientMultiplexes(t *testing.T) {
	t.Parallel()
	p := fakeHub(t, func(conn *Conn) {
		var asked []Message
		for len(asked) < 2 {
			var m Message
			if err := conn.Read(&m); err != nil {
				return
			}
			asked = append(asked, m)
		}
		for i := len(asked) - 1; i >= 0; i-- {
			m := asked[i]
			_ = conn.Write(Message{ID: m.ID, Records: []history.Record{{ID: m.RecordID, Server: m.Op}}})
		}
		for conn.Read(new(Message)) == nil { // until the client goes
		}
	})
	var connected int
	c := &Client{Paths: p, Connected: func(_ *Conn, pid int) { connected = pid }}
	defer c.Close()
	ctx := context.Background()
	got := make([]HistoryReply, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i], errs[i] = c.Get(ctx, GetRequest{RecordID: uint64(40 + i)}) })
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil {
			t.Fatalf("Get %d: %v", i, errs[i])
		}
		if diff := cmp.Diff([]history.Record{{ID: uint64(40 + i), Server: OpGet}}, got[i].Records); diff != "" {
			t.Errorf("Get %d mismatch (-want +got):\n%s", i, diff)
		}
	}
	if c.PID() != os.Getpid() || connected != os.Getpid() {
		t.Errorf("PID() = %d, Connected saw %d; want the listener's, %d", c.PID(), connected, os.Getpid())
	}
}

// TestClientReplies: an export comes in chunks, an unknown server is an
// UnknownServerError with the hub's sentence, and a hub that goes away
// mid-call is ErrHubGone.
func TestClientReplies(t *testing.T) {
	t.Parallel()
	p := fakeHub(t, func(conn *Conn) {
		for {
			var m Message
			if err := conn.Read(&m); err != nil {
				return
			}
			switch m.Op {
			case OpExport:
				_ = conn.Write(Message{ID: m.ID, Data: []byte("a,")})
				_ = conn.Write(Message{ID: m.ID, Data: []byte("b\n")})
				_ = conn.Write(Message{ID: m.ID, Done: true, Count: 2})
			case OpMute:
				_ = conn.Write(Message{ID: m.ID, Error: "no server named \"gihub\"", Unknown: true})
			case OpQuit:
				return // gone without a word
			}
		}
	})
	c := &Client{Paths: p}
	defer c.Close()
	ctx := context.Background()
	var out bytes.Buffer
	r, err := c.Export(ctx, ExportRequest{Format: history.FormatCSV}, &out)
	if err != nil || r.Count != 2 || out.String() != "a,b\n" {
		t.Errorf("Export = %d, %v, wrote %q; want 2 records, \"a,b\\n\"", r.Count, err, out.String())
	}
	_, err = c.Mute(ctx, MuteRequest{Server: "gihub", For: 1})
	if unknown := (UnknownServerError{}); !errors.As(err, &unknown) || unknown.Sentence != "no server named \"gihub\"" {
		t.Errorf("Mute of an unknown server: %v, want UnknownServerError with the hub's sentence", err)
	}
	if _, err := c.Quit(ctx); !errors.Is(err, ErrHubGone) {
		t.Errorf("Quit of a hub that went away: %v, want ErrHubGone", err)
	}
}

// TestClientNoHub: with no hub listening the Client says so, and with a
// Start hook it starts one (here, it fails) and says none could start.
func TestClientNoHub(t *testing.T) {
	t.Parallel()
	p := paths.Paths{RunDir: filepath.Join(t.TempDir(), "run")}
	ctx := context.Background()
	if _, err := (&Client{Paths: p}).Status(ctx); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Status with no hub: %v, want ErrNotRunning", err)
	}
	started := false
	c := &Client{Paths: p, Start: func(context.Context) (net.Conn, int, error) {
		started = true
		return nil, 0, ErrNoHub
	}}
	if _, err := c.Status(ctx); !errors.Is(err, ErrNotRunning) || started {
		t.Errorf("Status with no hub: %v (started %v), want ErrNotRunning and no hub started", err, started)
	}
	if err := c.Settings(ctx); !errors.Is(err, ErrNoHub) || !started {
		t.Errorf("Settings with no hub: %v (started %v), want a hub started, and ErrNoHub", err, started)
	}
}
