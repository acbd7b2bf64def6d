package hubapi

import (
	"fmt"
	"net"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
)

// PeerCred returns the user and pid of the process at the other end of a
// local socket connection (platform.PeerCred: SO_PEERCRED on Linux).
func PeerCred(conn net.Conn) (platform.User, int, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return platform.User{}, 0, fmt.Errorf("not a unix socket connection: %T", conn)
	}
	return platform.PeerCred(uc)
}

// CheckHubPeer verifies that the process listening at the socket conn
// reached runs as this user, and returns its pid.
func CheckHubPeer(conn net.Conn) (pid int, err error) {
	who, pid, err := PeerCred(conn)
	if err != nil {
		return 0, fmt.Errorf("could not tell who listens at the hub's socket: %v: %w", err, paths.ErrUntrusted)
	}
	if !who.IsMe() {
		return 0, fmt.Errorf("the process listening at the hub's socket (pid %d) runs as %s, not as you (%s): %w", pid, who, platform.Me(), paths.ErrUntrusted)
	}
	return pid, nil
}

// CheckPeer refuses peers running as another user: the socket's 0700
// directory should already keep them out; peer credentials make sure.
func CheckPeer(conn net.Conn) error {
	if _, ok := conn.(*net.UnixConn); !ok {
		return nil
	}
	who, _, err := PeerCred(conn)
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
