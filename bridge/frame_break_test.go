package bridge

// Tests that try to break the relay's fast path (frame.go, quick.go,
// pipe_linux.go): real server processes, OS pipes and sockets as hosts give
// them, and the failures a user's host meets (a host that leaves, a server
// killed in the middle of a line, a grandchild that keeps writing).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangGuard is how long a test waits for something that must happen
// before it says the relay hangs. It is no timing assertion: a relay that
// works gets there in milliseconds, and one that hangs never does.
func hangGuard(t *testing.T) <-chan time.Time {
	d := 20 * time.Second
	if dl, ok := t.Deadline(); ok && time.Until(dl)/2 < d {
		d = time.Until(dl) / 2
	}
	return time.After(d)
}

// waitRun waits for a relay's Run to return and fails the test, with the
// goroutines' stacks, when it never does.
func waitRun(t *testing.T, done <-chan runResult, what string) runResult {
	t.Helper()
	select {
	case res := <-done:
		return res
	case <-hangGuard(t):
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("%s: the relay never returned; goroutines:\n%s", what, buf[:n])
		return runResult{}
	}
}

// TestBreakGrandchildFloodAfterExit: the server exits while a process it
// started keeps writing a flood of notifications to its stdout. After the
// grace period the relay lets the pipe go (stdio.go) and must return with
// the server's exit code; the fast path must not spin on a pipe it can no
// longer read.
func TestBreakGrandchildFloodAfterExit(t *testing.T) {
	for round := range 3 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			note := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 100+37*round) + `"}}`
			cmd := exec.Command("sh", "-c", `yes '`+note+`' & exit 3`)
			hostR, hostW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			outR, outW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer hostW.Close()
			defer hostR.Close()
			go func() { _, _ = io.Copy(io.Discard, outR); outR.Close() }()
			r := NewRelay(Command(cmd, 50*time.Millisecond), &Options{Log: &syncBuffer{}})
			done := make(chan runResult, 1)
			go func() {
				code, err := r.Run(context.Background(), hostR, outW)
				outW.Close()
				done <- runResult{code, err}
			}()
			res := waitRun(t, done, "a grandchild floods the server's stdout after the server exited")
			if cmd.Process != nil {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
			if res.err != nil || res.code != 3 {
				t.Fatalf("got %d, %v; want the server's 3 and no error", res.code, res.err)
			}
		})
	}
}

// TestBreakMixedMembersServer: the top of quick.go says a line whose
// members mix "method" with "result" or repeat "method" is relayed as its
// first deciding member makes it. Every peer on the path reads such a
// line the other way: encoding/json (go-sdk, mcp-go) and JSON.parse (the
// TypeScript SDK) keep the last of repeated members, and a line with a
// method and an id is a request to them. So a server's line that any of
// them reads as elicitation/create must never reach the host: the host
// would show (or answer) an elicitation elicitray never saw, which the
// relay exists to prevent (legacy.go: the host never sees the server's
// elicitations). Before the fast path, the full path (scanEnvelope, last
// member wins) stopped all of these.
func TestBreakMixedMembersServer(t *testing.T) {
	const params = `"params":{"message":"Your password?","requestedSchema":{"type":"object","properties":{"p":{"type":"string"}}}}`
	for _, tt := range []struct{ name, line string }{
		{"method repeated", `{"jsonrpc":"2.0","method":"notifications/message","id":"m1","method":"elicitation/create",` + params + `}`},
		{"result before method", `{"jsonrpc":"2.0","result":{},"id":"m2","method":"elicitation/create",` + params + `}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startPeer(t, nil)
			var peerView struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if err := json.Unmarshal([]byte(tt.line), &peerView); err != nil || peerView.Method != "elicitation/create" {
				t.Fatalf("test line: encoding/json reads method %q (%v)", peerView.Method, err)
			}
			p.serverSends(tt.line)
			p.serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`)
			got := p.hostGets()
			if strings.Contains(got, "elicitation/create") {
				t.Fatalf("the host got a line a JSON parser reads as the server's elicitation/create %s: %s", peerView.ID, got)
			}
		})
	}
}

