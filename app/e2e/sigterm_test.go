//go:build linux

package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"golang.org/x/sys/unix"
)

// TestWrapperEndsOnFirstSIGTERM (issue 25): the host has stopped reading
// the wrapper's stdout, which is full, and the server floods it with
// notifications. One SIGTERM ends the wrapper all the same: its server is
// shut down as usual (stdin closed, SIGTERM, SIGKILL, each after --grace),
// and after the grace the writes to the host that nobody reads are given
// up. On 8f05bc5 it stayed blocked in that write until a second signal.
// The host's stdout is a pipe, or one end of a socketpair as a Node host
// (Claude Code, the Inspector) gives its servers: there the relay splices
// the server's pipe into the socket, and the kernel held the server's
// pipe meanwhile, so that not even SIGKILL ended the server.
func TestWrapperEndsOnFirstSIGTERM(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, false)
	flood := `exec yes '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood"}}'`
	for _, socket := range []bool{false, true} {
		t.Run(map[bool]string{false: "pipe", true: "socket"}[socket], func(t *testing.T) {
			w := startStalledHost(t, e, socket, "wrap", "--name", "flood", "--grace", "200ms", "--", "sh", "-c", flood)
			w.waitFull(t)
			server := serverOf(t, w.cmd.Process.Pid)
			w.term(t)
			// The host's log says why what the server still sent went nowhere.
			if log, _ := os.ReadFile(w.log); !strings.Contains(string(log), "the server's last messages were dropped") {
				t.Errorf("the wrapper's log does not say it dropped the server's last messages:\n%s", log)
			}
			if err := syscall.Kill(server, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("the server (pid %d) outlived the wrapper: kill 0 says %v", server, err)
			}
		})
	}
}

// TestWrapperEndsOnFirstSIGTERMRemote is the same with a remote server
// that floods the GET stream with notifications once the session is up:
// after one SIGTERM the session ends within --grace, then the host's
// writes nobody reads are given up, and the wrapper ends.
func TestWrapperEndsOnFirstSIGTERMRemote(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, false)
	flood := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		event := []byte("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"flood\"}}\n\n")
		rc := http.NewResponseController(w)
		for r.Context().Err() == nil {
			if _, err := w.Write(event); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
	ts := hostileServer(t, func(w http.ResponseWriter, id string) { answer(w, id, "ok") }, flood)
	for _, socket := range []bool{false, true} {
		t.Run(map[bool]string{false: "pipe", true: "socket"}[socket], func(t *testing.T) {
			w := startStalledHost(t, e, socket, "wrap", "--name", "flood", "--grace", "200ms", "--url", ts.URL+"/mcp")
			// The host starts the session, reads the initialize result, and
			// then reads nothing more.
			fmt.Fprintln(w.in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`)
			if line, err := bufio.NewReader(w.out).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
				t.Fatalf("no initialize result: %q, %v", line, err)
			}
			fmt.Fprintln(w.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			w.waitFull(t)
			w.term(t)
		})
	}
}

// stalledHost is a host that runs the wrapper and then stops reading its
// stdout (a pipe, or a socket as Node hosts give).
type stalledHost struct {
	cmd    *exec.Cmd
	in     *os.File // the wrapper's stdin, the host's end
	out    *os.File // the wrapper's stdout, the host's end
	socket bool
	peer   *os.File // socket: a copy of the wrapper's end, to see its send queue
	log    string
	exited chan struct{}
}

// startStalledHost runs the binary with args in e's environment, without a
// display, as the host.
func startStalledHost(t *testing.T, e *testEnv, socket bool, args ...string) *stalledHost {
	t.Helper()
	h := &stalledHost{socket: socket, log: filepath.Join(t.TempDir(), "wrapper.log"), exited: make(chan struct{})}
	h.cmd = e.command(testkit.Binary(t), args...)
	h.cmd.Env = append(slices.Clone(h.cmd.Env), "DISPLAY=", "WAYLAND_DISPLAY=")
	var stdin, stdout *os.File
	if socket {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		h.out, stdout = os.NewFile(uintptr(fds[0]), "host"), os.NewFile(uintptr(fds[1]), "wrapper")
		peer, err := unix.FcntlInt(uintptr(fds[1]), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		h.peer = os.NewFile(uintptr(peer), "wrapper's end")
		t.Cleanup(func() { h.peer.Close() })
	} else {
		var err error
		if h.out, stdout, err = os.Pipe(); err != nil {
			t.Fatal(err)
		}
	}
	stdin, in, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	h.in = in
	stderr, err := os.Create(h.log)
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	h.cmd.Stdin, h.cmd.Stdout, h.cmd.Stderr = stdin, stdout, stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	stdout.Close()
	go func() {
		_ = h.cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-h.exited:
		default:
			_ = h.cmd.Process.Kill()
			<-h.exited
		}
		h.in.Close()
		h.out.Close()
	})
	return h
}

// waitFull waits until the wrapper's stdout is full: half a pipe's size
// queued, or on a socket half the wrapper's send buffer waiting (a Unix
// socket's writer waits once its queue reaches that buffer). The wrapper
// then waits on the host, and the flood on the wrapper.
func (h *stalledHost) waitFull(t *testing.T) {
	t.Helper()
	var last string
	full := func() bool {
		var size, queued int
		var err error
		if h.socket {
			if size, err = unix.GetsockoptInt(int(h.peer.Fd()), unix.SOL_SOCKET, unix.SO_SNDBUF); err == nil {
				queued, err = unix.IoctlGetInt(int(h.peer.Fd()), unix.SIOCOUTQ)
			}
		} else if size, err = unix.FcntlInt(h.out.Fd(), unix.F_GETPIPE_SZ, 0); err == nil {
			queued, err = unix.IoctlGetInt(int(h.out.Fd()), unix.TIOCINQ) // FIONREAD
		}
		if err != nil {
			t.Fatal(err)
		}
		last = fmt.Sprintf("%d bytes of %d", queued, size)
		return queued >= size/2
	}
	for deadline := time.Now().Add(time.Minute); !full(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the wrapper's stdout never filled up: %s", last)
		}
	}
}

// term sends the wrapper one SIGTERM and waits for it to end.
func (h *stalledHost) term(t *testing.T) {
	t.Helper()
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.exited:
	case <-time.After(time.Minute):
		log, _ := os.ReadFile(h.log)
		t.Fatalf("the wrapper still runs a minute after one SIGTERM; its log:\n%s", log)
	}
}

// serverOf is the one child process of the wrapper pid, whichever of its
// threads started it.
func serverOf(t *testing.T, pid int) int {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil {
		t.Fatal(err)
	}
	var children []string
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		children = append(children, strings.Fields(string(b))...)
	}
	if len(children) != 1 {
		t.Fatalf("the wrapper has children %v, want one (the server)", children)
	}
	child, _ := strconv.Atoi(children[0])
	return child
}
