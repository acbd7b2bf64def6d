//go:build linux

package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/internal/hubkit"
	"github.com/elicitray/elicitray/bridge"
)

// Edge cases found by a tester trying to break the hub's policy and
// config; each test's comment names the problem it once showed.

// TestBreakConfigUnknownKeys: a misspelt table or key in config.toml is
// silently ignored, so a rule the user wrote never applies and nothing
// says so (`[server.github]` for `[servers.github]`, `rules` for `rule`).
// LoadConfig already refuses a bad rule value; a key it does not know
// deserves the same sentence naming it (toml.MetaData.Undecoded).
func TestBreakConfigUnknownKeys(t *testing.T) {
	for _, tt := range []struct{ text, key string }{
		{"[server.github]\nrule = \"decline\"\n", "server.github"},
		{"[servers.github]\nrules = \"decline\"\n", "servers.github.rules"},
		{"[rate]\nbursts = 1\n", "rate.bursts"},
	} {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
			t.Fatal(err)
		}
		// Loaded (the rest of the file applies), with a sentence naming the key.
		c, err := config.Load(path)
		if err != nil || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], `"`+tt.key+`" is not a setting elicitray knows`) {
			t.Errorf("config %q: %v, warnings %q", tt.text, err, c.Warnings)
		}
	}
}

// TestBreakAcceptDefaultsConfirmation: `accept-defaults` is meant to skip
// forms whose answers are already filled in. A form with no field at all
// (the usual "Delete the production database?" confirmation), or whose
// only field is an optional tick box without a default, vacuously has "all
// required fields with defaults" and is accepted without a window: the
// most consequential prompts are the ones this rule answers "accept" to.
func TestBreakAcceptDefaultsConfirmation(t *testing.T) {
	_, sp, c, _ := policyHub(t, config.Config{Servers: map[string]config.Server{"def": {Rule: config.RuleAcceptDefaults}}})
	for _, schema := range []string{
		`{"type":"object","properties":{}}`,
		`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Really delete it?"}}}`,
	} {
		req := hubkit.FormRequest("def", "Delete the production database?")
		req.RequestedSchema = []byte(schema)
		done := hubkit.ApproveAsync(c, context.Background(), req)
		select {
		case a := <-done:
			t.Errorf("%s: answered %+v without asking", schema, a.Res)
		case shown := <-sp.Shown:
			shown.Answer(shownCancel)
			<-done
		}
	}
}

// TestBreakSteadyFloodNeverNotified: "one desktop notification sums up each
// burst" — but the notice waits until 2 s pass without a suppressed
// prompt, so a server that keeps asking a little faster than that (here
// twice a second, for 4.5 s) is suppressed the whole time and the user is
// never told while it lasts. A flood of an hour gives its notice an hour
// late.
func TestBreakSteadyFloodNeverNotified(t *testing.T) {
	h, sp, c, clock := policyHub(t, config.Config{Rate: config.Rate{Burst: 1, Every: config.Duration{Duration: time.Hour}}})
	notes := make(chan string, 8)
	h.Notify = func(title, body string) { notes <- title }
	ctx := context.Background()
	first := hubkit.ApproveAsync(c, ctx, hubkit.FormRequest("github", "allowed"))
	shown := <-sp.Shown
	// Twice a second, by the policy's clock, for 30 seconds and a bit.
	for range 62 {
		res, err := c.Approve(ctx, hubkit.FormRequest("github", "flood"))
		if err != nil || res.DecidedBy != "rate-limit" {
			t.Fatalf("%+v %v", res, err)
		}
		clock.Add(500 * time.Millisecond)
	}
	if got := <-notes; got != "github: 61 prompts suppressed" {
		t.Errorf("notification %q while the flood goes on", got)
	}
	shown.Answer(shownCancel)
	<-first
}

var shownCancel = bridge.Result{Action: bridge.ActionCancel}
