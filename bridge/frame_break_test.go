//go:build unix

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
		t.Errorf("%s: the relay never returned; goroutines:\n%s", what, buf[:n])
		panic("the relay hangs")
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
		// These the fast path sends to the full path, which stops them.
		{"escaped method name", `{"jsonrpc":"2.0","id":"m3","method":"elicitation\/create",` + params + `}`},
		{"escaped key", `{"jsonrpc":"2.0","id":"m4","m\u0065thod":"elicitation/create",` + params + `}`},
		{"byte order mark, 2 MiB", "\xEF\xBB\xBF" + `{"jsonrpc":"2.0","id":"m5","method":"elicitation/create","params":{"message":"` + strings.Repeat("w", 2<<20) + `","requestedSchema":{"type":"object","properties":{}}}}`},
		{"params first, 2 MiB", `{"params":{"message":"` + strings.Repeat("w", 2<<20) + `","requestedSchema":{"type":"object","properties":{}}},"jsonrpc":"2.0","id":"m6","method":"elicitation/create"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startPeer(t, nil)
			var peerView struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if err := json.Unmarshal(bytes.TrimPrefix([]byte(tt.line), bom), &peerView); err != nil || peerView.Method != "elicitation/create" {
				t.Fatalf("test line: encoding/json reads method %q (%v)", peerView.Method, err)
			}
			p.serverSends(tt.line)
			p.serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`)
			got := p.hostGets()
			if !strings.Contains(got, `"after"`) {
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
	h := newHeldPrompts()
	p := startPeer(t, h.options())
	h.open(p, `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`)
	<-h.asked
	cancel := `{"jsonrpc":"2.0","method":"notifications/progress","method":"notifications/cancelled","params":{"requestId":1}}`
	p.hostSends(cancel)
	if got := p.serverGets(); got != cancel {
		t.Fatalf("server got %q, want the cancel as sent", got)
	}
	// The server's SDK saw the call cancelled; the relay must close its
	// prompt and answer it cancel, or the server waits forever.
	select {
	case err := <-h.causes:
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
// mark in front (which the relay drops), and server lines that name a
// method where hosts could read one the relay did not (oneline.go): text
// with a message in it, a message after a carriage return, a member
// "Method", a batch, a message over two lines. It returns the stream and
// what must come back: the host's direction passes every line as it came,
// and the server's drops those, or, when one is longer than the read
// buffer and the key is past its head, cuts it before the key
// (dropOrCut). None of them has an id, so that the relay answers nothing
// (cat would echo the answer back at no fixed place).
func streamOf(rng *rand.Rand, n int, sizes []int, lastNewline bool) (in, want []byte) {
	var ib, wb pieces
	letters := func(n int) []byte {
		b := make([]byte, max(n, 0))
		for j := 0; j < len(b); j += 8 { // eight letters from each draw
			x := rng.Uint64()
			for k := j; k < min(j+8, len(b)); k++ {
				b[k] = 'a' + byte(x%26)
				x /= 26
			}
		}
		return b
	}
	for i := range n {
		size := sizes[rng.IntN(len(sizes))]
		var head string
		var line, out []byte
		cut := false // out ends the line: the relay cut it
		kind := rng.IntN(11)
		switch kind {
		case 0:
			head = `{"jsonrpc":"2.0","id":` + fmt.Sprint(i) + `,"result":{"text":"`
		case 1:
			head = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`
		case 2:
			head = `not json at all {"method":"elicitation/create"} ` // dropped
		case 3:
			head = `  { "jsonrpc" : "2.0" , "method" : "notifications/progress", "params":{"x":"`
		case 4:
			head = `{"jsonrpc":"2.0","error":{"code":1,"message":"`
		case 6: // go-sdk reads the elicitation after the "\r"
			first := `{"jsonrpc":"2.0","id":` + fmt.Sprint(i) + `,"result":{"text":"` + string(letters(size-60)) + `"}}` + "\r"
			line = []byte(first + `{"jsonrpc":"2.0","method":"elicitation/create","params":{}}`)
			out, cut = dropOrCut(line, len(first)+len(`{"jsonrpc":"2.0",`))
		case 7: // mcp-go reads "Method" as the method
			first := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + string(letters(size-70)) + `"},`
			line = []byte(first + `"Method":"elicitation/create"}`)
			out, cut = dropOrCut(line, len(first))
		case 8: // a batch: dropped whole (the full path reads it)
			line = []byte(`[{"jsonrpc":"2.0","method":"notifications/message","params":{}},{"jsonrpc":"2.0","result":{"text":"` + string(letters(size-100)) + `"}}]`)
		case 9: // a message over two lines: its head names the method
			line = []byte(`{"jsonrpc":"2.0","method":"elicitation/create",`)
			ib.Write(line)
			ib.writeByte('\n')
			line = []byte(`"params":{"message":"` + string(letters(size-30)) + `"}}`)
			out = line
		case 10: // two replies after a "\r": no method, passes
			line = []byte(`{"jsonrpc":"2.0","id":` + fmt.Sprint(i) + `,"result":{"text":"` + string(letters(size-80)) + `"}}` + "\r" + `{"jsonrpc":"2.0","id":"x","result":{}}`)
			out = line
		}
		if line == nil {
			body := letters(size - len(head))
			if len(body) > 10 {
				body[len(body)/3] = '"'
				body[len(body)/2] = '\\'
			}
			line = append([]byte(head), body...)
			if rng.IntN(4) == 0 {
				line = append(line, '\r')
			}
			if kind != 2 {
				out = line
			}
		}
		// A byte order mark sends a long line to the full path in the
		// direction that meets it (the server's, with cat FILE), which
		// would drop what the other cuts: none before those.
		withBOM := rng.IntN(8) == 0 && kind != 6 && kind != 7
		if withBOM {
			ib.Write(bom)
		}
		ib.Write(line)
		nl := i < n-1 || lastNewline
		if nl {
			ib.writeByte('\n')
		}
		wb.Write(out)
		if out != nil && nl && !cut {
			wb.writeByte('\n')
		}
	}
	return ib.Bytes(), wb.Bytes()
}

// pieces gathers a stream of many lines, some of 64 MiB, and copies them
// into one slice once at the end (a bytes.Buffer would copy and clear the
// whole stream again at every doubling). Written slices must not change.
type pieces struct {
	parts [][]byte
	n     int
}

func (p *pieces) Write(b []byte)   { p.parts, p.n = append(p.parts, b), p.n+len(b) }
func (p *pieces) writeByte(c byte) { p.Write([]byte{c}) }
func (p *pieces) Bytes() []byte {
	out := make([]byte, 0, p.n)
	for _, b := range p.parts {
		out = append(out, b...)
	}
	return out
}

// dropOrCut is what the host gets of a server line whose key at k names a
// method the relay must not pass: nothing when the relay reads the line
// whole (it fits the read buffer, or the key is in its head, which sends
// it to the full path), or, for a longer one that streams, its bytes up to
// the key and a newline (lineTail cuts it there).
func dropOrCut(line []byte, k int) (out []byte, cut bool) {
	if len(line) >= frameBuf && k+len(`"Method"`) > frameBuf {
		return append(line[:k:k], '\n'), true
	}
	return nil, false
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
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
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
	if testing.Short() {
		t.Skip("long: not in the short tier (-short)")
	}
	t.Parallel() // CPU-bound, on pipes and processes of its own
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

// breakPeer is a peer (relay_test.go) with the Relay and the server's
// command at hand (newPeer).
type breakPeer struct {
	*peer
	r   *Relay
	cmd *exec.Cmd
}

func startBreakPeer(t *testing.T, opts func(r **Relay) *Options) *breakPeer {
	t.Helper()
	p, r, cmd := newPeer(t, opts)
	return &breakPeer{peer: p, r: r, cmd: cmd}
}

// waitLater waits until a line waits in lw.later: written while a long
// line streams, it must follow the line.
func waitLater(t *testing.T, lw *lineWriter) {
	t.Helper()
	guard := hangGuard(t)
	for {
		lw.mu.Lock()
		n := len(lw.later)
		lw.mu.Unlock()
		if n > 0 {
			return
		}
		select {
		case <-guard:
			t.Fatal("the answer never waited for the long line to end")
		default:
			runtime.Gosched()
		}
	}
}

const cancelAnswer = `{"jsonrpc":"2.0","id":"e1","result":{"action":"cancel"}}`

// answerAtOnce is an Approver that answers cancel at once and hands over
// the relay's writer to the server, which only exists once Run started.
func answerAtOnce(r **Relay, toServer chan<- *lineWriter) *Options {
	return &Options{Approver: ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		toServer <- (*r).w.server.(*lineConn).w
		return &Result{Action: ActionCancel}, nil
	})}
}

const elicitE1 = `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`

// TestBreakAnswerWhileLineStreams: the host streams a 64 MiB notification
// to the server; in the middle of it the server asks, and the Approver
// answers at once. The answer must reach the server after the line, as a
// line of its own, and the line must arrive whole.
func TestBreakAnswerWhileLineStreams(t *testing.T) {
	toServer := make(chan *lineWriter, 1)
	p := startBreakPeer(t, func(r **Relay) *Options { return answerAtOnce(r, toServer) })
	head := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`
	body := bytes.Repeat([]byte("A"), 64<<20)
	tail := `"}}` + "\n"
	wrote := make(chan error, 1)
	resume := make(chan struct{})
	go func() {
		if _, err := io.WriteString(p.host, head); err != nil {
			wrote <- err
			return
		}
		if _, err := p.host.Write(body[:3<<20]); err != nil {
			wrote <- err
			return
		}
		<-resume
		for rest := body[3<<20:]; len(rest) > 0; rest = rest[min(len(rest), 1<<20):] {
			if _, err := p.host.Write(rest[:min(len(rest), 1<<20)]); err != nil {
				wrote <- err
				return
			}
		}
		_, err := io.WriteString(p.host, tail)
		wrote <- err
	}()
	// The line is streaming: its first 2 MiB reached the server.
	first := make([]byte, 2<<20)
	if _, err := io.ReadFull(p.gotSrv, first); err != nil {
		t.Fatal(err)
	}
	p.serverSends(elicitE1)
	waitLater(t, <-toServer)
	close(resume)
	rest, err := p.gotSrv.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	line := append(first, rest...)
	if want := head + string(body) + tail; string(line) != want {
		at := firstDiff(line, []byte(want))
		t.Fatalf("the server got a %d-byte line, want %d; first difference at %d: %.100q", len(line), len(want), at, line[at:min(len(line), at+100)])
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	jsonEq(t, cancelAnswer, p.serverGets())
}

// TestBreakAnswerWhileLineCut: as TestBreakAnswerWhileLineStreams, but
// the host goes away in the middle of its long line. The answer that
// waited must still reach the server as a line of its own, not glued to
// the cut line's last bytes, where no parser finds it.
func TestBreakAnswerWhileLineCut(t *testing.T) {
	toServer := make(chan *lineWriter, 1)
	p := startBreakPeer(t, func(r **Relay) *Options { return answerAtOnce(r, toServer) })
	head := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`
	go func() {
		_, _ = io.WriteString(p.host, head)
		_, _ = p.host.Write(bytes.Repeat([]byte("A"), 3<<20))
	}()
	first := make([]byte, 2<<20)
	if _, err := io.ReadFull(p.gotSrv, first); err != nil {
		t.Fatal(err)
	}
	p.serverSends(elicitE1)
	waitLater(t, <-toServer)
	p.host.Close()
	// The cut line reaches the server as far as the host sent it; the
	// answer must follow on a line of its own.
	cut, err := p.gotSrv.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cut, `"id":"e1"`) {
		t.Fatalf("the answer was glued to the cut line: the server got %d bytes ending %q", len(first)+len(cut), cut[max(0, len(cut)-120):])
	}
	jsonEq(t, cancelAnswer, p.serverGets())
}

// TestBreakTSReplyClosesLegacyPrompt: a 20 MiB reply to the tools/call in
// flight, spelt as the TypeScript SDK writes it ("result" first, "id"
// last), must end the call: the legacy prompt open for it closes
// (ErrCallEnded) and the server is answered cancel, and the host gets the
// reply byte for byte.
func TestBreakTSReplyClosesLegacyPrompt(t *testing.T) {
	h := newHeldPrompts()
	p := startPeer(t, h.options())
	h.open(p, elicitE1)
	<-h.asked
	reply := `{"result":{"content":[{"type":"text","text":"` + strings.Repeat("R", 20<<20) + `"}]},"jsonrpc":"2.0","id":1}`
	go p.serverSends(reply)
	if got := p.hostGets(); got != reply {
		t.Fatalf("the host got %d bytes, not the %d-byte reply", len(got), len(reply))
	}
	if err := <-h.causes; !errors.Is(err, ErrCallEnded) {
		t.Fatalf("the prompt ended with %v, want ErrCallEnded", err)
	}
	jsonEq(t, cancelAnswer, p.serverGets())
}

// TestBreakServerKilledMidLine: the server is killed (SIGKILL) in the
// middle of a 64 MiB line, streamed (a reply nobody waits for) or gathered
// (a reply to the tools/call in flight). The relay must return the
// shell's 137, and the host must have got nothing but a prefix of what
// the server wrote.
func TestBreakServerKilledMidLine(t *testing.T) {
	for _, inFlight := range []bool{false, true} {
		t.Run(fmt.Sprintf("call in flight=%v", inFlight), func(t *testing.T) {
			p := startBreakPeer(t, nil)
			line := `{"result":{"content":[{"type":"text","text":"` + strings.Repeat("K", 64<<20) + `"}]},"jsonrpc":"2.0","id":1}` + "\n"
			if inFlight {
				p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}`)
				p.serverGets()
			}
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				_, _ = io.WriteString(p.server, line[:20<<20])
			}()
			// The host reads all along, as a host does.
			headIn := make(chan struct{})
			hostGot := make(chan []byte, 1)
			go func() {
				var got []byte
				buf := make([]byte, 1<<20)
				for {
					n, err := p.toHost.Read(buf)
					if len(got) < 4<<20 && len(got)+n >= 4<<20 {
						close(headIn)
					}
					got = append(got, buf[:n]...)
					if err != nil {
						hostGot <- got
						return
					}
				}
			}()
			if inFlight {
				<-sent // gathered: the host gets nothing before the end
			} else {
				<-headIn // streaming: the host has the first bytes
			}
			if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			res := waitRun(t, p.done, "the server killed in a line")
			p.done <- res // for the cleanup
			if res.code != 137 {
				t.Errorf("Run returned %d, %v; want 137", res.code, res.err)
			}
			p.host.Close() // the host's pump ends; the host's output ends with Run
			got := <-hostGot
			if !strings.HasPrefix(line, string(got)) || len(got) >= len(line) {
				t.Errorf("the host got %d bytes that are not a cut prefix of the server's line (first difference at %d)", len(got), firstDiff(got, []byte(line)))
			}
		})
	}
}

