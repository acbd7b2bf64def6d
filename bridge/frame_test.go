package bridge

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
	"runtime"
	"strings"
	"testing"
)

// streamLines makes a random stream of lines: JSON replies and
// notifications that pass, lines of no JSON at all, empty lines, lines
// from 0 B to past several read buffers, and marked lines ("{\"x\":…")
// that the test's route sends to the full path.
func streamLines(rng *rand.Rand, n int, big int) [][]byte {
	var lines [][]byte
	sizes := []int{0, 1, 2, 40, 1000, 4096, 65535, 65536, 200_000, frameBuf - 1, frameBuf, frameBuf + 1, 3*frameBuf + 17}
	for i := range n {
		size := sizes[rng.IntN(len(sizes))]
		if big > 0 && i == n/2 {
			size = big
		}
		var head string
		switch rng.IntN(5) {
		case 0:
			head = `{"jsonrpc":"2.0","id":1,"result":{"text":"`
		case 1:
			head = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`
		case 2:
			head = `not json at all `
		case 3:
			head = `{"x":"` // the full path's
		case 4:
			head = ""
		}
		body := make([]byte, max(size-len(head), 0))
		for j := range body {
			body[j] = 'a' + byte(rng.IntN(26))
		}
		if len(body) > 10 {
			body[len(body)/2] = '"' // a quote inside a long line
		}
		lines = append(lines, append([]byte(head), body...))
	}
	return lines
}

// testRoute passes every line but the marked ones.
func testRoute(b []byte, complete bool) (route, string) {
	if bytes.HasPrefix(b, []byte(`{"x":`)) {
		return vFull, ""
	}
	return vPass, ""
}

// handled is what the test's full path writes for a marked line.
func handled(line []byte) []byte {
	return fmt.Appendf(nil, "handled %d %x\n", len(line), crc(line))
}

func crc(b []byte) uint32 {
	var h uint32 = 2166136261
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// TestFramerRelaysStreamsExactly relays random streams through a framer
// between OS pipes, written in random splits, with and without the
// tee/splice path: every passing line comes out byte for byte and in
// order, every marked line is handled whole, in its place, and a last
// line without a newline is kept.
func TestFramerRelaysStreamsExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("long: not in the short tier (-short)")
	}
	t.Parallel() // CPU-bound, on pipes and processes of its own
	for seed := range 6 {
		for _, splice := range []bool{true, false} {
			t.Run(fmt.Sprintf("seed%d/splice=%v", seed, splice), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(seed), 7))
				lines := streamLines(rng, 60, 0)
				lastNewline := seed%2 == 0
				var in, want bytes.Buffer
				for i, l := range lines {
					in.Write(l)
					if i < len(lines)-1 || lastNewline {
						in.WriteByte('\n')
					}
					full := append(append([]byte(nil), l...), '\n')
					if i == len(lines)-1 && !lastNewline {
						full = full[:len(full)-1]
					}
					if bytes.HasPrefix(l, []byte(`{"x":`)) {
						want.Write(handled(full))
					} else {
						want.Write(full)
					}
				}
				got := relayThroughFramer(t, in.Bytes(), rng, splice)
				if !bytes.Equal(got, want.Bytes()) {
					t.Fatalf("output differs from the input: got %d bytes, want %d; first difference at %d", len(got), want.Len(), firstDiff(got, want.Bytes()))
				}
			})
		}
	}
}

