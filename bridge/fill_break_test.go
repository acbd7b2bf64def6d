//go:build linux

package bridge

// Tests that try to break the framer's fill (frame.go) and the fast path's
// wait for input (pipeIn.tee, pipe_linux.go): a fill waits for the input,
// through Go's poller or poll(2) for a blocking one like a host's stdin,
// and tees what the wake-up finds; after a lone message (framer.quiet) it
// reads plainly. The inputs are every kind a wrapper meets: pipes Go's
// poller watches, blocking pipes (a host's stdin as the wrapper inherits
// it), FIFOs; the faults: a peer that closes its end while a fill waits,
// a server that exits while the host is silent, a host that writes after
// that, a server that writes a byte at a time, a slow host, kill -9.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// inputKind makes the read and write ends of a relay's input.
type inputKind struct {
	name string
	// pollable is whether Go's poller watches the read end (tee then
	// waits through it; otherwise through poll(2)).
	pollable bool
	open     func(t *testing.T) (r, w *os.File)
}

// inputKinds: an os.Pipe (what Command gives the relay for a server's
// stdout), a blocking pipe as a wrapper inherits its stdin from a host
// (os.NewFile on a blocking descriptor: Go's poller does not watch it),
// and a FIFO.
var inputKinds = []inputKind{
	{"os.Pipe", true, func(t *testing.T) (*os.File, *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		return r, w
	}},
	{"blocking pipe", false, func(t *testing.T) (*os.File, *os.File) {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		return os.NewFile(uintptr(p[0]), "stdin"), os.NewFile(uintptr(p[1]), "host")
	}},
	{"FIFO", true, func(t *testing.T) (*os.File, *os.File) {
		path := filepath.Join(t.TempDir(), "fifo")
		if err := unix.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
		opened := make(chan *os.File, 1)
		go func() {
			r, err := os.OpenFile(path, os.O_RDONLY, 0)
			if err != nil {
				t.Error(err)
			}
			opened <- r
		}()
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		return <-opened, w
	}},
}

// framerRun is a framer pumping from an input to an OS pipe, with
// testRoute's routing.
type framerRun struct {
	out  *bufio.Reader
	done chan error
}

func startFramer(t *testing.T, kind inputKind, in *os.File) *framerRun {
	t.Helper()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { outR.Close() })
	f := newFramer(in)
	w := newLineWriter(outW)
	f.pipe = newPipeIn(in, outW)
	if f.pipe == nil {
		t.Skip("no splice path here")
	}
	if f.pipe.inPollable != kind.pollable {
		t.Fatalf("%s: the fast path sees the input as pollable=%v", kind.name, f.pipe.inPollable)
	}
	fr := &framerRun{out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	go func() {
		defer outW.Close()
		defer f.pipe.close()
		err := f.pump(w, testRoute, func(string) {}, func(line []byte, more bool) {
			_ = w.write(handled(line), !more)
		}, func(err error) { t.Error(err) }, func() { t.Error("a line was cut off") })
		w.flush()
		fr.done <- err
	}()
	return fr
}