// fdCount is how many files this process has open.
func fdCount(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc here")
	}
	return len(ents)
}

// TestBreakNoLeaks: a relay that ran to its end over pipes (tee, splice,
// the private pipe, /dev/null) and over sockets leaves no file open and
// no goroutine running.
func TestBreakNoLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("long: not in the short tier (-short)")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	in, want := streamOf(rng, 200, []int{0, 100, 70_000, frameBuf + 3, 3 << 20}, true)
	// One run first: what the runtime and exec start once stays.
	relayCat(t, false, in, rng)
	fds, gs := fdCount(t), runtime.NumGoroutine()
	for _, sockets := range []bool{false, true, false} {
		got, res := relayCat(t, sockets, in, rng)
		if res.code != 0 || !bytes.Equal(got, want) {
			t.Fatalf("sockets=%v: run failed: %d, %v, %d bytes of %d", sockets, res.code, res.err, len(got), len(want))
		}
	}
	if n := fdCount(t); n != fds {
		t.Errorf("%d files open after the relays, %d before", n, fds)
	}
	guard := hangGuard(t)
	for runtime.NumGoroutine() > gs {
		select {
		case <-guard:
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after the relays, %d before:\n%s", runtime.NumGoroutine(), gs, buf[:runtime.Stack(buf, true)])
		default:
			runtime.Gosched()
		}
	}
}