// TestFramerStreams64MiBLine passes a 64 MiB line between smaller ones,
// through the splice path: it comes out whole, and the lines around it too.
func TestFramerStreams64MiBLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var in bytes.Buffer
	for _, l := range [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), []byte(`{"jsonrpc":"2.0","id":2,"result":{"data":"` + strings.Repeat("z", 64<<20) + `"}}`), []byte(`tail`)} {
		in.Write(l)
		in.WriteByte('\n')
	}
	got := relayThroughFramer(t, in.Bytes(), rng, true)
	if !bytes.Equal(got, in.Bytes()) {
		t.Fatalf("the 64 MiB line did not come out as it went in: got %d bytes, want %d; first difference at %d", len(got), in.Len(), firstDiff(got, in.Bytes()))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// relayThroughFramer writes data into an OS pipe in random pieces, runs a
// framer from it to another OS pipe and returns what came out.
func relayThroughFramer(t *testing.T, data []byte, rng *rand.Rand, splice bool) []byte {
	t.Helper()
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
	var splits []int
	for rest := len(data); rest > 0; {
		n := min(rest, []int{1, 7, 512, 4096, 70_000, 300_000, 2 << 20}[rng.IntN(7)])
		splits = append(splits, n)
		rest -= n
	}
	go func() {
		defer inW.Close()
		off := 0
		for _, n := range splits {
			if _, err := inW.Write(data[off : off+n]); err != nil {
				return
			}
			off += n
		}
	}()
	f := newFramer(inR)
	w := newLineWriter(outW)
	if splice {
		f.pipe = newPipeIn(inR, outW)
		if f.pipe == nil && runtime.GOOS == "linux" {
			t.Fatal("no splice path between two pipes on Linux")
		}
	}
	done := make(chan error, 1)
	go func() {
		defer outW.Close()
		defer f.pipe.close()
		err := f.pump(w, testRoute, func(string) {}, func(line []byte, more bool) {
			if err := w.write(handled(line), !more); err != nil {
				t.Error(err)
			}
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
	return got
}

// TestRelayPassesRandomStreamsBothWays relays random streams through the
// real relay and `cat` as the server, over OS pipes as a host gives them:
// replies, notifications and text pass both ways byte for byte, among
// requests that take the full path (ping, a host's notifications/
// cancelled), and elicitation/create requests (which the host sends, so
// that cat returns them as the server's) are answered by the relay in the
// middle of the spliced runs: the host gets each one's cancel answer back
// and never the request. So are lines that hosts could read an
// elicitation in that the relay does not (oneline.go): they are dropped
// where they are, and the -32600 the relay answers their requests with
// comes back through cat.
func TestRelayPassesRandomStreamsBothWays(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var in, want bytes.Buffer
	elicitations, refusals := 0, 0
	const elicit = `{"jsonrpc":"2.0","id":"d%d","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`
	for i, l := range streamLines(rng, 120, 0) {
		if bytes.HasPrefix(l, []byte(`{"x":`)) {
			switch i % 4 {
			case 0:
				l = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
			case 1:
				l = []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nobody"}}`)
			case 2:
				l = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"e%d","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`, i)
				in.Write(l)
				in.WriteByte('\n')
				elicitations++
				continue
			case 3:
				l = [][]byte{
					fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{}}`+"\r"+elicit, i, i),
					fmt.Appendf(nil, `[`+elicit+`]`, i),
					bytes.Replace(fmt.Appendf(nil, elicit, i), []byte(`"method"`), []byte(`"Method"`), 1),
					fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"d%d","method":"elicitation/create",`, i), // goes on over the next line
				}[i/4%4]
				in.Write(l)
				in.WriteByte('\n')
				refusals++
				continue
			}
		}
		in.Write(l)
		in.WriteByte('\n')
		want.Write(l)
		want.WriteByte('\n')
	}
	if refusals < 4 {
		t.Fatalf("the stream has %d lines for the relay to drop, want one of each kind", refusals)
	}
	hostR, hostW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer hostR.Close()
	defer outR.Close()
	r := NewRelay(Command(catServer(), 0), &Options{Log: &syncBuffer{}})
	done := make(chan int, 1)
	go func() {
		code, _ := r.Run(context.Background(), hostR, outW)
		outW.Close()
		done <- code
	}()
	go func() {
		data := in.Bytes()
		for len(data) > 0 {
			n := min(len(data), 1+rng.IntN(3<<20))
			if _, err := hostW.Write(data[:n]); err != nil {
				break
			}
			data = data[n:]
		}
		// The host stays until the answers are back: closing its input
		// ends the relay.
	}()
	var got bytes.Buffer
	br := bufio.NewReaderSize(outR, 1<<20)
	answers, refused := 0, 0
	for got.Len() < want.Len() || answers < elicitations || refused < refusals {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("the host's output ended after %d of %d bytes, %d of %d answers and %d of %d refusals: %v", got.Len(), want.Len(), answers, elicitations, refused, refusals, err)
		}
		if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":"e`)) && bytes.Contains(line, []byte(`"action":"cancel"`)) {
			answers++
			continue
		}
		if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":"d`)) && bytes.Contains(line, []byte(`"code":-32600`)) {
			refused++
			continue
		}
		got.Write(line)
		if !bytes.HasPrefix(want.Bytes()[got.Len()-len(line):], line) {
			off := got.Len() - len(line)
			wl, _, _ := bytes.Cut(want.Bytes()[off:], []byte("\n"))
			t.Fatalf("the host got a line it should not have, or out of order (%d bytes in, %d bytes, want %d, differing at %d): %.200q", off, len(line), len(wl)+1, firstDiff(line, want.Bytes()[off:]), line)
		}
	}
	hostW.Close()
	if code := <-done; code != 0 {
		t.Errorf("exit code %d", code)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("what passed differs: got %d bytes, want %d; first difference at %d", got.Len(), want.Len(), firstDiff(got.Bytes(), want.Bytes()))
	}
}