// expect reads len(want) bytes of the framer's output and fails unless
// they are want.
func (fr *framerRun) expect(t *testing.T, want []byte, what string) {
	t.Helper()
	got := make([]byte, len(want))
	if n, err := io.ReadFull(fr.out, got); err != nil {
		t.Fatalf("%s: the output ended after %d of %d bytes: %v", what, n, len(want), err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: the output differs at byte %d of %d", what, firstDiff(got, want), len(want))
	}
}

// TestBreakFillPeerClosesWhileWaiting: on each kind of input, a peer sends
// lone messages (the next fill reads plainly) and bursts (the next fill
// tees), waits for each to come out, so that the framer's next fill is
// waiting, and then closes its end, with or without a last line without a
// newline. The last line comes out as it was sent, once, and the pump
// ends with io.EOF once, whichever way the fill was waiting.
func TestBreakFillPeerClosesWhileWaiting(t *testing.T) {
	lone := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	burst := bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"burst"}}`+"\n"), 3000)
	for _, kind := range inputKinds {
		for _, last := range []string{"lone", "burst", "burst then lone"} {
			for _, tail := range []string{"", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"no newline`, `{"x":"the full path's, no newline`} {
				t.Run(fmt.Sprintf("%s/%s/tail=%d", kind.name, last, len(tail)), func(t *testing.T) {
					in, w := kind.open(t)
					defer in.Close()
					growPipe(w)
					fr := startFramer(t, kind, in)
					steps := [][]byte{lone, lone, burst, burst, lone, burst, burst}
					switch last {
					case "lone":
						steps = append(steps, lone)
					case "burst then lone":
						steps = append(steps, burst, lone)
					}
					for i, s := range steps {
						if _, err := w.Write(s); err != nil {
							t.Fatal(err)
						}
						fr.expect(t, s, fmt.Sprintf("step %d", i))
					}
					// The pump is in its next fill, waiting.
					if _, err := io.WriteString(w, tail); err != nil {
						t.Fatal(err)
					}
					w.Close()
					want := []byte(tail)
					if strings.HasPrefix(tail, `{"x":`) {
						want = handled(want)
					}
					rest, err := io.ReadAll(fr.out)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(rest, want) {
						t.Fatalf("after the peer closed, the output ends with %q, want %q", rest, want)
					}
					if err := <-fr.done; err != io.EOF {
						t.Fatalf("pump ended with %v, want io.EOF", err)
					}
				})
			}
		}
	}
}

// TestBreakFillBytewiseWriter: a peer that writes its stream a byte at a
// time, on each kind of input, and then in bursts: every fill finds a byte
// or a few (the framer goes quiet and reads plainly), then a burst is
// teed again; the output is the stream byte for byte.
func TestBreakFillBytewiseWriter(t *testing.T) {
	for _, kind := range inputKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, 22))
			stream, _ := streamOf(rng, 60, []int{0, 1, 40, 300, 9000, 70_000}, true)
			stream = bytes.ReplaceAll(stream, bom, nil)
			in, w := kind.open(t)
			defer in.Close()
			growPipe(w)
			fr := startFramer(t, kind, in)
			got := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(fr.out)
				got <- b
			}()
			head := stream[:min(len(stream), 20_000)]
			for i := range head {
				if _, err := w.Write(head[i : i+1]); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.Write(stream[len(head):]); err != nil {
				t.Fatal(err)
			}
			w.Close()
			b := <-got
			if !bytes.Equal(b, stream) {
				t.Fatalf("the output differs from the byte-wise written stream at %d (%d bytes, want %d)", firstDiff(b, stream), len(b), len(stream))
			}
			if err := <-fr.done; err != io.EOF {
				t.Fatalf("pump ended with %v, want io.EOF", err)
			}
		})
	}
}

// goroutinesIn counts the goroutines whose stack has fn.
func goroutinesIn(fn string) int {
	buf := make([]byte, 4<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), fn)
}

