package bridge

import (
	"bufio"
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRelayForgetsEndedCalls (issue 25): a million tools/calls, half with a
// progressToken, every tenth cancelled by the host and never answered by
// the server (MCP lets a server stay silent on a cancelled request). Once
// every call has ended, the relay keeps nothing for any of them
// (Relay.tracked), and its heap after GC is where it was after the first
// calls: what a cancelled call left behind (about 700 bytes each, issue 25)
// would be some 70 MB here.
func TestRelayForgetsEndedCalls(t *testing.T) {
	calls := 1_000_000
	switch {
	case runtime.GOOS == "windows":
		// Under Wine a call takes 600 µs, not 15: a million would take
		// ten minutes. Twenty thousand still show any entry left behind
		// (tracked), if not yet in the heap.
		calls = 20_000
	case testing.Short():
		calls = 100_000
	}
	p, r, _ := newPeer(t, func(**Relay) *Options {
		// Progress tokens are followed only with a keep-alive on; its
		// ticks come only while a prompt is open, and none opens here.
		return &Options{KeepAlive: time.Hour}
	})

	// The server: it answers every tools/call but the cancelled ones, and
	// a ping, which ends a batch (the host pump has handled everything the
	// host wrote before it).
	go func() {
		for {
			line, err := p.gotSrv.ReadSlice('\n')
			if err != nil {
				return
			}
			id, ok := lineID(line)
			if !ok || (bytes.Contains(line, []byte(`"tools/call"`)) && cancelledCall(id)) {
				continue // a notice, or a call the host cancelled: silence
			}
			if _, err := p.server.Write(concat([]byte(`{"jsonrpc":"2.0","id":`), id, []byte(`,"result":{"content":[]}}`+"\n"))); err != nil {
				return
			}
		}
	}()

	// batch makes the host send calls [from, to) and waits for their
	// replies and the ping's that follows them.
	batch := func(from, to int) {
		t.Helper()
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			w := bufio.NewWriterSize(p.host, 64<<10)
			for i := from; i < to; i++ {
				n := strconv.Itoa(i)
				meta := ""
				if i%2 == 0 {
					meta = `,"_meta":{"progressToken":"tok-` + n + `"}`
				}
				w.WriteString(`{"jsonrpc":"2.0","id":` + n + `,"method":"tools/call","params":{"name":"work","arguments":{}` + meta + "}}\n")
				if cancelledCall([]byte(n)) {
					w.WriteString(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + n + `,"reason":"timeout"}}` + "\n")
				}
			}
			w.WriteString(`{"jsonrpc":"2.0","id":"end-` + strconv.Itoa(to) + `","method":"ping"}` + "\n")
			if err := w.Flush(); err != nil {
				t.Errorf("host write: %v", err)
			}
		}()
		replies := 0
		for {
			line := p.hostGets()
			if bytes.Contains([]byte(line), []byte(`"end-`)) {
				break
			}
			replies++
		}
		<-sent
		want := 0
		for i := from; i < to; i++ {
			if !cancelledCall([]byte(strconv.Itoa(i))) {
				want++
			}
		}
		if replies != want {
			t.Fatalf("the host got %d replies for calls %d to %d, want %d", replies, from, to, want)
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}

	// The host has at most window calls in flight: the tables' own size
	// (a Go map keeps its room once grown) is then the same at the start
	// and at the end, and what grows is what calls leave behind.
	const window = 1000
	run := func(from, to int) {
		t.Helper()
		for i := from; i < to; i += window {
			batch(i, min(i+window, to))
		}
	}
	warm := calls / 100
	run(1, warm)
	if n := r.tracked(); n != 0 {
		t.Fatalf("after %d calls the relay still tracks %d entries, want 0", warm, n)
	}
	start := heap()
	run(warm, calls+1)
	if n := r.tracked(); n != 0 {
		t.Errorf("after %d calls, every tenth cancelled, the relay still tracks %d entries, want 0", calls, n)
	}
	end := heap()
	t.Logf("heap after GC: %d bytes after %d calls, %d after %d (%.2f×)", start, warm, end, calls, float64(end)/float64(start))
	if float64(end) > 1.5*float64(start) {
		t.Errorf("the heap grew from %d to %d bytes over %d calls (%.1f×): calls leave state behind", start, end, calls, float64(end)/float64(start))
	}
}

// cancelledCall reports whether the host cancels the call with id (its
// digits): every tenth.
func cancelledCall(id []byte) bool { return len(id) > 0 && id[len(id)-1] == '0' }

// lineID is the id of a line the test server reads, as written, and
// whether it has one.
func lineID(line []byte) ([]byte, bool) {
	i := bytes.Index(line, []byte(`"id":`))
	if i < 0 {
		return nil, false
	}
	rest := line[i+len(`"id":`):]
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return nil, false
	}
	return rest[:end], true
}

// TestInitializeCancelledByHost: the host cancels its initialize, which the
// server never answers. The relay stops waiting for that result with the
// cancel, as for any request: the server's elicitations are asked as usual
// afterwards, not refused as sent before initialization.
func TestInitializeCancelledByHost(t *testing.T) {
	s := newScripted()
	p := startPeer(t, &Options{Approver: s})
	p.hostSends(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`)
	p.serverGets()
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0,"reason":"timeout"}}`
	p.hostSends(cancel)
	if got := p.serverGets(); got != cancel {
		t.Fatalf("server got %q, want the host's cancel", got)
	}
	// The server's next line is its answer: after the person's, or at
	// once when the relay refused the elicitation.
	next := make(chan string, 1)
	go func() {
		line, _ := p.gotSrv.ReadString('\n')
		next <- line
	}()
	p.serverSends(`{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":{"message":"name?","requestedSchema":` + nameSchema + `}}`)
	select {
	case req := <-s.asked:
		if req.Message != "name?" {
			t.Errorf("asked %q, want the server's elicitation", req.Message)
		}
	case got := <-next:
		t.Fatalf("nobody was asked; the server got %q", got)
	}
	s.answer <- &Result{Action: ActionDecline}
	if got := <-next; !strings.Contains(got, `"action":"decline"`) {
		t.Errorf("server got %q, want the decline", got)
	}
}
