//go:build linux

package e2e

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/bridge"
)

// TestEndToEndGuard (issue 14, "Guard tool calls"): with `guard = ["echo"]`
// for a server in config.toml, the real wrapper holds the official Go SDK
// host's call of server-everything's echo until the person decides in a
// window. Approve (Return): the server runs it and the host gets its echo.
// Deny (Alt+D): the host gets a tool error result saying the user denied
// it, and the server never ran it. Nobody answering (the server's timeout,
// 2 s): the host gets a tool error saying nobody approved it in time. The
// host cancelling the call while it is held: the window closes. An
// unguarded tool (get-sum) runs without a window. History holds the four
// decisions as kind "tool call", and `history list --kind "tool call"`
// selects them.
func TestEndToEndGuard(t *testing.T) {
	server := everythingServer(t)
	d := newParallelDesktop(t)
	d.config("[servers.guarded]\nguard = [\"echo\"]\n\n[servers.hurried]\nguard = [\"ech?\"]\ntimeout = \"2s\"\n")
	guarded := d.connect("guarded", server)
	hurried := d.connect("hurried", server)
	for _, cs := range []*mcp.ClientSession{guarded, hurried} {
		// The host lists the tools first, as hosts do: the window shows
		// the echo tool's title and description from it.
		if _, err := cs.ListTools(t.Context(), nil); err != nil {
			t.Fatalf("tools/list: %v%s", err, d.diagnostics())
		}
	}

	echo := func(cs *mcp.ClientSession, message string) <-chan toolCall {
		return d.callArgs(cs, "echo", map[string]any{"message": message})
	}
	outcome := d.outcome

	// An unguarded tool runs at once: no window holds it.
	sum, err := guarded.CallTool(t.Context(), &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil || sum.IsError {
		t.Fatalf("get-sum: %v %+v%s", err, sum, d.diagnostics())
	}

	for _, tt := range []struct {
		name    string
		cs      *mcp.ClientSession
		key     string // "" leaves the window to time out
		text    string
		isError bool
	}{
		{"approve", guarded, "Return", "Echo: approve me", false},
		{"deny", guarded, "alt+d", `The user denied the call of the tool "echo" in elicitray; it did not run.`, true},
		{"timeout", hurried, "", `Nobody approved the call of the tool "echo" in elicitray in time; it did not run.`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ch := echo(tt.cs, tt.name+" me")
			win, _ := d.window()
			if title := d.title(win); !strings.Contains(title, "guarded") && !strings.Contains(title, "hurried") {
				t.Errorf("window title %q does not name the server", title)
			}
			if tt.key != "" {
				d.answer(win, tt.key)
			} else {
				d.closed(win)
			}
			text, isError := outcome(ch)
			if text != tt.text || isError != tt.isError {
				t.Errorf("host got %q (isError %v), want %q (isError %v)%s", text, isError, tt.text, tt.isError, d.diagnostics())
			}
		})
	}

	// The host gives up on a held call (go-sdk sends notifications/
	// cancelled when the call's context ends): the window closes, and the
	// call never reaches the server.
	t.Run("host cancels", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := guarded.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "never mind"}})
			done <- err
		}()
		win, _ := d.window()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("the cancelled call returned %v, want context.Canceled", err)
		}
		d.closed(win)
	})

	type guardDecision struct {
		Server, Tool, Mode, Action, DecidedBy string
	}
	var got []guardDecision
	for _, r := range d.history("--kind", "tool call") {
		got = append(got, guardDecision{r.Server, r.Tool, r.Mode, r.Action, r.DecidedBy})
		if !strings.Contains(r.Message, "Echo Tool") || !strings.Contains(r.Message, "Echoes back the input string") || !strings.Contains(r.Message, "message: ") {
			t.Errorf("record %d does not say what the call was:\n%s", r.ID, r.Message)
		}
	}
	want := []guardDecision{ // newest first
		{"guarded", "echo", bridge.ModeToolCall, bridge.ActionCancel, bridge.DecidedByHostCancelled},
		{"hurried", "echo", bridge.ModeToolCall, bridge.ActionCancel, bridge.DecidedByTimeout},
		{"guarded", "echo", bridge.ModeToolCall, bridge.ActionDecline, bridge.DecidedByUser},
		{"guarded", "echo", bridge.ModeToolCall, bridge.ActionAccept, bridge.DecidedByUser},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history of tool calls mismatch (-want +got):\n%s", diff)
	}
	if forms := d.history("--kind", "form"); len(forms) != 0 {
		t.Errorf("--kind form selected %d records; no elicitation was made", len(forms))
	}
}

