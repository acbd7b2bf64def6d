//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// The remote server attacks of issue 25 through the real wrapper: an SSE
// line that never ends (on a call's stream and on the GET stream), an event
// of many data lines, and an answer with an id nobody asked for. The
// server is an HTTP server of the test's on 127.0.0.1; the wrapper's memory
// is read from /proc.

// testCeilingMiB is max_message_mib in these tests' config.toml.
const testCeilingMiB = 4

// gcInStep makes the wrapper's garbage collections stop the world, marking
// and sweeping: a collection then ends before the wrapper allocates again,
// however busy the machine. The tests bound what the wrapper holds, and
// with the collector running beside it, what it had freed but not yet
// swept counted too whenever the rest of make test kept the collector off
// the processor (up to 21 MiB over the start where 5 is held).
const gcInStep = "GODEBUG=gcstoptheworld=2"

// hostileServer answers initialize, takes notifications, refuses the GET
// stream unless get says otherwise, and hands each tools/call to call.
func hostileServer(t *testing.T, call func(w http.ResponseWriter, id string), get http.HandlerFunc) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			if get == nil {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			get(w, r)
			return
		case http.MethodPost:
		default:
			return // DELETE: the session ends
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		switch {
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "hostile")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}}`, m.ID)
		default:
			call(w, string(m.ID))
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

// endlessLine sends one SSE data line that does not end: "x" as fast as
// the wrapper reads, until it stops reading, or 16 times the ceiling (a
// wrapper that never stops would otherwise take the test machine's memory).
// It reports how much it sent.
func endlessLine(w http.ResponseWriter) int {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	sent, _ := io.WriteString(w, "data: ")
	for sent < 16*testCeilingMiB<<20 {
		n, err := w.Write(chunk)
		sent += n
		if err != nil || rc.Flush() != nil {
			break
		}
	}
	return sent
}

// answer is a tools/call result for id as a JSON body.
func answer(w http.ResponseWriter, id, text string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}]}}`, id, text)
}

// hostileWrap is `elicitray wrap --url` in front of a hostile server, as a
// host runs it: only the variables hosts pass, an ELICITRAY_HOME of its own
// whose config.toml sets max_message_mib to ceilingMiB.
type hostileWrap struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	// lines has the log's lines as they come; closed at its end.
	lines chan string
	mu    sync.Mutex
	log   strings.Builder
}

func startHostileWrap(t *testing.T, url string, ceilingMiB int) *hostileWrap {
	t.Helper()
	home := t.TempDir()
	config := fmt.Sprintf("[remote]\nmax_message_mib = %d\n", ceilingMiB)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testkit.Binary(t), "wrap", "--name", "hostile", "--url", url+"/mcp")
	cmd.Env = []string{"HOME=" + home, "ELICITRAY_HOME=" + home, "PATH=" + os.Getenv("PATH"), "USER=" + os.Getenv("USER"),
		"LOGNAME=" + os.Getenv("LOGNAME"), "SHELL=/bin/sh", "TERM=xterm", gcInStep}
	w := &hostileWrap{cmd: cmd, lines: make(chan string, 1024)}
	var err error
	if w.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	w.out = bufio.NewReader(stdout)
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			w.mu.Lock()
			w.log.WriteString(sc.Text() + "\n")
			w.mu.Unlock()
			select {
			case w.lines <- sc.Text():
			default: // nobody waits for it: it is in log
			}
		}
	}()
	w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-host","version":"1"}}}`)
	if got := w.next(t); !strings.Contains(got, `"hostile"`) {
		t.Fatalf("initialize reply %q; log:\n%s", got, w.logged())
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *hostileWrap) send(line string) { _, _ = io.WriteString(w.in, line+"\n") }

// next is the host's next line from the wrapper.
func (w *hostileWrap) next(t *testing.T) string {
	t.Helper()
	line, err := w.out.ReadString('\n')
	if err != nil {
		t.Fatalf("the wrapper's stdout ended (%v); log:\n%s", err, w.logged())
	}
	return line
}

// call sends tools/call id and returns the host's next line.
func (w *hostileWrap) call(t *testing.T, id string) string {
	t.Helper()
	w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	return w.next(t)
}

func (w *hostileWrap) logged() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log.String()
}

// waitLog waits for a log line containing said; it fails the test if the
// log ends (the wrapper exited) first.
func (w *hostileWrap) waitLog(t *testing.T, said string) {
	t.Helper()
	for line := range w.lines {
		if strings.Contains(line, said) {
			return
		}
	}
	t.Fatalf("the log never said %q:\n%s", said, w.logged())
}

// end closes the host's side and waits for the wrapper to exit.
func (w *hostileWrap) end(t *testing.T) {
	t.Helper()
	w.in.Close()
	_, _ = io.Copy(io.Discard, w.out)
	if err := w.cmd.Wait(); err != nil {
		t.Errorf("the wrapper exited with %v; log:\n%s", err, w.logged())
	}
}

