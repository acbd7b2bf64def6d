package wrapper

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/journal"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
)

// TestCloseWaitsForDelivered (issue 25): a wrapper whose server ended
// while the word that an answer did not reach it was on its way to the
// hub stops only once that word is kept: here the hub stops reading, the
// word goes to the wrapper's spool, and close waits for it.
func TestCloseWaitsForDelivered(t *testing.T) {
	dir := t.TempDir()
	ours, hub := net.Pipe() // the hub reads nothing: the word waits
	t.Parallel()
	c := &Approver{
		Paths: paths.Paths{History: filepath.Join(dir, "history.db")},
		Hub:   &hubapi.Client{Dialer: func(context.Context) (net.Conn, int, error) { return ours, 0, nil }},
	}
	go c.Delivered(&bridge.Request{ID: "w1-1", Server: "srv", ReportsDelivery: true}, errors.New("the server ended"))
	if _, err := hub.Read(make([]byte, 1)); err != nil { // the word is being sent
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, func() { hub.Close() })
	c.Close()
	keys, _ := journal.SpoolKeys(journal.SpoolDir(c.Paths))
	if !keys["w1-1"] {
		t.Errorf("the wrapper stopped before the word on the delivery was kept; the spool holds %v", keys)
	}
}

// TestCloseWhileDeliveriesBegin: words on deliveries may begin and end
// while a wrapper closes (its server ended with answers on their way); the
// wrapper used to panic now and then there ("WaitGroup is reused before
// previous Wait has returned"), exiting 2 instead of with its server's
// code. Every word is kept all the same, and no spool file stays open
// after them (Windows could then not remove the directory).
func TestCloseWhileDeliveriesBegin(t *testing.T) {
	t.Parallel()
	noHub := func(context.Context) (net.Conn, int, error) { return nil, 0, hubapi.ErrNoHub }
	for round := range 100 {
		dir := t.TempDir()
		c := &Approver{
			Paths: paths.Paths{History: filepath.Join(dir, "history.db")},
			Hub:   &hubapi.Client{Dialer: noHub},
		}
		var begun, ended sync.WaitGroup
		for i := range 4 {
			begun.Add(1)
			ended.Add(1)
			go func() {
				defer ended.Done()
				begun.Done()
				for j := range 3 {
					c.Delivered(&bridge.Request{ID: fmt.Sprintf("w%d-%d-%d", round, i, j), Server: "srv", ReportsDelivery: true}, nil)
				}
			}()
		}
		begun.Wait()
		c.Close()
		ended.Wait()
		keys, _ := journal.SpoolKeys(journal.SpoolDir(c.Paths))
		if len(keys) != 12 {
			t.Fatalf("round %d: %d words of 12 kept", round, len(keys))
		}
		if open := openUnder(dir); len(open) > 0 {
			t.Fatalf("round %d: the closed wrapper still holds %v open", round, open)
		}
	}
}

// openUnder lists the files under dir this process holds open, where the
// system says (Linux's /proc; nothing elsewhere).
func openUnder(dir string) []string {
	fds, _ := os.ReadDir("/proc/self/fd")
	var open []string
	for _, fd := range fds {
		if to, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(to, dir+string(filepath.Separator)) {
			open = append(open, to)
		}
	}
	return open
}

// TestCloseSaysWhatItCouldNotKeep (break-it): a wrapper whose spool is
// refused (a link in place of its directory in the break-it session; a
// file here, which Wine too refuses) and that reaches no hub keeps a
// decision and the word on its delivery in memory; as it stops it says it
// lost one decision, and why, where it said two (it counted the words) and
// guessed that the disk was full.
func TestCloseSaysWhatItCouldNotKeep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spool := journal.SpoolDir(paths.Paths{History: filepath.Join(dir, "history.db")})
	if err := os.WriteFile(spool, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var log testkit.SyncBuf
	c := &Approver{
		Paths: paths.Paths{History: filepath.Join(dir, "history.db")},
		Hub:   &hubapi.Client{Dialer: func(context.Context) (net.Conn, int, error) { return nil, 0, hubapi.ErrNoHub }},
		Log:   &log,
	}
	req := &bridge.Request{ID: "w1-1", Server: "srv", Message: "Deploy?", ReportsDelivery: true}
	c.Reject(req, errors.New("a malformed request"))
	c.Delivered(req, nil)
	c.Close()
	said := log.String()
	if want := "stopping with 1 decision that could not be saved anywhere: "; !strings.Contains(said, want) || !strings.Contains(said, spool) || strings.Contains(said, "disk is full") {
		t.Errorf("the wrapper's log says:\n%s\nwant %q and the spool it refused, not a full disk", said, want)
	}
}
