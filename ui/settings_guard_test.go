package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/ui/state"
)

// TestSettingsGuard: a server's row shows its guarded tools and the
// destructive check box as given; what the user types there is saved as
// patterns, a malformed pattern is refused with a sentence, and the
// defaults have no guard to edit.
func TestSettingsGuard(t *testing.T) {
	s := sampleSettings()
	s.Servers[0].Guard, s.Servers[0].GuardDestructive = []string{"delete_*", "deploy"}, true
	h := newSettingsHarness(t, s)
	if got := h.field("github", "Guard").entry.Text; got != "delete_*, deploy" {
		t.Errorf("github's Guard shows %q, want the patterns given", got)
	}
	if !h.row("github").destructive.Checked {
		t.Errorf("github's destructive check box is not ticked as given")
	}
	if h.row("").guard != nil {
		t.Errorf("the defaults offer a guard: guards are per server")
	}

	h.retype("everything", "Guard", "drop_[")
	test.Tap(h.v.saveBtn)
	if got := h.errorText("everything", "Guard"); got == "" {
		t.Fatalf("a malformed pattern shows no error")
	}
	if len(h.saved) != 0 {
		t.Fatalf("saved %d times with a malformed pattern", len(h.saved))
	}
	h.retype("everything", "Guard", " wipe , drop_* ,")
	h.row("everything").destructive.SetChecked(true)
	h.row("github").destructive.SetChecked(false)
	test.Tap(h.v.saveBtn)
	got := h.onlySaved()
	want := []state.ServerPolicy{
		{Name: "everything", Rule: "accept-defaults", Burst: 3, Every: s.Servers[1].Every, Timeout: s.Servers[1].Timeout, Own: true,
			Guard: []string{"wipe", "drop_*"}, GuardDestructive: true},
		{Name: "github", Rule: "ask", Burst: 1, Every: s.Servers[0].Every, Timeout: s.Servers[0].Timeout, Own: true,
			Guard: []string{"delete_*", "deploy"}},
	}
	if diff := cmp.Diff(want, got.Servers); diff != "" {
		t.Errorf("saved servers mismatch (-want +got):\n%s", diff)
	}
}