// memory is the wrapper's anonymous resident memory now and its peak
// since baseline, in bytes. What an attack makes the wrapper hold is
// anonymous memory; the pages of its own binary (file-backed) come in as
// its code first runs, by the kernel's readahead, a few MiB more or less
// from one run to the next, and are no part of it. The kernel keeps no
// peak of anonymous memory alone: the peak of the whole resident set less
// the file-backed pages now is the anonymous memory at that peak, as
// those pages only come in while the wrapper runs.
func (w *hostileWrap) memory() (anon, peak int) {
	status := "/proc/" + strconv.Itoa(w.cmd.Process.Pid) + "/status"
	file := statusField(status, "RssFile") + statusField(status, "RssShmem")
	return statusField(status, "RssAnon") << 10, (statusField(status, "VmHWM") - file) << 10
}

// baseline is the wrapper's anonymous memory before an attack; the peak
// starts again from here (5 in clear_refs sets it to the resident set
// now), so that what its start-up held and gave back is not counted.
func (w *hostileWrap) baseline(t *testing.T) int {
	t.Helper()
	err := os.WriteFile("/proc/"+strconv.Itoa(w.cmd.Process.Pid)+"/clear_refs", []byte("5"), 0)
	if err != nil {
		t.Fatalf("resetting the wrapper's peak memory: %v", err)
	}
	anon, _ := w.memory()
	return anon
}

// checkPeak fails the test when the wrapper's peak anonymous memory passed
// base by more than times the ceiling.
func (w *hostileWrap) checkPeak(t *testing.T, base int, times int) {
	t.Helper()
	_, peak := w.memory()
	mb := func(n int) float64 { return float64(n) / (1 << 20) }
	if bound := base + times*testCeilingMiB<<20; peak > bound {
		t.Errorf("the wrapper's peak memory is %.1f MiB: more than %d× the %d MiB ceiling over its %.1f MiB before", mb(peak), times, testCeilingMiB, mb(base))
	} else {
		t.Logf("the wrapper's peak memory is %.1f MiB, %.1f MiB over its %.1f MiB before", mb(peak), mb(peak-base), mb(base))
	}
}

// tooLarge is what the host and the log are told of a message past the
// ceiling.
var tooLarge = fmt.Sprintf("the server sent a message larger than %d MiB", testCeilingMiB)

// TestEndToEndHTTPEndlessLineOnCall: the stream answering a tool call sends
// one data line that never ends. The wrapper holds no more than the
// ceiling of it: the host's call gets an error saying the server sent a
// message larger than the ceiling, the log says the same, the wrapper's
// peak memory stays within 2× the ceiling of where it was, and the next call
// is answered.
func TestEndToEndHTTPEndlessLineOnCall(t *testing.T) {
	t.Parallel() // its wrapper collects garbage in step (gcInStep): load does not blur its memory
	sent := make(chan int, 1)
	ts := hostileServer(t, func(w http.ResponseWriter, id string) {
		if id == "2" {
			sent <- endlessLine(w)
			return
		}
		answer(w, id, "fine")
	}, nil)
	w := startHostileWrap(t, ts.URL, testCeilingMiB)
	base := w.baseline(t)
	got := w.call(t, "2")
	if !strings.Contains(got, `"id":2`) || !strings.Contains(got, `"error"`) || !strings.Contains(got, tooLarge) {
		t.Errorf("the call on the endless line got %.300q, want an error saying %q", got, tooLarge)
	}
	t.Logf("the server sent %d MiB before the wrapper stopped reading", <-sent>>20)
	w.checkPeak(t, base, 2)
	if got := w.call(t, "3"); !strings.Contains(got, `"id":3`) || !strings.Contains(got, "fine") {
		t.Errorf("the next call got %q; log:\n%s", got, w.logged())
	}
	w.end(t)
	if log := w.logged(); !strings.Contains(log, tooLarge) || !strings.Contains(log, "max_message_mib") {
		t.Errorf("the log does not say %q and how to raise it:\n%s", tooLarge, log)
	}
}

