//go:build linux

package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/history"
)

// noWindowWait is how long a test looks for a window that must not appear.
// A refused link is answered before the hub is asked, so a window that
// did appear would do so within it.
const noWindowWait = 2 * time.Second

// TestEndToEndURL answers server-everything's URL-mode elicitation from the
// real consent window, with the official Go SDK as the host: Alt+D
// declines, Escape cancels a suspicious link, Tab Tab Return on "Open in
// browser" accepts (the browser cannot start here, so the window stays
// until closed, which answers nothing more), and a javascript: link is
// refused without a window; each decision is in the history.
func TestEndToEndURL(t *testing.T) {
	server := everythingServer(t)
	d := newParallelDesktop(t)
	cs := d.connect("everything", server)
	serverInfo := cs.InitializeResult().ServerInfo.Name
	const tool = "trigger-url-elicitation"
	const title = "elicitray — everything asks to open a link"

	// want is the newest history record expected after a user's decision.
	want := func(url, message, action string) urlDecision {
		return urlDecision{
			Decision: decision{Server: "everything", ServerInfo: serverInfo, Tool: tool, Action: action, DecidedBy: "user"},
			Mode:     "url", URL: url, Message: message,
		}
	}

	for _, tt := range []struct {
		name, url, message, id, key, says, action, screenshot string
		kept                                                  string // the link as history keeps it: no session id
	}{
		{"Alt+D declines", "https://auth.example.com/connect?session=7f1c2a90", "Connect your account to continue.",
			"e2e-decline", "alt+d", "User declined to open the URL (Elicitation ID: e2e-decline)", "decline", "url-prompt.png",
			"https://auth.example.com/connect?session=[redacted]"},
		{"Escape cancels a suspicious link", "http://user@192.168.0.1:8080/login", "Sign in to the router.",
			"e2e-cancel", "Escape", "User cancelled the URL elicitation (Elicitation ID: e2e-cancel)", "cancel", "url-suspicious.png",
			"http://user@192.168.0.1:8080/login"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := d.with(t)
			before := len(d.history())
			call := d.callWith(cs, tool, map[string]any{"url": tt.url, "message": tt.message, "elicitationId": tt.id})
			win, _ := d.window()
			if got := d.title(win); got != title {
				t.Errorf("window title %q, want %q", got, title)
			}
			d.screenshot(tt.screenshot)
			d.answer(win, tt.key)

			text := d.result(call)
			if !strings.Contains(text, tt.says) {
				t.Errorf("tool result does not say %q:\n%s", tt.says, text)
			}
			if diff := cmp.Diff(rawResult{Action: tt.action}, parseRawResult(t, text)); diff != "" {
				t.Errorf("ElicitResult the server received mismatch (-want +got):\n%s", diff)
			}
			d.checkNewest(before, want(tt.kept, tt.message, tt.action))
		})
	}

	t.Run("Tab Tab Return opens", func(t *testing.T) {
		d := d.with(t)
		const url, message = "https://auth.example.com/connect?session=2", "Connect your account to continue."
		before := len(d.history())
		call := d.callWith(cs, tool, map[string]any{"url": url, "message": message, "elicitationId": "e2e-accept"})
		win, _ := d.window()
		if got := d.title(win); got != title {
			t.Errorf("window title %q, want %q", got, title)
		}
		// The window takes input with the focus on Cancel: Tab → Decline →
		// Open.
		d.xdo("key", "--window", win, "Tab")
		d.xdo("key", "--window", win, "Tab")
		c, presses := d.pressUntilResult(win, "Return", call)

		text := d.text(c)
		if c.res.IsError {
			t.Fatalf("tools/call returned an error result: %s%s", text, d.diagnostics())
		}
		if says := "User completed the URL elicitation flow.\nElicitation ID: e2e-accept\nURL: " + url; !strings.Contains(text, says) {
			t.Errorf("tool result does not say %q:\n%s", says, text)
		}
		// URL mode: accept means only "opened it", with no content.
		if diff := cmp.Diff(rawResult{Action: "accept"}, parseRawResult(t, text)); diff != "" {
			t.Errorf("ElicitResult the server received mismatch (-want +got):\n%s", diff)
		}

		// No browser here: the window says so and stays, its Cancel now
		// "Close"; closing it answers nothing more.
		if d.visible(win) {
			t.Logf("after %d Return presses the window stays open (no browser to start): closing it with Escape", presses)
			t.Logf("closed after %d Escape presses", d.answer(win, "Escape"))
		} else {
			t.Logf("after %d Return presses the window closed by itself", presses)
		}
		d.checkNewest(before, want("https://auth.example.com/connect?session=[redacted]", message, "accept"))
		// A second answer from closing would be recorded at once: look a
		// moment longer, then again.
		time.Sleep(noWindowWait / 4)
		if n := len(d.history()); n != before+1 {
			t.Errorf("history holds %d new decisions after accepting and closing the window, want exactly one", n-before)
		}
	})

	t.Run("javascript: link refused without a window", func(t *testing.T) {
		d := d.with(t)
		const url, message = "javascript:alert(1)", "Click to continue."
		before := len(d.history())
		call := d.callWith(cs, tool, map[string]any{"url": url, "message": message, "elicitationId": "e2e-refused"})
		var c toolCall
		select {
		case c = <-call:
		case <-time.After(desktopWait):
			t.Fatalf("no tools/call result within %v%s", desktopWait, d.diagnostics())
		}
		// The server's own request failed with -32602: the host sees a
		// protocol error or an error result naming it.
		var text string
		if c.err != nil {
			text = c.err.Error()
		} else {
			text = d.text(c)
			if !c.res.IsError {
				t.Errorf("tools/call for a javascript: link is no error result:\n%s", text)
			}
		}
		t.Logf("the host got: %s", text)
		for _, says := range []string{"-32602", "https and http"} {
			if !strings.Contains(text, says) {
				t.Errorf("tool result does not say %q:\n%s", says, text)
			}
		}

		// Bounded: the refusal came before anyone asked the hub.
		hub := strconv.Itoa(d.hubPID())
		for end := time.Now().Add(noWindowWait); time.Now().Before(end); time.Sleep(pollEvery) {
			if ids := d.visibleWindows(hub); len(ids) > 0 {
				t.Fatalf("a window %v appeared for a refused javascript: link: %q%s", ids, d.title(ids[0]), d.diagnostics())
			}
		}

		// The wrapper records the refusal after answering the server: wait
		// for it.
		var recs []history.Record
		for deadline := time.Now().Add(desktopWait); ; time.Sleep(pollEvery) {
			if recs = d.history(); len(recs) > before || time.Now().After(deadline) {
				break
			}
		}
		if len(recs) != before+1 {
			t.Fatalf("history holds %d new records after a refused link, want one%s", len(recs)-before, d.diagnostics())
		}
		got := urlDecisionOf(recs[0])
		reason := got.Decision.Reason
		got.Decision.Reason = ""
		wantRec := want(url, message, "error")
		wantRec.Decision.DecidedBy = "error"
		if diff := cmp.Diff(wantRec, got); diff != "" {
			t.Errorf("newest history record mismatch (-want +got):\n%s", diff)
		}
		if !strings.Contains(reason, "https and http") {
			t.Errorf("history reason %q does not say that only https and http links open", reason)
		}
	})
}

