package testkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/elicitray/elicitray/app/paths"
)

// RunBinary runs the real binary with args in the environment env with
// extra added (a later entry wins), through prefix (a launcher such as
// NoSession's, or none), and returns its stdout, its stderr and its exit
// code; it fails the test only when the binary could not run.
func RunBinary(t testing.TB, env, prefix, extra []string, args ...string) (string, string, int) {
	t.Helper()
	argv := append(append(append([]string{}, prefix...), Binary(t)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(slices.Clone(env), extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %s: %v", strings.Join(argv, " "), err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// NoSession is a launcher (unshare) that runs a command in a PID
// namespace of its own, where it finds no desktop session's processes: a
// terminal over ssh. The test is skipped where the user's systemd manager
// would give the session away, or where no namespace can be made (failed
// in CI, where it must run).
func NoSession(t testing.TB) []string {
	t.Helper()
	if rt := paths.UserRuntimeDir(os.Getuid()); rt != "" {
		t.Skipf("%s exists: the wrapper would find your desktop session through its systemd user manager", rt)
	}
	prefix := []string{"unshare", "--pid", "--fork", "--mount-proc", "--kill-child"}
	if os.Getuid() != 0 {
		prefix = []string{"unshare", "--map-root-user", "--pid", "--fork", "--mount-proc", "--kill-child"}
	}
	if out, err := exec.Command(prefix[0], append(prefix[1:], "true")...).CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s cannot make a PID namespace here: %v\n%s", strings.Join(prefix, " "), err, out)
		}
		t.Skipf("%s cannot make a PID namespace here: %v\n%s", strings.Join(prefix, " "), err, out)
	}
	return prefix
}

// SyncBuf is a log that goroutines write to while the test reads it.
type SyncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *SyncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WriteFile writes content to path with mode, whatever the umask, making
// its directories (0700) first.
func WriteFile(t testing.TB, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// JSONText is v as compact JSON, for messages; fmt's %v when it has none.
func JSONText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// DoctorLine is the line of doctor's report out about topic ("✓ Display:
// …"), or "".
func DoctorLine(out, topic string) string {
	for l := range strings.SplitSeq(out, "\n") {
		if len(l) > 2 && strings.HasPrefix(strings.SplitN(l, " ", 2)[1], topic+":") {
			return l
		}
	}
	return ""
}
