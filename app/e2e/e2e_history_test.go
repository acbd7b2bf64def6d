//go:build linux

package e2e

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/history"
)

// seedRealistic fills the history file with n decisions of the kinds a
// user with a few wrapped servers collects over a couple of weeks.
func seedRealistic(t *testing.T, path string, n int) {
	t.Helper()
	st, err := history.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	type kind struct {
		server, tool, message, schema string
	}
	kinds := []kind{
		{"github", "create_pull_request", "Open a pull request from feature/%d into main?", `{"type":"object","properties":{"draft":{"type":"boolean","title":"Open as draft","default":true},"reviewers":{"type":"array","items":{"type":"string","enum":["ada","grace","linus"]}}}}`},
		{"github", "delete_branch", "Delete the branch release-%d? It has no open pull request.", `{"type":"object","properties":{}}`},
		{"deploys", "deploy", "Deploy build 1.%d.0 to which environment?", `{"type":"object","properties":{"env":{"type":"string","title":"Environment","oneOf":[{"const":"staging","title":"Staging"},{"const":"production","title":"Production"}],"default":"staging"}},"required":["env"]}`},
		{"jira", "create_issue", "File a bug for the failing test run #%d?", `{"type":"object","properties":{"title":{"type":"string","title":"Title","minLength":5},"priority":{"type":"string","enum":["low","medium","high"],"default":"medium"}},"required":["title"]}`},
		{"payments", "refund", "Refund order %d to the customer's card?", `{"type":"object","properties":{"amount":{"type":"number","title":"Amount (EUR)","minimum":0},"reason":{"type":"string","title":"Reason"}},"required":["amount"]}`},
	}
	outcomes := []struct{ action, decidedBy, reason string }{
		{"accept", "user", ""}, {"accept", "user", ""}, {"decline", "user", ""}, {"cancel", "user", ""},
		{"cancel", "timeout", "nobody answered within 10m0s"}, {"decline", "rule", "the rule for jira is decline"},
		{"cancel", "rate-limit", "github asked more than 5 times in a row; its limit is one prompt every 3s"},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Now().Add(-14 * 24 * time.Hour)
	for i := range n {
		k := kinds[rng.IntN(len(kinds))]
		o := outcomes[rng.IntN(len(outcomes))]
		r := history.Record{
			Time: start.Add(time.Duration(i) * 14 * 24 * time.Hour / time.Duration(n)), Server: k.server,
			ServerInfo: history.ServerInfo{Name: k.server + "-mcp", Version: "2.1.0"}, Tool: k.tool, Mode: "form",
			Message: fmt.Sprintf(k.message, 100+rng.IntN(900)), RequestedSchema: []byte(k.schema),
			Action: o.action, DecidedBy: o.decidedBy, Reason: o.reason,
			Elapsed: time.Duration(1+rng.IntN(40000)) * time.Millisecond,
		}
		if o.decidedBy != "user" {
			r.Elapsed = 0
		}
		if r.Action == "accept" && k.server == "deploys" {
			r.Content = map[string]any{"env": "staging"}
		}
		if _, err := st.Add(r); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHistoryWindowOnDesktop opens the history window of a real hub on a
// history of a few hundred decisions, selects one, and keeps a
// picture of it (`make screenshots`: docs/history.png).
func TestHistoryWindowOnDesktop(t *testing.T) {
	d := newParallelDesktop(t)
	seedRealistic(t, d.paths.History, 300)
	// The real binary: it starts a hub (itself) when none runs.
	if out, err := d.binCmd("history", "window").CombinedOutput(); err != nil {
		t.Fatalf("history window: %v: %s", err, out)
	}
	win, _ := d.window()
	if got := d.title(win); got != "elicitray — history" {
		t.Fatalf("window title %q", got)
	}
	// The third row: a deploy, whose form has a field to show.
	d.xdo("mousemove", "--window", win, "400", "179", "click", "1")
	d.screenshot("history.png")
	if out, err := d.binCmd("quit").CombinedOutput(); err != nil {
		t.Errorf("quit: %v: %s", err, out)
	}
}

// TestWindowsCloseOnKeysOnDesktop: on a real desktop, the history window
// closes on Escape (focus in its search entry, as it opens) and on Ctrl+W,
// and the settings window on Escape (issue 9).
func TestWindowsCloseOnKeysOnDesktop(t *testing.T) {
	d := newParallelDesktop(t)
	seedRealistic(t, d.paths.History, 20)
	for _, tt := range []struct{ command, title, key string }{
		{"history window", "elicitray — history", "Escape"},
		{"history window", "elicitray — history", "ctrl+w"},
		{"settings", "elicitray settings", "Escape"},
		{"settings", "elicitray settings", "ctrl+w"},
	} {
		if out, err := d.binCmd(strings.Fields(tt.command)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", tt.command, err, out)
		}
		win, _ := d.window()
		if got := d.title(win); got != tt.title {
			t.Fatalf("%s opened %q, want %q", tt.command, got, tt.title)
		}
		d.answer(win, tt.key) // fails the test unless the window closes
	}
	if out, err := d.binCmd("quit").CombinedOutput(); err != nil {
		t.Errorf("quit: %v: %s", err, out)
	}
}