// TestEndToEndHTTPEndlessLineOnGETStream: with no call in flight, the GET
// stream sends one data line that never ends, three times over (mcp-go
// opens the stream again each time). The wrapper stops reading each at the
// ceiling and says so in its log; its peak memory stays within 2× the ceiling
// of where it was, and what it held of them is given back (its memory after
// the three is as bound); a call is answered after them.
func TestEndToEndHTTPEndlessLineOnGETStream(t *testing.T) {
	t.Parallel() // its wrapper collects garbage in step (gcInStep): load does not blur its memory
	const attacks = 3
	var gets atomic.Int32
	sent := make(chan int, attacks)
	begin := make(chan struct{}) // the attack waits for the baseline
	ts := hostileServer(t, func(w http.ResponseWriter, id string) { answer(w, id, "fine") },
		func(w http.ResponseWriter, r *http.Request) {
			if gets.Add(1) > attacks {
				w.WriteHeader(http.StatusMethodNotAllowed) // enough
				return
			}
			<-begin
			sent <- endlessLine(w)
		})
	w := startHostileWrap(t, ts.URL, testCeilingMiB)
	base := w.baseline(t)
	close(begin)
	for range attacks {
		t.Logf("the server sent %d MiB before the wrapper stopped reading", <-sent>>20)
	}
	w.checkPeak(t, base, 2)
	if got := w.call(t, "2"); !strings.Contains(got, `"id":2`) || !strings.Contains(got, "fine") {
		t.Errorf("the call after the endless GET stream got %q; log:\n%s", got, w.logged())
	}
	if rss, _ := w.memory(); rss > base+2*testCeilingMiB<<20 {
		t.Errorf("the wrapper's memory after %d endless lines is %.1f MiB, %.1f MiB over its %.1f MiB before: what it read of them was not given back", attacks, float64(rss)/(1<<20), float64(rss-base)/(1<<20), float64(base)/(1<<20))
	}
	w.end(t)
	if log := w.logged(); strings.Count(log, tooLarge) != attacks {
		t.Errorf("the log does not say %q %d times:\n%s", tooLarge, attacks, log)
	}
}

