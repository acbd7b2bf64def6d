package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/ui/state"
)

// sampleSettings is the config.toml of docs/configuration.md, with one more
// server.
func sampleSettings() state.Settings {
	return state.Settings{
		Defaults: state.ServerPolicy{Burst: 3, Every: 5 * time.Second, Timeout: 10 * time.Minute},
		Servers: []state.ServerPolicy{
			{Name: "github", Rule: "ask", Burst: 1, Every: 30 * time.Second, Timeout: 2 * time.Minute},
			{Name: "everything", Rule: "accept-defaults", Burst: 3, Every: 5 * time.Second, Timeout: 90 * time.Minute},
		},
	}
}

// settingsHarness is a settings view on a test window, recording what is
// saved and whether the window was closed.
type settingsHarness struct {
	t       *testing.T
	v       *settingsView
	c       fyne.Canvas
	saved   []state.Settings
	saveErr error // what save returns
	closed  int
}

func newSettingsHarness(t *testing.T, s state.Settings) *settingsHarness {
	t.Helper()
	test.NewTempApp(t)
	h := &settingsHarness{t: t}
	h.v = newSettingsView(s, func(s state.Settings) error {
		h.saved = append(h.saved, s)
		return h.saveErr
	})
	h.v.closeWindow = func() { h.closed++ }
	w := test.NewTempWindow(t, h.v.content)
	w.Resize(settingsSize)
	h.c = w.Canvas()
	return h
}

// row is the policy row of server ("" for the defaults).
func (h *settingsHarness) row(server string) *policyRow {
	h.t.Helper()
	for _, r := range h.v.rows() {
		if r.name == server {
			return r
		}
	}
	h.t.Fatalf("no row for server %q", server)
	return nil
}

// field is the named field ("Burst", "Every", "Timeout") of server's row.
func (h *settingsHarness) field(server, name string) *settingField {
	h.t.Helper()
	r := h.row(server)
	for _, f := range r.fields() {
		if f.name == name {
			return f
		}
	}
	h.t.Fatalf("no field %q", name)
	return nil
}

// retype replaces the field's text the way a user does: click, select all,
// type, then leave the field.
func (h *settingsHarness) retype(server, name, text string) {
	h.t.Helper()
	e := h.field(server, name).entry
	h.c.Focus(e)
	e.TypedShortcut(&fyne.ShortcutSelectAll{})
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
	test.Type(e, text)
	h.c.Unfocus()
}

// servers lists the names of the server rows, in order.
func (h *settingsHarness) servers() []string {
	var out []string
	for _, r := range h.v.servers {
		out = append(out, r.name)
	}
	return out
}

// addServer types name in the add entry and clicks Add server.
func (h *settingsHarness) addServer(name string) {
	h.t.Helper()
	h.c.Focus(h.v.addName)
	test.Type(h.v.addName, name)
	test.Tap(h.v.add)
}

// errorText is the error shown under the field, "" when none shows.
func (h *settingsHarness) errorText(server, name string) string {
	f := h.field(server, name)
	if !f.errLabel.Visible() {
		return ""
	}
	return f.errLabel.Text
}

// onlySaved returns the one Settings saved, failing unless exactly one was.
func (h *settingsHarness) onlySaved() state.Settings {
	h.t.Helper()
	if len(h.saved) != 1 {
		h.t.Fatalf("save called %d times, want once", len(h.saved))
	}
	return h.saved[0]
}

