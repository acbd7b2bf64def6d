//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestEndToEndKeepAlive (issue 14): the TypeScript SDK host times its
// tools/call out after 3 s unless progress comes (resetTimeoutOnProgress,
// with an onprogress handler, so its request carries a progressToken). The
// person answers the window only after the host has heard ten of
// elicitray's progress notifications, 1 s apart (config keep_alive =
// "1s"): over three of its timeouts. The call succeeds with the person's
// answer, and every progress the host got for the call was higher than the
// one before (PROTOCOL.md §10). With keep_alive = "0s" the same host gives
// up after 3 s, and the window closes, saying why in a notification, its
// prompt answered cancel as the host's doing.
func TestEndToEndKeepAlive(t *testing.T) {
	t.Parallel()
	needDisplay(t)
	for _, tt := range []struct {
		name      string
		keepAlive string
	}{
		{"keep-alive every second", "1s"},
		{"keep-alive off", "0s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := newParallelDesktop(t)
			d.config("keep_alive = \"" + tt.keepAlive + "\"\n")
			// A notification server on the desktop's own bus, and the hub
			// running before the call, as on a desktop that started it at
			// login: the test is of keep-alive while a window is open, and
			// a hub the call starts under make test's load can take longer
			// than the host's 3 s to show one.
			notes := serveNotifications(t, d.sessionBus())
			d.startHub()
			env := d.desktopEnv()
			env["DBUS_SESSION_BUS_ADDRESS"] = d.sessionBus()
			wire := d.hostLog("wire")
			cmd := tsHostCommand(t, env, []string{"--timeout", "3000", "--progress", "--wire", wire,
				"--tool", "trigger-elicitation-request", "--arguments", "{}"},
				wrapCommand(t, "everything", everythingCommand(t)...)...)
			cmd.Env = d.hostEnv
			run := runHost(t, cmd, d.hostLog("tshost"))
			win := d.hostWindow(run)

			if tt.keepAlive == "0s" {
				line := tsHostLineOf(t, d, d.hostEnded(run))
				if line.Error == nil || line.Error.Code != -32001 {
					t.Fatalf("without keep-alive the host printed %+v, want its timeout (-32001)%s", line, d.diagnostics())
				}
				d.closed(win)
				if n := notes.find(t, "the host cancelled trigger-elicitation-request"); n == nil {
					t.Fatalf("no notification says why the window closed%s", d.diagnostics())
				} else if !strings.HasPrefix(n[0], "everything: ") {
					t.Errorf("notification %q does not name the server first", n)
				}
				recs := d.history()
				if len(recs) != 1 || recs[0].Action != "cancel" || recs[0].DecidedBy != "host-cancelled" {
					t.Fatalf("history %+v, want one cancel decided by host-cancelled%s", recs, d.diagnostics())
				}
				return
			}

			// The person reads for a while: until ten keep-alives came.
			for got := 0; got < 10; {
				select {
				case <-run.done:
					t.Fatalf("the host ended while the window was open: %s%s", run.stdout, d.diagnostics())
				case <-time.After(pollEvery):
				}
				got = len(progressAtHost(t, wire))
			}
			d.typeInto(win, "Ada Lovelace")
			d.answer(win, "Return")
			text := d.tsHostText(d.hostEnded(run))
			if says := "- Name: Ada Lovelace"; !strings.Contains(text, says) {
				t.Fatalf("the host printed no %q:\n%s%s", says, text, d.diagnostics())
			}
			var values []float64
			for _, n := range progressAtHost(t, wire) {
				values = append(values, n.progress)
			}
			for i := 1; i < len(values); i++ {
				if values[i] <= values[i-1] {
					t.Fatalf("progress at the host went %v → %v (all: %v): it must increase", values[i-1], values[i], values)
				}
			}
			recs := d.history()
			if len(recs) != 1 || recs[0].Action != "accept" || recs[0].DecidedBy != "user" {
				t.Fatalf("history %+v, want the person's accept%s", recs, d.diagnostics())
			}
		})
	}
}

// tsHostLineOf decodes what the TypeScript SDK host printed.
func tsHostLineOf(t *testing.T, d *testDesktop, r *hostProc) tsHostLine {
	t.Helper()
	var line tsHostLine
	if err := json.Unmarshal(r.stdout, &line); err != nil {
		t.Fatalf("the TS host printed no JSON line (%v): %s%s", err, r.stdout, d.diagnostics())
	}
	return line
}