// TestEndToEndHTTPManyLineEvent: a call is answered with one event of
// 32 MiB in 1 kB data lines (inside the ceiling of 64 MiB, the default);
// the host gets it whole, on one line, and the next call's answer. (What
// it costs is bench's: the remote rows of bench/README.md. On main, mcp-go
// joined the lines at a cost that grows with the square of their number:
// minutes for this one.)
func TestEndToEndHTTPManyLineEvent(t *testing.T) {
	t.Parallel()
	const lines = 32 << 10
	part := strings.Repeat("a", 1000)
	ts := hostileServer(t, func(w http.ResponseWriter, id string) {
		if id != "2" {
			answer(w, id, "fine")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		bw := bufio.NewWriter(w)
		fmt.Fprintf(bw, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[],\"structuredContent\":{\"parts\":[\n", id)
		for range lines {
			fmt.Fprintf(bw, "data: %q,\n", part)
		}
		bw.WriteString("data: \"end\"]}}}\n\n")
		bw.Flush()
	}, nil)
	w := startHostileWrap(t, ts.URL, 64)
	done := make(chan string, 1)
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	go func() {
		line, _ := w.out.ReadString('\n')
		done <- line
	}()
	var got string
	select {
	case got = <-done:
	case <-time.After(2 * time.Minute):
		// A hang guard, not a measure: the wrapper takes well under a
		// second here; main took minutes.
		t.Fatalf("no answer to the many-line event in 2 minutes; log:\n%s", w.logged())
	}
	var msg struct {
		ID     int `json:"id"`
		Result struct {
			StructuredContent struct {
				Parts []string `json:"parts"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got), &msg); err != nil || msg.ID != 2 || len(msg.Result.StructuredContent.Parts) != lines+1 {
		t.Errorf("the answer is not the event's message whole (%v, id %d, %d parts of %d): %.200q", err, msg.ID, len(msg.Result.StructuredContent.Parts), lines+1, got)
	}
	if got := w.call(t, "3"); !strings.Contains(got, `"id":3`) || !strings.Contains(got, "fine") {
		t.Errorf("the next call got %q; log:\n%s", got, w.logged())
	}
	w.end(t)
}

// TestEndToEndHTTPStrayID: the stream answering a tool call first carries
// an answer with an id the wrapper never sent, then (once the wrapper has
// dealt with that one) the call's own answer. The stray answer is said on
// the log and never reaches the host; the call's answer does.
func TestEndToEndHTTPStrayID(t *testing.T) {
	t.Parallel()
	seen := make(chan struct{})
	ts := hostileServer(t, func(w http.ResponseWriter, id string) {
		if id != "2" {
			answer(w, id, "fine")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":777,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"stray\"}]}}\n\n")
		http.NewResponseController(w).Flush()
		<-seen
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"the real answer\"}]}}\n\n", id)
	}, nil)
	w := startHostileWrap(t, ts.URL, testCeilingMiB)
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	// The wrapper has dealt with the stray answer once it either logs it
	// or passes it to the host.
	logged := make(chan struct{})
	go func() {
		for line := range w.lines {
			if strings.Contains(line, "777") {
				close(logged)
				return
			}
		}
	}()
	first := make(chan string, 1)
	go func() {
		line, _ := w.out.ReadString('\n')
		first <- line
	}()
	var got string
	select {
	case <-logged:
		close(seen)
		got = <-first
	case got = <-first:
		close(seen)
		if strings.Contains(got, `"id":777`) {
			t.Errorf("the host got the stray answer: %s", got)
			got = w.next(t)
		}
	}
	if !strings.Contains(got, `"id":2`) || !strings.Contains(got, "the real answer") {
		t.Errorf("the call got %q, want its own answer; log:\n%s", got, w.logged())
	}
	if got := w.call(t, "3"); !strings.Contains(got, `"id":3`) {
		t.Errorf("the next call got %q", got)
	}
	w.end(t)
	if log := w.logged(); !strings.Contains(log, "777") || !strings.Contains(log, "dropped") {
		t.Errorf("the log does not say the stray answer was dropped:\n%s", log)
	}
}

// TestEndToEndHTTPStrayIDOnGETStream: with no call in flight, the GET
// stream carries an answer with an id the wrapper never sent, then a
// notification. The stray answer is said on the log and never reaches the
// host (which would take it for the answer to its next request with that
// id); the notification does, and a call after them is answered.
func TestEndToEndHTTPStrayIDOnGETStream(t *testing.T) {
	t.Parallel()
	var gets atomic.Int32
	ts := hostileServer(t, func(w http.ResponseWriter, id string) { answer(w, id, "fine") },
		func(w http.ResponseWriter, r *http.Request) {
			if gets.Add(1) > 1 {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}\n\n"+
				"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")
			http.NewResponseController(w).Flush()
			<-r.Context().Done()
		})
	w := startHostileWrap(t, ts.URL, testCeilingMiB)
	if got := w.next(t); !strings.Contains(got, "notifications/tools/list_changed") {
		t.Errorf("the host's first line after initialize is %q, want the server's notification; log:\n%s", got, w.logged())
	}
	if got := w.call(t, "999"); !strings.Contains(got, `"id":999`) || !strings.Contains(got, "fine") {
		t.Errorf("the call with id 999 got %q, want its own answer; log:\n%s", got, w.logged())
	}
	w.end(t)
	if log := w.logged(); !strings.Contains(log, "on its GET stream, an answer with id \"999\"") || !strings.Contains(log, "dropped") {
		t.Errorf("the log does not say the stray answer was dropped:\n%s", log)
	}
}

// TestEndToEndHTTPParallelHeldEvents: sixteen calls in flight at once are
// each answered with an event of 3 MiB (inside the ceiling of 4 MiB) that
// does not end. What the server's messages being read hold together stops
// at twice the ceiling: the calls past it get an error saying so, the
// wrapper's peak memory stays within 8× the ceiling of where it was, the
// two held answers reach the host once the server ends them, and the next
// call is answered. (The bound is twice the ceiling held, the heap each
// message starts on before it moves into a mapping, msgbuf.go, and what a
// collection had not yet given back: 14 to 16 MiB measured, alone or with
// four other programs busy on two cores (gcInStep); without the budget
// the sixteen would hold 48 MiB.)
func TestEndToEndHTTPParallelHeldEvents(t *testing.T) {
	t.Parallel() // its wrapper collects garbage in step (gcInStep): load does not blur its memory
	const calls = 16
	finish := make(chan struct{})
	ts := hostileServer(t, func(w http.ResponseWriter, id string) {
		if id == "100" {
			answer(w, id, "fine")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		fmt.Fprintf(w, `data: {"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id)
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for range 3 << 20 / len(chunk) {
			if _, err := w.Write(chunk); err != nil || rc.Flush() != nil {
				return
			}
		}
		select {
		case <-finish:
			io.WriteString(w, "\"}]}}\n\n")
		case <-time.After(time.Minute):
		}
	}, nil)
	w := startHostileWrap(t, ts.URL, testCeilingMiB)
	base := w.baseline(t)
	for i := range calls {
		w.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(2+i) + `,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	}
	inFlight := fmt.Sprintf("the server's messages in flight together passed %d MiB", 2*testCeilingMiB)
	for range calls - 2 {
		if got := w.next(t); !strings.Contains(got, `"error"`) || !strings.Contains(got, inFlight) {
			t.Errorf("a call got %.300q, want an error saying %q", got, inFlight)
		}
	}
	w.checkPeak(t, base, 8)
	close(finish)
	for range 2 {
		if got := w.next(t); !strings.Contains(got, `"result"`) || !strings.Contains(got, "xxxx") {
			t.Errorf("a held call got %.300q, want its answer", got)
		}
	}
	if got := w.call(t, "100"); !strings.Contains(got, `"id":100`) || !strings.Contains(got, "fine") {
		t.Errorf("the next call got %q; log:\n%s", got, w.logged())
	}
	w.end(t)
}
