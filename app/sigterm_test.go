//go:build linux

package app

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWrapperEndsOnFirstSIGTERM (issue 25): the host has stopped reading
// the wrapper's stdout, which is full, and the server floods it with
// notifications. One SIGTERM ends the wrapper all the same: its server is
// shut down as usual (stdin closed, SIGTERM, SIGKILL, each after --grace),
// and after the grace the writes to the host that nobody reads are given
// up. On main it stayed blocked in that write until a second signal.
func TestWrapperEndsOnFirstSIGTERM(t *testing.T) {
	testHome(t)
	flood := `exec yes '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood"}}'`
	cmd := exec.Command(elicitrayBin, "wrap", "--name", "flood", "--grace", "200ms", "--", "sh", "-c", flood)
	cmd.Env = append(os.Environ(), "DISPLAY=", "WAYLAND_DISPLAY=")
	stdin, hostIn, err := os.Pipe() // the host keeps writing end open, and writes nothing
	if err != nil {
		t.Fatal(err)
	}
	defer hostIn.Close()
	hostOut, stdout, err := os.Pipe() // the host never reads
	if err != nil {
		t.Fatal(err)
	}
	defer hostOut.Close()
	stderr, err := os.Create(t.TempDir() + "/wrapper.log")
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	stdout.Close()
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	defer func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	// The wrapper's stdout is full: it waits on the host, and the flood
	// waits on it.
	var last string
	full := func() bool {
		size, err := unix.FcntlInt(hostOut.Fd(), unix.F_GETPIPE_SZ, 0)
		if err != nil {
			t.Fatal(err)
		}
		queued, err := unix.IoctlGetInt(int(hostOut.Fd()), unix.TIOCINQ) // FIONREAD
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
	server := serverOf(t, cmd.Process.Pid)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(time.Minute):
		log, _ := os.ReadFile(stderr.Name())
		t.Fatalf("the wrapper still runs a minute after one SIGTERM; its log:\n%s", log)
	}
	// The host's log says why what the server still sent went nowhere.
	if log, _ := os.ReadFile(stderr.Name()); !strings.Contains(string(log), "the server's last messages were dropped") {
		t.Errorf("the wrapper's log does not say it dropped the server's last messages:\n%s", log)
	}
	if err := syscall.Kill(server, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the server (pid %d) outlived the wrapper: kill 0 says %v", server, err)
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

// TestWrapperEndsOnFirstSIGTERMRemote is the same with a remote server
// that floods the GET stream with notifications once the session is up:
// after one SIGTERM the session ends within --grace and the wrapper with
// it, whatever the host does.
func TestWrapperEndsOnFirstSIGTERMRemote(t *testing.T) {
	testHome(t)
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
	cmd := exec.Command(elicitrayBin, "wrap", "--name", "flood", "--grace", "200ms", "--url", ts.URL+"/mcp")
	cmd.Env = append(os.Environ(), "DISPLAY=", "WAYLAND_DISPLAY=")
	stdin, hostIn, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer hostIn.Close()
	hostOut, stdout, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer hostOut.Close()
	stderr, err := os.Create(t.TempDir() + "/wrapper.log")
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	stdout.Close()
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	defer func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	// The host starts the session, reads the initialize result, and then
	// reads nothing more.
	fmt.Fprintln(hostIn, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`)
	if line, err := bufio.NewReader(hostOut).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("no initialize result: %q, %v", line, err)
	}
	fmt.Fprintln(hostIn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var last string
	full := func() bool {
		size, err := unix.FcntlInt(hostOut.Fd(), unix.F_GETPIPE_SZ, 0)
		if err != nil {
			t.Fatal(err)
		}
		queued, err := unix.IoctlGetInt(int(hostOut.Fd()), unix.TIOCINQ)
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
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(time.Minute):
		log, _ := os.ReadFile(stderr.Name())
		t.Fatalf("the wrapper still runs a minute after one SIGTERM; its log:\n%s", log)
	}
	if !cmd.ProcessState.Success() {
		t.Errorf("the wrapper ended %v after one SIGTERM, want a clean end of the session", cmd.ProcessState)
	}
}
