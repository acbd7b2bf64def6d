//go:build unix

package platform

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestTryLockExcludes: while one open file holds the lock another is told
// ErrLocked at once, and gets it once the first is closed (a hub that dies
// lets go of the single-hub lock).
func TestTryLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hub.lock")
	first, err := OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := TryLock(first); err != nil {
		t.Fatalf("the first lock: %v", err)
	}
	second, err := OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if err := TryLock(second); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second lock while the first is held: %v, want ErrLocked", err)
	}
	first.Close()
	if err := TryLock(second); err != nil {
		t.Fatalf("the second lock once the first is closed: %v", err)
	}
	if err := Unlock(second); err != nil {
		t.Fatal(err)
	}
	if err := Lock(second); err != nil {
		t.Fatalf("a waiting lock on a free file: %v", err)
	}
}

// TestOpenFileRefusesALink: a link planted in place of a file is neither
// written through nor read, and the error says it is a link.
func TestOpenFileRefusesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("someone else's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "hub.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []int{os.O_CREATE | os.O_RDWR, os.O_RDONLY | ONonblock, os.O_WRONLY | os.O_APPEND} {
		f, err := OpenFile(link, flag, 0o600)
		if err == nil {
			f.Close()
			t.Fatalf("flag %#x: the link was opened", flag)
		}
		if !errors.Is(err, ErrSymlink) || !errors.Is(err, syscall.ELOOP) {
			t.Errorf("flag %#x: %v, want ErrSymlink (ELOOP)", flag, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "someone else's\n" {
		t.Errorf("the link's target now holds %q", b)
	}
}

// TestPrivateDir: a directory open to others is said to be so, in its mode,
// and MakePrivate closes it; owners are read from the file system.
func TestPrivateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // past the umask
		t.Fatal(err)
	}
	fi, _ := os.Lstat(dir)
	if got := DirOpenToOthers(dir, fi); got != "mode 0755, want 0700" {
		t.Errorf("DirOpenToOthers of a 0755 directory = %q", got)
	}
	if IsPrivateDir(dir, fi) {
		t.Error("a 0755 directory is private")
	}
	if o, ok := FileOwner(dir, fi); !ok || !o.IsMe() {
		t.Errorf("the owner of a directory made here is %v (%v), not me (%v)", o, ok, Me())
	}
	if err := MakePrivate(dir); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Lstat(dir)
	if got := DirOpenToOthers(dir, fi); got != "" || !IsPrivateDir(dir, fi) || fi.Mode().Perm() != 0o700 {
		t.Errorf("after MakePrivate: mode %v, DirOpenToOthers %q", fi.Mode().Perm(), got)
	}
	if os.Getuid() != 0 {
		return
	}
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(file, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Lstat(file)
	if o, ok := FileOwner(file, fi); !ok || o != UID(65534) || o.IsMe() {
		t.Errorf("a file given to uid 65534 is owned by %v", o)
	}
	f, err := OpenFile(file, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if o, ok := OwnerOf(f); !ok || o != UID(65534) {
		t.Errorf("the open file is owned by %v", o)
	}
	if got := WritableByOthers(file, fi); got != "mode 0666" {
		t.Errorf("WritableByOthers = %q", got)
	}
	if got := FileOpenToOthers(file, fi); got != "mode 0666, want 0600" {
		t.Errorf("FileOpenToOthers = %q", got)
	}
}

// TestPeerCred: the hub's socket is 0600, and each end of a connection
// reads the other's user and pid (here this very process).
func TestPeerCred(t *testing.T) {
	path := filepath.Join(t.TempDir(), SocketName)
	if err := os.WriteFile(path, nil, 0o600); err != nil { // a dead hub's
		t.Fatal(err)
	}
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != fs.ModeSocket {
		t.Fatalf("the socket: %v %v", fi.Mode(), err)
	}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer s.Close()
	for _, conn := range []net.Conn{c, s} {
		u, pid, err := PeerCred(conn.(*net.UnixConn))
		if err != nil {
			t.Fatal(err)
		}
		if !u.IsMe() || pid != os.Getpid() {
			t.Errorf("the peer is %v, pid %d; want me (%v), pid %d", u, pid, Me(), os.Getpid())
		}
	}
}

// TestChildConn: a child started with ChildConn has a working connection
// to this process (here a shell that echoes what it reads on it back), and
// the half close ends what it reads.
func TestChildConn(t *testing.T) {
	cmd := exec.Command("sh", "-c", "cat <&3 >&3")
	conn, started, err := ChildConn(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started()
	defer cmd.Wait()
	defer conn.Close()
	if _, err := conn.Write([]byte("hello, window\n")); err != nil {
		t.Fatal(err)
	}
	if err := conn.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "hello, window\n" {
		t.Errorf("the child echoed %q", got)
	}
}

// TestStartDetached: the hub starts in a session of its own, so that the
// host ending the wrapper's session does not end the hub.
func TestStartDetached(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	cmd := exec.Command("cat")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := StartDetached(cmd); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// "PID (comm) STATE PPID PGRP SESSION ..."; comm is "cat".
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if sid := f[3]; sid != strconv.Itoa(cmd.Process.Pid) {
		t.Errorf("the detached process is in session %s, want its own (%d)", sid, cmd.Process.Pid)
	}
	if !Alive(cmd.Process.Pid) {
		t.Error("Alive says the running process is not")
	}
}

// TestAliveAfterExit: a process that ended and was reaped is not alive
// (a spool's reserve file of it is taken in).
func TestAliveAfterExit(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Errorf("process %d ended but is alive", cmd.Process.Pid)
	}
	if !Alive(os.Getpid()) {
		t.Error("this process is not alive")
	}
}

// TestLinks: a spool file taken in (removed) while open has no name left.
func TestLinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hub-1-x.jsonl")
	f, err := OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("{}\n")
	if size, links, err := Links(f); err != nil || size != 3 || links != 1 {
		t.Errorf("Links of a new file = %d, %d, %v", size, links, err)
	}
	os.Remove(path)
	if _, links, err := Links(f); err != nil || links != 0 {
		t.Errorf("Links of a removed file = %d, %v", links, err)
	}
}

// TestStorageErrors: the errors a full, read-only or failing disk gives are
// told apart (the journal says which in a sentence), and so are a socket
// nobody listens on and an address in use.
func TestStorageErrors(t *testing.T) {
	wrap := func(e error) error { return &fs.PathError{Op: "write", Path: "/x", Err: e} }
	for _, tt := range []struct {
		err                               error
		space, readOnly, io, noListen, in bool
	}{
		{err: wrap(syscall.ENOSPC), space: true},
		{err: wrap(syscall.EDQUOT), space: true},
		{err: wrap(syscall.EROFS), readOnly: true},
		{err: wrap(syscall.EIO), io: true},
		{err: wrap(syscall.ENOENT), noListen: true},
		{err: wrap(syscall.ECONNREFUSED), noListen: true},
		{err: wrap(syscall.EADDRINUSE), in: true},
		{err: errors.New("something else")},
	} {
		if IsNoSpace(tt.err) != tt.space || IsReadOnly(tt.err) != tt.readOnly || IsIOError(tt.err) != tt.io ||
			IsNoListener(tt.err) != tt.noListen || IsAddrInUse(tt.err) != tt.in {
			t.Errorf("%v: classified wrong", tt.err)
		}
	}
	if free, ok := FreeSpace(t.TempDir()); !ok || free <= 0 {
		t.Errorf("FreeSpace = %d, %v", free, ok)
	}
	if err := Writable(t.TempDir()); err != nil {
		t.Errorf("Writable of a directory of mine: %v", err)
	}
}