// TestBreakMixedMembersHost: the host's notifications/cancelled spelt
// after a first "method" member is what the server's SDK reads (last
// member wins): the relay must spread it too (close the call's prompts,
// PROTOCOL.md §7), as the full path did.
func TestBreakMixedMembersHost(t *testing.T) {
	asked := make(chan struct{}, 1)
	causes := make(chan error, 1)
	p := startPeer(t, &Options{Approver: ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		asked <- struct{}{}
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil, context.Cause(ctx)
	})})
	p.initialize()
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`)
	<-asked
	cancel := `{"jsonrpc":"2.0","method":"notifications/progress","method":"notifications/cancelled","params":{"requestId":1}}`
	p.hostSends(cancel)
	if got := p.serverGets(); got != cancel {
		t.Fatalf("server got %q, want the cancel as sent", got)
	}
	// The server's SDK saw the call cancelled; the relay must close its
	// prompt and answer it cancel, or the server waits forever.
	select {
	case err := <-causes:
		if !errors.Is(err, ErrHostCancelled) {
			t.Fatalf("the prompt ended with %v, want ErrHostCancelled", err)
		}
	case <-hangGuard(t):
		t.Fatal("the prompt stayed open after the host cancelled its call (as the server's SDK reads the line)")
	}
}

// streamOf makes a random host→server stream for TestBreakRandomStreams:
// lines the relay passes untouched both ways through `cat` (replies,
// notifications, text, empty lines, CRLF endings), some with a byte order
// mark in front (which the relay drops), and returns the stream and what
// must come back.
func streamOf(rng *rand.Rand, n int, sizes []int, lastNewline bool) (in, want []byte) {
	var ib, wb bytes.Buffer
	for i := range n {
		size := sizes[rng.IntN(len(sizes))]
		var head string
		switch rng.IntN(6) {
		case 0:
			head = `{"jsonrpc":"2.0","id":` + fmt.Sprint(i) + `,"result":{"text":"`
		case 1:
			head = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`
		case 2:
			head = `not json at all {"method":"elicitation/create"} `
		case 3:
			head = `  { "jsonrpc" : "2.0" , "method" : "notifications/progress", "params":{"x":"`
		case 4:
			head = `{"jsonrpc":"2.0","error":{"code":1,"message":"`
		}
		body := make([]byte, max(size-len(head), 0))
		for j := range body {
			body[j] = 'a' + byte(rng.IntN(26))
		}
		if len(body) > 10 {
			body[len(body)/3] = '"'
			body[len(body)/2] = '\\'
		}
		line := append([]byte(head), body...)
		if rng.IntN(4) == 0 {
			line = append(line, '\r')
		}
		withBOM := rng.IntN(8) == 0
		if withBOM {
			ib.Write(bom)
		}
		ib.Write(line)
		wb.Write(line)
		if i < n-1 || lastNewline {
			ib.WriteByte('\n')
			wb.WriteByte('\n')
		}
	}
	return ib.Bytes(), wb.Bytes()
}

// hostEnds is a host's two ends for a relay: what the relay reads and
// writes, and the host's own sides.
type hostEnds struct {
	relayIn, relayOut *os.File // given to Run
	hostW, hostR      *os.File // the host writes and reads
}

// newHostEnds makes the host's stdio as pipes, or as two socketpairs, as
// Node hosts give them (libuv spawns with socketpairs).
func newHostEnds(t *testing.T, sockets bool) hostEnds {
	t.Helper()
	var e hostEnds
	if !sockets {
		var err error
		if e.relayIn, e.hostW, err = os.Pipe(); err != nil {
			t.Fatal(err)
		}
		if e.hostR, e.relayOut, err = os.Pipe(); err != nil {
			t.Fatal(err)
		}
		return e
	}
	pair := func(name string) (*os.File, *os.File) {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		return os.NewFile(uintptr(fds[0]), name+"-relay"), os.NewFile(uintptr(fds[1]), name+"-host")
	}
	e.relayIn, e.hostW = pair("stdin")
	e.relayOut, e.hostR = pair("stdout")
	return e
}

// closeWrite ends the host's writing side (EOF for the relay).
func (e hostEnds) closeWrite() {
	if err := e.hostW.Close(); err != nil {
		panic(err)
	}
}

// TestBreakRandomStreams relays random streams host → `cat` → host over
// pipes and over sockets, with lines from 0 B to 64 MiB in random write
// splits, non-JSON lines, CRLF, byte order marks in front of short and of
// >1 MiB lines, and with and without a final newline: what comes back is
// the stream byte for byte, less the byte order marks.
func TestBreakRandomStreams(t *testing.T) {
	small := []int{0, 1, 3, 40, 1000, 4095, 65535, 65536, 65537, 300_000, frameBuf - 2, frameBuf - 1, frameBuf, frameBuf + 1, frameBuf + 2, 2*frameBuf + 5}
	for _, tt := range []struct {
		name        string
		sockets     bool
		seed        uint64
		n           int
		sizes       []int
		lastNewline bool
	}{
		{"pipes", false, 1, 120, small, true},
		{"pipes no final newline", false, 2, 120, small, false},
		{"sockets", true, 3, 120, small, true},
		{"sockets no final newline", true, 4, 120, small, false},
		{"pipes 64MiB", false, 5, 7, []int{64 << 20, 10, 1 << 20, 16 << 20, 0}, true},
		{"sockets 64MiB", true, 6, 7, []int{64 << 20, 10, 1 << 20, 16 << 20, 0}, false},
		{"pipes many small", false, 7, 20000, []int{0, 5, 200, 1000, 1024}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tt.seed, 99))
			in, want := streamOf(rng, tt.n, tt.sizes, tt.lastNewline)
			got, res := relayCat(t, tt.sockets, in, rng)
			if res.err != nil || res.code != 0 {
				t.Errorf("Run returned %d, %v", res.code, res.err)
			}
			if !bytes.Equal(got, want) {
				at := firstDiff(got, want)
				t.Fatalf("the host got %d bytes, want %d; first difference at %d: got %.80q, want %.80q", len(got), len(want), at, got[at:min(len(got), at+80)], want[at:min(len(want), at+80)])
			}
		})
	}
}

