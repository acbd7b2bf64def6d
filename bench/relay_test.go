// Package bench measures elicitray's relay against a plain pipe, in one run,
// with the pipeline's ends in the test process:
//
//	go test -run '^$' -bench . ./bench/
//
// `make bench` measures the whole processes instead (bench/run, with
// bench/gen and bench/sink at the ends), and much else; see bench/README.md.
//
// Each benchmark starts its pipeline once, outside the timer: `cat` alone
// (the plain pipe) or `elicitray wrap -- cat` (the real binary, relaying both
// ways: host → wrapper → cat → wrapper → host). Compare the wrap/… lines
// with the plain/… lines of the same message kind.
package bench

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var elicitrayBin string

func TestMain(m *testing.M) {
	flag.Parse()
	if b := flag.Lookup("test.bench"); b == nil || b.Value.String() == "" {
		// Plain `go test ./...` runs no benchmark: skip the build.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "elicitray-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	elicitrayBin = filepath.Join(dir, "elicitray")
	build := exec.Command("go", "build", "-o", elicitrayBin, "..")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building elicitray:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// pipeline is a running echo pipeline: what is written to in comes back on
// out.
type pipeline struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func start(b *testing.B, wrapped bool) *pipeline {
	b.Helper()
	cmd := exec.Command("cat")
	if wrapped {
		cmd = exec.Command(elicitrayBin, "wrap", "--name", "bench", "--", "cat")
		cmd.Env = append(os.Environ(), "ELICITRAY_HOME="+b.TempDir())
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &pipeline{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	b.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	return p
}

// message is one JSON-RPC line of exactly size bytes, newline included.
// Results carry no "method" key and take the relay's undecoded path;
// notifications are decoded to see whether they are for elicitray.
func message(kind string, size int) []byte {
	var head, tail string
	switch kind {
	case "result":
		head, tail = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`, `"}]}}`
	case "notification":
		head, tail = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`, `"}}`
	}
	pad := size - len(head) - len(tail) - 1
	return []byte(head + strings.Repeat("x", pad) + tail + "\n")
}

// BenchmarkStream1kB: a stream of 1 kB messages, written by one goroutine
// while another reads them back (throughput, MB/s).
func BenchmarkStream1kB(b *testing.B) {
	for _, kind := range []string{"result", "notification"} {
		msg := message(kind, 1024)
		for _, wrapped := range []bool{false, true} {
			b.Run(name(wrapped)+"/"+kind, func(b *testing.B) {
				p := start(b, wrapped)
				b.SetBytes(int64(len(msg)))
				b.ResetTimer()
				errc := make(chan error, 1)
				go func() {
					w := bufio.NewWriterSize(p.in, 64<<10)
					for i := 0; i < b.N; i++ {
						if _, err := w.Write(msg); err != nil {
							errc <- err
							return
						}
					}
					errc <- w.Flush()
				}()
				for i := 0; i < b.N; i++ {
					line, err := p.out.ReadSlice('\n')
					if err != nil || len(line) != len(msg) {
						b.Fatalf("message %d: %d bytes, %v", i, len(line), err)
					}
				}
				if err := <-errc; err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// BenchmarkMessage16MiB: one 16 MiB message (a large base64 image, say) at a
// time, there and back.
func BenchmarkMessage16MiB(b *testing.B) {
	msg := message("result", 16<<20)
	for _, wrapped := range []bool{false, true} {
		b.Run(name(wrapped), func(b *testing.B) {
			p := start(b, wrapped)
			b.SetBytes(int64(len(msg)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				errc := make(chan error, 1)
				go func() {
					_, err := p.in.Write(msg)
					errc <- err
				}()
				got, err := io.ReadFull(p.out, make([]byte, len(msg)))
				if err != nil || got != len(msg) {
					b.Fatalf("read %d bytes: %v", got, err)
				}
				if err := <-errc; err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func name(wrapped bool) string {
	if wrapped {
		return "wrap"
	}
	return "plain"
}