// serverFile writes a stream for a server to send (`cat FILE`): small
// lines, a 64 MiB line, more small lines.
func serverFile(t *testing.T) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	for i := range 3000 {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"%d %s"}}`+"\n", i, strings.Repeat("n", i%700))
	}
	b.WriteString(`{"jsonrpc":"2.0","id":9,"result":{"text":"` + strings.Repeat("L", 64<<20) + `"}}` + "\n")
	for i := range 3000 {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i)
	}
	path := t.TempDir() + "/stream.jsonl"
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, b.Bytes()
}

// TestBreakHostClosesReadSide: the host closes its end of the relay's
// stdout in the middle of the server's stream (a host that crashed, or
// stopped reading). The server must not block on a full pipe: it writes
// all it has and exits, and Run returns the server's code.
func TestBreakHostClosesReadSide(t *testing.T) {
	path, _ := serverFile(t)
	for _, sockets := range []bool{false, true} {
		t.Run(fmt.Sprintf("sockets=%v", sockets), func(t *testing.T) {
			e := newHostEnds(t, sockets)
			defer e.hostW.Close()
			log := &syncBuffer{}
			r := NewRelay(Command(exec.Command("sh", "-c", `cat "$0"; exit 4`, path), 0), &Options{Log: log})
			done := make(chan runResult, 1)
			go func() {
				code, err := r.Run(context.Background(), e.relayIn, e.relayOut)
				e.relayOut.Close()
				done <- runResult{code, err}
			}()
			head := make([]byte, 2<<20)
			if _, err := io.ReadFull(e.hostR, head); err != nil {
				t.Fatal(err)
			}
			e.hostR.Close()
			res := waitRun(t, done, "the host closed its read side")
			if res.code != 4 {
				t.Errorf("Run returned %d, %v; want the server's 4", res.code, res.err)
			}
			if !strings.Contains(log.String(), "writing to the host") {
				t.Errorf("the log does not say the host went away: %q", log.String())
			}
			e.relayIn.Close()
		})
	}
}

// TestBreakSlowHost: a host that reads in small pieces, slower than the
// server writes, still gets every byte in order.
func TestBreakSlowHost(t *testing.T) {
	path, want := serverFile(t)
	for _, sockets := range []bool{false, true} {
		t.Run(fmt.Sprintf("sockets=%v", sockets), func(t *testing.T) {
			e := newHostEnds(t, sockets)
			defer e.hostW.Close()
			r := NewRelay(Command(exec.Command("sh", "-c", `cat "$0"`, path), 0), &Options{Log: &syncBuffer{}})
			done := make(chan runResult, 1)
			go func() {
				code, err := r.Run(context.Background(), e.relayIn, e.relayOut)
				e.relayOut.Close()
				done <- runResult{code, err}
			}()
			var got bytes.Buffer
			buf := make([]byte, 4093)
			for {
				n, err := e.hostR.Read(buf)
				got.Write(buf[:n])
				if err != nil {
					break
				}
			}
			if res := waitRun(t, done, "a slow host"); res.code != 0 {
				t.Errorf("Run returned %d, %v", res.code, res.err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("the host got %d bytes, want %d; first difference at %d", got.Len(), len(want), firstDiff(got.Bytes(), want))
			}
			e.relayIn.Close()
			e.hostR.Close()
		})
	}
}

// TestBreakStopWhileServerStalls: the host sends a 4 MiB message to a
// server that does not read its stdin, and the wrapper is told to stop
// (SIGTERM: Run's ctx ends) while the relay waits on the full pipe. The
// server must still be shut down its way (stdin closed, then SIGTERM
// after grace, PROTOCOL.md §7) and Run return.
func TestBreakStopWhileServerStalls(t *testing.T) {
	for _, size := range []int{4 << 20, 200_000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			e := newHostEnds(t, false)
			defer e.hostW.Close()
			defer e.hostR.Close()
			cmd := exec.Command("sh", "-c", `echo '{"jsonrpc":"2.0","method":"notifications/message","params":{}}'; exec sleep 3600`)
			r := NewRelay(Command(cmd, 50*time.Millisecond), &Options{Log: &syncBuffer{}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan runResult, 1)
			go func() {
				code, err := r.Run(ctx, e.relayIn, e.relayOut)
				e.relayOut.Close()
				done <- runResult{code, err}
			}()
			go func() {
				_, _ = io.WriteString(e.hostW, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`+strings.Repeat("S", size)+`"}}`+"\n")
			}()
			// The server started (its first line is here); the host's
			// message fills its stdin.
			readLine(t, bufio.NewReader(e.hostR), "host")
			cancel()
			res := waitRun(t, done, "stopping while the server does not read")
			if res.code != 128+int(syscall.SIGTERM) {
				t.Errorf("Run returned %d, %v; want 143 (SIGTERM after grace)", res.code, res.err)
			}
			e.relayIn.Close()
		})
	}
}