// TestPassingLinesAllocateNothing keeps the portable path at its speed:
// relaying 10,000 passing lines allocates what one line does (the
// framer's own buffers), and routing a reply or a notification from its
// first members allocates nothing.
func TestPassingLinesAllocateNothing(t *testing.T) {
	r := NewRelay(Command(catServer(), 0), nil)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"result":{"content":[]},"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}`,
		`not json`,
	} {
		b := []byte(line + "\n")
		if n := testing.AllocsPerRun(100, func() { r.serverRoute(b, true); r.hostRoute(b, true) }); n != 0 {
			t.Errorf("routing %s allocates %v times, want 0", line, n)
		}
	}
	stream := func(n int) []byte {
		return bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`+strings.Repeat("x", 900)+`"}}`+"\n"), n)
	}
	relay := func(data []byte) func() {
		return func() {
			f := newFramer(bytes.NewReader(data))
			w := newLineWriter(io.Discard)
			_ = f.pump(w, r.serverRoute, func(string) {}, func([]byte, bool) { t.Error("a passing line took the full path") }, func(error) {}, func() {})
		}
	}
	one, many := testing.AllocsPerRun(5, relay(stream(1))), testing.AllocsPerRun(5, relay(stream(10_000)))
	if many > one {
		t.Errorf("relaying 10,000 lines allocates %v times, one line %v: lines allocate", many, one)
	}
}

// TestLongReplyIDLastClosesPrompt: a reply of 3 MiB to the tools/call in
// flight, written as the TypeScript SDK writes it ("result" first, "id"
// last), streams to the host byte for byte, and, once it is out, ends the
// call: the legacy prompt of that call closes (ErrCallEnded) and the
// server is answered cancel.
func TestLongReplyIDLastClosesPrompt(t *testing.T) {
	asked := make(chan struct{})
	cause := make(chan error, 1)
	p := startPeer(t, &Options{Approver: ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		close(asked)
		<-ctx.Done()
		cause <- context.Cause(ctx)
		return &Result{Action: ActionAccept}, nil
	})})
	p.hostSends(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"render","arguments":{}}}`)
	p.serverGets()
	p.serverSends(`{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"message":"go on?","requestedSchema":{"type":"object","properties":{}}}}`)
	<-asked
	text := strings.Repeat(`ab\"c\\`, 3<<20/6)
	reply := `{"result":{"content":[{"type":"text","text":"` + text + `"}]},"jsonrpc":"2.0","id":9}`
	go p.serverSends(reply)
	if got := p.hostGets(); got != reply {
		t.Fatalf("the host got %d bytes, want the %d the server sent (first difference at %d)", len(got), len(reply), firstDiff([]byte(got), []byte(reply)))
	}
	if err := <-cause; !errors.Is(err, ErrCallEnded) {
		t.Errorf("the prompt ended with %v, want ErrCallEnded", err)
	}
	jsonEq(t, `{"jsonrpc":"2.0","id":"s1","result":{"action":"cancel"}}`, p.serverGets())
}