// urlDecision is what the history says about a URL-mode elicitation.
type urlDecision struct {
	Decision decision
	Mode     string
	URL      string
	Message  string
}

func urlDecisionOf(r history.Record) urlDecision {
	return urlDecision{Decision: decisionOf(r), Mode: r.Mode, URL: r.URL, Message: r.Message}
}

// checkNewest checks that the history holds one record more than before,
// and that the newest is want.
func (d *testDesktop) checkNewest(before int, want urlDecision) {
	d.t.Helper()
	recs := d.history()
	if len(recs) != before+1 {
		d.t.Fatalf("history holds %d new decisions after one answer, want one%s", len(recs)-before, d.diagnostics())
	}
	if diff := cmp.Diff(want, urlDecisionOf(recs[0])); diff != "" {
		d.t.Errorf("newest history record mismatch (-want +got):\n%s", diff)
	}
}

// callWith is call with arguments.
func (d *testDesktop) callWith(cs *mcp.ClientSession, name string, args map[string]any) <-chan toolCall {
	ch := make(chan toolCall, 1)
	ctx := d.t.Context()
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		ch <- toolCall{res, err}
	}()
	return ch
}

// text is the text of a call's result; the call must have succeeded.
func (d *testDesktop) text(c toolCall) string {
	d.t.Helper()
	if c.err != nil {
		d.t.Fatalf("tools/call failed: %v%s", c.err, d.diagnostics())
	}
	var text strings.Builder
	for _, content := range c.res.Content {
		if tc, ok := content.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String()
}

// pressUntilResult presses key in window win until the call's result
// arrives, and returns it and the number of presses. Like answer, it
// presses once the prompt takes input (armed); unlike answer, it does not
// wait for the window to close, which a URL prompt does not when the
// browser cannot start after accept, and it presses again while the
// result does not come.
func (d *testDesktop) pressUntilResult(win, key string, call <-chan toolCall) (toolCall, int) {
	d.t.Helper()
	d.armed(win)
	d.releaseKeys()
	defer d.releaseKeys(key)
	deadline := time.Now().Add(desktopWait)
	presses := 0
	for {
		if d.visible(win) {
			out, err := d.x("xdotool", "key", "--window", win, key).CombinedOutput()
			presses++
			// The window may have gone between press and release.
			if err != nil && d.visible(win) {
				d.t.Fatalf("xdotool key --window %s %s: %v\n%s%s", win, key, err, out, d.diagnostics())
			}
		}
		select {
		case c := <-call:
			return c, presses
		case <-time.After(pressAgain):
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("no tools/call result after pressing %s for %v%s", key, desktopWait, d.diagnostics())
		}
	}
}