// TestBreakMRTRBigCall: a 2026-07-28 tools/call with 5 MiB of arguments,
// written by the host in one burst between two long notifications (so it
// sits in the middle of spliced and streamed runs), must be gathered,
// passed on with the capability merged, and kept: when the server answers
// input_required (itself between two long notifications), the relay's
// retry carries the same 5 MiB of arguments, and the host gets the final
// result under its own id.
func TestBreakMRTRBigCall(t *testing.T) {
	s := newScripted()
	s.answer <- &Result{Action: ActionAccept, Content: map[string]any{"name": "widgets"}}
	p := startBreakPeer(t, func(**Relay) *Options { return &Options{Server: "big", Approver: s} })
	blob := strings.Repeat("0123456789abcdef", 5<<16) // 5 MiB
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"upload","arguments":{"blob":"` + blob + `"},` + modernMeta + `}}`
	note := func(c string, n int) string {
		return `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat(c, n) + `"}}`
	}
	go p.hostSends(note("h", 3<<20) + "\n" + call + "\n" + note("i", 2<<20))
	if got := p.serverGets(); got != note("h", 3<<20) {
		t.Fatalf("the server got %d bytes, not the first notification", len(got))
	}
	var sent struct {
		Params struct {
			Arguments struct{ Blob string } `json:"arguments"`
			Meta      map[string]any        `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(p.serverGets()), &sent); err != nil || sent.Params.Arguments.Blob != blob {
		t.Fatalf("the server's tools/call lost its arguments (%d bytes of %d): %v", len(sent.Params.Arguments.Blob), len(blob), err)
	}
	if got := p.serverGets(); got != note("i", 2<<20) {
		t.Fatalf("the server got %d bytes, not the second notification", len(got))
	}
	go p.serverSends(note("s", 2<<20) + "\n" + `{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","inputRequests":{"repo":{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":` + nameSchema + `}}},"requestState":"st"}}` + "\n" + note("t", 3<<20))
	if got := p.hostGets(); got != note("s", 2<<20) {
		t.Fatalf("the host got %d bytes, not the server's first notification", len(got))
	}
	if got := p.hostGets(); got != note("t", 3<<20) {
		t.Fatalf("the host got %.100q, not the server's second notification (the input_required reply must stay with the relay)", got)
	}
	<-s.asked
	var retry struct {
		ID     string `json:"id"`
		Params struct {
			Arguments      struct{ Blob string } `json:"arguments"`
			InputResponses map[string]any        `json:"inputResponses"`
			RequestState   string                `json:"requestState"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(p.serverGets()), &retry); err != nil {
		t.Fatal(err)
	}
	if retry.Params.Arguments.Blob != blob || retry.Params.RequestState != "st" || retry.Params.InputResponses["repo"] == nil {
		t.Fatalf("the retry lost the call: %d bytes of arguments of %d, requestState %q, inputResponses %v", len(retry.Params.Arguments.Blob), len(blob), retry.Params.RequestState, retry.Params.InputResponses)
	}
	p.serverSends(`{"jsonrpc":"2.0","id":` + mustJSON(retry.ID) + `,"result":{"resultType":"complete","content":[]}}`)
	if got, want := p.hostGets(), `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[]}}`; got != want {
		t.Fatalf("host got %q, want %q", got, want)
	}
}

