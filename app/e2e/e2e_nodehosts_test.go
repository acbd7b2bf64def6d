//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The desktop helpers for hosts written in TypeScript (nodehosts_test.go):
// each runs one host program for one tool call, the host starting
// `elicitray wrap` itself with env as its config's "env" for the server
// (nil: the SDK's default environment alone), while the test answers the
// window the call causes.

// tsHostCall runs the TypeScript SDK host (tshost.mjs --tool) in front of the
// command line server: it calls tool with args, prints one line, and ends.
func (d *testDesktop) tsHostCall(env map[string]string, tool string, args map[string]any, server ...string) *hostProc {
	d.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	b, err := json.Marshal(args)
	if err != nil {
		d.t.Fatal(err)
	}
	cmd := tsHostCommand(d.t, env, []string{"--tool", tool, "--arguments", string(b)}, server...)
	cmd.Env = d.hostEnv
	return runHost(d.t, cmd, d.hostLog("tshost"))
}

// inspectorCall runs the MCP Inspector's CLI in front of the command line
// server: it calls tool with args (nil: none), prints the result, and ends.
func (d *testDesktop) inspectorCall(env map[string]string, tool string, args map[string]any, server ...string) *hostProc {
	d.t.Helper()
	cmd := inspectorCommand(d.t, env, tool, args, server...)
	cmd.Env = d.hostEnv
	return runHost(d.t, cmd, d.hostLog("inspector"))
}

// hostLog is a new log file for a host's stderr (where its wrapper's goes
// too), shown by diagnostics.
func (d *testDesktop) hostLog(name string) string {
	p := filepath.Join(d.t.TempDir(), name+".log")
	d.logs = append(d.logs, p)
	return p
}

// hostWindow waits for the prompt window that host p's call causes, and
// fails at once if p ends first.
func (d *testDesktop) hostWindow(p *hostProc) string {
	d.t.Helper()
	win, _ := d.windowUnless(p.done, func() string {
		return fmt.Sprintf("the host ended first (%v), printing %s", p.err, p.stdout)
	})
	return win
}

// hostEnded waits for host p to end.
func (d *testDesktop) hostEnded(p *hostProc) *hostProc {
	d.t.Helper()
	select {
	case <-p.done:
		return p
	case <-time.After(desktopWait):
		d.t.Fatalf("the host did not end within %v%s", desktopWait, d.diagnostics())
	}
	return nil
}

// tsHostText is the text of the tool result the TypeScript SDK host printed.
func (d *testDesktop) tsHostText(r *hostProc) string {
	d.t.Helper()
	if r.err != nil {
		d.t.Fatalf("the TS host ended with %v; it printed %s%s", r.err, r.stdout, d.diagnostics())
	}
	var line tsHostLine
	if err := json.Unmarshal(r.stdout, &line); err != nil {
		d.t.Fatalf("the TS host printed no JSON line (%v): %s%s", err, r.stdout, d.diagnostics())
	}
	reply := line.reply()
	if reply.err != nil || reply.isError {
		d.t.Fatalf("the TS host's call failed: %s%s", reply, d.diagnostics())
	}
	return reply.text
}

// inspectorText is the text of the tool result the Inspector printed
// (--format json: {"result": CallToolResult}; an error ends it non-zero).
func (d *testDesktop) inspectorText(r *hostProc) string {
	d.t.Helper()
	if r.err != nil {
		d.t.Fatalf("the Inspector ended with %v; it printed %s%s", r.err, r.stdout, d.diagnostics())
	}
	var out struct {
		Result *callToolResult `json:"result"`
	}
	if err := json.Unmarshal(r.stdout, &out); err != nil || out.Result == nil {
		d.t.Fatalf("the Inspector printed no {\"result\":…} (%v): %s%s", err, r.stdout, d.diagnostics())
	}
	if out.Result.IsError {
		d.t.Fatalf("the Inspector's call returned an error result: %s%s", out.Result.text(), d.diagnostics())
	}
	return out.Result.text()
}

