//go:build linux

package e2e

// The relay's fast path (bridge/frame.go, bridge/pipe_linux.go) in the
// real binary, with the host's stdio as a host gives it: pipes, and
// socketpairs as Node hosts (libuv) give them.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// fastPathStream is a stream a server sends: small notifications and
// replies, a 64 MiB reply and text that is no JSON.
func fastPathStream(t *testing.T) (string, []byte) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var b bytes.Buffer
	for i := range 4000 {
		switch rng.IntN(3) {
		case 0:
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"%s"}}`+"\n", strings.Repeat("m", rng.IntN(3000)))
		case 1:
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"text":"%s"}}`+"\n", i, strings.Repeat("r", rng.IntN(200_000)))
		case 2:
			fmt.Fprintf(&b, "not json %d\r\n", i)
		}
		if i == 2000 {
			b.WriteString(`{"jsonrpc":"2.0","id":"big","result":{"text":"` + strings.Repeat("B", 64<<20) + `"}}` + "\n")
		}
	}
	path := filepath.Join(t.TempDir(), "stream.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, b.Bytes()
}

// socketStdio returns a socketpair's two ends: the wrapper's and the
// host's.
func socketStdio(t *testing.T, name string) (wrapper, host *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	return os.NewFile(uintptr(fds[0]), name+"-wrapper"), os.NewFile(uintptr(fds[1]), name+"-host")
}

// TestRelayFastPathHostLeaves: the host closes its end of the wrapper's
// stdout in the middle of the server's stream. The wrapper must not die
// of SIGPIPE (nor hang): the server writes all it has, exits, and the
// wrapper exits with the server's code, as when the host stays.
func TestRelayFastPathHostLeaves(t *testing.T) {
	bin := testkit.Binary(t)
	t.Parallel()
	path, _ := fastPathStream(t)
	home := testkit.TempHome(t)
	for _, sockets := range []bool{false, true} {
		t.Run(fmt.Sprintf("sockets=%v", sockets), func(t *testing.T) {
			cmd := exec.Command(bin, "wrap", "--name", "leaver", "--", "sh", "-c", `cat "$0"; exit 4`, path)
			cmd.Env = append(os.Environ(), "ELICITRAY_HOME="+home)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			var hostW io.WriteCloser
			var hostR *os.File
			if sockets {
				in, inHost := socketStdio(t, "stdin")
				out, outHost := socketStdio(t, "stdout")
				cmd.Stdin, cmd.Stdout = in, out
				hostW, hostR = inHost, outHost
				defer in.Close()
				defer out.Close()
			} else {
				inR, inW, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				outR, outW, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				cmd.Stdin, cmd.Stdout = inR, outW
				hostW, hostR = inW, outR
				defer inR.Close()
				defer outW.Close()
			}
			defer hostW.Close() // the host stays: only its reading ends
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			head := make([]byte, 4<<20)
			if _, err := io.ReadFull(hostR, head); err != nil {
				t.Fatal(err)
			}
			hostR.Close()
			err := cmd.Wait()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					t.Fatalf("the wrapper was killed by %v when the host stopped reading; stderr:\n%s", ws.Signal(), stderr.String())
				}
			}
			if code := cmd.ProcessState.ExitCode(); code != 4 {
				t.Fatalf("the wrapper exited %d (%v), want the server's 4; stderr:\n%s", code, err, stderr.String())
			}
		})
	}
}