// TestBreakHostWritesAfterRun: the server answers one request and exits
// while the host, silent, keeps its input open: Run returns with the
// host's pump waiting on the host, and the fast path's private pipe and
// /dev/null closed. The test then opens many pipes (their descriptors
// take the numbers the relay let go) and the host writes lone lines and
// bursts. Nothing lands in the test's pipes (a write into a reused
// descriptor), nothing hangs, and once the host closes its input the
// host's pump ends and every file the relay opened is closed.
func TestBreakHostWritesAfterRun(t *testing.T) {
	for _, kind := range inputKinds[:2] {
		t.Run(kind.name, func(t *testing.T) {
			baseline := goroutinesIn("bridge.(*Relay).pumpHost")
			relayIn, hostW := kind.open(t)
			hostR, relayOut, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer hostR.Close()
			fds := fdCount(t)
			r := NewRelay(Command(exec.Command("sh", "-c", `read line; echo "$line"`), 0), &Options{Log: &syncBuffer{}})
			done := make(chan runResult, 1)
			go func() {
				code, err := r.Run(context.Background(), relayIn, relayOut)
				relayOut.Close()
				done <- runResult{code, err}
			}()
			req := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"one"}}`
			if _, err := io.WriteString(hostW, req+"\n"); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(hostR)
			if got := readLine(t, br, "host"); got != req {
				t.Fatalf("the host got %q back", got)
			}
			if res := waitRun(t, done, "the server exits, the host silent"); res.code != 0 || res.err != nil {
				t.Fatalf("Run returned %d, %v", res.code, res.err)
			}
			// The descriptors the relay let go are taken again.
			var reused [][2]int
			for range 64 {
				var p [2]int
				if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
					t.Fatal(err)
				}
				reused = append(reused, p)
			}
			defer func() {
				for _, p := range reused {
					unix.Close(p[0])
					unix.Close(p[1])
				}
			}()
			lone := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"late"}}` + "\n")
			burst := bytes.Repeat(lone, 4000)
			for _, s := range [][]byte{lone, burst, lone, lone, burst, burst, lone} {
				if _, err := hostW.Write(s); err != nil {
					t.Fatalf("the host's write after Run returned: %v", err)
				}
			}
			hostW.Close()
			guard := hangGuard(t)
			for goroutinesIn("bridge.(*Relay).pumpHost") > baseline {
				select {
				case <-guard:
					buf := make([]byte, 1<<20)
					t.Fatalf("the host's pump did not end after the host closed its input:\n%s", buf[:runtime.Stack(buf, true)])
				default:
					runtime.Gosched()
				}
			}
			var b [1]byte
			for _, p := range reused {
				if n, _ := unix.Read(p[0], b[:]); n > 0 {
					t.Fatalf("the relay wrote into descriptor %d after Run let it go: a pipe the process opened since got the host's bytes", p[1])
				}
			}
			if rest, _ := io.ReadAll(br); len(rest) > 0 {
				t.Fatalf("the host got %d bytes after the server exited: %.80q", len(rest), rest)
			}
			relayIn.Close()
			for _, p := range reused {
				unix.Close(p[0])
				unix.Close(p[1])
			}
			reused = nil
			hostR.Close()
			// The four ends counted in fds are closed too.
			if n := fdCount(t); n != fds-4 {
				t.Errorf("%d files open after the relay and the host ended, want %d: the relay keeps %d", n, fds-4, n-fds+4)
			}
		})
	}
}

// hostSide is a host's stdio for a relay whose stdin is of a given kind.
func hostSide(t *testing.T, kind inputKind, sockets bool) hostEnds {
	t.Helper()
	e := newHostEnds(t, sockets)
	if !sockets && kind.name != "os.Pipe" {
		e.relayIn.Close()
		e.hostW.Close()
		e.relayIn, e.hostW = kind.open(t)
	}
	return e
}

// runRelay runs the relay for cmd between e's ends; Run's result arrives
// on the channel, after which the relay's ends are closed.
func runRelay(cmd *exec.Cmd, e hostEnds) chan runResult {
	return runRelayGrace(cmd, e, 0)
}

// runRelayGrace is runRelay with the server's shutdown grace (Command).
func runRelayGrace(cmd *exec.Cmd, e hostEnds, grace time.Duration) chan runResult {
	r := NewRelay(Command(cmd, grace), &Options{Log: &syncBuffer{}})
	done := make(chan runResult, 1)
	go func() {
		code, err := r.Run(context.Background(), e.relayIn, e.relayOut)
		e.relayOut.Close()
		e.relayIn.Close()
		done <- runResult{code, err}
	}()
	return done
}

