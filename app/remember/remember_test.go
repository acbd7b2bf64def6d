package remember

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/elicitray/elicitray/app/platform"
	"time"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
)

// TestCanonicalSchema: the same requestedSchema with another key order or
// spacing is the same question; another constraint is another question.
func TestCanonicalSchema(t *testing.T) {
	t.Parallel()
	a := CanonicalSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":10}}}`))
	b := CanonicalSchema(json.RawMessage(` { "properties" : { "n" : { "maximum":10, "type":"integer" } }, "type":"object" }`))
	c := CanonicalSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":11}}}`))
	if a != b {
		t.Error("reordered keys make another question")
	}
	if a == c {
		t.Error("another maximum is the same question")
	}
}

// TestMemoryRules: a rule holds until it expires, for its own question
// only (server, tool, input request key, message and schema), a newer
// answer to the same question replaces it, forget removes one or all, and
// an unknown number is a clear error.
func TestMemoryRules(t *testing.T) {
	t.Parallel()
	m := &Memory{Path: filepath.Join(t.TempDir(), "data", rememberedName)}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	add := func(server, msg, action string) Rule {
		t.Helper()
		r, err := m.Add(Rule{Server: server, Tool: "deploy", Message: msg, Schema: "s", Action: action, Saved: now, Expires: now.Add(time.Hour)}, now)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1 := add("shop", "Ship where?", bridge.ActionAccept)
	add("bank", "Pay?", bridge.ActionDecline)
	q := Question{Server: "shop", Tool: "deploy", Message: "Ship where?", Schema: "s"}
	if r, ok, _ := m.Match(q, now); !ok || r.ID != r1.ID {
		t.Fatalf("match = %+v, %v; want rule %d", r, ok, r1.ID)
	}
	if _, ok, _ := m.Match(q, now.Add(time.Hour)); ok {
		t.Error("an expired rule still answers")
	}
	for _, other := range []Question{
		{Server: "shop", Tool: "deploy", Message: "Ship where now?", Schema: "s"},
		{Server: "shop", Tool: "set_priority", Message: "Ship where?", Schema: "s"},
		{Server: "shop", Tool: "deploy", Input: "confirm", Message: "Ship where?", Schema: "s"},
	} {
		if _, ok, _ := m.Match(other, now); ok {
			t.Errorf("%+v is answered by the rule for %+v", other, q)
		}
	}
	r3 := add("shop", "Ship where?", bridge.ActionDecline)
	rules, _ := m.Rules(now)
	if len(rules) != 2 || r3.ID != 3 {
		t.Fatalf("after answering the same question again: rules %+v, new ID %d; want 2 rules, ID 3", rules, r3.ID)
	}
	if _, err := m.Forget(99, false); !errors.Is(err, ErrNotFound) {
		t.Errorf("forgetting rule 99: %v, want ErrRuleNotFound", err)
	}
	if gone, err := m.Forget(r3.ID, false); err != nil || len(gone) != 1 {
		t.Fatalf("forget %d: %v, %v", r3.ID, gone, err)
	}
	if gone, err := m.Forget(0, true); err != nil || len(gone) != 1 {
		t.Fatalf("forget --all: %v, %v", gone, err)
	}
	fi, err := os.Stat(m.Path)
	if runtime.GOOS != "windows" && (err != nil || fi.Mode().Perm() != 0o600) {
		t.Errorf("the file is %v (%v), want 0600", fi.Mode(), err)
	}
}

// TestMemoryUntrusted: a link in place of the file, or a file others may
// read, is refused with a sentence, never read or written through.
func TestMemoryUntrusted(t *testing.T) {
	t.Parallel()
	if platform.UnderWine() {
		t.Skip("Wine 8 makes os.Symlink a Unix symbolic link, which Go's Windows build opens as the file, and keeps no access lists")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.json")
	if err := os.WriteFile(target, []byte(`{"rules":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m := &Memory{Path: filepath.Join(dir, rememberedName)}
	if err := os.Symlink(target, m.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Rules(time.Now()); !errors.Is(err, paths.ErrUntrusted) {
		t.Errorf("reading through a link: %v, want ErrUntrusted", err)
	}
	if _, err := m.Add(Rule{Server: "x"}, time.Now()); !errors.Is(err, paths.ErrUntrusted) {
		t.Errorf("writing through a link: %v, want ErrUntrusted", err)
	}
	os.Remove(m.Path)
	if runtime.GOOS == "windows" {
		return // no modes: the access list decides (platform.FileOpenToOthers)
	}
	if err := os.WriteFile(m.Path, []byte(`{"rules":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Rules(time.Now()); !errors.Is(err, paths.ErrUntrusted) {
		t.Errorf("reading a file others may read: %v, want ErrUntrusted", err)
	}
}

// TestRememberable: URL mode and forms with a secret are never
// remembered; a plain form is.
func TestRememberable(t *testing.T) {
	t.Parallel()
	parse := func(s string) *elicit.Form {
		f, err := elicit.Parse(json.RawMessage(s))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if why := Rememberable(nil, parse(`{"type":"object","properties":{"city":{"type":"string"}}}`)); why != "" {
		t.Errorf("a plain form is not remembered: %s", why)
	}
	if why := Rememberable(nil, parse(`{"type":"object","properties":{"api_token":{"type":"string"}}}`)); why == "" {
		t.Error("a form asking for a token may be remembered")
	}
	if why := Rememberable(nil, nil); why == "" {
		t.Error("a URL prompt may be remembered")
	}
	// A choice among PINs: elicit does not mask a choice, but history
	// redacts it, so it is not kept here either.
	pins := `{"type":"object","properties":{"pin":{"type":"string","title":"Bank PIN","enum":["4821","9034"]}}}`
	if why := Rememberable(&bridge.Request{RequestedSchema: json.RawMessage(pins)}, parse(pins)); why == "" {
		t.Error("a choice among PINs may be remembered")
	}
}

// TestPrefillLeavesTypedConfirmations: a value that copies text the
// question shows (its message, the field's title or description) is not
// pre-filled, whatever language the question is in: it is a typed
// confirmation, which the person types each time. Other free text is.
func TestPrefillLeavesTypedConfirmations(t *testing.T) {
	t.Parallel()
	form, err := elicit.Parse([]byte(`{"type":"object","properties":{
		"repo":{"type":"string","description":"Type acme/prod exactly to delete it."},
		"db":{"type":"string","title":"数据库"},
		"reason":{"type":"string","title":"Reason"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]any{"repo": "acme/prod", "db": "orders", "reason": "pool exhaustion"}
	got := PrefillValues(form, "输入 orders 以删除该数据库", last)
	if want := map[string]any{"reason": "pool exhaustion"}; !maps.Equal(got, want) {
		t.Errorf("PrefillValues = %v, want %v", got, want)
	}
}
