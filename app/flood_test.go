//go:build linux

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/internal/hubkit"
	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
)

// floodServerEnv makes the test binary the flood server (see TestMain).
const floodServerEnv = "ELICITRAY_FLOOD_SERVER"

// floodSize is how many elicitations the flood tool sends at once.
const floodSize = 500

// floodCounts is the flood tool's result: what the server received.
type floodCounts struct {
	Accept, Decline, Cancel, Errors int
}

// floodServe runs a go-sdk MCP server on stdin/stdout with two tools:
// "flood" sends floodSize elicitations at once and reports the answers;
// "echo" answers at once. It returns the exit code.
func floodServe() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "flood", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}
	mcp.AddTool(s, &mcp.Tool{Name: "flood"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		var mu sync.Mutex
		var counts floodCounts
		var wg sync.WaitGroup
		for i := range floodSize {
			wg.Go(func() {
				res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: fmt.Sprintf("flood %d", i), RequestedSchema: schema})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					counts.Errors++
				case res.Action == "accept":
					counts.Accept++
				case res.Action == "decline":
					counts.Decline++
				default:
					counts.Cancel++
				}
			})
		}
		wg.Wait()
		b, _ := json.Marshal(counts)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo"}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestFlood (issue 4): a server sends 500 elicitations at once through the
// real wrapper while the host keeps calling another tool. At most the
// burst reaches the user; the rest are cancel, recorded as rate-limited and
// summed up in one notification; the other tool keeps answering. The echo
// latencies with and without the flood are logged (`go test -run TestFlood
// -v ./app/`), not asserted.
func TestFlood(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	h, sp, _ := hubkit.RunHub(t, e.home, time.Hour)
	h.Mu.Lock()
	h.Config = config.Config{} // the defaults: DefaultBurst, then one per DefaultEvery
	h.Mu.Unlock()
	notes := make(chan string, 4)
	h.Notify = func(title, _ string) { notes <- title }
	// The user cannot keep up: the first window stays open until every
	// prompt of the flood is decided or queued behind it, and then they
	// decline each window as it appears. (Answers as prompts come start
	// the limit over: TestRateLimitKeptUp.)
	var shownMu sync.Mutex
	shown := 0
	stop := make(chan struct{})
	answered := make(chan struct{})
	arrived := func() bool {
		recs, err := h.Store.List(history.Query{Server: "flood", DecidedBy: "rate-limit", Limit: floodSize})
		h.Mu.Lock()
		queued := len(h.Queue)
		h.Mu.Unlock()
		return err == nil && len(recs)+queued == floodSize
	}
	go func() {
		defer close(answered)
		held := true
		for {
			select {
			case p := <-sp.Shown:
				shownMu.Lock()
				shown++
				shownMu.Unlock()
				for held && !arrived() {
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond): // a poll, as hubkit.WaitQueued
					}
				}
				held = false
				p.Answer(bridge.Result{Action: bridge.ActionDecline})
			case <-stop:
				return
			}
		}
	}()
	defer func() { close(stop); <-answered }()

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := e.command(testkit.Binary(t), "wrap", "--name", "flood", "--", exe)
	cmd.Env = append(cmd.Env, floodServerEnv+"=1")
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "flood-host", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	echo := func() time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo"})
		if err != nil || res.IsError {
			t.Fatalf("echo during the flood: %v", err)
		}
		return time.Since(start)
	}
	var quiet []time.Duration
	for range 50 {
		quiet = append(quiet, echo())
	}

	flood := make(chan floodCounts, 1)
	floodStart := time.Now()
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "flood"})
		var c floodCounts
		if err == nil && len(res.Content) == 1 {
			err = json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &c)
		}
		if err != nil {
			t.Errorf("flood: %v", err)
		}
		flood <- c
	}()
	var busy []time.Duration
	var counts floodCounts
	for done := false; !done; {
		busy = append(busy, echo())
		select {
		case counts = <-flood:
			done = true
		default:
		}
	}
	elapsed := time.Since(floodStart)

	shownMu.Lock()
	n := shown
	shownMu.Unlock()
	// The limit refills one prompt per DefaultEvery while the flood lasts.
	most := config.DefaultBurst + int(elapsed/config.DefaultEvery) + 1
	if n < 1 || n > most {
		t.Errorf("%d windows reached the user; want at most the burst (%d, or %d with refills)", n, config.DefaultBurst, most)
	}
	if counts != (floodCounts{Decline: n, Cancel: floodSize - n}) {
		t.Errorf("the server received %+v; want %d declines (the windows) and the rest cancel", counts, n)
	}
	recs, err := h.Store.List(history.Query{Server: "flood", DecidedBy: "rate-limit", Limit: floodSize})
	if err != nil || len(recs) != floodSize-n {
		t.Errorf("history has %d rate-limited records (%v), want %d", len(recs), err, floodSize-n)
	}
	// One notification sums up the burst; where the machine was so slow
	// that the flood paused for suppressedNotice (2 s) midway, it came as
	// two bursts, each summed up so. Together they count every prompt.
	var titles []string
	sum := 0
	for sum < floodSize-n {
		title := <-notes
		titles = append(titles, title)
		var k int
		if _, err := fmt.Sscanf(title, "flood: %d prompts suppressed", &k); err != nil || k < 1 {
			t.Fatalf("notification %q, want \"flood: N prompts suppressed\"", title)
		}
		sum += k
	}
	if most := 1 + int(elapsed/(2*time.Second)); sum != floodSize-n || len(titles) > most {
		t.Errorf("notifications %q; want %d prompts suppressed in all, in at most %d (one, and one more for each 2 s pause the flood could have made)", titles, floodSize-n, most)
	}
	t.Logf("echo latency without the flood: %s; during it: %s (%d calls); notifications: %q", stats(quiet), stats(busy), len(busy), titles)
}

// stats formats the median and the 99th percentile of ds.
func stats(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	p := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return fmt.Sprintf("median %v, p99 %v", p(0.5).Round(time.Microsecond), p(0.99).Round(time.Microsecond))
}
