//go:build unix

package bridge

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLifecycle: the server's exit code is returned; its stderr passes
// through untouched; when the host's stdin ends the server's stdin is
// closed, then SIGTERM, then SIGKILL (PROTOCOL.md §7).
func TestLifecycle(t *testing.T) {
	for _, tt := range []struct {
		name   string
		script string
		want   int
		stderr string
		log    string
	}{
		{"exit code", `echo "server log line" >&2; exit 3`, 3, "server log line\n", ""},
		{"stdin closed", `cat >/dev/null; exit 0`, 0, "", ""},
		{"needs SIGTERM", `trap 'exit 42' TERM; while :; do sleep 0.05; done`, 42, anyText,
			"the server was still running 100ms after its input closed, as some servers are until they are told to stop: sending SIGTERM"},
		{"needs SIGKILL", `trap '' TERM; while :; do sleep 0.05; done`, 137, anyText,
			"the server was still running 100ms after it was told to stop: sending SIGKILL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tt.script)
			var stderr, log bytes.Buffer
			cmd.Stderr = &stderr
			r := NewRelay(Command(cmd, 100*time.Millisecond), &Options{Log: &log})
			// The host's stdin is already at EOF.
			code, err := r.Run(context.Background(), strings.NewReader(""), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if code != tt.want {
				t.Errorf("exit code %d, want %d", code, tt.want)
			}
			if tt.stderr != anyText && stderr.String() != tt.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.stderr)
			}
			if !strings.Contains(log.String(), tt.log) {
				t.Errorf("log %q does not mention %q", log.String(), tt.log)
			}
		})
	}
}

// anyText marks an expectation the test does not check: sh reports its
// killed `sleep` on stderr.
const anyText = "\x00any"

// TestStartFailure: a command that does not exist is a clear error.
func TestStartFailure(t *testing.T) {
	r := NewRelay(Command(exec.Command("/nonexistent/mcp-server"), 0), nil)
	code, err := r.Run(context.Background(), strings.NewReader(""), io.Discard)
	if !errors.Is(err, ErrStart) || code != 127 {
		t.Fatalf("got %d, %v; want 127 and ErrStart", code, err)
	}
	if !strings.Contains(err.Error(), "/nonexistent/mcp-server") {
		t.Errorf("error %q does not name the command", err)
	}
}

// TestLastBytesWithoutNewline: a host whose last message has no newline
// gets it through to the server, and the server's echo of it back, byte
// for byte, newline still absent: the relay passes on what was written
// (PROTOCOL.md §7), and a stream's last bytes are a message too.
func TestLastBytesWithoutNewline(t *testing.T) {
	const msg = `{"jsonrpc":"2.0","id":1,"result":{"text":"last"}}`
	var out bytes.Buffer
	r := NewRelay(Command(exec.Command("cat"), 100*time.Millisecond), nil)
	code, err := r.Run(context.Background(), strings.NewReader(msg), &out)
	if err != nil || code != 0 {
		t.Fatalf("got %d, %v; want 0 and no error", code, err)
	}
	if out.String() != msg {
		t.Errorf("the host got %q, want %q", out.String(), msg)
	}
}

// TestGrandchildHoldsStdout: a server that exits while a process it started
// still holds its stdout open (a launcher whose child lingers) does not
// keep the wrapper running: what the server wrote reaches the host, and Run
// returns its exit code once the grace period has passed.
func TestGrandchildHoldsStdout(t *testing.T) {
	const msg = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"bye"}}`
	cmd := exec.Command("sh", "-c", `sleep 3600 & echo '`+msg+`'; exit 5`)
	// OS pipes both ways, as a host gives them; the host stays: only the
	// server ends.
	hostIn, hostW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer hostW.Close()
	defer hostIn.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(outR)
		got <- b
	}()
	r := NewRelay(Command(cmd, 100*time.Millisecond), nil)
	code, err := r.Run(context.Background(), hostIn, outW)
	outW.Close()
	// The lingering sleep is in the server's process group.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil || code != 5 {
		t.Fatalf("got %d, %v; want 5 and no error", code, err)
	}
	if out := <-got; string(out) != msg+"\n" {
		t.Errorf("the host got %q, want %q", out, msg+"\n")
	}
}
