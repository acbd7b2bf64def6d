//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/bridge"
)

// TestEndToEndGuardFollowsConfig (issue 14): a running wrapper takes a
// change of its server's guard in config.toml on the host's next
// tools/call, without a restart. Started with nothing guarded, server-
// everything's echo runs at once; with `guard = ["echo"]` written by hand
// (in place, as many editors do), the next echo waits in a window and is
// denied there; a broken edit keeps the guard (the host's log says so in
// one sentence) and the next echo waits again, approved this time; the
// guard taken away by a save as Settings makes it (a new file renamed over
// the old), echo runs at once again. History holds the two decisions.
func TestEndToEndGuardFollowsConfig(t *testing.T) {
	server := everythingServer(t)
	d := newParallelDesktop(t)
	d.config("[servers.live]\nrule = \"ask\"\n")
	cs := d.connect("live", server)
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatalf("tools/list: %v%s", err, d.diagnostics())
	}

	echo := func(message string) <-chan toolCall {
		return d.callArgs(cs, "echo", map[string]any{"message": message})
	}
	outcome := d.outcome
	expect := func(ch <-chan toolCall, want string, wantError bool) {
		t.Helper()
		if text, isError := outcome(ch); text != want || isError != wantError {
			t.Errorf("host got %q (isError %v), want %q (isError %v)%s", text, isError, want, wantError, d.diagnostics())
		}
	}
	// logSays waits for the wrapper to say it read the file: what a user
	// sees in the host's log, and the moment the change is in force.
	logSays := func(sentence string) {
		t.Helper()
		d.waitFor("the host's log saying "+sentence, func() bool { return strings.Contains(d.wrapperLog(), sentence) })
	}

	expect(echo("before"), "Echo: before", false)

	d.config("[servers.live]\nrule = \"ask\"\nguard = [\"echo\"]\n")
	logSays(`elicitray: live: config.toml changed: calls of "echo" now wait for your approval.`)
	ch := echo("guarded")
	win, _ := d.window()
	if title := d.title(win); !strings.Contains(title, "live") {
		t.Errorf("window title %q does not name the server", title)
	}
	d.answer(win, "alt+d")
	expect(ch, `The user denied the call of the tool "echo" in elicitray; it did not run.`, true)

	d.config("[servers.live]\nguard = [\"echo\"\n")
	broken := `so this wrapper keeps the settings it had: calls of "echo" wait for your approval.`
	logSays(broken)
	ch = echo("still guarded")
	win, _ = d.window()
	d.answer(win, "Return")
	expect(ch, "Echo: still guarded", false)
	if n := strings.Count(d.wrapperLog(), broken); n != 1 {
		t.Errorf("the broken config is said %d times, want once:\n%s", n, d.wrapperLog())
	}

	if err := config.Save(d.paths.Config, config.Config{}); err != nil {
		t.Fatal(err)
	}
	logSays(`elicitray: live: config.toml changed: no tool call waits for your approval.`)
	expect(echo("free"), "Echo: free", false)

	var got []string
	for _, r := range d.history("--kind", "tool call") {
		got = append(got, r.Tool+" "+r.Action)
	}
	want := []string{"echo " + bridge.ActionAccept, "echo " + bridge.ActionDecline} // newest first
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history of tool calls mismatch (-want +got):\n%s", diff)
	}
}