// TestBreakGrandchildHoldsStdoutPipes: the server writes a burst with a
// 64 MiB line and exits while a process it started keeps its stdout open
// and writes nothing. Over OS pipes (the splice path), the host gets every
// byte the server wrote, and Run returns the server's code after grace.
func TestBreakGrandchildHoldsStdoutPipes(t *testing.T) {
	path, want := serverFile(t)
	e := newHostEnds(t, false)
	defer e.hostW.Close()
	cmd := exec.Command("sh", "-c", `sleep 3600 & cat "$0"; exit 5`, path)
	r := NewRelay(Command(cmd, 100*time.Millisecond), &Options{Log: &syncBuffer{}})
	done := make(chan runResult, 1)
	go func() {
		code, err := r.Run(context.Background(), e.relayIn, e.relayOut)
		e.relayOut.Close()
		done <- runResult{code, err}
	}()
	got, err := io.ReadAll(e.hostR)
	if err != nil {
		t.Fatal(err)
	}
	res := waitRun(t, done, "a grandchild holds the server's stdout")
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if res.code != 5 {
		t.Errorf("Run returned %d, %v; want the server's 5", res.code, res.err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the host got %d bytes, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	e.relayIn.Close()
	e.hostR.Close()
}

// TestBreakServerExitsMidHostLine: the server reads 2 MB of a 64 MiB line
// the host is streaming to it, and exits. The host must not block on its
// writes (the relay reads the rest of the line and drops it, as the server
// is gone), and Run returns the server's code.
func TestBreakServerExitsMidHostLine(t *testing.T) {
	e := newHostEnds(t, false)
	defer e.hostR.Close()
	cmd := exec.Command("sh", "-c", `head -c 2000000 >/dev/null; exit 6`)
	r := NewRelay(Command(cmd, 100*time.Millisecond), &Options{Log: &syncBuffer{}})
	done := make(chan runResult, 1)
	go func() {
		code, err := r.Run(context.Background(), e.relayIn, e.relayOut)
		e.relayOut.Close()
		done <- runResult{code, err}
	}()
	wrote := make(chan error, 1)
	go func() {
		line := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("H", 64<<20) + `"}}` + "\n"
		_, err := io.WriteString(e.hostW, line+`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`+"\n")
		wrote <- err
	}()
	res := waitRun(t, done, "the server exited in the middle of the host's line")
	if res.code != 6 {
		t.Errorf("Run returned %d, %v; want the server's 6", res.code, res.err)
	}
	select {
	case err := <-wrote:
		if err != nil {
			t.Errorf("the host's write failed: %v", err)
		}
	case <-hangGuard(t):
		t.Fatal("the host's write of its long line never finished: the relay stopped reading it")
	}
	e.hostW.Close()
	e.relayIn.Close()
}

// TestBreakInputRequiredToLegacyCall: a server that answers a legacy
// tools/call (no protocolVersion in its _meta) with input_required, short
// and as a long TypeScript-style reply ("result" first, more than a read
// buffer). The full path runs the loop for any call's input_required
// (loop.fromServer: the era is told by the reply, PROTOCOL.md §2: "a
// result with resultType comes from a newer server"); the fast path must not
// pass it to the host instead, which asked nothing of the kind and cannot
// answer it.
func TestBreakInputRequiredToLegacyCall(t *testing.T) {
	for _, long := range []bool{false, true} {
		t.Run(fmt.Sprintf("long=%v", long), func(t *testing.T) {
			s := newScripted()
			p := startBreakPeer(t, func(**Relay) *Options { return &Options{Server: "srv", Approver: s} })
			p.hostSends(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"deploy","arguments":{}}}`)
			p.serverGets()
			pad := ""
			if long {
				pad = `,"note":"` + strings.Repeat("p", 2<<20) + `"`
			}
			go p.serverSends(`{"result":{"resultType":"input_required","inputRequests":{"ok":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy?","requestedSchema":{"type":"object","properties":{}}}}}` + pad + `},"jsonrpc":"2.0","id":7}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"marker"}}`)
			if got := p.hostGets(); !strings.Contains(got, `"marker"`) {
				t.Fatalf("the host got %.120q before the marker: the input_required reply passed", got)
			}
			select {
			case <-s.asked:
				s.answer <- &Result{Action: ActionCancel}
			case <-hangGuard(t):
				t.Fatal("the relay never asked: the input_required reply was not read")
			}
		})
	}
}

// TestBreakLongReplyTailEndsCall: long replies to a legacy tools/call in
// flight, "result" first and "id" last as the TypeScript SDK writes them,
// whose result is full of what a bracket counter trips on (escaped quotes
// and backslashes, brackets inside strings, nested arrays) and arrives in
// random write splits, so that escapes straddle the read pieces. Each must
// reach the host byte for byte and end its call: the legacy prompt open
// for it closes (ErrCallEnded).
func TestBreakLongReplyTailEndsCall(t *testing.T) {
	for seed := range 4 {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 21))
			h := newHeldPrompts()
			p := startPeer(t, h.options())
			h.open(p, elicitE1)
			<-h.asked
			alphabet := []string{"a", `\`, `\\`, `"`, `{`, `}`, `[`, `]`, `\"`, "é", "\n"}
			var text strings.Builder
			for text.Len() < 3<<20+rng.IntN(1<<20) {
				text.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			enc, err := json.Marshal(text.String())
			if err != nil {
				t.Fatal(err)
			}
			reply := `{"result":{"content":[{"type":"text","text":` + string(enc) + `},[[],{"a":[{}]}]],"structuredContent":{"x":"}]\\\\"}} , "jsonrpc" : "2.0" , "id" : 1 }`
			go func() {
				data := []byte(reply + "\n")
				for len(data) > 0 {
					n := min(len(data), 1+rng.IntN(300_000))
					if _, err := p.server.Write(data[:n]); err != nil {
						return
					}
					data = data[n:]
				}
			}()
			if got := p.hostGets(); got != reply {
				t.Fatalf("the host got %d bytes, not the %d-byte reply (first difference at %d)", len(got), len(reply), firstDiff([]byte(got), []byte(reply)))
			}
			select {
			case err := <-h.causes:
				if !errors.Is(err, ErrCallEnded) {
					t.Fatalf("the prompt ended with %v, want ErrCallEnded", err)
				}
			case <-hangGuard(t):
				t.Fatal("the prompt stayed open after the call's reply went out")
			}
		})
	}
}

// TestBreakRandomServerStreams: random streams the server writes (`cat
// FILE`), with byte order marks before short and >1 MiB lines, CRLF,
// non-JSON lines and no final newline, reach a host on pipes and on
// sockets byte for byte, less the marks.
func TestBreakRandomServerStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("long: not in the short tier (-short)")
	}
	t.Parallel() // CPU-bound, on pipes and processes of its own
	sizes := []int{0, 1, 3, 100, 4095, 8191, 8192, 8193, 65536, 300_000, frameBuf - 1, frameBuf, frameBuf + 1, 3*frameBuf + 1}
	for seed, sockets := range []bool{false, true, false, true} {
		t.Run(fmt.Sprintf("%d/sockets=%v", seed, sockets), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 77))
			in, want := streamOf(rng, 150, sizes, seed%2 == 0)
			path := t.TempDir() + "/stream"
			if err := os.WriteFile(path, in, 0o600); err != nil {
				t.Fatal(err)
			}
			e := newHostEnds(t, sockets)
			defer e.hostW.Close()
			r := NewRelay(Command(exec.Command("cat", path), 0), &Options{Log: &syncBuffer{}})
			done := make(chan runResult, 1)
			go func() {
				code, err := r.Run(context.Background(), e.relayIn, e.relayOut)
				e.relayOut.Close()
				done <- runResult{code, err}
			}()
			got, err := io.ReadAll(e.hostR)
			if err != nil {
				t.Fatal(err)
			}
			if res := waitRun(t, done, "a server's random stream"); res.code != 0 {
				t.Errorf("Run returned %d, %v", res.code, res.err)
			}
			if !bytes.Equal(got, want) {
				at := firstDiff(got, want)
				t.Fatalf("the host got %d bytes, want %d; first difference at %d, after %.80q: got %.80q, want %.80q", len(got), len(want), at, want[max(0, at-80):at], got[at:min(len(got), at+80)], want[at:min(len(want), at+80)])
			}
			e.relayIn.Close()
			e.hostR.Close()
		})
	}
}