// desktopEnv is the env a user's host config gives a wrapper so that it (and
// the hub it starts) finds this desktop's hub and display even when the host
// passes nothing else on: ELICITRAY_HOME, DISPLAY, and XAUTHORITY where the
// session has one. Without XAUTHORITY the X server refuses the hub when its
// cookie is not in ~/.Xauthority: so under xvfb-run, and in desktop sessions
// whose display manager keeps it elsewhere.
func (d *testDesktop) desktopEnv() map[string]string {
	env := map[string]string{"ELICITRAY_HOME": d.home, "DISPLAY": d.display}
	if xauth := os.Getenv("XAUTHORITY"); xauth != "" {
		env["XAUTHORITY"] = xauth
	}
	return env
}

// TestEndToEndNodeHosts: hosts written in TypeScript, the TypeScript SDK
// host and the MCP Inspector's CLI, start `elicitray wrap --name everything
// -- node …/server-everything/dist/index.js stdio` themselves and call
// trigger-elicitation-request; the person types a name in the window and
// submits it. What the host prints says what server-everything received,
// and the history has the decision as the user's.
func TestEndToEndNodeHosts(t *testing.T) {
	t.Parallel()
	needDisplay(t)
	for _, tt := range []struct {
		name string
		// call runs the host for one call; text reads what it printed.
		call func(d *testDesktop, env map[string]string, tool string, args map[string]any, server ...string) *hostProc
		text func(d *testDesktop, r *hostProc) string
		// env is what the host's config gives the server (nil: nothing;
		// the SDK's default environment alone).
		env func(d *testDesktop) map[string]string
		// stripped: the user's HOME is the test's, and env is nil: the host
		// passes the SDK's default environment alone (HOME, LOGNAME, PATH,
		// SHELL, TERM, USER), as most host configs do.
		stripped bool
		// hub: a hub already runs in the desktop session.
		hub bool
	}{
		{name: "ts-sdk with the desktop in env", call: (*testDesktop).tsHostCall, text: (*testDesktop).tsHostText, env: (*testDesktop).desktopEnv},
		{name: "inspector with the desktop in -e", call: (*testDesktop).inspectorCall, text: (*testDesktop).inspectorText, env: (*testDesktop).desktopEnv},
		{name: "ts-sdk with its default environment, hub running", call: (*testDesktop).tsHostCall, text: (*testDesktop).tsHostText, stripped: true, hub: true},
		{name: "ts-sdk with its default environment, no hub", call: (*testDesktop).tsHostCall, text: (*testDesktop).tsHostText, stripped: true},
		{name: "inspector with its default environment, no hub", call: (*testDesktop).inspectorCall, text: (*testDesktop).inspectorText, stripped: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var d *testDesktop
			var env map[string]string
			if tt.stripped {
				t.Parallel()
				d = strippedDesktop(t, true)
				// The host runs in the desktop session; its servers get
				// only what it passes on.
				d.hostEnv = d.sessionEnv()
				if tt.hub {
					d.startHub()
				}
			} else {
				d = newParallelDesktop(t)
				env = tt.env(d)
			}
			run := tt.call(d, env, "trigger-elicitation-request", nil, wrapCommand(t, "everything", everythingCommand(t)...)...)
			win := d.hostWindow(run)
			if got, want := d.title(win), "elicitray — everything asks"; got != want {
				t.Errorf("window title %q, want %q (the configured name)", got, want)
			}
			d.typeInto(win, "Ada Lovelace")
			d.answer(win, "Return")

			text := tt.text(d, d.hostEnded(run))
			if says := "User inputs:\n- Name: Ada Lovelace\n"; !strings.Contains(text, says) {
				t.Errorf("the host printed no %q:\n%s", says, text)
			}
			want := rawResult{Action: "accept", Content: everythingAccepted("Ada Lovelace")}
			if diff := cmp.Diff(want, parseRawResult(t, text)); diff != "" {
				t.Errorf("ElicitResult the server received mismatch (-want +got):\n%s", diff)
			}

			recs := d.history()
			if len(recs) != 1 {
				t.Fatalf("history holds %d decisions after one answer, want one%s", len(recs), d.diagnostics())
			}
			wantRec := decision{
				Server:     "everything",
				ServerInfo: "mcp-servers/everything", // what server-everything calls itself
				Tool:       "trigger-elicitation-request",
				Action:     "accept",
				DecidedBy:  "user",
				Content:    want.Content,
			}
			if diff := cmp.Diff(wantRec, decisionOf(recs[0])); diff != "" {
				t.Errorf("history record mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
