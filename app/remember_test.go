//go:build linux

package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/desktop"
	"github.com/elicitray/elicitray/app/internal/hubkit"
	"github.com/elicitray/elicitray/app/internal/testkit"

	"github.com/elicitray/elicitray/app/hub"

	"github.com/elicitray/elicitray/app/remember"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
)

// TestPrefillAndSettingsSave: the free text the user sent (no secret, no
// number) comes back as the next prompt's Prefill for the same question,
// never for another tool's or another input request's, unless [remember]
// prefill is off; Settings' Save forgets the rules chosen and writes the
// option.
func TestPrefillAndSettingsSave(t *testing.T) {
	testkit.Home(t)
	p := paths.FromEnv(os.Getenv)
	h := &hub.Hub{RulesPath: remember.Path(p)}
	req := &bridge.Request{Server: "shop", Mode: "form", Message: "Who?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string","format":"password"},"n":{"type":"integer"}}}`)}
	it, err := h.Prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	if it.Prompt.Remember != nil {
		t.Error("a form with a password may be remembered")
	}
	h.KeepLastValues(it, bridge.Result{Action: bridge.ActionAccept, DecidedBy: bridge.DecidedByUser,
		Content: map[string]any{"user": "ada", "password": "hunter2", "n": json.Number("7")}})
	it, _ = h.Prepare(req)
	h.RefreshPrefill(it) // as showNext does
	if want := map[string]any{"user": "ada"}; !equalJSON(it.Prompt.Prefill, want) {
		t.Errorf("Prefill = %v, want %v", it.Prompt.Prefill, want)
	}
	for _, other := range []bridge.Request{{Tool: "set_priority"}, {InputKey: "who"}} {
		other.Server, other.Mode, other.Message, other.RequestedSchema = req.Server, req.Mode, req.Message, req.RequestedSchema
		it, _ := h.Prepare(&other)
		if h.RefreshPrefill(it); it.Prompt.Prefill != nil {
			t.Errorf("the same form asked by tool %q, input request %q, opens with %v", other.Tool, other.InputKey, it.Prompt.Prefill)
		}
	}
	off := false
	h.Config.Remember.Prefill = &off
	if h.RefreshPrefill(it); it.Prompt.Prefill != nil {
		t.Errorf("with prefill off, Prefill = %v", it.Prompt.Prefill)
	}

	m := h.Memory()
	r, err := m.Add(remember.Rule{Server: "shop", Message: "Ship?", Schema: "s", Action: bridge.ActionDecline, Saved: time.Now()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w := &desktop.Windows{Hub: h, Paths: p}
	s := desktop.SettingsOf(h.Config, nil)
	s.Remember = h.RememberSettings(h.Config)
	if len(s.Remember.Rules) != 1 || s.Remember.Prefill {
		t.Fatalf("Settings opens on %+v, want the one rule, prefill off", s.Remember)
	}
	s.Remember.Prefill, s.Remember.Forget = true, []int{r.ID}
	if err := w.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	if rules, _ := m.Rules(time.Now()); len(rules) != 0 {
		t.Errorf("after Save with Forget, rules %+v remain", rules)
	}
	c, err := config.Load(p.Config)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Remember.Prefills() {
		t.Error("prefill ticked in Settings is off in config.toml")
	}
}

func equalJSON(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestConfigRemember: [remember] is read (for, prefill), a mistake in it
// is named, and a file that says nothing means 30 days and pre-filling.
func TestConfigRemember(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("[remember]\nfor = \"48h\"\nprefill = false\n")
	c, err := config.Load(path)
	if err != nil || len(c.Warnings) > 0 {
		t.Fatalf("LoadConfig: %v, warnings %v", err, c.Warnings)
	}
	if c.Remember.Holds() != 48*time.Hour || c.Remember.Prefills() {
		t.Errorf("[remember] read as %+v", c.Remember)
	}
	write("timeout = \"1m\"\n")
	if c, _ = config.Load(path); c.Remember.Holds() != config.DefaultRememberFor || !c.Remember.Prefills() {
		t.Errorf("without [remember]: %+v, want 30 days and prefill", c.Remember)
	}
	write("[remember]\nfor = \"a month\"\n")
	if _, err := config.Load(path); err == nil || !strings.Contains(err.Error(), "for") {
		t.Errorf("a bad duration: %v, want an error naming it", err)
	}
	// Saved by Settings and read again: the same.
	off := false
	if err := config.Save(path, config.Config{Remember: config.Remember{For: config.Duration{Duration: time.Hour}, Prefill: &off}}); err != nil {
		t.Fatal(err)
	}
	if c, err = config.Load(path); err != nil || c.Remember.Holds() != time.Hour || c.Remember.Prefills() {
		t.Errorf("round trip: %+v, %v", c.Remember, err)
	}
}

// TestRememberAnswersQueued: ticking "Always answer this way" answers from
// the rule the identical prompts already waiting behind the window, and
// only those; the next identical request never reaches the Prompter.
func TestRememberAnswersQueued(t *testing.T) {
	h, sp, c := runTestHub(t, time.Hour)
	h.RulesPath = remember.Path(paths.FromEnv(os.Getenv))
	ctx := context.Background()
	first := hubkit.ApproveAsync(c, ctx, hubkit.FormRequest("shop", "How many?"))
	shown := <-sp.Shown
	same := hubkit.ApproveAsync(c, ctx, hubkit.FormRequest("shop", "How many?"))
	other := hubkit.ApproveAsync(c, ctx, hubkit.FormRequest("shop", "How many more?"))
	hubkit.WaitQueued(t, h, 3)
	if shown.Prompt.Remember == nil {
		t.Fatal("a plain form is not offered \"Always answer this way\"")
	}
	res := bridge.Result{Action: bridge.ActionAccept, Content: map[string]any{"n": json.Number("2")}}
	shown.Prompt.Remember(res)
	shown.Answer(res)
	if a := <-first; a.Err != nil || a.Res.DecidedBy != bridge.DecidedByUser {
		t.Fatalf("first: %+v, %v", a.Res, a.Err)
	}
	a := <-same
	if a.Err != nil || a.Res.DecidedBy != bridge.DecidedByRule || a.Res.Content["n"] != json.Number("2") {
		t.Fatalf("the identical waiting prompt: %+v, %v; want the rule's accept", a.Res, a.Err)
	}
	// The other question is shown next, pre-filled with nothing: it was
	// never answered.
	next := <-sp.Shown
	if next.Prompt.Request.Message != "How many more?" || next.Prompt.Prefill != nil {
		t.Errorf("shown next: %q with Prefill %v", next.Prompt.Request.Message, next.Prompt.Prefill)
	}
	next.Answer(bridge.Result{Action: bridge.ActionDecline})
	<-other
	if a := <-hubkit.ApproveAsync(c, ctx, hubkit.FormRequest("shop", "How many?")); a.Res == nil || a.Res.DecidedBy != bridge.DecidedByRule {
		t.Errorf("a later identical request: %+v, %v; want the rule", a.Res, a.Err)
	}
	select {
	case p := <-sp.Shown:
		t.Errorf("a window was shown for %q", p.Prompt.Request.Message)
	default:
	}
}

// TestPrefillKeepsNothingUnsure (issue 24, a break-it session's findings):
// nothing is kept or pre-filled for a question asked while several tool
// calls ran (its tool is not known, so it cannot be told from another
// tool's), nor with pre-filling off, nor a link with a password typed into
// a field that does not look secret; such a question is not offered
// "Always answer this way" and no rule answers it.
func TestPrefillKeepsNothingUnsure(t *testing.T) {
	testkit.Home(t)
	h := &hub.Hub{RulesPath: remember.Path(paths.FromEnv(os.Getenv))}
	schema := json.RawMessage(`{"type":"object","properties":{"ticket":{"type":"string"},"url":{"type":"string","title":"Database URL"}}}`)
	typed := bridge.Result{Action: bridge.ActionAccept, DecidedBy: bridge.DecidedByUser,
		Content: map[string]any{"ticket": "PROD-1", "url": "postgres://admin:Hunter2-prod@db.internal/prod"}}
	ask := func(req bridge.Request) *hub.Item {
		t.Helper()
		req.Server, req.Mode, req.Message, req.RequestedSchema = "brk", "form", "Which ticket?", schema
		it, err := h.Prepare(&req)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}

	unknown := ask(bridge.Request{ToolUnknown: true})
	if h.OfferRemember(unknown); unknown.Prompt.Remember != nil {
		t.Error("a question whose tool is not known is offered \"Always answer this way\"")
	}
	if _, err := h.Memory().Add(remember.Rule{Server: "brk", Message: "Which ticket?", Schema: remember.CanonicalSchema(schema), Action: bridge.ActionDecline}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if res := h.RememberedAnswer(unknown); res != nil {
		t.Errorf("a rule for no tool answered a question whose tool is not known: %+v", res)
	}
	h.KeepLastValues(unknown, typed)
	if h.RefreshPrefill(unknown); unknown.Prompt.Prefill != nil {
		t.Errorf("a question whose tool is not known opens with %v", unknown.Prompt.Prefill)
	}
	if rf, _ := h.Memory().Load(); len(rf.Last) != 0 {
		t.Errorf("values were kept for a question whose tool is not known: %v", rf.Last)
	}

	known := ask(bridge.Request{Tool: "set_priority"})
	off := false
	h.Config.Remember.Prefill = &off
	h.KeepLastValues(known, typed)
	if rf, _ := h.Memory().Load(); len(rf.Last) != 0 {
		t.Errorf("with pre-filling off, values were kept: %v", rf.Last)
	}
	h.Config.Remember.Prefill = nil
	h.KeepLastValues(known, typed)
	if h.RefreshPrefill(known); !equalJSON(known.Prompt.Prefill, map[string]any{"ticket": "PROD-1"}) {
		t.Errorf("the form opens with %v, want the ticket only: never a link with a password", known.Prompt.Prefill)
	}
	b, err := os.ReadFile(remember.Path(paths.FromEnv(os.Getenv)))
	if err != nil || strings.Contains(string(b), "Hunter2") {
		t.Errorf("the password in the link is stored (%v):\n%s", err, b)
	}
}
