// Package testkit holds what tests of several packages share to run
// elicitray for real: the binary, built once per test process (Binary,
// Run); a home of a test's own (TempHome, Home); the binary run and its
// output (RunBinary, NoSession, DoctorLine); and real faults and peers: a
// history file another process holds locked, a private session bus.
//
// Files: binary.go (the build), home.go, run.go (running it and reading
// what it said), testkit.go (locks, buses).
package testkit

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/elicitray/elicitray/history"
)

// HoldLock holds an exclusive flock on path (made a history with one
// decision first) in another process until release is called or the test
// ends; pid is the holder's.
func HoldLock(t testing.TB, path string) (pid int, release func()) {
	t.Helper()
	st, err := history.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Add(history.Record{Server: "github", Message: "Deploy?", Action: "accept", DecidedBy: "user"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	holder := exec.Command("flock", "--exclusive", path, "sh", "-c", "echo held; exec cat")
	in, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Skipf("flock(1) is needed to hold a lock: %v", err)
	}
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf) != "held\n" {
		t.Fatalf("the lock holder did not start: %v %q", err, buf)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			in.Close()
			holder.Wait()
		})
	}
	t.Cleanup(release)
	return holder.Process.Pid, release
}

// SessionBus starts a real dbus-daemon for the test with its socket at
// dir/bus, where a user's runtime directory has it, and stops it after.
func SessionBus(t testing.TB, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skipf("dbus-daemon is needed (make deps-system installs dbus): %v", err)
	}
	addr := "unix:path=" + filepath.Join(dir, "bus")
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--address="+addr, "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("dbus-daemon did not start: %v", err)
	}
	return addr
}
