// Package platform holds every part of elicitray that differs between
// Linux, macOS and Windows, behind build tags, so that the rest of app/
// is written once: who a user is and who owns a file, whether a directory
// is closed to other users and how to make it so, opening a file without
// following a link planted in its place, file locks, the peer credentials
// of a local socket, starting the hub detached, the window process's
// connection to the hub, free space, the classes of storage errors,
// where the hub's socket lives, and whether a tray icon can be shown
// (tray.go).
//
// It needs no cgo (app/ does, for Fyne), so `make vet` checks it for all
// three systems: GOOS=linux, darwin and windows with CGO_ENABLED=0.
//
// Per system:
//
//   - Linux and macOS: a user is a uid. A private directory is mode 0700;
//     links are refused with O_NOFOLLOW; locks are flock(2); the hub's
//     socket is AF_UNIX, and its peer is read with SO_PEERCRED (Linux) or
//     LOCAL_PEERCRED and LOCAL_PEERPID (macOS); the hub starts in a session
//     of its own (setsid); the window process gets a socketpair as fd 3.
//   - Windows: a user is a security identifier (SID). A private directory
//     is one whose DACL grants access to no one but the user (and SYSTEM
//     and the Administrators, who can take any file anyway); making one
//     sets a protected DACL (privateSDDL). There is no O_NOFOLLOW: a
//     file is opened with FILE_FLAG_OPEN_REPARSE_POINT, which opens a link
//     itself, and a link is refused on its handle; files are opened with
//     FILE_SHARE_DELETE, so that a spool file can be taken in (removed)
//     while its writer has it open, as on Unix. Locks are LockFileEx. The
//     hub's socket is AF_UNIX too (Windows 10 1803 and later), in the
//     private directory; its peer's pid comes from SIO_AF_UNIX_GETPEERPID
//     and its user from the process token. The hub starts detached
//     (DETACHED_PROCESS, a new process group, out of the host's job when
//     the job allows); the window process talks to the hub over two
//     anonymous pipes, its stdin and stdout. A hub started from a wrapper
//     keeps the variables Windows needs (SystemEnv).
//
// github.com/gofrs/flock was considered for the locks: it locks a path it
// opens itself and keeps the handle to itself, while the hub lock writes
// the hub's pid through its locked handle and the spool locks the very
// file it appends to and checks that file's link count under the lock. So
// the locks here take an *os.File.
//
// Only the Linux implementation runs in the tests here; the Windows and
// macOS ones are compiled and vetted, and their pure logic (SDDL strings,
// ACL verdicts, run directories) is unit-tested on Linux.
package platform
