//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/internal/hubkit"
	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/paths"

	"golang.org/x/sys/unix"
)

// TestQuitClean: `elicitray quit` stops the real hub, started as a wrapper
// starts it (detached, its output in hub.log); the hub exits, and its log
// says it stopped and holds no error (issue 10). Fyne logs "*** Error in
// Fyne call thread" when a window is called after its loop ended, which
// every quit did while the socket's goroutine called fyne.Do(a.Quit) on
// its way out; and a.Quit, closing every window first, could panic inside
// Fyne when a window it had closed got a pointer event (a quit right after
// a prompt window appeared under the pointer did, one run in six). Quit
// with a tray icon, and quit with the history window and a prompt window
// open.
func TestQuitClean(t *testing.T) {
	t.Parallel()
	needDisplay(t)
	t.Run("tray", func(t *testing.T) {
		t.Parallel()
		// Its own X server and session bus (newTestEnv), the bus watched.
		e := newTestEnv(t, true)
		addr := varIn(e.vars, "DBUS_SESSION_BUS_ADDRESS")
		items := trayServeWatcher(t, trayConnect(t, addr))
		pid := quitStartHub(t, e)
		select {
		case <-items:
		case <-time.After(trayWait):
			t.Fatalf("the hub registered no tray icon within %v:\n%s", trayWait, quitLog(e))
		}
		quitAndCheck(t, e, pid)
	})
	t.Run("windows open", func(t *testing.T) {
		t.Parallel()
		e := newTestEnv(t, true)
		pid := quitStartHub(t, e) // its history window opens
		// A prompt, asked on the socket as a wrapper asks, and the hub's
		// status on the same connection: the hub handles one connection's
		// messages in order, so once the status comes back the prompt is
		// queued and its window on its way to the screen, ahead of the quit.
		conn, err := net.Dial("unix", paths.Under(e.home).Socket)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		enc := json.NewEncoder(conn)
		if err := enc.Encode(hubapi.Message{Op: hubapi.OpPrompt, ID: 1, Request: hubkit.FormRequest("deploys", "Deploy now?")}); err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(hubapi.Message{Op: hubapi.OpStatus, ID: 2}); err != nil {
			t.Fatal(err)
		}
		replies := bufio.NewReader(conn)
		if err := conn.SetReadDeadline(time.Now().Add(trayWait)); err != nil {
			t.Fatal(err)
		}
		line, err := replies.ReadBytes('\n')
		var status hubapi.Message
		if err != nil || json.Unmarshal(line, &status) != nil || status.ID != 2 || status.Count != 1 {
			t.Fatalf("the hub's status: %q, %v; want id 2 with one prompt waiting\n%s", line, err, quitLog(e))
		}
		quitAndCheck(t, e, pid)
		// The prompt was not answered for the person: its connection just
		// ended with the hub.
		if line, err := replies.ReadBytes('\n'); !errors.Is(err, os.ErrDeadlineExceeded) && len(line) > 0 {
			var m hubapi.Message
			if json.Unmarshal(line, &m) == nil && m.Result != nil && m.Result.Action != "cancel" {
				t.Errorf("after quit the prompt was answered %+v", m.Result)
			}
		}
	})
}

// quitStartHub starts a hub as `elicitray history window` does when none
// runs (startingClient: detached, writing hub.log), in e's environment, and
// returns its pid. Cleanup kills it if it still runs.
func quitStartHub(t *testing.T, e *testEnv) int {
	t.Helper()
	out, stderr, code := testkit.RunBinary(t, e.vars, nil, nil, "history", "window")
	if code != 0 {
		t.Fatalf("elicitray history window exited %d:\n%s%s\n%s", code, out, stderr, quitLog(e))
	}
	b, err := os.ReadFile(paths.Under(e.home).Lock)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil || pid <= 0 {
		t.Fatalf("the hub's lock names no pid (%q, %v):\n%s", b, err, stderr)
	}
	t.Cleanup(func() { _ = unix.Kill(pid, unix.SIGKILL) })
	return pid
}

// quitAndCheck runs `elicitray quit` in e's environment, waits for the hub
// (pid) to exit, and checks what the hub's log says of it.
func quitAndCheck(t *testing.T, e *testEnv, pid int) {
	t.Helper()
	_, stderr, code := testkit.RunBinary(t, e.vars, nil, nil, "quit")
	if code != 0 || !strings.Contains(stderr, "the hub stopped") {
		t.Fatalf("elicitray quit exited %d: %s", code, stderr)
	}
	quitWaitExit(t, e, pid)
	log := quitLog(e)
	if !strings.Contains(log, "elicitray hub: stopped") {
		t.Errorf("the hub's log does not say it stopped:\n%s", log)
	}
	if bad := regexp.MustCompile(`(?im)^.*(error|panic|fatal).*$`).FindAllString(log, -1); len(bad) > 0 {
		t.Errorf("the hub's log says, on quit:\n%s\nwhole log:\n%s", strings.Join(bad, "\n"), log)
	}
}

// quitWaitExit waits until process pid has exited, through a pidfd that
// becomes readable then (it is not the test's child: the hub runs in a
// session of its own).
func quitWaitExit(t *testing.T, e *testEnv, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return // gone already
	}
	if err != nil {
		t.Skipf("pidfd_open: %v (Linux 5.3 or later)", err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(trayWait/time.Millisecond))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			t.Fatalf("waiting for the hub to exit: %v", err)
		}
		if n == 0 {
			t.Fatalf("the hub (pid %d) still runs %v after elicitray quit:\n%s", pid, trayWait, quitLog(e))
		}
		return
	}
}

// quitLog is the text of the log of e's hub.
func quitLog(e *testEnv) string {
	b, err := os.ReadFile(paths.Under(e.home).HubLog)
	if err != nil {
		return "(no hub log: " + err.Error() + ")"
	}
	return string(b)
}