// TestBreakRoundTripsAndBursts: through the real relay and `cat`, a host
// on each kind of stdin (and on a socketpair's output) alternates lone
// requests it waits the echo of (each fill then finds one message: plain
// reads, framer.quiet) with bursts of a few hundred kB it does not wait
// for (teed), and lines around 8 kB, teeMin: everything comes back byte for
// byte, in order, nothing glued, nothing lost.
func TestBreakRoundTripsAndBursts(t *testing.T) {
	if testing.Short() {
		t.Skip("long: not in the short tier (-short)")
	}
	for _, kind := range inputKinds {
		for _, sockets := range []bool{false, true} {
			if sockets && kind.name != "os.Pipe" {
				continue
			}
			t.Run(fmt.Sprintf("%s/sockets=%v", kind.name, sockets), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(31, 32))
				e := hostSide(t, kind, sockets)
				defer e.hostR.Close()
				done := runRelay(exec.Command("cat"), e)
				br := bufio.NewReaderSize(e.hostR, 1<<20)
				// The reader checks what comes back against what was sent,
				// in order, and says when a lone message is back.
				readBack := make(chan error, 1)
				pending := make(chan []byte, 64)
				go func() {
					defer func() { _, _ = io.Copy(io.Discard, br) }()
					for want := range pending {
						got := make([]byte, len(want))
						if _, err := io.ReadFull(br, got); err != nil {
							readBack <- fmt.Errorf("the host's output ended: %w", err)
							return
						}
						if at := firstDiff(got, want); at < len(want) {
							readBack <- fmt.Errorf("the host got back different bytes (at %d of %d): %.120q", at, len(want), got[at:])
							return
						}
						if len(want) < 9000 {
							readBack <- nil
						}
					}
					readBack <- nil
				}()
				sent := 0
				for i := range 300 {
					var s, back []byte // what is sent, what comes back
					switch rng.IntN(4) {
					case 0, 1: // a lone request, waited for
						s = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"n":"%s"}}`+"\n", i, strings.Repeat("r", rng.IntN(200)))
					case 2: // a burst, not waited for
						s, back = streamOf(rng, 50+rng.IntN(300), []int{0, 10, 300, 1000, 4096}, true)
					case 3: // around teeMin, waited for
						s = append([]byte(`{"jsonrpc":"2.0","id":"t","result":{"x":"`), bytes.Repeat([]byte("t"), teeMin-3+rng.IntN(7))...)
						s = append(s, "\"}}\n"...)
					}
					if back == nil {
						back = s
					}
					pending <- back
					if _, err := e.hostW.Write(s); err != nil {
						t.Fatal(err)
					}
					sent += len(s)
					if len(back) < 9000 {
						if err := <-readBack; err != nil {
							t.Fatalf("after %d bytes sent: %v", sent, err)
						}
					}
				}
				close(pending)
				e.closeWrite()
				if err := <-readBack; err != nil {
					t.Fatal(err)
				}
				if res := waitRun(t, done, "round trips and bursts"); res.code != 0 {
					t.Fatalf("Run returned %d, %v", res.code, res.err)
				}
			})
		}
	}
}

// TestBreakBytewiseServer: a server that writes what it reads a byte at a
// time (dd bs=1), on each kind of host stdin: the host gets its stream
// back byte for byte.
func TestBreakBytewiseServer(t *testing.T) {
	if testing.Short() {
		t.Skip("long: not in the short tier (-short)")
	}
	t.Parallel() // CPU-bound, on pipes and processes of its own
	if _, err := exec.LookPath("dd"); err != nil {
		t.Skip("no dd here")
	}
	for _, kind := range inputKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(41, 42))
			in, want := streamOf(rng, 80, []int{0, 1, 50, 700, 9000, 30_000}, false)
			e := hostSide(t, kind, false)
			defer e.hostR.Close()
			// When the host's input ends, dd may still have most of the
			// stream (the relay's 1 MiB pipes hold it) to copy a byte at a
			// time: on a loaded machine that takes longer than the default
			// 2 s grace, after which it would be stopped (143) before the
			// host has its bytes back. This test is about the bytes.
			done := runRelayGrace(exec.Command("dd", "bs=1", "status=none"), e, time.Minute)
			go func() {
				defer e.closeWrite()
				_, _ = e.hostW.Write(in)
			}()
			got, err := io.ReadAll(e.hostR)
			if err != nil {
				t.Fatal(err)
			}
			if res := waitRun(t, done, "a byte-wise server"); res.code != 0 {
				t.Fatalf("Run returned %d, %v", res.code, res.err)
			}
			if !bytes.Equal(got, want) {
				at := firstDiff(got, want)
				t.Fatalf("the host got %d bytes, want %d; first difference at %d: %.60q", len(got), len(want), at, got[at:min(len(got), at+60)])
			}
		})
	}
}

