//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/history"
)

// History says what the server got (issue 25): a decision is delivered once
// the wrapper wrote its answer to the server, and one that never left says
// so, and why, in `history list`, `history show` and `history list --json`.

// closingServerEnv makes the test binary a server that closes its input
// once it asked (see TestMain): the answer has nowhere to go.
const closingServerEnv = "ELICITRAY_CLOSING_SERVER"

// closingServe serves MCP on stdin and stdout, one message a line: its
// tool "ask" sends one elicitation/create and then closes its standard
// input, so that the answer's write fails (EPIPE), and waits until it is
// stopped.
func closingServe() int {
	br := bufio.NewReader(os.Stdin)
	write := func(v any) {
		b, _ := json.Marshal(v)
		os.Stdout.Write(append(b, '\n'))
	}
	for {
		line, err := br.ReadBytes('\n')
		var m rawMsg
		if len(line) > 0 && json.Unmarshal(line, &m) == nil {
			switch m.Method {
			case "initialize":
				write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"protocolVersion": "2025-11-25",
					"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "closing", "version": "1"}}})
			case "tools/call":
				write(map[string]any{"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create",
					"params": map[string]any{"message": "closing #0", "requestedSchema": map[string]any{"type": "object",
						"properties": map[string]any{"go": map[string]any{"type": "boolean", "default": true}}}}})
				os.Stdin.Close()
				select {} // until the wrapper stops it
			}
		}
		if err != nil {
			return 0
		}
	}
}

// historyText is `elicitray history ARGS…`'s output.
func (d *testDesktop) historyText(args ...string) string {
	d.t.Helper()
	cmd := exec.Command(testkit.Binary(d.t), append([]string{"history"}, args...)...)
	cmd.Env = d.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		d.t.Fatalf("elicitray history %s: %v\n%s%s", strings.Join(args, " "), err, out, d.diagnostics())
	}
	return string(out)
}

// settled waits until server's one record says whether its answer was
// delivered, and returns it.
func (d *testDesktop) settled(server string) history.Record {
	d.t.Helper()
	var rec history.Record
	d.waitFor("the delivery of "+server+"'s decision settled", func() bool {
		for _, r := range d.history() {
			if r.Server == server && r.Delivery != history.DeliveryPending {
				rec = r
				return true
			}
		}
		return false
	})
	return rec
}

// TestDeliveryToldInHistory: the user accepts, and then the answer reaches
// the server, or not: the wrapper is killed (kill -9) after the decision
// was sent to it and before it could write it (it is stopped, SIGSTOP,
// from before the user's Submit until the kill), or the server has closed
// its input. History keeps the accept the user gave, and says whether the
// server got it, and why not, in every view; the answer that reached the
// server reads delivered.
func TestDeliveryToldInHistory(t *testing.T) {
	d := newParallelDesktop(t)
	for _, tt := range []struct {
		name   string
		env    []string
		before func(fh *faultHost) // after the window opened, before Submit
		after  func(fh *faultHost) // once the decision is in history
		why    string              // "" delivered
	}{
		{name: "delivered"},
		{
			name: "killed",
			before: func(fh *faultHost) {
				if err := syscall.Kill(fh.wrapper.Process.Pid, syscall.SIGSTOP); err != nil {
					t.Fatal(err)
				}
			},
			after: func(fh *faultHost) {
				if err := syscall.Kill(fh.wrapper.Process.Pid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			},
			why: "the wrapper ended (it crashed or was killed) before it passed the answer on to the server",
		},
		{
			name: "closed",
			env:  append(slices.Clone(d.env), closingServerEnv+"=1"),
			why:  "a message for the server was not sent: its input was already closed (the host has gone, or the server stopped)",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := d.with(t)
			fh := d.connectFault(tt.name, tt.env)
			ask := fh.ask(t, 1, tt.name)
			win, _ := d.window()
			if tt.before != nil {
				tt.before(fh)
			}
			d.answer(win, "Return") // Submit, the default: go = true
			if tt.after != nil {
				d.waitFor("the decision in history", func() bool {
					return slices.ContainsFunc(d.history(), func(r history.Record) bool { return r.Server == tt.name })
				})
				tt.after(fh)
			}
			if tt.why == "" {
				if got := d.received(ask); len(got) != 1 || got[0] != "accept" {
					t.Fatalf("the server got %v, want [accept]", got)
				}
			}
			rec := d.settled(tt.name)
			if rec.Action != "accept" || rec.DecidedBy != "user" || rec.Content["go"] != true {
				t.Errorf("history lost what the user decided: %s by %s, content %v", rec.Action, rec.DecidedBy, rec.Content)
			}
			if rec.Delivery != tt.why {
				t.Errorf("history list --json: delivery %q, want %q", rec.Delivery, tt.why)
			}
			list := d.historyText("list", "--server", tt.name)
			show := d.historyText("show", strconv.FormatUint(rec.ID, 10))
			wantList, wantShow := "accept ", "yes"
			if tt.why != "" {
				wantList, wantShow = "accept (NOT DELIVERED)", "no: "+tt.why
			}
			if !strings.Contains(list, wantList) {
				t.Errorf("history list does not say %q:\n%s", wantList, list)
			}
			if !strings.Contains(show, "Delivered") || !strings.Contains(show, wantShow) {
				t.Errorf("history show does not say Delivered %q:\n%s", wantShow, show)
			}
		})
	}
}

// TestServerGoneWhileAsked: the server exits (it is killed) while its
// window is open and nobody answered. The window closes, and history says
// the server ended it, not a crashed or killed wrapper, and that no answer
// was owed: none was given; once, though the hub and the wrapper both
// keep it.
func TestServerGoneWhileAsked(t *testing.T) {
	d := newParallelDesktop(t)
	fh := d.connectFault("gone", nil)
	fh.ask(t, 1, "gone")
	d.window()
	if err := syscall.Kill(childOf(t, fh.wrapper.Process.Pid), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec := d.settled("gone")
	if recs := d.history("--server", "gone"); len(recs) != 1 {
		t.Errorf("history keeps %d records of the one question, want one: %+v", len(recs), recs)
	}
	const why = "the server exited before anyone answered"
	if rec.Action != "cancel" || rec.Reason != why {
		t.Errorf("history list --json: %s, reason %q; want cancel, reason %q", rec.Action, rec.Reason, why)
	}
	if rec.Delivery != why {
		t.Errorf("history list --json: delivery %q, want %q", rec.Delivery, why)
	}
	show := d.historyText("show", strconv.FormatUint(rec.ID, 10))
	if strings.Contains(show, "wrapper") {
		t.Errorf("history show blames the wrapper:\n%s", show)
	}
}