// TestRelayFastPathSocketHost: with its stdin and stdout socketpairs, as
// Node hosts give them, the wrapper relays a server's stream (the 64 MiB
// line among thousands of small ones) byte for byte.
func TestRelayFastPathSocketHost(t *testing.T) {
	bin := testkit.Binary(t)
	t.Parallel()
	path, want := fastPathStream(t)
	cmd := exec.Command(bin, "wrap", "--name", "sockets", "--", "sh", "-c", `cat "$0"`, path)
	cmd.Env = append(os.Environ(), "ELICITRAY_HOME="+testkit.TempHome(t))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, inHost := socketStdio(t, "stdin")
	out, outHost := socketStdio(t, "stdout")
	cmd.Stdin, cmd.Stdout = in, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in.Close()
	out.Close()
	defer inHost.Close()
	got, err := io.ReadAll(outHost)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the wrapper: %v; stderr:\n%s", err, stderr.String())
	}
	if !bytes.Equal(got, want) {
		at := 0
		for at < min(len(got), len(want)) && got[at] == want[at] {
			at++
		}
		t.Fatalf("the host got %d bytes, want %d; first difference at %d", len(got), len(want), at)
	}
}

// TestWrapperLeavesHostPipesAlone: the host's pipes may be shared with
// other processes (a shell's `{ elicitray wrap -- cat; cat; } | consumer`).
// The wrapper reads and writes them through Go's poller, yet never makes
// them non-blocking for those others: after it ends, on SIGTERM or by
// kill -9, a process that reads the host's stdin next gets the
// host's next line, and one that writes the host's stdout next can fill
// the pipe and wait, where it would meet EAGAIN ("Resource temporarily
// unavailable").
func TestWrapperLeavesHostPipesAlone(t *testing.T) {
	t.Parallel()
	home := testkit.TempHome(t)
	for _, kill := range []bool{false, true} {
		t.Run(fmt.Sprintf("kill=%v", kill), func(t *testing.T) {
			// Pipes made blocking, as a shell makes them: os.Pipe's would
			// wait through Go's poller on EAGAIN, where other programs fail.
			inR, inW := blockingPipe(t)
			outR, outW := blockingPipe(t)
			defer inR.Close()
			defer inW.Close()
			defer outR.Close()
			defer outW.Close()
			cmd := exec.Command(testkit.Binary(t), "wrap", "--name", "sharer", "--", "cat")
			cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ELICITRAY_HOME=" + home}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			// This process keeps its own copies of the ends, as the later
			// processes of a pipeline would.
			cmd.Stdin, cmd.Stdout = inR, outW
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
			if _, err := inW.Write(line); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(line))
			if _, err := io.ReadFull(outR, got); err != nil || !bytes.Equal(got, line) {
				t.Fatalf("the wrapper relayed %q, %v; stderr:\n%s", got, err, stderr.String())
			}
			if kill {
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				_ = cmd.Wait()
			} else {
				// Stopped while the host keeps its stdin pipe open for
				// what it writes next.
				cmd.Process.Signal(syscall.SIGTERM)
				_ = cmd.Wait()
			}
			// The next reader of the host's stdin, blocking: it reads the
			// host's next line.
			later := []byte("later\n")
			go func() { _, _ = inW.Write(later) }()
			next := make([]byte, len(later))
			if _, err := io.ReadFull(inR, next); err != nil || !bytes.Equal(next, later) {
				t.Errorf("a process reading the host's stdin after the wrapper got %q, %v (stderr:\n%s)", next, err, stderr.String())
			}
			// The next writer of the host's stdout: 4 MiB, more than the
			// pipe holds, while the host reads it all.
			read := make(chan int64)
			go func() {
				n, _ := io.Copy(io.Discard, io.LimitReader(outR, 4<<20))
				read <- n
			}()
			if _, err := outW.Write(bytes.Repeat([]byte("x"), 4<<20)); err != nil {
				t.Errorf("a process writing the host's stdout after the wrapper failed: %v", err)
			}
			outW.Close() // the host's read ends here, whatever was written
			if n := <-read; n != 4<<20 {
				t.Errorf("the host read %d bytes of 4 MiB written after the wrapper", n)
			}
		})
	}
}

// blockingPipe returns a pipe's ends as blocking files Go's poller does
// not watch: a read or write that meets EAGAIN fails, as in most programs.
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(p[0]), "pipe-r"), os.NewFile(uintptr(p[1]), "pipe-w")
}