// TestBreakSlowHostFlood: the host floods the relay (through `cat`) while
// it reads its output a hundred bytes at a time, on each kind of stdin and
// on a socketpair: the output pipe is full nearly all along, and the
// stream still comes back byte for byte.
func TestBreakSlowHostFlood(t *testing.T) {
	for _, kind := range inputKinds {
		for _, sockets := range []bool{false, true} {
			if sockets && kind.name != "os.Pipe" {
				continue
			}
			t.Run(fmt.Sprintf("%s/sockets=%v", kind.name, sockets), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(51, 52))
				in, want := streamOf(rng, 3000, []int{0, 10, 100, 1000, 20_000}, true)
				e := hostSide(t, kind, sockets)
				defer e.hostR.Close()
				done := runRelay(exec.Command("cat"), e)
				go func() {
					defer e.closeWrite()
					_, _ = e.hostW.Write(in)
				}()
				var got bytes.Buffer
				buf := make([]byte, 100)
				for {
					n, err := e.hostR.Read(buf)
					got.Write(buf[:n])
					if err != nil {
						break
					}
				}
				if res := waitRun(t, done, "a slow host"); res.code != 0 {
					t.Fatalf("Run returned %d, %v", res.code, res.err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Fatalf("the slow host got %d bytes, want %d; first difference at %d", got.Len(), len(want), firstDiff(got.Bytes(), want))
				}
			})
		}
	}
}

// TestBreakServerKilledMidBurst: kill -9 of the server (cat) while the
// host's burst flows through it: Run returns 137, the host's write never
// hangs (the relay reads on, and its input closes after Run as when the
// wrapper exits), and what came back is the start of what was sent (less
// what the relay drops), and of a line.
func TestBreakServerKilledMidBurst(t *testing.T) {
	for _, kind := range inputKinds[:2] {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(61, 62))
			in, want := streamOf(rng, 20000, []int{0, 10, 300, 1000, 9000}, true)
			in = bytes.ReplaceAll(in, bom, nil) // a cut mark would be no prefix
			e := hostSide(t, kind, false)
			defer e.hostR.Close()
			cmd := exec.Command("cat")
			done := runRelay(cmd, e)
			wrote := make(chan error, 1)
			go func() {
				defer e.closeWrite()
				_, err := e.hostW.Write(in)
				wrote <- err
			}()
			head := make([]byte, 1<<20)
			if _, err := io.ReadFull(e.hostR, head); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
				t.Fatal(err)
			}
			rest, err := io.ReadAll(e.hostR)
			if err != nil {
				t.Fatal(err)
			}
			got := append(head, rest...)
			if res := waitRun(t, done, "the server killed mid-burst"); res.code != 137 {
				t.Errorf("Run returned %d, %v; want 137", res.code, res.err)
			}
			select {
			case err := <-wrote:
				// The relay read on until Run returned; then its input
				// closed, as when the wrapper exits: a broken pipe.
				if err != nil && !errors.Is(err, syscall.EPIPE) {
					t.Fatalf("the host's write failed: %v", err)
				}
			case <-hangGuard(t):
				t.Fatal("the host's write hangs after the server was killed")
			}
			// The line cat was writing when it died is relayed as far as
			// it came (a line of its own): it may be the start of a line
			// the relay drops whole, but that start names no method.
			whole := bytes.LastIndexByte(got, '\n') + 1
			if !bytes.HasPrefix(want, got[:whole]) {
				t.Fatalf("the host got %d bytes that are not the start of the stream (first difference at %d)", len(got), firstDiff(got, want))
			}
			if last := got[whole:]; len(last) > 0 && !bytes.Contains(in, append([]byte("\n"), last...)) {
				t.Fatalf("the host's last %d bytes are the start of no line sent: %.80q", len(last), last)
			}
		})
	}
}

