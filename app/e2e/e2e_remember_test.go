//go:build linux

package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/remember"

	"github.com/elicitray/elicitray/bridge"
)

// TestEndToEndRemember (issue 14, "Remember the answer") drives the real
// wrapper and hub on the X server: an answer given with "Always answer
// this way" ticked answers the second identical request without a window,
// history says it was the rule and names it, `elicitray rules list` shows
// it and `elicitray rules forget` brings the window back, pre-filled with
// the values last given. A form with a secret field remembers nothing:
// neither a rule nor its secret.
func TestEndToEndRemember(t *testing.T) {
	d := newParallelDesktop(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	d.env = append(d.environ(), rawAskServerEnv+"=1") // inherited by the wrapper, and so by its server
	cs := d.connect("shop", exe)
	ship := map[string]any{
		"message": "Ship to which city?",
		"schema":  `{"type":"object","properties":{"city":{"type":"string","title":"City"}},"required":["city"]}`,
	}
	// The same schema with its keys in another order and other spacing is
	// the same question.
	shipAgain := map[string]any{
		"message": "Ship to which city?",
		"schema":  `{ "required":["city"], "properties":{"city":{"title":"City","type":"string"}}, "type":"object" }`,
	}
	const want = `{"action":"accept","content":{"city":"Lisbon"}}`

	call := d.callWith(cs, "ask", ship)
	win, _ := d.window()
	d.typeInto(win, "Lisbon")
	// Tab goes from the field to "Don't ask again for an hour", then to
	// "Always answer this way", which Space ticks.
	d.xdo("key", "--window", win, "Tab", "Tab", "space")
	d.screenshot("remember-prompt.png")
	d.answer(win, "Return")
	if got := d.result(call); got != want {
		t.Fatalf("the first answer reached the server as %s, want %s", got, want)
	}

	// The second identical request: answered by the rule, no window.
	if got := d.result(d.callWith(cs, "ask", shipAgain)); got != want {
		t.Fatalf("the remembered answer reached the server as %s, want %s", got, want)
	}
	recs := d.history()
	if len(recs) != 2 {
		t.Fatalf("history has %d records, want 2%s", len(recs), d.diagnostics())
	}
	byRule := recs[0] // newest first
	if byRule.DecidedBy != bridge.DecidedByRule || !strings.Contains(byRule.Reason, "remembered rule 1 for shop: accept") {
		t.Errorf("the second request is in history as decided by %q (%q), want the remembered rule named", byRule.DecidedBy, byRule.Reason)
	}
	if recs[1].DecidedBy != bridge.DecidedByUser {
		t.Errorf("the first request is in history as decided by %q, want the user", recs[1].DecidedBy)
	}

	out := d.elicitray("rules", "list")
	for _, s := range []string{"shop", `accept {"city":"Lisbon"}`, "Ship to which city?"} {
		if !strings.Contains(out, s) {
			t.Errorf("`elicitray rules list` does not show %q:\n%s", s, out)
		}
	}
	if out := d.elicitray("rules", "forget", "1"); !strings.Contains(out, "Forgot remembered rule 1 for shop") {
		t.Errorf("`elicitray rules forget 1` said %q", out)
	}
	if out := d.elicitray("rules", "list"); !strings.Contains(out, "No answers are remembered") {
		t.Errorf("after forget, `elicitray rules list` shows:\n%s", out)
	}

	// Forgotten: the window is back, and its field holds the city last
	// given, which Return alone does not send (issue 24): it stays on the
	// field, from where Shift+Tab reaches Submit.
	call = d.callWith(cs, "ask", ship)
	win, _ = d.window()
	d.press(win, "Return", "shift+Tab")
	d.answer(win, "space")
	if got := d.result(call); got != want {
		t.Errorf("the pre-filled form sent %s, want %s", got, want)
	}

	t.Run("secret", func(t *testing.T) {
		d := d.with(t)
		login := map[string]any{
			"message": "Log in to the shop",
			"schema":  `{"type":"object","properties":{"user":{"type":"string","title":"User"},"password":{"type":"string","title":"Password","format":"password"}},"required":["user","password"]}`,
		}
		for i := range 2 {
			// Each time a window: nothing was remembered, whatever was
			// pressed. The second time the user name is pre-filled, the
			// password is not; Return then stops at the user name, the
			// user's last answer, from where Shift+Tab reaches Submit.
			call := d.callWith(cs, "ask", login)
			win, _ := d.window()
			if i == 0 {
				d.typeInto(win, "ada")
			}
			d.xdo("key", "--window", win, "Tab")
			d.xdo("type", "--window", win, "hunter2-secret")
			if i == 1 {
				d.xdo("key", "--window", win, "Return", "shift+Tab")
				d.answer(win, "space")
			} else {
				d.answer(win, "Return")
			}
			if got := d.result(call); !strings.Contains(got, `"password":"hunter2-secret"`) || !strings.Contains(got, `"user":"ada"`) {
				t.Fatalf("the server received %s", got)
			}
		}
		b, err := os.ReadFile(remember.Path(d.paths))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "hunter2-secret") {
			t.Errorf("the secret is stored in %s:\n%s", remember.Path(d.paths), b)
		}
		if !strings.Contains(string(b), `"ada"`) {
			t.Errorf("the user name, no secret, is not kept to pre-fill the form:\n%s", b)
		}
		fi, err := os.Stat(remember.Path(d.paths))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is mode %v (%v), want 0600", remember.Path(d.paths), fi.Mode(), err)
		}
	})
}
