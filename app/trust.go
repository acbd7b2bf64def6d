package app

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"

	"github.com/elicitray/elicitray/app/platform"
)

// The wrapper talks only to a hub it has verified is the user's own, and the
// hub only to peers of its own user (DESIGN.md: "Nothing secret is sent
// before that check"). A hub's socket is trusted when its directory is a
// real directory (not a symbolic link) owned by this user with no access
// for anyone else, and the process listening on it runs as this user.

// ErrUntrusted marks a run directory or hub peer elicitray refuses to use:
// nothing is sent there, and no hub is started there.
var ErrUntrusted = errors.New("refusing to use it")

// checkRunDir verifies dir as a place for the hub's socket: an existing
// directory, not a link, owned by this user, mode 0700 (no group or other
// bits). A missing directory is returned as is (fs.ErrNotExist): no hub ran
// yet.
func checkRunDir(dir string) error { return checkPrivateDir("the hub's directory", dir) }

// checkPrivateDir verifies that dir, named what in errors, is a directory
// (not a link) of this user's that no one else may enter; else the error
// wraps ErrUntrusted.
func checkPrivateDir(what, dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(dir)
		return fmt.Errorf("%s %s is a symbolic link (to %s), not a directory of your own: %w", what, dir, target, ErrUntrusted)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s %s is not a directory: %w", what, dir, ErrUntrusted)
	}
	if o, ok := platform.FileOwner(dir, fi); ok && !o.IsMe() {
		return fmt.Errorf("%s %s belongs to %s, not to you (%s): %w", what, dir, o, platform.Me(), ErrUntrusted)
	}
	if why := platform.DirOpenToOthers(dir, fi); why != "" {
		return fmt.Errorf("%s %s is open to other users (%s): %w", what, dir, why, ErrUntrusted)
	}
	return nil
}

// makePrivateDir creates dir (0700) if it is missing, gives a directory of
// this user's mode 0700, and then verifies it (checkPrivateDir; what names
// it in errors): a link or a directory of someone else's is refused, never
// changed.
func makePrivateDir(what, dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", dir, err)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return err
	}
	if o, ok := platform.FileOwner(dir, fi); ok && fi.IsDir() && o.IsMe() && !platform.IsPrivateDir(dir, fi) {
		if err := platform.MakePrivate(dir); err != nil {
			return err
		}
	}
	return checkPrivateDir(what, dir)
}

// peerCred returns the user and pid of the process at the other end of a
// local socket connection (platform.PeerCred: SO_PEERCRED on Linux).
func peerCred(conn net.Conn) (platform.User, int, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return platform.User{}, 0, fmt.Errorf("not a unix socket connection: %T", conn)
	}
	return platform.PeerCred(uc)
}

// checkHubPeer verifies that the process listening at the socket conn
// reached runs as this user, and returns its pid.
func checkHubPeer(conn net.Conn) (pid int, err error) {
	who, pid, err := peerCred(conn)
	if err != nil {
		return 0, fmt.Errorf("could not tell who listens at the hub's socket: %v: %w", err, ErrUntrusted)
	}
	if !who.IsMe() {
		return 0, fmt.Errorf("the process listening at the hub's socket (pid %d) runs as %s, not as you (%s): %w", pid, who, platform.Me(), ErrUntrusted)
	}
	return pid, nil
}

// checkPeer refuses peers running as another user: the socket's 0700
// directory should already keep them out; peer credentials make sure.
func checkPeer(conn net.Conn) error {
	if _, ok := conn.(*net.UnixConn); !ok {
		return nil
	}
	who, _, err := peerCred(conn)
	if err != nil {
		return err
	}
	if !who.IsMe() {
		return fmt.Errorf("peer runs as %s, not %s", who.ID(), platform.Me().ID())
	}
	return nil
}

// userName names the user uid for a sentence: "alice (uid 1000)", or "uid
// 1000" when the password database does not know it.
func userName(uid int) string { return platform.UID(uid).String() }