// TestBreakFillSmallPipes: the kernel may refuse the 1 MiB pipes the relay
// asks for (fs.pipe-max-size, or the user's pipe pages used up: a pipe of
// one page then), for the private pipe tee fills and for the input. Each
// fill then tees a page or less: random streams, written in random
// pieces, still come out byte for byte, with every marked line handled
// whole in its place.
func TestBreakFillSmallPipes(t *testing.T) {
	ps := unix.Getpagesize()
	for _, tt := range []struct {
		name           string
		scratch, input int
	}{
		{"private pipe of one page", ps, 0},
		{"private pipe of 16 pages", 16 * ps, 0},
		{"input of one page", 0, ps},
		{"both of one page", ps, ps},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(71, uint64(tt.scratch+tt.input)))
			var in, want bytes.Buffer
			for _, l := range streamLines(rng, 40, 0) {
				full := append(append([]byte(nil), l...), '\n')
				in.Write(full)
				if bytes.HasPrefix(l, []byte(`{"x":`)) {
					want.Write(handled(full))
				} else {
					want.Write(full)
				}
			}
			inR, inW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer inR.Close()
			outR, outW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer outR.Close()
			f := newFramer(inR)
			w := newLineWriter(outW)
			f.pipe = newPipeIn(inR, outW)
			if f.pipe == nil {
				t.Skip("no splice path here")
			}
			if tt.scratch > 0 {
				if _, err := unix.FcntlInt(uintptr(f.pipe.scratchW), unix.F_SETPIPE_SZ, tt.scratch); err != nil {
					t.Fatal(err)
				}
			}
			if tt.input > 0 {
				if _, err := unix.FcntlInt(inW.Fd(), unix.F_SETPIPE_SZ, tt.input); err != nil {
					t.Fatal(err)
				}
			}
			go func() {
				defer inW.Close()
				writeSplit(inW, in.Bytes(), rng)
			}()
			done := make(chan error, 1)
			go func() {
				defer outW.Close()
				defer f.pipe.close()
				err := f.pump(w, testRoute, func(string) {}, func(line []byte, more bool) {
					_ = w.write(handled(line), !more)
				}, func(err error) { t.Error(err) }, func() { t.Error("a line was cut off") })
				w.flush()
				done <- err
			}()
			got, err := io.ReadAll(outR)
			if err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != io.EOF {
				t.Errorf("pump ended with %v, want EOF", err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("output differs from the input: got %d bytes, want %d; first difference at %d", len(got), want.Len(), firstDiff(got, want.Bytes()))
			}
		})
	}
}

// TestBreakRandomStreamsEveryStdin is TestBreakRandomStreams on the host
// stdins it did not try: a blocking pipe (the poll(2) wait) and a FIFO,
// with lines around the buffer's size and of 64 MiB, in random write
// splits: what comes back through `cat` is the stream byte for byte, less
// the byte order marks.
func TestBreakRandomStreamsEveryStdin(t *testing.T) {
	if testing.Short() {
		t.Skip("long: not in the short tier (-short)")
	}
	t.Parallel() // CPU-bound, on pipes and processes of its own
	sizes := []int{0, 1, 40, 4095, 8191, 8192, 8193, 65536, 300_000, frameBuf - 1, frameBuf, frameBuf + 1, 2*frameBuf + 5}
	for i, kind := range inputKinds[1:] {
		for _, big := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/64MiB=%v", kind.name, big), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(81, uint64(i)))
				in, want := streamOf(rng, 80, sizes, i == 0)
				if big {
					in, want = streamOf(rng, 5, []int{64 << 20, 10, 1 << 20}, true)
				}
				e := hostSide(t, kind, false)
				defer e.hostR.Close()
				growPipe(e.hostW)
				// cat may still be writing the last of 64 MiB when the
				// host's stdin ends: on a loaded machine that took longer
				// than the default 2 s grace, and cat was stopped before it
				// wrote its last 8 kB. The stream is the point here, not
				// the grace (TestShutdown* have it).
				done := runRelayGrace(exec.Command("cat"), e, time.Minute)
				splits := []int{1, 7, 512, 4096, 8192, 65536, 70_000, 1 << 20, 3 << 20}
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
				got, err := readSized(e.hostR, len(want))
				if err != nil {
					t.Fatal(err)
				}
				if res := waitRun(t, done, "random streams"); res.code != 0 || res.err != nil {
					t.Errorf("Run returned %d, %v", res.code, res.err)
				}
				if !bytes.Equal(got, want) {
					at := firstDiff(got, want)
					t.Fatalf("the host got %d bytes, want %d; first difference at %d: got %.80q, want %.80q", len(got), len(want), at, got[at:min(len(got), at+80)], want[at:min(len(want), at+80)])
				}
			})
		}
	}
}