// TestBreakNoLeaksServerFirst: the server exits while the host keeps its
// stdin open (a host that outlives the server): once Run has returned, the
// relay holds no file of its own (the fast path's private pipe and
// /dev/null) while the host's input stays open.
func TestBreakNoLeaksServerFirst(t *testing.T) {
	run := func() {
		e := newHostEnds(t, false)
		defer e.hostR.Close()
		r := NewRelay(Command(exec.Command("sh", "-c", "exit 0"), 0), &Options{Log: &syncBuffer{}})
		done := make(chan runResult, 1)
		go func() {
			code, err := r.Run(context.Background(), e.relayIn, e.relayOut)
			done <- runResult{code, err}
		}()
		waitRun(t, done, "the server exits first")
		e.relayOut.Close()
		// Counted while the host's input is still open.
		t.Cleanup(func() { e.hostW.Close(); e.relayIn.Close() })
	}
	run()
	fds := fdCount(t)
	for range 3 {
		run()
	}
	// Each run leaves the host's input (two pipe ends) open until cleanup.
	if n := fdCount(t) - 2*3; n != fds {
		t.Errorf("%d files open besides the hosts' after three relays, %d before: the relay keeps %d per run", n, fds, (n-fds)/3)
	}
}

// nestedMethods makes a long JSON value full of what a member follower
// (lineTail) must not take for a top-level "method": "method" keys in
// nested objects, the word in strings with escaped quotes around it,
// escapes and brackets inside strings.
func nestedMethods(rng *rand.Rand, size int) string {
	var b strings.Builder
	b.WriteString(`{"content":[`)
	for b.Len() < size {
		switch rng.IntN(5) {
		case 0:
			b.WriteString(`{"method":"elicitation/create","id":1,"params":{"method":"x"}},`)
		case 1:
			s, _ := json.Marshal(`"method":"elicitation/create"` + strings.Repeat(`\"}{][`, rng.IntN(50)))
			b.Write(s)
			b.WriteByte(',')
		case 2:
			b.WriteString(`[[{"method":[]}],"\\",{"a":{"method":"notifications/cancelled"}}],`)
		case 3:
			b.WriteString(`{"text":"` + strings.Repeat("x", rng.IntN(200_000)) + `"},`)
		case 4:
			b.WriteString(`12.5e3,true,null,"method",`)
		}
	}
	b.WriteString(`{}]}`)
	return b.String()
}

