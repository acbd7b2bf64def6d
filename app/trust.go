package app

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
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
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s %s belongs to %s, not to you (%s): %w", what, dir, userName(int(st.Uid)), userName(os.Getuid()), ErrUntrusted)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s %s is open to other users (mode %04o, want 0700): %w", what, dir, perm, ErrUntrusted)
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
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && fi.IsDir() && int(st.Uid) == os.Getuid() && fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	return checkPrivateDir(what, dir)
}

// peerCred returns the uid and pid of the process at the other end of a
// unix socket connection (SO_PEERCRED).
func peerCred(conn net.Conn) (uid, pid int, err error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return 0, 0, fmt.Errorf("not a unix socket connection: %T", conn)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, 0, err
	}
	if cerr != nil {
		return 0, 0, cerr
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// checkHubPeer verifies that the process listening at the socket conn
// reached runs as this user, and returns its pid.
func checkHubPeer(conn net.Conn) (pid int, err error) {
	uid, pid, err := peerCred(conn)
	if err != nil {
		return 0, fmt.Errorf("could not tell who listens at the hub's socket: %v: %w", err, ErrUntrusted)
	}
	if uid != os.Getuid() {
		return 0, fmt.Errorf("the process listening at the hub's socket (pid %d) runs as %s, not as you (%s): %w", pid, userName(uid), userName(os.Getuid()), ErrUntrusted)
	}
	return pid, nil
}

// checkPeer refuses peers running as another user: the socket's 0700
// directory should already keep them out; peer credentials make sure.
func checkPeer(conn net.Conn) error {
	if _, ok := conn.(*net.UnixConn); !ok {
		return nil
	}
	uid, _, err := peerCred(conn)
	if err != nil {
		return err
	}
	if uid != os.Getuid() {
		return fmt.Errorf("peer runs as uid %d, not %d", uid, os.Getuid())
	}
	return nil
}

// userName names a user for a sentence: "alice (uid 1000)", or "uid 1000"
// when the password database does not know it.
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}
