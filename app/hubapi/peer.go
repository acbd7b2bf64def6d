package hubapi

import (
	"errors"
	"fmt"
	"net"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
)

// CheckHubPeer verifies that the process listening at the hub's socket
// (on Windows, its pipe) that conn reached runs as this user, and returns
// its pid.
func CheckHubPeer(conn net.Conn) (pid int, err error) {
	who, pid, err := platform.Peer(conn, true)
	if err != nil {
		return 0, fmt.Errorf("could not tell who listens at the hub's socket: %v: %w", err, paths.ErrUntrusted)
	}
	if !who.IsMe() {
		return 0, fmt.Errorf("the process listening at the hub's socket (pid %d) runs as %s, not as you (%s): %w", pid, who, platform.Me(), paths.ErrUntrusted)
	}
	return pid, nil
}

// CheckPeer refuses clients running as another user: the socket's 0700
// directory (on Windows, the pipe's security descriptor) should already
// keep them out; the peer's credentials make sure. A connection that is no
// socket or pipe (a test's net.Pipe) has no peer to check.
func CheckPeer(conn net.Conn) error {
	who, _, err := platform.Peer(conn, false)
	if errors.Is(err, platform.ErrNotLocal) {
		return nil
	}
	if err != nil {
		return err
	}
	if !who.IsMe() {
		return fmt.Errorf("peer runs as %s, not %s", who.ID(), platform.Me().ID())
	}
	return nil
}

// UserName names the user uid for a sentence: "alice (uid 1000)", or "uid
// 1000" when the password database does not know it.
func UserName(uid int) string { return platform.UID(uid).String() }