// writeSplit writes data to w in random pieces.
func writeSplit(w io.Writer, data []byte, rng *rand.Rand) {
	for len(data) > 0 {
		n := min(len(data), 1+rng.IntN(400_000))
		if _, err := w.Write(data[:n]); err != nil {
			return
		}
		data = data[n:]
	}
}

// TestBreakStreamedNestedMethods: long lines (past the read buffer, so
// they stream and their members are followed as they go) whose values
// hold "method" keys and words at every depth but the top: a reply to a
// call in flight and a notification from the server, a notification from
// the host, in random write splits. Each must arrive whole, byte for byte:
// cutting one off loses a user's tool result.
func TestBreakStreamedNestedMethods(t *testing.T) {
	for seed := range 3 {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 31))
			var wrng = rand.New(rand.NewPCG(uint64(seed), 32))
			p := startBreakPeer(t, nil)
			p.initialize()
			p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}`)
			p.serverGets()
			for _, line := range []string{
				`{"result":` + nestedMethods(rng, 3<<20) + `,"jsonrpc":"2.0","id":1}`,
				`{"jsonrpc":"2.0","method":"notifications/message","params":` + nestedMethods(rng, 3<<20) + `}`,
				`{"jsonrpc":"2.0","id":2,"result":` + nestedMethods(rng, 2<<20) + `}`,
			} {
				go writeSplit(p.server, []byte(line+"\n"), wrng)
				if got := p.hostGets(); got != line {
					t.Fatalf("the host got %d bytes of a %d-byte line (first difference at %d): %.80q", len(got), len(line), firstDiff([]byte(got), []byte(line)), got[max(0, firstDiff([]byte(got), []byte(line))-40):min(len(got), firstDiff([]byte(got), []byte(line))+40)])
				}
			}
			line := `{"jsonrpc":"2.0","method":"notifications/message","params":` + nestedMethods(rng, 3<<20) + `}`
			go writeSplit(p.host, []byte(line+"\n"), wrng)
			if got := p.serverGets(); got != line {
				t.Fatalf("the server got %d bytes of the host's %d-byte line (first difference at %d)", len(got), len(line), firstDiff([]byte(got), []byte(line)))
			}
		})
	}
}

// TestBreakStreamedEscapedMethodKey: a long server notification whose
// last member is "method" spelt with an escape ("m\u0065thod"), which
// every peer decodes as "method" and keeps (last of repeated members): the
// host must not get a line it reads as the server's elicitation/create.
func TestBreakStreamedEscapedMethodKey(t *testing.T) {
	p := startBreakPeer(t, nil)
	line := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("e", 2<<20) + `"},"id":"x1","m\u0065thod":"elicitation/create"}`
	var peerView struct{ Method string }
	if err := json.Unmarshal([]byte(line), &peerView); err != nil || peerView.Method != "elicitation/create" {
		t.Fatalf("test line: encoding/json reads %q (%v)", peerView.Method, err)
	}
	go p.serverSends(line + "\n" + `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`)
	for {
		got := p.hostGets()
		var v struct{ Method string }
		if json.Unmarshal([]byte(got), &v) == nil && v.Method == "elicitation/create" {
			t.Fatalf("the host got a %d-byte line a JSON parser reads as the server's elicitation/create", len(got))
		}
		if strings.Contains(got, `"after"`) {
			return
		}
	}
}