func TestSettingsShowsGivenSettings(t *testing.T) {
	h := newSettingsHarness(t, sampleSettings())
	// Sorted by name: a long list stays findable.
	if diff := cmp.Diff([]string{"everything", "github"}, h.servers()); diff != "" {
		t.Errorf("servers mismatch (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		server, burst, every, timeout, rule, summary string
	}{
		{"", "3", "5s", "10m", "", "3 at once, then one every 5s; a prompt waits 10m for an answer."},
		{"github", "1", "30s", "2m", "Ask me", "1 at once, then one every 30s; a prompt waits 2m for an answer."},
		{"everything", "3", "5s", "1h30m", "Accept when every required field has a default",
			"3 at once, then one every 5s; a prompt waits 1h30m for an answer."},
	} {
		r := h.row(tt.server)
		got := []string{r.burst.entry.Text, r.every.entry.Text, r.timeout.entry.Text, r.summary.Text}
		want := []string{tt.burst, tt.every, tt.timeout, tt.summary}
		if r.rule != nil {
			got = append(got, r.rule.Selected)
		}
		if tt.rule != "" {
			want = append(want, tt.rule)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("row %q mismatch (-want +got):\n%s", tt.server, diff)
		}
	}
	if h.row("").rule != nil {
		t.Error("the defaults have a rule select; the config has no default rule")
	}
	if h.v.saveBtn.Disabled() {
		t.Error("Save is disabled on valid settings")
	}
	if h.v.noServers.Visible() {
		t.Error(`"no server" shows although two are listed`)
	}
	texts := visibleTexts(h.v.content)
	for _, want := range []string{"Defaults", "Servers", "everything", "github",
		"Such a form is accepted with its defaults, without a window; other prompts, and every link, are asked.",
		"Every prompt opens a window."} {
		if !contains(texts, want) {
			t.Errorf("the window does not show %q; it shows %q", want, texts)
		}
	}
}

func TestSettingsSaveSendsEdits(t *testing.T) {
	h := newSettingsHarness(t, sampleSettings())
	h.retype("", "Burst", "5")
	h.retype("", "Every", " 1m ") // spaces around are forgiven
	h.retype("github", "Timeout", "1h30m")
	h.row("github").rule.SetSelected("Always decline")
	h.row("everything").rule.SetSelected("Always cancel")
	test.Tap(h.v.saveBtn)

	want := state.Settings{
		Defaults: state.ServerPolicy{Burst: 5, Every: time.Minute, Timeout: 10 * time.Minute},
		Servers: []state.ServerPolicy{
			// Changed in the window: they have settings of their own.
			{Name: "everything", Rule: "cancel", Burst: 3, Every: 5 * time.Second, Timeout: 90 * time.Minute, Own: true},
			{Name: "github", Rule: "decline", Burst: 1, Every: 30 * time.Second, Timeout: 90 * time.Minute, Own: true},
		},
	}
	if diff := cmp.Diff(want, h.onlySaved()); diff != "" {
		t.Errorf("saved settings mismatch (-want +got):\n%s", diff)
	}
	if h.closed != 1 {
		t.Errorf("window closed %d times after a successful save, want once", h.closed)
	}
}

func TestSettingsRuleHelpFollowsSelection(t *testing.T) {
	h := newSettingsHarness(t, sampleSettings())
	r := h.row("github")
	for _, c := range ruleChoices() {
		r.rule.SetSelected(c.label)
		if r.ruleHelp.Text != c.help {
			t.Errorf("rule %q: help says %q, want %q", c.label, r.ruleHelp.Text, c.help)
		}
		if r.ruleValue != c.value {
			t.Errorf("rule %q: value %q, want %q", c.label, r.ruleValue, c.value)
		}
	}
}

func TestSettingsValidation(t *testing.T) {
	for _, tt := range []struct {
		server, field, text string
		wantErr             string
	}{
		{"", "Burst", "0", "Burst must be at least 1."},
		{"", "Burst", "-2", "Burst must be at least 1."},
		{"", "Burst", "three", "Burst must be a whole number, like 3."},
		{"", "Burst", "2.5", "Burst must be a whole number, like 3."},
		{"", "Burst", "", "Burst must be a whole number, like 3."},
		{"", "Every", "5", "Every must be a duration like 30s, 5m or 1h30m."},
		{"", "Every", "5 minutes", "Every must be a duration like 30s, 5m or 1h30m."},
		{"", "Every", "0s", "Every must be more than zero."},
		{"github", "Timeout", "-1m", "Timeout must be more than zero."},
		{"github", "Timeout", "soon", "Timeout must be a duration like 30s, 5m or 1h30m."},
		{"github", "Burst", "0", "Burst must be at least 1."},
	} {
		t.Run(tt.server+"/"+tt.field+"/"+tt.text, func(t *testing.T) {
			h := newSettingsHarness(t, sampleSettings())
			before := h.field(tt.server, tt.field).entry.Text
			where := tt.server
			if where == "" {
				where = "defaults"
			}
			h.retype(tt.server, tt.field, tt.text)
			if got := h.errorText(tt.server, tt.field); got != tt.wantErr {
				t.Errorf("error under the field: %q, want %q", got, tt.wantErr)
			}
			if !h.v.saveBtn.Disabled() {
				t.Error("Save is enabled while a field is invalid")
			}
			if want := "To save, fix: " + tt.field + " (" + where + ")"; h.v.hint.Text != want {
				t.Errorf("hint %q, want %q", h.v.hint.Text, want)
			}
			if h.row(tt.server).summary.Visible() {
				t.Error("the help line still shows numbers that are not valid")
			}
			// Return in the field saves nothing.
			h.field(tt.server, tt.field).entry.OnSubmitted(tt.text)
			if len(h.saved) != 0 || h.closed != 0 {
				t.Errorf("invalid settings were saved (%d) or the window closed (%d)", len(h.saved), h.closed)
			}

			h.retype(tt.server, tt.field, before)
			if got := h.errorText(tt.server, tt.field); got != "" {
				t.Errorf("fixed field still shows %q", got)
			}
			if h.v.saveBtn.Disabled() || h.v.hint.Text != "" {
				t.Errorf("Save disabled (%v) or hint %q after the fix", h.v.saveBtn.Disabled(), h.v.hint.Text)
			}
		})
	}
}

func TestSettingsErrorWaitsUntilFieldIsLeft(t *testing.T) {
	h := newSettingsHarness(t, sampleSettings())
	e := h.field("", "Every").entry
	h.c.Focus(e)
	e.TypedShortcut(&fyne.ShortcutSelectAll{})
	test.Type(e, "1h3") // on the way to "1h30m"
	if got := h.errorText("", "Every"); got != "" {
		t.Errorf("error %q shows while the user is still typing", got)
	}
	if !h.v.saveBtn.Disabled() {
		t.Error("Save is enabled while Every reads 1h3")
	}
	test.Type(e, "0m")
	h.c.Unfocus()
	if got := h.errorText("", "Every"); got != "" {
		t.Errorf("valid 1h30m shows %q", got)
	}

	// Once shown, an error follows every keystroke, and goes as soon as the
	// text is right.
	h.retype("", "Every", "5")
	if h.errorText("", "Every") == "" {
		t.Fatal("no error under Every = 5 after leaving it")
	}
	h.c.Focus(e)
	test.Type(e, "s")
	if got := h.errorText("", "Every"); got != "" {
		t.Errorf("error %q still shows under Every = 5s", got)
	}
}

func TestSettingsReturnOnInvalidShowsAllErrors(t *testing.T) {
	s := sampleSettings()
	s.Defaults.Burst = 0 // not set: the entry starts empty
	h := newSettingsHarness(t, s)
	if h.field("", "Burst").entry.Text != "" {
		t.Errorf("Burst 0 shows as %q, want an empty entry", h.field("", "Burst").entry.Text)
	}
	if got := h.errorText("", "Burst"); got != "" {
		t.Errorf("untouched field shows %q before any attempt to save", got)
	}
	h.field("github", "Every").entry.OnSubmitted("30s")
	if got, want := h.errorText("", "Burst"), "Burst must be a whole number, like 3."; got != want {
		t.Errorf("after Return, Burst shows %q, want %q", got, want)
	}
	if len(h.saved) != 0 {
		t.Error("invalid settings were saved")
	}
}

func TestSettingsAddAndRemoveServers(t *testing.T) {
	h := newSettingsHarness(t, sampleSettings())
	h.retype("", "Every", "10s") // new servers follow the defaults as shown
	h.addServer("  jira ")
	if diff := cmp.Diff([]string{"everything", "github", "jira"}, h.servers()); diff != "" {
		t.Errorf("servers after adding jira mismatch (-want +got):\n%s", diff)
	}
	if h.v.addName.Text != "" {
		t.Errorf("the add entry still holds %q", h.v.addName.Text)
	}
	jira := h.row("jira")
	if got := []string{jira.rule.Selected, jira.burst.entry.Text, jira.every.entry.Text, jira.timeout.entry.Text}; !cmp.Equal(got, []string{"Ask me", "", "", ""}) {
		t.Errorf("jira starts with %q, want Ask me and empty fields that follow the defaults", got)
	}
	if got := []string{jira.burst.entry.PlaceHolder, jira.every.entry.PlaceHolder, jira.timeout.entry.PlaceHolder}; !cmp.Equal(got, []string{"3 (default)", "10s (default)", "10m (default)"}) {
		t.Errorf("jira's fields say %q, want the defaults they follow", got)
	}

	// A name already listed cannot be added twice.
	h.c.Focus(h.v.addName)
	test.Type(h.v.addName, "github")
	if !h.v.add.Disabled() {
		t.Error("Add server is enabled for github, already listed")
	}
	if got, want := h.v.addError.Text, "A server named github is already in the list."; !h.v.addError.Visible() || got != want {
		t.Errorf("add error %q (visible %v), want %q", got, h.v.addError.Visible(), want)
	}
	h.v.addName.OnSubmitted("github")
	if len(h.v.servers) != 3 {
		t.Errorf("Return added github a second time: %q", h.servers())
	}

	// Removing github lets it be added again.
	test.Tap(h.row("github").remove)
	if diff := cmp.Diff([]string{"everything", "jira"}, h.servers()); diff != "" {
		t.Errorf("servers after removing github mismatch (-want +got):\n%s", diff)
	}
	if h.v.add.Disabled() || h.v.addError.Visible() {
		t.Error("github, removed, still cannot be added back")
	}
	h.v.addName.SetText("")
	if !h.v.add.Disabled() {
		t.Error("Add server is enabled with no name")
	}

	test.Tap(h.v.saveBtn)
	want := state.Settings{
		Defaults: state.ServerPolicy{Burst: 3, Every: 10 * time.Second, Timeout: 10 * time.Minute},
		Servers: []state.ServerPolicy{
			{Name: "everything", Rule: "accept-defaults", Burst: 3, Every: 5 * time.Second, Timeout: 90 * time.Minute},
			// Added by the user: saved, following the defaults.
			{Name: "jira", Rule: "ask", Own: true},
		},
	}
	if diff := cmp.Diff(want, h.onlySaved()); diff != "" {
		t.Errorf("saved settings mismatch (-want +got):\n%s", diff)
	}
}

func TestSettingsRemoveLastServer(t *testing.T) {
	h := newSettingsHarness(t, state.Settings{
		Defaults: state.ServerPolicy{Burst: 3, Every: 5 * time.Second, Timeout: 10 * time.Minute},
		Servers:  []state.ServerPolicy{{Name: "github", Burst: 1, Every: time.Second, Timeout: time.Minute}},
	})
	// An invalid server row keeps Save disabled until it is removed.
	h.retype("github", "Burst", "x")
	if !h.v.saveBtn.Disabled() {
		t.Fatal("Save enabled with github's burst x")
	}
	test.Tap(h.row("github").remove)
	if h.v.saveBtn.Disabled() {
		t.Error("Save still disabled after the invalid row was removed")
	}
	if !h.v.noServers.Visible() {
		t.Error(`"no server" does not show with an empty list`)
	}
	test.Tap(h.v.saveBtn)
	if got := h.onlySaved().Servers; len(got) != 0 {
		t.Errorf("saved servers %+v, want none", got)
	}
}

// TestSettingsServerFollowsDefaults: a value a server does not set shows
// as an empty field saying the default it follows, even after the defaults
// are edited, and is saved as zero so that it goes on following them.
func TestSettingsServerFollowsDefaults(t *testing.T) {
	h := newSettingsHarness(t, state.Settings{
		Defaults: state.ServerPolicy{Rule: "ask", Burst: 3, Every: 5 * time.Second, Timeout: 10 * time.Minute},
		Servers:  []state.ServerPolicy{{Name: "github", Timeout: 2 * time.Minute, Own: true}},
	})
	gh := h.row("github")
	if got := []string{gh.burst.entry.Text, gh.burst.entry.PlaceHolder, gh.every.entry.Text, gh.every.entry.PlaceHolder, gh.timeout.entry.Text}; !cmp.Equal(got, []string{"", "3 (default)", "", "5s (default)", "2m"}) {
		t.Errorf("github shows %q, want its timeout and the defaults it follows", got)
	}
	h.retype("", "Burst", "4")
	if got, want := gh.burst.entry.PlaceHolder, "4 (default)"; got != want {
		t.Errorf("after the default burst became 4, github's says %q, want %q", got, want)
	}
	if got, want := gh.summary.Text, "4 at once, then one every 5s; a prompt waits 2m for an answer."; got != want {
		t.Errorf("github's help line %q, want %q", got, want)
	}
	// A value typed and then removed follows the defaults again.
	h.retype("github", "Every", "1m")
	h.retype("github", "Every", "")
	if got := h.errorText("github", "Every"); got != "" {
		t.Errorf("an empty server field shows %q; it follows the defaults", got)
	}
	test.Tap(h.v.saveBtn)
	want := state.Settings{
		// The defaults' rule is not edited: saved as given.
		Defaults: state.ServerPolicy{Rule: "ask", Burst: 4, Every: 5 * time.Second, Timeout: 10 * time.Minute},
		Servers:  []state.ServerPolicy{{Name: "github", Rule: "ask", Timeout: 2 * time.Minute, Own: true}},
	}
	if diff := cmp.Diff(want, h.onlySaved()); diff != "" {
		t.Errorf("saved settings mismatch (-want +got):\n%s", diff)
	}
}

// TestSettingsOwnOnlyWhenConfiguredOrChanged: a server listed only because
// it asked something is saved as having settings of its own only once the
// user changes its row; one configured before stays so.
func TestSettingsOwnOnlyWhenConfiguredOrChanged(t *testing.T) {
	s := state.Settings{
		Defaults: state.ServerPolicy{Burst: 3, Every: 5 * time.Second, Timeout: 10 * time.Minute},
		Servers:  []state.ServerPolicy{{Name: "demo", Rule: "ask"}, {Name: "github", Rule: "ask", Own: true}},
	}
	own := func(h *settingsHarness) map[string]bool {
		t.Helper()
		test.Tap(h.v.saveBtn)
		out := map[string]bool{}
		for _, p := range h.onlySaved().Servers {
			out[p.Name] = p.Own
		}
		return out
	}
	for _, tt := range []struct {
		name string
		edit func(h *settingsHarness)
		want map[string]bool
	}{
		{"unchanged", func(*settingsHarness) {}, map[string]bool{"demo": false, "github": true}},
		{"defaults edited", func(h *settingsHarness) { h.retype("", "Timeout", "5m") }, map[string]bool{"demo": false, "github": true}},
		{"typed and put back", func(h *settingsHarness) { h.retype("demo", "Burst", "2"); h.retype("demo", "Burst", "") },
			map[string]bool{"demo": false, "github": true}},
		{"value set", func(h *settingsHarness) { h.retype("demo", "Timeout", "1m") }, map[string]bool{"demo": true, "github": true}},
		{"rule set", func(h *settingsHarness) { h.row("demo").rule.SetSelected("Always decline") }, map[string]bool{"demo": true, "github": true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newSettingsHarness(t, s)
			tt.edit(h)
			if diff := cmp.Diff(tt.want, own(h)); diff != "" {
				t.Errorf("servers with settings of their own (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSettingsKeepsUnknownRule(t *testing.T) {
	s := sampleSettings()
	s.Servers[0].Rule = "allow-all" // written by a newer elicitray, say
	h := newSettingsHarness(t, s)
	r := h.row("github")
	if got, want := r.rule.Selected, "“allow-all” (unknown rule)"; got != want {
		t.Errorf("rule shows %q, want %q", got, want)
	}
	r.rule.SetSelected("Always cancel")
	r.rule.SetSelected("“allow-all” (unknown rule)")
	test.Tap(h.v.saveBtn)
	if got := h.onlySaved().Servers[1]; got.Name != "github" || got.Rule != "allow-all" {
		t.Errorf("saved %+v, want github with its rule allow-all kept", got)
	}
}

func TestSettingsSaveError(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{errors.New("could not write config.toml: permission denied"), "Could not write config.toml: permission denied."},
		{errors.New("open /home/u/.config/elicitray/config.toml: read-only file system"),
			"Could not save the settings: open /home/u/.config/elicitray/config.toml: read-only file system."},
	} {
		t.Run(tt.want, func(t *testing.T) {
			h := newSettingsHarness(t, sampleSettings())
			h.saveErr = tt.err
			test.Tap(h.v.saveBtn)
			if h.v.hint.Text != tt.want || h.v.hint.Importance != widget.DangerImportance {
				t.Errorf("window says %q (importance %v), want %q as an error", h.v.hint.Text, h.v.hint.Importance, tt.want)
			}
			if h.closed != 0 {
				t.Error("the window closed although saving failed")
			}
			// Fixed (say, permissions): Save again works and closes.
			h.saveErr = nil
			test.Tap(h.v.saveBtn)
			if len(h.saved) != 2 || h.closed != 1 {
				t.Errorf("second save: %d saves, closed %d times; want 2 and once", len(h.saved), h.closed)
			}
		})
	}
}

func TestSettingsCloseAndEscapeDoNotSave(t *testing.T) {
	h := newSettingsHarness(t, sampleSettings())
	h.retype("", "Burst", "7")
	test.Tap(h.v.closeBtn)
	e := h.field("github", "Every").entry
	h.c.Focus(e)
	pressKey(h.c, fyne.KeyEscape)
	if len(h.saved) != 0 || h.closed != 2 {
		t.Errorf("Close and Escape: %d saves, closed %d times; want none and twice", len(h.saved), h.closed)
	}
}

func TestShowSettings(t *testing.T) {
	a := test.NewTempApp(t)
	var saved []state.Settings
	w := ShowSettings(a, sampleSettings(), func(s state.Settings) error {
		saved = append(saved, s)
		return nil
	})
	if w.Title() != "elicitray settings" {
		t.Errorf("title %q", w.Title())
	}
	found := false
	for _, o := range a.Driver().AllWindows() {
		found = found || o == w
	}
	if !found {
		t.Fatal("the settings window is not open")
	}
	// Escape with nothing focused closes the window without saving.
	w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	for _, o := range a.Driver().AllWindows() {
		if o == w {
			t.Error("the window is still open after Escape")
		}
	}
	if len(saved) != 0 {
		t.Errorf("Escape saved %+v", saved)
	}
}

func TestFormatDuration(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, ""},
		{500 * time.Millisecond, "500ms"},
		{5 * time.Second, "5s"},
		{90 * time.Second, "1m30s"},
		{2 * time.Minute, "2m"},
		{time.Hour, "1h"},
		{90 * time.Minute, "1h30m"},
		{time.Hour + time.Second, "1h0m1s"},
	} {
		if got := formatDuration(tt.d); got != tt.want {
			t.Errorf("formatDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
		if tt.d > 0 {
			if back, err := parseDuration(formatDuration(tt.d)); err != nil || back != tt.d {
				t.Errorf("%q reads back as %v, %v; want %v", formatDuration(tt.d), back, err, tt.d)
			}
		}
	}
}

func TestSettingsLongListScrolls(t *testing.T) {
	s := sampleSettings()
	s.Servers = nil
	for i := range 30 {
		s.Servers = append(s.Servers, state.ServerPolicy{Name: "server-" + strings.Repeat("x", i%3) + string(rune('a'+i%26)),
			Burst: 1, Every: time.Second, Timeout: time.Minute})
	}
	h := newSettingsHarness(t, s)
	if got := h.c.Size(); got.Height > settingsSize.Height+1 {
		t.Errorf("window grew to %v with 30 servers, want %v", got, settingsSize)
	}
	if h.v.scroll.Content.MinSize().Height <= h.v.scroll.Size().Height {
		t.Error("30 servers fit without scrolling: the test shows too little")
	}
	h.addServer("zz-last")
	if h.v.scroll.Offset.Y == 0 {
		t.Error("the list did not scroll to the server just added")
	}
}

// TestSettingsWheelOverField: the mouse wheel over a field of a server's
// row scrolls the window, as it does between the fields (Fyne gave it to
// the entry's own one-line scroll, and the list stopped under the
// pointer).
func TestSettingsWheelOverField(t *testing.T) {
	s := sampleSettings()
	s.Servers = nil
	for _, name := range []string{"部署", "خادم", "שרת", "🚀 launch", "e\u0301clair"} {
		for i := range 6 {
			s.Servers = append(s.Servers, state.ServerPolicy{Name: fmt.Sprintf("%s %d", name, i), Burst: 1, Every: time.Second, Timeout: time.Minute})
		}
	}
	h := newSettingsHarness(t, s)
	var e *settingsEntry // the first server's, in view when the window opens
	for _, r := range h.v.rows() {
		if r.name != "" {
			e = h.field(r.name, "Burst").entry
			break
		}
	}
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(e).Add(fyne.NewPos(e.Size().Width/2, e.Size().Height/2))
	if at.Y > h.v.scroll.Size().Height {
		t.Fatalf("the first server's field is at y=%v, out of view: the test shows too little", at.Y)
	}
	test.Scroll(h.c, at, 0, -80)
	if h.v.scroll.Offset.Y == 0 {
		t.Fatal("the wheel over a server's field left the window where it was")
	}
	// And over the name of a server to add (found by the break-it
	// session: it alone still stopped the wheel).
	h.v.scroll.ScrollToBottom()
	bottom := h.v.scroll.Offset.Y
	at = fyne.CurrentApp().Driver().AbsolutePositionForObject(h.v.addName).Add(fyne.NewPos(10, h.v.addName.Size().Height/2))
	test.Scroll(h.c, at, 0, 80)
	if h.v.scroll.Offset.Y == bottom {
		t.Error("the wheel over the name of a server to add left the window where it was")
	}
}