// TestEndToEndGuardTypeScriptHost: the TypeScript SDK host, which checks
// every CallToolResult against the spec's schema, takes the guard's
// answers as tool results: an approved echo returns the server's text, a
// denied one a result with isError and the sentence saying the user denied
// it (not a protocol error).
func TestEndToEndGuardTypeScriptHost(t *testing.T) {
	needDisplay(t)
	// Where Node or the SDK is missing the whole test is skipped (under CI
	// it fails), not its two runs alone, which would leave history empty.
	systemNode(t)
	needNPM(t, tsHostScript, tsSDKPackage)
	d := newParallelDesktop(t)
	d.config("[servers.everything]\nguard = [\"echo\"]\n")
	for _, tt := range []struct {
		name, key, text string
		isError         bool
	}{
		{"approve", "Return", "Echo: from the TypeScript host", false},
		{"deny", "alt+d", `The user denied the call of the tool "echo" in elicitray; it did not run.`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := tsHostCommand(t, d.desktopEnv(), []string{"--tool", "echo", "--arguments", `{"message":"from the TypeScript host"}`},
				wrapCommand(t, "everything", everythingCommand(t)...)...)
			cmd.Env = d.hostEnv
			run := runHost(t, cmd, d.hostLog("tshost-"+tt.name))
			win := d.hostWindow(run)
			d.answer(win, tt.key)
			line := tsHostLineOf(t, d, d.hostEnded(run))
			if line.Result == nil {
				t.Fatalf("the host printed %+v, want a CallToolResult%s", line, d.diagnostics())
			}
			if got := line.Result.text(); got != tt.text || line.Result.IsError != tt.isError {
				t.Errorf("host got %q (isError %v), want %q (isError %v)", got, line.Result.IsError, tt.text, tt.isError)
			}
		})
	}
	recs := d.history("--kind", "tool call", "--server", "everything")
	if len(recs) != 2 || recs[0].Action != bridge.ActionDecline || recs[1].Action != bridge.ActionAccept {
		t.Errorf("history holds %d tool calls, want the denial and the approval%s", len(recs), d.diagnostics())
	}
}

// guardServerScript is the TypeScript SDK server with a tool annotated
// destructiveHint: true (wipe) and one annotated false (tidy).
const guardServerScript = "../../testdata/npm/guardserver.mjs"

// TestEndToEndGuardDestructive: with `guard_destructive = true` and no
// pattern, the wrapper guards the tool the server's tools/list annotated
// destructiveHint: true, learned as the list passed to the host, and lets
// the one annotated false run without a window. The window's record says
// what the tool does, in the server's words.
func TestEndToEndGuardDestructive(t *testing.T) {
	needDisplay(t)
	d := newParallelDesktop(t)
	d.config("[servers.disks]\nguard_destructive = true\n")
	cs := d.connect("disks", systemNode(t), needNPM(t, guardServerScript, tsSDKPackage)[0])
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatalf("tools/list: %v%s", err, d.diagnostics())
	}
	run := func(tool string) <-chan toolCall {
		ch := make(chan toolCall, 1)
		go func() {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"name": "scratch"}})
			ch <- toolCall{res, err}
		}()
		return ch
	}
	if got := d.result(run("tidy")); got != "tidied scratch" {
		t.Fatalf("tidy returned %q, want it run without a window", got)
	}
	wipe := run("wipe")
	win, _ := d.window()
	d.answer(win, "Return")
	if got := d.result(wipe); got != "wiped scratch" {
		t.Errorf("wipe returned %q after the approval, want the server's answer", got)
	}
	recs := d.history("--kind", "tool call")
	if len(recs) != 1 || recs[0].Tool != "wipe" || recs[0].Action != bridge.ActionAccept || recs[0].DecidedBy != bridge.DecidedByUser {
		t.Fatalf("history of tool calls = %+v, want wipe approved by the user, only", recs)
	}
	for _, want := range []string{"Wipe a disk", "Erases every file on the named disk.", `name: "scratch"`} {
		if !strings.Contains(recs[0].Message, want) {
			t.Errorf("the record lacks %q:\n%s", want, recs[0].Message)
		}
	}
}

// TestEndToEndGuardNoDesktop: a wrapper that finds no desktop session (a
// PID namespace of its own, no DISPLAY) under a host that declared no
// elicitation cannot ask anyone, so a guarded call is denied, as an
// elicitation there is answered cancel (TestEndToEndGuardAskedInHost has
// the host that can be asked): the host
// gets a tool error saying no desktop could show the approval window, and
// the server never runs the call. The host's log says why, once.
func TestEndToEndGuardNoDesktop(t *testing.T) {
	server := everythingServer(t)
	launcher := testkit.NoSession(t)
	d := newParallelDesktop(t)
	d.config("[servers.headless]\nguard = [\"echo\"]\n")
	d.env = append(slices.Clone(d.env), "DISPLAY=", "WAYLAND_DISPLAY=")
	cs := d.connectVia(launcher, "headless", server)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "anyone?"}})
	if err != nil {
		t.Fatalf("tools/call: %v%s", err, d.diagnostics())
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	want := `elicitray did not run the tool "echo": it needs the user's approval, and no desktop could show the approval window.`
	if !res.IsError || text != want {
		t.Errorf("host got %q (isError %v), want %q as a tool error%s", text, res.IsError, want, d.diagnostics())
	}
	if log := d.wrapperLog(); !strings.Contains(log, "Guarded tool calls are denied while nobody can approve them.") {
		t.Errorf("the host's log does not say why:\n%s", log)
	}
}