// relayCat runs the relay with `cat` as the server between the test's
// host ends, writes in to it in random splits, closes the host's input and
// returns all that came back.
func relayCat(t *testing.T, sockets bool, in []byte, rng *rand.Rand) ([]byte, runResult) {
	t.Helper()
	e := newHostEnds(t, sockets)
	defer e.hostR.Close()
	r := NewRelay(Command(exec.Command("cat"), 0), &Options{Log: &syncBuffer{}})
	done := make(chan runResult, 1)
	go func() {
		code, err := r.Run(context.Background(), e.relayIn, e.relayOut)
		e.relayOut.Close()
		e.relayIn.Close()
		done <- runResult{code, err}
	}()
	splits := []int{1, 7, 512, 4096, 65536, 70_000, 300_000, 1 << 20, 3 << 20}
	go func() {
		defer e.closeWrite()
		for data := in; len(data) > 0; {
			n := min(len(data), splits[rng.IntN(len(splits))])
			if _, err := e.hostW.Write(data[:n]); err != nil {
				return
			}
			data = data[n:]
		}
	}()
	got, err := io.ReadAll(e.hostR)
	if err != nil {
		t.Fatal(err)
	}
	return got, waitRun(t, done, "relaying a stream through cat")
}

// readUntil reads host lines until one contains s, and returns it.
func readUntil(t *testing.T, r *bufio.Reader, s string) string {
	t.Helper()
	for {
		line := readLine(t, r, "host")
		if strings.Contains(line, s) {
			return line
		}
	}
}

// TestBreakFramerInputClosedAfterTee: the relay closes the server's stdout
// from another goroutine when a grandchild keeps it open past the grace
// period (stdio.go), at any moment of the pump. Here the moment is the
// worst one for the splice path: bytes were teed from the pipe and are
// being routed, and the last of them end in the middle of a line. The
// pump must then end (with the close's error), not spin on a pipe it can
// neither drop from nor read.
func TestBreakFramerInputClosedAfterTee(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	defer outR.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	// More than teeMin waits in the pipe before the pump starts, and the
	// last line is unfinished: the writer is still writing it.
	var data bytes.Buffer
	for data.Len() < 200_000 {
		data.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"flood"}}` + "\n")
	}
	data.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"unfinish`)
	growPipe(inW)
	if _, err := inW.Write(data.Bytes()); err != nil {
		t.Fatal(err)
	}
	f := newFramer(inR)
	w := newLineWriter(outW)
	f.pipe = newPipeIn(inR, outW)
	if f.pipe == nil {
		t.Skip("no splice path here")
	}
	done := make(chan error, 1)
	go func() {
		defer f.pipe.close()
		closed := false
		err := f.pump(w, func(b []byte, complete bool) (route, string) {
			if !closed {
				// What stdio.go's drain goroutine does after grace.
				closed = true
				inR.Close()
			}
			return vPass, ""
		}, func(string) {}, func([]byte, bool) {}, func(error) {}, func() {})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("pump returned no error")
		}
	case <-hangGuard(t):
		buf := make([]byte, 1<<16)
		t.Fatalf("the pump never returned after its input was closed:\n%s", buf[:runtime.Stack(buf, true)])
	}
}
