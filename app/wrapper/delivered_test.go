package wrapper

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"

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
	time.Sleep(100 * time.Millisecond) // the word is being sent
	time.AfterFunc(300*time.Millisecond, func() { hub.Close() })
	c.Close()
	keys, _ := journal.SpoolKeys(journal.SpoolDir(c.Paths))
	if !keys["w1-1"] {
		t.Errorf("the wrapper stopped before the word on the delivery was kept; the spool holds %v", keys)
	}
}
