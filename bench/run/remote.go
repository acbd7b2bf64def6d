//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"
)

// remoteEvents measures `elicitray wrap --url` answering one tool call
// with one SSE event of 1, 4, 16 and 64 MiB, written as one data line and
// as 1 kB data lines (issue 25): the time from the host's tools/call to
// the last byte of the answer on the wrapper's stdout, and the wrapper's
// peak RSS (VmHWM) above its peak for a 1 kB answer. The
// server is this process's, on 127.0.0.1, with the event built before the
// call; a run that has no answer within remoteLimit is said as such (the
// 1 kB-line events cost main the square of their lines).
func remoteEvents(b bins) []row {
	base, err := remoteRun(b, 1<<10, false)
	if err != nil {
		return []row{failed("remote server, baseline (a 1 kB answer)", err)}
	}
	var rows []row
	for _, lines := range []bool{false, true} {
		shape := "one line"
		if lines {
			shape = "1 kB lines"
		}
		var first, last remoteResult
		for _, mib := range []int{1, 4, 16, 64} {
			measure := fmt.Sprintf("remote server, one %d MiB SSE event in %s", mib, shape)
			r, err := remoteRun(b, mib<<20, lines)
			if err != nil {
				rows = append(rows, failed(measure, err))
				continue
			}
			if mib == 1 {
				first = r
			}
			last = r
			over := float64(r.peak-base.peak) / float64(mib<<20)
			rows = append(rows, row{
				measure:   measure,
				baseline:  fmt.Sprintf("1 kB answer: peak RSS %.1f MB", float64(base.peak)/1e6),
				elicitray: fmt.Sprintf("%v (%.0f MB/s), peak RSS %.1f MB", r.took.Round(time.Millisecond), float64(mib<<20)/r.took.Seconds()/1e6, float64(r.peak)/1e6),
				ratio:     fmt.Sprintf("%+.2f× the event", over),
				target:    "RSS ≤ 1.5× the event above the baseline: " + yes(over <= 1.5),
			})
		}
		if first.took > 0 && last.took > 0 {
			per := func(r remoteResult) float64 { return r.took.Seconds() / float64(r.size>>20) }
			times := per(last) / per(first)
			target := "linear (≤ 2×): " + yes(times <= 2)
			if last.size != 64<<20 {
				target = "linear: **no** (the 64 MiB event had no answer)"
			}
			rows = append(rows, row{
				measure:   "remote server, " + shape + ": time per MiB, the largest event answered against 1 MiB",
				baseline:  fmt.Sprintf("%.1f ms/MiB at 1 MiB", per(first)*1e3),
				elicitray: fmt.Sprintf("%.1f ms/MiB at %d MiB", per(last)*1e3, last.size>>20),
				ratio:     fmt.Sprintf("%.2f×", times),
				target:    target,
			})
		}
	}
	return rows
}

// remoteLimit is how long one remote run may take.
const remoteLimit = 2 * time.Minute

// remoteResult is one remote run: the event's size, the time from the call
// to its answer, and the wrapper's peak RSS in bytes.
type remoteResult struct {
	size int
	took time.Duration
	peak int64
}

// remoteEvent is the message of size bytes the server answers the call
// with, as an SSE event: one data line, or data lines of about 1 kB (a
// string each, in an array, so that the lines join into the same JSON).
func remoteEvent(size int, lines bool) []byte {
	head := `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"parts":[`
	tail := `"end"]}}}`
	var ev bytes.Buffer
	ev.Grow(size + size/1000*8 + 1024)
	ev.WriteString("data: " + head)
	part := `"` + strings.Repeat("a", 997) + `",`
	step := len(part)
	if lines {
		step++ // the line break the lines are joined with
	}
	for n := len(head) + len(tail) + 1; n+step <= size; n += step {
		if lines {
			ev.WriteString("\ndata: ")
		}
		ev.WriteString(part)
	}
	if lines {
		ev.WriteString("\ndata: ")
	}
	ev.WriteString(tail + "\n\n")
	return ev.Bytes()
}

func remoteRun(b bins, size int, lines bool) (remoteResult, error) {
	event := remoteEvent(size, lines)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return remoteResult{}, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		switch {
		case bytes.Contains(body, []byte(`"initialize"`)):
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "bench")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}}`)
		case bytes.Contains(body, []byte(`"tools/call"`)):
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(event)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()

	home, err := os.MkdirTemp(b.dir, "remote-")
	if err != nil {
		return remoteResult{}, err
	}
	cmd := exec.Command(b.elicitray, "wrap", "--name", "bench", "--url", "http://"+ln.Addr().String()+"/mcp")
	cmd.Env = hostEnv(home)
	var log bytes.Buffer
	cmd.Stderr = &log
	in, err := cmd.StdinPipe()
	if err != nil {
		return remoteResult{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return remoteResult{}, err
	}
	if err := cmd.Start(); err != nil {
		return remoteResult{}, err
	}
	var killed atomic.Bool
	timer := time.AfterFunc(remoteLimit, func() { killed.Store(true); cmd.Process.Kill() })
	defer timer.Stop()
	out := bufio.NewReaderSize(stdout, 1<<20)
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n")
	if _, err := out.ReadSlice('\n'); err != nil && err != bufio.ErrBufferFull {
		cmd.Wait()
		return remoteResult{}, fmt.Errorf("no initialize answer: %v; %s", err, strings.TrimSpace(log.String()))
	}
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	start := time.Now()
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`+"\n")
	got, ended := 0, false
	for !ended {
		chunk, err := out.ReadSlice('\n')
		got += len(chunk)
		ended = err == nil
		if err != nil && err != bufio.ErrBufferFull {
			cmd.Wait()
			if killed.Load() {
				return remoteResult{}, fmt.Errorf("no answer within %v", remoteLimit)
			}
			return remoteResult{}, fmt.Errorf("the answer ended after %d bytes: %v; %s", got, err, strings.TrimSpace(log.String()))
		}
	}
	took := time.Since(start)
	// The wrapper's own peak: wait4's maxrss would count this process's
	// resident set at the fork too (Linux keeps it across exec).
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	peak := statusField(status, "VmHWM:") << 10
	in.Close()
	_, _ = io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return remoteResult{}, fmt.Errorf("the wrapper exited with %v; %s", err, strings.TrimSpace(log.String()))
	}
	if got < len(event)*9/10 {
		return remoteResult{}, fmt.Errorf("the answer has %d bytes, not the event's: %s", got, strings.TrimSpace(log.String()))
	}
	os.RemoveAll(home)
	if peak == 0 {
		return remoteResult{}, fmt.Errorf("no VmHWM in /proc/%d/status", cmd.Process.Pid)
	}
	return remoteResult{size: size, took: took, peak: peak}, nil
}