// readSized reads r to its end into room for the size bytes expected of
// it (io.ReadAll would copy and clear a 128 MiB stream at every doubling).
func readSized(r io.Reader, size int) ([]byte, error) {
	b := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}

// TestBreakHostPipesLeftAlone: the host's stdin and stdout are blocking
// pipes, as a wrapper inherits them, or blocking sockets, as Node hosts
// give them; other processes may share them (a shell's pipeline). The
// relay reads and writes pipes through Go's poller (pollable), yet the
// host's ends stay blocking while it runs and after it: a lone message
// and a burst come back byte for byte, and when the server has gone
// while the host keeps its pipe open, Run returns with the host's ends
// blocking, as the host gave them (TestWrapperLeavesHostPipesAlone has a
// process read them after the wrapper, also after a kill -9).
func TestBreakHostPipesLeftAlone(t *testing.T) {
	for _, sockets := range []bool{false, true} {
		t.Run(fmt.Sprintf("sockets=%v", sockets), func(t *testing.T) { hostEndsLeftAlone(t, sockets) })
	}
}

func hostEndsLeftAlone(t *testing.T, sockets bool) {
	e := newHostEnds(t, sockets)
	if !sockets {
		for _, f := range []*os.File{e.relayIn, e.hostW, e.hostR, e.relayOut} {
			f.Close()
		}
		blocking := inputKinds[slices.IndexFunc(inputKinds, func(k inputKind) bool { return k.name == "blocking pipe" })]
		e.relayIn, e.hostW = blocking.open(t)
		e.hostR, e.relayOut = blocking.open(t)
	}
	relayIn, hostW, hostR, relayOut := e.relayIn, e.hostW, e.hostR, e.relayOut
	defer hostW.Close()
	defer hostR.Close()
	defer relayIn.Close()
	defer relayOut.Close()
	blockingNow := func(when string) {
		t.Helper()
		for _, end := range []struct {
			name string
			f    *os.File
		}{{"stdin", relayIn}, {"stdout", relayOut}} {
			rc, err := end.f.SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			flags := 0
			if cerr := rc.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) }); cerr != nil || err != nil {
				t.Fatal(cerr, err)
			}
			if flags&unix.O_NONBLOCK != 0 {
				t.Errorf("%s, the wrapper's %s is non-blocking: a process sharing it would meet EAGAIN", when, end.name)
			}
		}
	}
	// The server echoes one line and a burst, then is killed; the host
	// keeps its pipe open and writes on.
	rng := rand.New(rand.NewPCG(51, 52))
	burst, want := streamOf(rng, 400, []int{0, 200, 1024, 70_000}, true)
	lone := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	server := exec.Command("cat")
	r := NewRelay(Command(server, 0), &Options{Log: &syncBuffer{}})
	done := make(chan runResult, 1)
	go func() {
		code, err := r.Run(context.Background(), relayIn, relayOut)
		done <- runResult{code, err}
	}()
	for _, step := range []struct{ in, echo []byte }{{lone, lone}, {burst, want}} {
		go func() { _, _ = hostW.Write(step.in) }()
		got := make([]byte, len(step.echo))
		if _, err := io.ReadFull(hostR, got); err != nil {
			t.Fatalf("the host's output ended: %v", err)
		}
		if !bytes.Equal(got, step.echo) {
			at := firstDiff(got, step.echo)
			t.Fatalf("the host got back a different stream; first difference at %d: %.60q", at, got[at:min(len(got), at+60)])
		}
		blockingNow("while the relay runs")
	}
	if err := server.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if res := waitRun(t, done, "the relay whose server was killed"); res.err != nil {
		t.Fatalf("Run returned %d, %v", res.code, res.err)
	}
	blockingNow("after the relay")
}