// TestBreakCutMethodAtPieceBoundary: the second top-level "method" of a
// long server line, placed so that the first read piece (exactly the
// buffer: the pipe holds that much when the framer starts) ends at every
// offset around and inside it. Wherever the piece ends, the line either
// goes to the full path whole (which reads the last member, as peers do,
// and keeps the elicitation from the host) or is cut before that member:
// nothing relayed spells it. So for a member "Method", and for an
// elicitation after the object's end (a carriage return, then the
// message: a stream decoder reads it), with its key spelt plainly, with
// an escape or in another case: the tail searches those bytes
// (lineTail.search) and holds a key a piece ends inside.
func TestBreakCutMethodAtPieceBoundary(t *testing.T) {
	if testing.Short() {
		t.Skip("long: not in the short tier (-short)")
	}
	t.Parallel() // CPU-bound, on pipes and processes of its own
	members := []string{
		`,"method":"elicitation/create","id":"x"}`,
		`,"Method":"elicitation/create","id":"x"}`,
		`}` + "\r" + `{"jsonrpc":"2.0","id":"x","method":"elicitation/create"}`,
		`}` + "\r" + `{"jsonrpc":"2.0","id":"x","m\u0065thod":"elicitation/create"}`,
		`}` + "\r" + `{"jsonrpc":"2.0","id":"x","\u004Dethod":"elicitation/create"}`,
	}
	for m, member := range members {
		for _, splice := range []bool{true, false} {
			for k := -3; k < len(member)+2; k++ {
				t.Run(fmt.Sprintf("%d/splice=%v/%d", m, splice, k), func(t *testing.T) {
					head := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`
					// The piece ends k bytes into member.
					pad := frameBuf - k - len(head) - len(`"}`)
					line := head + strings.Repeat("d", pad) + `"}` + member + "\n"
					inR, inW, err := os.Pipe()
					if err != nil {
						t.Fatal(err)
					}
					outR, outW, err := os.Pipe()
					if err != nil {
						t.Fatal(err)
					}
					defer inR.Close()
					defer outR.Close()
					growPipe(inW)
					if n := pipeSize(inW); n != frameBuf {
						t.Skipf("no %d-byte pipe here (%d)", frameBuf, n)
					}
					if _, err := inW.Write([]byte(line[:frameBuf])); err != nil {
						t.Fatal(err)
					}
					go func() {
						_, _ = inW.Write([]byte(line[frameBuf:]))
						inW.Close()
					}()
					r := NewRelay(Command(exec.Command("true"), 0), nil)
					f := newFramer(inR)
					f.strict = true // the server's (Run)
					w := newLineWriter(outW)
					if splice {
						f.pipe = newPipeIn(inR, outW)
					}
					cuts, full := 0, 0
					finished := make(chan struct{})
					go func() {
						defer close(finished)
						defer outW.Close()
						defer f.pipe.close()
						_ = f.pump(w, r.serverRoute, func(string) {}, func(l []byte, more bool) { full++ }, func(error) {}, func() { cuts++ })
						w.flush()
					}()
					got, err := io.ReadAll(outR)
					if err != nil {
						t.Fatal(err)
					}
					<-finished
					var v struct{ Method string }
					if json.Unmarshal(got, &v) == nil && v.Method == "elicitation/create" {
						t.Fatalf("the line went out whole (%d bytes): a peer reads it as elicitation/create", len(got))
					}
					if bytes.Contains(got, []byte(`elicitation/create`)) {
						t.Fatalf("the cut line still spells the second method: ends %q", got[max(0, len(got)-60):])
					}
					if m := goSDKReads(t, got); len(m) > 0 {
						t.Fatalf("go-sdk reads requests %q in what was relayed", m)
					}
					if cuts+full != 1 {
						t.Errorf("cut told %d times and the full path given %d lines, want one of them once", cuts, full)
					}
					if cuts == 1 && (!bytes.HasSuffix(got, []byte("\n")) || !strings.HasPrefix(line, string(got[:len(got)-1]))) {
						t.Errorf("the cut line is not the line's start and a newline: ends %q", got[max(0, len(got)-60):])
					}
				})
			}
		}
	}
}

// TestBreakLongTopLevelKey: a long line whose top-level key, after the
// deciding "method", is longer than the read buffer. The relay must relay
// it (or cut it) and go on, not wait for a key to fit a buffer it never
// will.
func TestBreakLongTopLevelKey(t *testing.T) {
	for _, size := range []int{frameBuf / 2, frameBuf + 10, 3 * frameBuf} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			p := startBreakPeer(t, nil)
			line := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("v", frameBuf) + `"},"` + strings.Repeat("k", size) + `":1}`
			got := make(chan string, 1)
			go func() {
				p.serverSends(line + "\n" + `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`)
			}()
			go func() {
				l, _ := p.toHost.ReadString('\n')
				got <- l
			}()
			select {
			case l := <-got:
				if strings.TrimSuffix(l, "\n") != line {
					t.Fatalf("the host got %d bytes of the %d-byte line", len(l), len(line))
				}
			case <-hangGuard(t):
				buf := make([]byte, 1<<16)
				t.Fatalf("the relay never passed a line with a %d-byte key:\n%s", size, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}

// TestBreakMethodAfterLongKey: a second "method" after a top-level key
// longer than the read buffer is still found: the host gets no line it
// reads as the server's elicitation/create.
func TestBreakMethodAfterLongKey(t *testing.T) {
	p := startBreakPeer(t, nil)
	line := `{"jsonrpc":"2.0","method":"notifications/message","params":{},"` + strings.Repeat("k", 2*frameBuf) + `method":1,"method":"elicitation/create","id":"z","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`
	go p.serverSends(line + "\n" + `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`)
	for {
		got := readLine(t, p.toHost, "host")
		var v struct{ Method string }
		if json.Unmarshal([]byte(got), &v) == nil && v.Method == "elicitation/create" {
			t.Fatalf("the host got a %d-byte line a JSON parser reads as the server's elicitation/create", len(got))
		}
		if strings.Contains(got, `"after"`) {
			return
		}
	}
}

// heldPrompts is an Approver that holds each prompt open until its
// context ends: asked says a prompt opened, causes why it closed.
type heldPrompts struct {
	asked  chan struct{}
	causes chan error
}

func newHeldPrompts() *heldPrompts {
	return &heldPrompts{asked: make(chan struct{}, 1), causes: make(chan error, 1)}
}

func (h *heldPrompts) options() *Options {
	return &Options{Approver: ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		h.asked <- struct{}{}
		<-ctx.Done()
		h.causes <- context.Cause(ctx)
		return nil, context.Cause(ctx)
	})}
}

// open starts the session and a tools/call "ask" (id 1), whose server
// then sends elicit: a legacy prompt the Approver holds.
func (h *heldPrompts) open(p *peer, elicit string) {
	p.t.Helper()
	p.initialize()
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	p.serverGets()
	p.serverSends(elicit)
}
