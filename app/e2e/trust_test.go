//go:build linux

package e2e

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/internal/hubkit"
	"github.com/elicitray/elicitray/app/session"
	"github.com/elicitray/elicitray/app/wrapper"

	"github.com/elicitray/elicitray/app/hubapi"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
)

// untrustedListener listens on a unix socket at path in the test process
// and counts what reaches it: a wrapper that trusted the socket would send
// its prompt there.
type untrustedListener struct {
	got chan string
}

func listenUntrusted(t *testing.T, path string) *untrustedListener {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	u := &untrustedListener{got: make(chan string, 16)}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				line, _ := bufio.NewReader(conn).ReadString('\n')
				u.got <- line
			}()
		}
	}()
	return u
}

// noneReached fails when anything reached the listener.
func (u *untrustedListener) noneReached(t *testing.T) {
	t.Helper()
	select {
	case line := <-u.got:
		t.Errorf("the untrusted socket received %q", line)
	default:
	}
}

// approveRefused asks for a prompt as the wrapper does, with a client of
// the hub at p that would start a hub, and checks it is refused with
// ErrUntrusted, saying want, and that no hub was started.
func approveRefused(t *testing.T, p paths.Paths, want string) {
	t.Helper()
	c := &wrapper.Approver{Paths: p, StartWait: time.Second, SayHub: true,
		Start: func(session.Desktop) (*os.Process, error) {
			t.Error("a hub was started in an untrusted run directory")
			return nil, errors.New("no")
		},
		Sessions: func(ctx context.Context, try func(session.Desktop) error) error {
			return try(session.Desktop{Vars: map[string]string{"DISPLAY": ":0"}, From: "a test"})
		}}
	_, err := c.Approve(context.Background(), hubkit.FormRequest("github", "Deploy?"))
	if !errors.Is(err, paths.ErrUntrusted) || !errors.Is(err, bridge.ErrNoDesktop) {
		t.Fatalf("Approve: %v, want it refused as untrusted (and so no desktop)", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("Approve: %v, want it to say %q", err, want)
	}
}

// TestUntrustedHub (issue 9): a wrapper sends nothing to a socket it has not
// verified is its user's own hub, and starts no hub there.
func TestUntrustedHub(t *testing.T) {
	t.Parallel()
	t.Run("run directory is a link", func(t *testing.T) {
		e := newTestEnv(t, false)
		home := e.home
		elsewhere := t.TempDir() // someone's directory, with a hub socket in it
		os.Chmod(elsewhere, 0o700)
		u := listenUntrusted(t, filepath.Join(elsewhere, "hub.sock"))
		if err := os.Symlink(elsewhere, filepath.Join(home, "run")); err != nil {
			t.Fatal(err)
		}
		approveRefused(t, paths.Under(home), "is a symbolic link (to "+elsewhere+")")
		_, stderr, code := e.run(t, nil, nil, "status")
		if code == 0 || !strings.Contains(stderr, "is a symbolic link") {
			t.Errorf("status: exit %d, %s", code, stderr)
		}
		u.noneReached(t)
	})
	t.Run("run directory open to others", func(t *testing.T) {
		e := newTestEnv(t, false)
		home := e.home
		run := filepath.Join(home, "run")
		if err := os.Mkdir(run, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(run, 0o777)
		u := listenUntrusted(t, filepath.Join(run, "hub.sock"))
		approveRefused(t, paths.Under(home), "is open to other users (mode 0777, want 0700)")
		u.noneReached(t)
	})
	t.Run("hub of another user", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("a listener of another user needs root to start: skipped")
		}
		if _, err := exec.LookPath("setpriv"); err != nil {
			t.Skipf("setpriv is needed to run a listener as another user: %v", err)
		}
		// Debian's python3: one under root's home (pyenv) is not the other
		// user's to run.
		python := "/usr/bin/python3"
		if _, err := os.Stat(python); err != nil {
			t.Skipf("%s is needed for the other user's listener: %v", python, err)
		}
		e := newTestEnv(t, false)
		home := e.home
		run := filepath.Join(home, "run")
		if err := os.Mkdir(run, 0o700); err != nil {
			t.Fatal(err)
		}
		// The other user (nobody) listens in a directory it may write, and
		// the socket is then moved into this user's run directory: the
		// directory checks pass, the peer check must not.
		shared, err := os.MkdirTemp("", "er-other-") // reachable by nobody
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(shared) })
		os.Chmod(shared, 0o777)
		sock := filepath.Join(shared, "hub.sock")
		listener := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(4)
print("listening", flush=True)
while True:
    c, _ = s.accept()
    data = c.recv(65536)
    print("received", len(data), flush=True)
    c.close()
`, sock)
		var errOut strings.Builder
		listener.Stderr = &errOut
		out, err := listener.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := listener.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			listener.Process.Kill()
			listener.Wait()
		})
		lines := bufio.NewScanner(out)
		if !lines.Scan() || lines.Text() != "listening" {
			listener.Process.Kill()
			listener.Wait()
			t.Fatalf("the other user's listener did not start: %q\n%s", lines.Text(), errOut.String())
		}
		if err := os.Rename(sock, filepath.Join(run, "hub.sock")); err != nil {
			t.Fatal(err)
		}
		approveRefused(t, paths.Under(home), "runs as "+hubapi.UserName(65534)+", not as you")
		listener.Process.Kill()
		for lines.Scan() {
			if f := strings.Fields(lines.Text()); len(f) == 2 && f[0] == "received" && f[1] != "0" {
				t.Errorf("the other user's listener got something: %q", lines.Text())
			}
		}
	})
}
