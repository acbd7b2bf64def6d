package bridge

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkRelayInProcess relays through Run with `cat` as the server, for
// profiling the relay itself (bench/ compares the real binary with a pipe).
func BenchmarkRelayInProcess(b *testing.B) {
	for _, tt := range []struct {
		name string
		size int
	}{{"1kB", 1024}, {"16MiB", 16 << 20}} {
		b.Run(tt.name, func(b *testing.B) {
			msg := []byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", tt.size-46) + `"}}` + "\n")
			hostR, hostW := io.Pipe()
			outR, outW := io.Pipe()
			r := NewRelay(Command(catServer(), 0), nil)
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = r.Run(context.Background(), hostR, outW)
				outW.Close()
			}()
			br := bufio.NewReaderSize(outR, 1<<20)
			b.SetBytes(int64(len(msg)))
			b.ResetTimer()
			go func() {
				for i := 0; i < b.N; i++ {
					_, _ = hostW.Write(msg)
				}
			}()
			for i := 0; i < b.N; i++ {
				if _, err := io.ReadFull(br, make([]byte, len(msg))); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			hostW.Close()
			<-done
		})
	}
}

// BenchmarkLargeRound: an input_required round of 6,000 entries, each
// answered at once, until its retry leaves: linear in the round's size
// (the retry's inputResponses is built in one pass).
func BenchmarkLargeRound(b *testing.B) {
	const n = 6000
	var sb strings.Builder
	for i := range n {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `"k%d":{"method":"elicitation/create","params":{"message":"m","requestedSchema":%s}}`, i, nameSchema)
	}
	round := `,"result":{"resultType":"input_required","inputRequests":{` + sb.String() + `}}}`
	p := startPeer(b, &Options{Approver: ApproverFunc(func(context.Context, *Request) (*Result, error) {
		return &Result{Action: ActionCancel}, nil
	})})
	b.ResetTimer()
	for i := range b.N {
		id := strconv.Itoa(i + 1)
		p.hostSends(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
		p.serverGets()
		p.serverSends(`{"jsonrpc":"2.0","id":` + id + round)
		p.serverGets()
	}
}

// BenchmarkRouteReply is the relay's own work on the hot path, without
// pipes: a server reply nobody waits for, and a host line that is no
// request, each scanned and passed on.
func BenchmarkRouteReply(b *testing.B) {
	r := NewRelay(Command(catServer(), 0), nil)
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}` + "\n")
	b.ReportAllocs()
	for b.Loop() {
		if !r.fromServer(line) || r.fromHost(line) == nil {
			b.Fatal("the relay kept a line that is not its own")
		}
	}
}

// TestReplyPathAllocatesNothing keeps the hot path at the speed it has: a
// reply nobody waits for is routed without a single allocation.
func TestReplyPathAllocatesNothing(t *testing.T) {
	r := NewRelay(Command(catServer(), 0), nil)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"s-1","error":{"code":-32601,"message":"no"}}`,
	} {
		b := []byte(line + "\n")
		if n := testing.AllocsPerRun(100, func() { r.fromServer(b) }); n != 0 {
			t.Errorf("routing %s allocates %v times, want 0", line, n)
		}
	}
}

// BenchmarkRouteToolCall is the relay's own work for one tools/call and
// its reply, without pipes: the round trip's share of the relay.
func BenchmarkRouteToolCall(b *testing.B) {
	r := NewRelay(Command(catServer(), 0), nil)
	r.w.ctx = context.Background()
	req := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}` + "\n")
	reply := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}` + "\n")
	b.ReportAllocs()
	for b.Loop() {
		if v, _ := r.hostRoute(req, true); v != vPass || !r.calls.any() {
			b.Fatal("a legacy tools/call was not followed on the fast path")
		}
		switch v, key := r.serverRoute(reply, true); v {
		case vFull:
			if !r.fromServer(reply) {
				b.Fatal("the relay kept the reply")
			}
		case vEnd:
			r.callReplied(key)
		}
	}
}

// BenchmarkRoundTrip is one request and its reply through Run over OS
// pipes, `cat` as the server echoing the request back as its own reply
// (a request line passes the host side, and its echo is read by the
// server side as a message of the same id): a ping and a tools/call.
func BenchmarkRoundTrip(b *testing.B) {
	for _, tt := range []struct{ name, req, reply string }{
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"tools-call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`},
	} {
		b.Run(tt.name, func(b *testing.B) {
			p := startPeer(b, nil)
			b.ResetTimer()
			for b.Loop() {
				p.hostSends(tt.req)
				p.serverGets()
				p.serverSends(tt.reply)
				p.hostGets()
			}
		})
	}
}

// BenchmarkRouteHeads is the fast path's look at one passing 1 kB line
// (make bench's lines), in each direction: the head's members and the
// search of the rest for a later "method".
func BenchmarkRouteHeads(b *testing.B) {
	r := NewRelay(Command(catServer(), 0), nil)
	text := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", 26)
	for _, c := range []struct{ name, line string }{
		{"result", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + text + `"}]}}` + "\n"},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + text + `"}}` + "\n"},
	} {
		line := []byte(c.line)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if v, _ := r.serverRoute(line, true); v != vPass {
					b.Fatal("a passing server line did not pass")
				}
				if v, _ := r.hostRoute(line, true); v != vPass {
					b.Fatal("a passing host line did not pass")
				}
			}
		})
	}
}
