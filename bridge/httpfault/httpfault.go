// Package httpfault makes the faults of a real network for tests of
// elicitray's HTTP transport (PROTOCOL.md §11): handlers in front of a real
// MCP server that break off a response the way a dropped connection does.
// Only tests use it.
package httpfault

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// CutFirstCall is a proxy in front of h that breaks off the SSE response
// of the first tools/call after its first event, as a dropped connection
// would: the client has the event (and its id) and nothing more. The
// server, like one behind a proxy that keeps its side open, learns of the
// drop only after the client's first attempt to resume the stream, which
// it therefore refuses (the go-sdk answers 409 Conflict).
func CutFirstCall(h http.Handler) http.Handler {
	var cut atomic.Bool
	var mu sync.Mutex
	var unheld func() // tells the server the cut stream is gone
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if r.Method != http.MethodPost || !bytes.Contains(body, []byte(`"tools/call"`)) || cut.Swap(true) {
			h.ServeHTTP(w, r)
			if r.Header.Get("Last-Event-ID") != "" {
				mu.Lock()
				if unheld != nil {
					unheld()
				}
				mu.Unlock()
			}
			return
		}
		rec := &firstEvent{header: http.Header{}, got: make(chan struct{})}
		ctx, stop := context.WithCancel(context.WithoutCancel(r.Context()))
		go h.ServeHTTP(rec, r.WithContext(ctx))
		<-rec.got
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.status)
		w.Write(rec.buf.Bytes())
		w.(http.Flusher).Flush()
		mu.Lock()
		unheld = stop
		mu.Unlock()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	})
}

// firstEvent is the server's side of a cut response: it keeps what the
// server writes until the first complete SSE event, then drops the rest.
type firstEvent struct {
	header http.Header
	status int
	buf    bytes.Buffer
	got    chan struct{}
	done   bool
}

func (f *firstEvent) Header() http.Header  { return f.header }
func (f *firstEvent) WriteHeader(code int) { f.status = code }
func (f *firstEvent) Flush()               {}
func (f *firstEvent) Write(p []byte) (int, error) {
	if f.status == 0 {
		f.status = http.StatusOK
	}
	if !f.done {
		f.buf.Write(p)
		if bytes.Contains(f.buf.Bytes(), []byte("\n\n")) {
			f.done = true
			close(f.got)
		}
	}
	return len(p), nil
}
