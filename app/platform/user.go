package platform

import (
	"errors"
	"fmt"
	"os/user"
	"strconv"
)

// User is an account as the OS knows it: a uid on Linux and macOS, a
// security identifier (SID) on Windows. The zero User is nobody known.
type User struct {
	uid int    // Linux and macOS
	sid string // Windows: "S-1-5-21-…"
}

// UID is the Unix user uid.
func UID(uid int) User { return User{uid: uid} }

// SID is the Windows user with the security identifier sid ("S-1-5-…").
func SID(sid string) User { return User{uid: -1, sid: sid} }

// IsMe reports whether u is the user this process runs as.
func (u User) IsMe() bool { return u == Me() }

// ID is u in a few characters for a sentence: "uid 1000", or the SID.
func (u User) ID() string {
	if u.sid != "" {
		return u.sid
	}
	return fmt.Sprintf("uid %d", u.uid)
}

// String names u for a sentence: "alice (uid 1000)", "DOMAIN\alice
// (S-1-5-21-…)", or ID alone when the account database does not know it.
func (u User) String() string {
	key := strconv.Itoa(u.uid)
	if u.sid != "" {
		key = u.sid
	}
	if a, err := user.LookupId(key); err == nil && a.Username != "" {
		return fmt.Sprintf("%s (%s)", a.Username, u.ID())
	}
	return u.ID()
}

// Well-known Windows SIDs: accounts that can read any file anyway, so an
// access they hold does not make a directory open to other users.
const (
	sidSystem         = "S-1-5-18"
	sidAdministrators = "S-1-5-32-544"
)

// IsAdmin reports whether u is the system's administrator: root on Unix,
// SYSTEM or the Administrators group on Windows (a file made from an
// elevated prompt is owned by Administrators).
func (u User) IsAdmin() bool {
	if u.sid != "" {
		return u.sid == sidSystem || u.sid == sidAdministrators
	}
	return u.uid == 0
}

// ErrNotLocal is Peer's error for a connection that is no local socket
// (on Windows, no named pipe): a test's in-memory pipe has no peer.
var ErrNotLocal = errors.New("not a local socket or pipe connection")
