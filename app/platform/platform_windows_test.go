package platform

// The Windows implementation's tests, for a Windows machine: `make
// test-windows` runs them under Wine, which skips what Wine does not
// emulate (skipUnderWine says what), and `make cross-windows` vets them.

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain makes the test binary the echoing child of TestChildConn and
// TestStartDetached when asked to.
func TestMain(m *testing.M) {
	if os.Getenv(echoChild) == "1" {
		_, _ = io.Copy(os.Stdout, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// echoChild makes the test binary copy its stdin to its stdout.
const echoChild = "ELICITRAY_TEST_ECHO"

// skipUnderWine skips t under Wine, saying what Wine lacks that it needs;
// on Windows it runs.
func skipUnderWine(t *testing.T, lacks string) {
	t.Helper()
	if UnderWine() {
		t.Skip("Wine 8 " + lacks)
	}
}

// TestTryLockExcludes: while one handle holds the lock another is told
// ErrLocked at once, and gets it once the first is closed.
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
}

// TestOpenFileRefusesALink: a symbolic link in place of a file is refused
// on its own handle, and its target is left as it was. Making a link needs
// the right to (Developer Mode, or an elevated prompt).
func TestOpenFileRefusesALink(t *testing.T) {
	skipUnderWine(t, "makes os.Symlink a Unix symbolic link, which it follows when opened with FILE_FLAG_OPEN_REPARSE_POINT (platform's logic is TestCreateArgs)")
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("someone else's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "hub.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, flag := range []int{os.O_CREATE | os.O_RDWR, os.O_RDONLY, os.O_WRONLY | os.O_APPEND} {
		f, err := OpenFile(link, flag, 0o600)
		if err == nil {
			f.Close()
			t.Fatalf("flag %#x: the link was opened", flag)
		}
		if !errors.Is(err, ErrSymlink) {
			t.Errorf("flag %#x: %v, want ErrSymlink", flag, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "someone else's\n" {
		t.Errorf("the link's target now holds %q", b)
	}
}

// TestSpoolFileRemovedWhileOpen: a file open for appending (a wrapper's
// spool file) can be removed by another handle (the hub taking it in), and
// the writer then sees it has no name left.
func TestSpoolFileRemovedWhileOpen(t *testing.T) {
	skipUnderWine(t, "still counts one link for an open file another handle removed")
	path := filepath.Join(t.TempDir(), "wrapper-1-x.jsonl")
	w, err := OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := Lock(w); err != nil {
		t.Fatalf("locking an append-only file: %v", err)
	}
	if _, err := w.WriteString("{}\n"); err != nil {
		t.Fatal(err)
	}
	if err := Unlock(w); err != nil {
		t.Fatal(err)
	}
	if size, links, err := Links(w); err != nil || size != 3 || links != 1 {
		t.Fatalf("Links of a new file = %d, %d, %v", size, links, err)
	}
	r, err := OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.Remove(path); err != nil {
		t.Fatalf("removing a spool file its writer has open: %v", err)
	}
	if _, links, err := Links(w); err != nil || links != 0 {
		t.Errorf("Links of a removed file = %d, %v", links, err)
	}
}

// TestPrivateDir: a directory made in the temporary directory is closed to
// others by MakePrivate, and then said to be private; its owner is me.
func TestPrivateDir(t *testing.T) {
	skipUnderWine(t, "keeps no access list a program sets and reads back a default one with Everyone (S-1-1-0) in it; the verdicts are tested as logic on Linux (TestOthersAllowed, TestPrivateSDDL)")
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(dir)
	if o, ok := FileOwner(dir, fi); !ok || !o.IsMe() {
		t.Errorf("the owner of a directory made here is %v (%v), not me (%v)", o, ok, Me())
	}
	if err := MakePrivate(dir); err != nil {
		t.Fatal(err)
	}
	if why := DirOpenToOthers(dir, fi); why != "" || !IsPrivateDir(dir, fi) {
		t.Errorf("after MakePrivate: %s", why)
	}
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ffi, _ := os.Lstat(file)
	if why := FileOpenToOthers(file, ffi); why != "" {
		t.Errorf("a file made in a private directory: %s", why)
	}
}

// TestPipePeer: the hub's named pipe; each end of a connection reads the
// other's user and pid (here this very process), the client the server's
// and the hub the client's; a second Listen on the same name (a squatter,
// or a second hub) fails instead of sharing it; Dial with no hub says the
// pipe does not exist.
func TestPipePeer(t *testing.T) {
	path := filepath.Join(t.TempDir(), SocketName)
	if _, err := Dial(context.Background(), path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Dial with no hub: %v, want fs.ErrNotExist", err)
	}
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := Dial(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer s.Close()
	for _, end := range []struct {
		conn     net.Conn
		isServer bool
	}{{c, true}, {s, false}} {
		u, pid, err := Peer(end.conn, end.isServer)
		if err != nil {
			t.Fatal(err)
		}
		if !u.IsMe() || pid != os.Getpid() {
			t.Errorf("the peer is %v, pid %d; want me (%v), pid %d", u, pid, Me(), os.Getpid())
		}
	}
	if _, _, err := Peer(struct{ net.Conn }{c}, true); !errors.Is(err, ErrNotLocal) {
		t.Errorf("Peer of a connection that is no pipe: %v, want ErrNotLocal", err)
	}
	if UnderWine() {
		// Wine 8 creates a second first instance of a pipe name: what
		// keeps a squatter out is tested on Windows itself, and the pipe's
		// security descriptor as logic on Linux (TestPrivateSDDL).
		t.Log("not checked under Wine: a second Listen on the pipe (Wine 8 does not refuse a second first instance)")
		return
	}
	if ln2, err := Listen(path); err == nil {
		ln2.Close()
		t.Error("a second Listen on the hub's pipe succeeded: a squatter could share it")
	}
}

// TestChildConn: a child started with ChildConn (this test binary, made
// to echo) reads this process on its stdin and answers on its stdout.
func TestChildConn(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), echoChild+"=1")
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
	if _, err := conn.Write([]byte("hello, window\r\n")); err != nil {
		t.Fatal(err)
	}
	if err := conn.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(got)) != "hello, window" {
		t.Errorf("the child echoed %q", got)
	}
}

// TestStartDetached: a detached process starts, runs, and once it ended is
// not alive. The process is this test binary, made to echo until its stdin
// ends (Wine's findstr, the first choice, now and then ended at once on a
// loaded machine).
func TestStartDetached(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), echoChild+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := StartDetached(cmd); err != nil {
		t.Fatal(err)
	}
	if !Alive(cmd.Process.Pid) {
		t.Error("Alive says the running process is not")
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Error("the process ended but is alive")
	}
}

// TestFreeSpace: the volume of the temporary directory has room.
func TestFreeSpace(t *testing.T) {
	if free, ok := FreeSpace(t.TempDir()); !ok || free <= 0 {
		t.Errorf("FreeSpace = %d, %v", free, ok)
	}
}