// TestServerRouteFromHead: what the relay decides from a message's first
// bytes, with and without calls in flight. A reply to a call the relay
// follows streams on only when it is surely final: a result of a legacy
// call (only a 2026-07-28 result asks for input, PROTOCOL.md §1).
// TestQuickCallFollowed: a legacy request passes on the fast path, and a
// tools/call is followed all the same (its tool named, its reply awaited),
// exactly when the full path would send it untouched; every other request
// takes the full path. The server gets the same bytes
// either way.
func TestQuickCallFollowed(t *testing.T) {
	for _, tt := range []struct {
		name  string
		line  string
		guard []string
		quick bool
	}{
		{"a legacy call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"{\"method\":1}"}}}`, nil, true},
		{"members in another order", `{"params":{"name":"echo"},"method":"tools/call","id":"a-1","jsonrpc":"2.0"}`, nil, true},
		{"progressToken in _meta", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":1}}}`, nil, false},
		{"_meta spelt with an escape", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","\u005fmeta":{"progressToken":1}}}`, nil, false},
		{"a modern call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo",` + modernMeta + `}}`, nil, false},
		{"a guarded server", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`, []string{"deploy"}, false},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"echo"}}`, nil, false},
		{"a second method", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"},"method":"tools/call"}`, nil, false},
		{"a Method member", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"},"Method":"ping"}`, nil, false},
		{"another member", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"},"x":1}`, nil, false},
		{"bytes after the object", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}} {}`, nil, false},
		{"params not an object", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1]}`, nil, false},
		{"a prompts/get", `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"p"}}`, nil, true},
		{"a ping", `{"jsonrpc":"2.0","id":8,"method":"ping"}`, nil, true},
		// Read by the guard even while nothing is guarded: one may be set later.
		{"a tools/list", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{}}`, nil, false},
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, nil, false},
		{"a guarded server's tools/list", `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`, []string{"deploy"}, false},
		{"a modern tools/list", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{` + modernMeta + `}}`, nil, false},
		{"a method with an escape", `{"jsonrpc":"2.0","id":8,"method":"tools\/call","params":{"name":"echo"}}`, nil, false},
		{"no id", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}`, nil, false},
		{"a cancel with a null id", `{"jsonrpc":"2.0","id":null,"method":"notifications/cancelled","params":{"requestId":3}}`, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRelay(Command(catServer(), 0), &Options{Guard: tt.guard})
			r.w.ctx = context.Background()
			line := []byte(tt.line + "\n")
			v, _ := r.hostRoute(line, true)
			if quick := v == vPass; quick != tt.quick {
				t.Fatalf("passed on the fast path: %v, want %v", quick, tt.quick)
			}
			if !tt.quick {
				return
			}
			env, err := scanEnvelope(line)
			if err != nil {
				t.Fatal(err)
			}
			if follows := loopMethods[env.Method]; r.loop.any() != follows {
				t.Fatalf("the %s passed, followed: %v, want %v (a followed call's reply ends it, and its prompts name it)", env.Method, r.loop.any(), follows)
			}
			if tool, _, _ := r.calls.inFlight(); env.Method == "tools/call" && tool != "echo" {
				t.Errorf("the call in flight is %q, want echo", tool)
			}
		})
	}
}

func TestServerRouteFromHead(t *testing.T) {
	head := func(s string) []byte { return []byte(s + strings.Repeat("x", 100)) }
	for _, tt := range []struct {
		name  string
		calls []string // host requests first
		head  []byte
		want  route
	}{
		{"nobody waits", nil, head(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"`), vPass},
		{"nobody waits, id last", nil, head(`{"result":{"content":[{"text":"`), vPass},
		{"a notification", []string{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t"}}`}, head(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`), vPass},
		{"an elicitation", nil, head(`{"jsonrpc":"2.0","id":"s","method":"elicitation/create","params":{"message":"`), vFull},
		{"legacy call's result", []string{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t"}}`}, head(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"text":"`), vEnd},
		{"legacy call's result, id last", []string{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t"}}`}, head(`{"result":{"content":[{"text":"`), vEndAfter},
		{"legacy call's error", []string{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t"}}`}, head(`{"jsonrpc":"2.0","id":9,"error":{"code":-32042,"message":"`), vFull},
		{"modern call's result", []string{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`}, head(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"text":"`), vFull},
		{"modern call's result, id last", []string{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`}, head(`{"result":{"content":[{"text":"`), vFull},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRelay(Command(catServer(), 0), nil)
			r.w.ctx = context.Background()
			for _, c := range tt.calls {
				r.fromHost([]byte(c + "\n"))
			}
			if got, _ := r.serverRoute(tt.head, false); got != tt.want {
				t.Errorf("route %d, want %d", got, tt.want)
			}
		})
	}
}

// TestLongLineMixedMembersCut: a server line past the read buffer that
// passes by its first members but spells "method" again after them (a
// peer keeps the last: elicitation/create) is cut off where that member
// starts, so the host gets no message it could read as the elicitation;
// a long line whose "method" keys are nested in its values, or escaped in
// its strings, passes whole. So is one with a member "Method", or a message
// after its end, and one that is no object and holds a message; one with
// only a reply after its end passes.
func TestLongLineMixedMembersCut(t *testing.T) {
	big := strings.Repeat("y", 3<<20)
	elicit := `"method":"elicitation/create","params":{"message":"password?","requestedSchema":{"type":"object","properties":{}}}`
	for _, tt := range []struct {
		name, line string
		cut        bool
	}{
		{"method repeated", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `"},"id":"x",` + elicit + `}`, true},
		{"method after result", `{"jsonrpc":"2.0","id":5,"result":{"text":"` + big + `"},` + elicit + `}`, true},
		{"nested method", `{"jsonrpc":"2.0","id":5,"result":{"text":"` + big + `","calls":[{"method":"elicitation/create"}]}}`, false},
		{"escaped method", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `\"method\":\"elicitation/create\""}}`, false},
		// What hosts read in different ways (oneline.go), past the head.
		{"elicitation after a carriage return", `{"jsonrpc":"2.0","id":5,"result":{"text":"` + big + `"}}` + "\r" + `{"jsonrpc":"2.0","id":"x",` + elicit + `}`, true},
		{"member Method", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `"},"id":"x","Method":"elicitation/create"}`, true},
		{"text, then an elicitation", `not json ` + big + ` {"jsonrpc":"2.0","id":"x",` + elicit + `}`, true},
		{"two replies after a carriage return", `{"jsonrpc":"2.0","id":5,"result":{"text":"` + big + `"}}` + "\r" + `{"jsonrpc":"2.0","id":6,"result":{}}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startPeer(t, nil)
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				p.serverSends(tt.line)
				p.serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`)
			}()
			// The server's writes end before the test does (its pipes
			// close then).
			defer func() { <-sent }()
			got := p.hostGets()
			if !tt.cut {
				if got != tt.line {
					t.Fatalf("the host got %d bytes, want the line whole (%d)", len(got), len(tt.line))
				}
				if after := p.hostGets(); !strings.Contains(after, `"after"`) {
					t.Fatalf("the next line did not follow: %.100q", after)
				}
				return
			}
			var m map[string]any
			if json.Unmarshal([]byte(got), &m) == nil {
				t.Fatalf("the host got a message it can read (method %v)", m["method"])
			}
			if strings.Contains(got, "elicitation/create") {
				t.Fatalf("the host got the elicitation's method")
			}
			if after := p.hostGets(); !strings.Contains(after, `"after"`) {
				t.Fatalf("the next line did not follow: %.100q", after)
			}
			if !strings.Contains(p.stderr.String(), "cut off") {
				t.Errorf("the log does not say the line was cut off: %q", p.stderr.String())
			}
		})
	}
}

// TestPipesGrow: the relay asks for 1 MiB pipes, so that a burst of the
// host's moves in few system calls; where the kernel refuses (a user's
// pipe pages used up) the pipe stays as it was, and relaying still works.
func TestPipesGrow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pipe sizes are Linux's (F_SETPIPE_SZ)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	before := pipeSize(w)
	growPipe(w)
	if before <= 0 {
		t.Fatal("an os.Pipe is not seen as a pipe")
	}
	if got := pipeSize(r); got != frameBuf && got != before {
		t.Fatalf("the pipe holds %d bytes after growing, want %d (or its %d when refused)", got, frameBuf, before)
	}
}

// TestQuietPeerReadsBurstTees: a peer that sends a message at a time is
// read plainly (a read and a write, not tee, read and splice: a round trip
// pays them twice), and a burst after it moves by tee and splice again from
// the fill after the one that found it.
func TestQuietPeerReadsBurstTees(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer outW.Close()
	f := newFramer(inR)
	f.pipe = newPipeIn(inR, outW)
	if f.pipe == nil {
		t.Skip("no splice path here")
	}
	defer f.pipe.close()
	burst := bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"burst"}}`+"\n"), 2000)
	if pipeSize(inW) < len(burst) {
		t.Skip("the kernel refused a pipe that holds a burst (the user's pipe pages are used up)")
	}
	for _, step := range []struct {
		write string
		teed  bool // the fill leaves its bytes in the pipe, to be spliced
		quiet bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n", true, true}, // a lone message: the next is read
		{`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n", false, true},
		{string(burst), false, false}, // found by a plain read
		{string(burst), true, false},  // teed
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n", true, true},
		{`{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\n", false, true},
	} {
		if _, err := inW.WriteString(step.write); err != nil {
			t.Fatal(err)
		}
		f.fill()
		if f.err != nil {
			t.Fatal(f.err)
		}
		if got := f.end - f.start; got != len(step.write) {
			t.Fatalf("a fill after a write of %d bytes holds %d", len(step.write), got)
		}
		if teed := f.cons < f.end; teed != step.teed || f.quiet != step.quiet {
			t.Fatalf("after %d bytes: teed %v, quiet %v; want %v, %v", len(step.write), teed, f.quiet, step.teed, step.quiet)
		}
		f.take(f.end) // as the relay handling the lines itself would
		if f.cons != f.end {
			t.Fatal("taking the lines left teed bytes in the pipe")
		}
	}
}

// TestWriteWaitFollowsTheStream (issue 25): an answer written while a long
// line streams to the same peer waits behind it, and writeWait returns only
// once the answer itself was written; a relay that stops first says the
// answer was not written.
func TestWriteWaitFollowsTheStream(t *testing.T) {
	var out bytes.Buffer
	w := newLineWriter(&out)
	w.mu.Lock()
	w.streaming = true // a framer streams a long line
	w.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- w.writeWait(context.Background(), []byte("{\"answer\":1}\n")) }()
	// The answer waits in later until the stream ends; nothing is written.
	for {
		w.mu.Lock()
		waiting := len(w.waiters)
		w.mu.Unlock()
		if waiting == 1 {
			break
		}
		runtime.Gosched()
	}
	select {
	case err := <-done:
		t.Fatalf("writeWait returned %v while the stream still ran", err)
	default:
	}
	w.endStream()
	if err := <-done; err != nil {
		t.Fatalf("writeWait after the stream: %v", err)
	}
	if got := out.String(); got != "{\"answer\":1}\n" {
		t.Errorf("written %q", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	w.mu.Lock()
	w.streaming = true
	w.mu.Unlock()
	go func() { done <- w.writeWait(ctx, []byte("{\"answer\":2}\n")) }()
	cancel()
	if err := <-done; !errors.Is(err, ErrNotWritten) {
		t.Errorf("writeWait of a relay that stopped: %v, want ErrNotWritten", err)
	}
}