// progressNote is a notifications/progress the host received: its token
// (as JSON) and its progress.
type progressNote struct {
	token    string
	progress float64
}

// progressAtHost is every notifications/progress the host received, in
// order, from its --wire file.
func progressAtHost(t *testing.T, wire string) []progressNote {
	t.Helper()
	b, err := os.ReadFile(wire)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var notes []progressNote
	for _, l := range strings.Split(string(b), "\n") {
		var rec struct {
			Dir     string `json:"dir"`
			Message struct {
				Method string `json:"method"`
				Params struct {
					Token    json.RawMessage `json:"progressToken"`
					Progress float64         `json:"progress"`
				} `json:"params"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(l), &rec) != nil || rec.Dir != "recv" || rec.Message.Method != "notifications/progress" {
			continue // a line being written, or another message
		}
		notes = append(notes, progressNote{string(rec.Message.Params.Token), rec.Message.Params.Progress})
	}
	return notes
}

// TestEndToEndKeepAliveTwoCalls (issue 27): the TypeScript SDK host has two
// tools/call in flight at 2025-11-25, each with a progressToken of its own
// and resetTimeoutOnProgress, and times each out after 3 s unless progress
// comes. server-everything elicits in both, over stdio, which says nothing
// of which call asks. While the first window is open and the second waits
// behind it, both calls hear elicitray's keep-alive: the person answers
// only once each token has had five, 1 s apart, and both calls end with
// the person's answers. Before, not one progress reached the host and both
// calls timed out.
func TestEndToEndKeepAliveTwoCalls(t *testing.T) {
	needDisplay(t)
	d := newParallelDesktop(t)
	d.config("keep_alive = \"1s\"\n")
	// The hub runs before the calls, as on a desktop that started it at
	// login: the test is of keep-alive while a window is open, and a hub
	// started under make test's load can take longer than the host's 3 s
	// before any window opens (the host then times out with none).
	d.startHub()
	wire := d.hostLog("wire")
	cmd := tsHostCommand(t, d.desktopEnv(), []string{"--timeout", "3000", "--progress", "--wire", wire,
		"--tool", "trigger-elicitation-request", "--arguments", "{}", "--times", "2"},
		wrapCommand(t, "everything", everythingCommand(t)...)...)
	cmd.Env = d.hostEnv
	run := runHost(t, cmd, d.hostLog("tshost"))
	win := d.hostWindow(run)
	heard := map[string]int{}
	for len(heard) < 2 || fewest(heard) < 5 {
		select {
		case <-run.done:
			t.Fatalf("the host ended while the window was open (progress by token: %v): %s%s", heard, run.stdout, d.diagnostics())
		case <-time.After(pollEvery):
		}
		clear(heard)
		for _, n := range progressAtHost(t, wire) {
			heard[n.token]++
		}
	}
	d.typeInto(win, "Ada Lovelace")
	d.answer(win, "Return")
	win = d.hostWindow(run)
	d.typeInto(win, "Grace Hopper")
	d.answer(win, "Return")
	r := d.hostEnded(run)
	if r.err != nil {
		t.Fatalf("the TS host ended with %v; it printed %s%s", r.err, r.stdout, d.diagnostics())
	}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(string(r.stdout)), "\n") {
		var line tsHostLine
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("the TS host printed %q (%v)%s", l, err, d.diagnostics())
		}
		reply := line.reply()
		if reply.err != nil || reply.isError {
			t.Fatalf("a call failed: %s%s", reply, d.diagnostics())
		}
		for _, n := range []string{"Ada Lovelace", "Grace Hopper"} {
			if strings.Contains(reply.text, "- Name: "+n) {
				names = append(names, n)
			}
		}
	}
	if len(names) != 2 || names[0] == names[1] {
		t.Fatalf("the calls ended with the names %v, want Ada Lovelace's and Grace Hopper's%s", names, d.diagnostics())
	}
}

// fewest is the smallest count in counts.
func fewest(counts map[string]int) int {
	least := -1
	for _, n := range counts {
		if least < 0 || n < least {
			least = n
		}
	}
	return least
}
