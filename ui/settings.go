package ui

import (
	"errors"
	"log"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/ui/lang"
	"github.com/elicitray/elicitray/ui/state"
)

// The rules a server's prompts can follow, as ServerPolicy.Rule holds them.
const (
	ruleAsk            = "ask"
	ruleDecline        = "decline"
	ruleCancel         = "cancel"
	ruleAcceptDefaults = "accept-defaults"
	// ruleAcceptDefaultsOrCancel is for unattended runs: no window ever.
	ruleAcceptDefaultsOrCancel = "accept-defaults-or-cancel"
)

// ruleChoices are the rules the window offers, in order: the value saved,
// the label shown in the select, and the help line under it. A function,
// not a table: the labels are translated once the translations are loaded.
func ruleChoices() []struct{ value, label, help string } {
	return []struct{ value, label, help string }{
		{ruleAsk, lang.L("Ask me"), lang.L("Every prompt opens a window.")},
		{ruleDecline, lang.L("Always decline"), lang.L("Every prompt is answered decline at once, without a window.")},
		{ruleCancel, lang.L("Always cancel"), lang.L("Every prompt is answered cancel at once, without a window.")},
		{ruleAcceptDefaults, lang.L("Accept when every required field has a default"),
			lang.L("Such a form is accepted with its defaults, without a window; other prompts, and every link, are asked.")},
		{ruleAcceptDefaultsOrCancel, lang.L("Never ask: accept defaults, else cancel"),
			lang.L("For unattended runs (CI agents, test suites): such a form is accepted with its defaults; every other prompt, and every link, is answered cancel. No window opens.")},
	}
}

// settingsSize is the window's size: wide enough for the longest rule's
// label, high enough for the defaults and two servers; more servers scroll.
var settingsSize = fyne.NewSize(640, 660)

// ShowSettings opens the settings window on s: the defaults (burst, every,
// timeout, keep-alive) and the servers with policies of their own (rule,
// burst, every, timeout, keep-alive, guard), where servers can be added by
// name and removed; what comes with a prompt window (Notice); the
// remembered answers. A server's field left empty follows the defaults
// (its placeholder says their value) and is saved as zero (a keep-alive
// as nil). Save is
// enabled only while every field is valid; it calls save with the edited
// settings and closes the window, or, when save fails, shows its error in
// the window and keeps it open. save's error should say what failed ("could
// not write config.toml: permission denied"); other errors are shown after
// "Could not save the settings:". Close, Escape (wherever the focus is,
// while no dialog is open), Ctrl+W and the window's close button close the
// window without saving; when something was changed they first ask whether
// to discard the changes. It must be called on the Fyne goroutine, and
// save runs on it too, so it must be quick (writing a small file). The
// returned window can be brought forward with RequestFocus instead of
// opening a second one.
func ShowSettings(a fyne.App, s state.Settings, save func(state.Settings) error) fyne.Window {
	w, _ := showSettings(a, s, save)
	return w
}

// showSettings is ShowSettings, returning the view too (tests).
func showSettings(a fyne.App, s state.Settings, save func(state.Settings) error) (fyne.Window, *settingsView) {
	w := a.NewWindow(lang.L("elicitray settings"))
	v := newSettingsView(s, save)
	v.closeWindow = w.Close
	v.confirm = func(title, message, ok, dismiss string, done func(bool)) {
		d := dialog.NewConfirm(title, message, done, w)
		d.SetConfirmText(ok)
		d.SetDismissText(dismiss)
		d.SetConfirmImportance(widget.DangerImportance)
		d.Show()
	}
	w.SetContent(v.content)
	v.keys.bind(w.Canvas())
	w.SetCloseIntercept(v.onClose)
	if a.Icon() != nil {
		w.SetIcon(a.Icon())
	}
	w.Resize(settingsSize)
	w.CenterOnScreen()
	w.Show()
	return w, v
}

// settingsView is the content of the settings window, without the window,
// so that tests can drive it on a test canvas.
type settingsView struct {
	save func(state.Settings) error
	// closeWindow closes the window: after Save, or on Close.
	closeWindow func()
	// keys close the window (asking first when something was changed) on
	// Escape and Ctrl+W.
	keys *windowKeys
	// confirm asks a yes/no question, ok and dismiss its buttons; nil
	// (no window to ask in) answers yes.
	confirm func(title, message, ok, dismiss string, done func(bool))
	// asking is set while confirm waits for an answer.
	asking bool
	// shown is the window's fields as first shown (see snapshot): the
	// settings are changed while it differs.
	shown string
	// defaultsRule is the defaults' Rule, saved as it came.
	defaultsRule string
	// attempted is set once the user tried to save invalid settings: from
	// then on every field shows its error.
	attempted bool

	defaults  *policyRow
	servers   []*policyRow
	list      *fyne.Container // the servers' rows
	noServers *widget.Label
	addName   *settingsEntry
	add       *closeButton
	addError  *widget.Label
	scroll    *container.Scroll
	hint      *widget.Label // why Save is disabled, or why saving failed
	saveBtn   *closeButton
	closeBtn  *closeButton
	content   fyne.CanvasObject
	remember  *rememberSection
	tools     *toolsSection
	notice    *noticeSection
}

// newSettingsView builds the content for s; save receives the edits.
func newSettingsView(s state.Settings, save func(state.Settings) error) *settingsView {
	v := &settingsView{save: save, closeWindow: func() {}, defaultsRule: s.Defaults.Rule}
	v.keys = &windowKeys{close: v.onClose}
	v.content = v.build(s)
	v.validate()
	v.shown = v.snapshot()
	return v
}

func (v *settingsView) build(s state.Settings) fyne.CanvasObject {
	v.defaults = newPolicyRow(s.Defaults, v)
	defaults := container.NewVBox(
		heading(lang.L("Defaults")),
		helpLabel(lang.L("Every server follows these unless it has settings of its own below. "+
			"Prompts over the limit, and prompts nobody answers in time, are answered cancel.")),
		v.defaults.build(),
	)

	v.list = container.NewVBox()
	v.noServers = helpLabel(lang.L("No server has settings of its own yet."))
	servers := slices.Clone(s.Servers)
	slices.SortStableFunc(servers, func(a, b state.ServerPolicy) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range servers {
		v.addRow(p)
	}
	v.addName = newSettingsEntry(v.keys)
	v.addName.PlaceHolder = lang.L("Server name, as given to elicitray wrap --name")
	v.addName.OnChanged = func(string) { v.checkAddName() }
	v.addName.OnSubmitted = func(string) { v.onAdd() }
	v.add = newCloseButton(v.keys, lang.L("Add server"), theme.ContentAddIcon(), v.onAdd)
	v.addError = errorLabel()
	v.checkAddName()
	addRow := container.NewVBox(container.NewBorder(nil, nil, nil, v.add, passWheel(v.addName, &v.addName.Entry, nil, wheelTo(&v.scroll))), v.addError)

	serversBox := container.NewVBox(heading(lang.L("Servers")),
		helpLabel(lang.L("A server listed here follows its own settings; a field left empty follows the defaults. "+
			"Remove a server to let it follow the defaults in everything.")),
		v.noServers, v.list, addRow)
	body := container.NewVBox(defaults, widget.NewSeparator(), serversBox, widget.NewSeparator(),
		v.buildNotice(s.Notice), widget.NewSeparator(), v.buildRemember(s.Remember), widget.NewSeparator(), v.buildTools(s.Tools))
	// Room on the right for the scroll bar, which Fyne draws over the content.
	padded := container.New(layout.NewCustomPaddedLayout(0, 0, 0, 2*theme.Padding()), body)
	v.scroll = container.NewVScroll(padded)

	v.hint = widget.NewLabel("")
	v.hint.Wrapping = fyne.TextWrapWord
	v.closeBtn = newCloseButton(v.keys, lang.L("Close"), nil, v.onClose)
	v.saveBtn = newCloseButton(v.keys, lang.L("Save"), nil, v.onSave)
	v.saveBtn.Importance = widget.HighImportance
	bottom := container.NewVBox(widget.NewSeparator(),
		container.NewBorder(nil, nil, nil, container.NewHBox(v.closeBtn, v.saveBtn), hinted(v.hint)))
	return container.NewBorder(nil, bottom, nil, nil, v.scroll)
}

// addRow adds a row for p to the servers' list; its empty fields follow
// the defaults.
func (v *settingsView) addRow(p state.ServerPolicy) *policyRow {
	r := newPolicyRow(p, v)
	r.remove = newCloseButton(v.keys, lang.L("Remove"), theme.DeleteIcon(), func() { v.onRemove(r) })
	r.remove.Importance = widget.LowImportance
	v.servers = append(v.servers, r)
	v.list.Add(r.build())
	v.noServers.Hidden = true
	return r
}

// defaultsNow is the defaults as the window shows them; a field that is
// not valid now gives zero.
func (v *settingsView) defaultsNow() state.ServerPolicy {
	if v.defaults == nil {
		return state.ServerPolicy{}
	}
	p, _ := v.defaults.policy()
	return p
}

// checkAddName enables Add server for a new, non-empty name, and says why
// a name cannot be added.
func (v *settingsView) checkAddName() bool {
	problem := v.addNameProblem()
	if problem != "" {
		v.addError.SetText(problem)
		v.addError.Show()
	} else {
		v.addError.Hide()
	}
	if problem != "" || strings.TrimSpace(v.addName.Text) == "" {
		v.add.Disable()
		return false
	}
	v.add.Enable()
	return true
}

// addNameProblem says, in a sentence, what is wrong with the name typed to
// add; "" when nothing is (an empty name is not wrong yet).
func (v *settingsView) addNameProblem() string {
	name := strings.TrimSpace(v.addName.Text)
	for _, r := range v.servers {
		if r.name == name {
			return lang.L("A server named {{.Server}} is already in the list.", map[string]any{"Server": name})
		}
	}
	return ""
}

// onAdd adds a row for the server named in the entry, with the defaults'
// values, and scrolls to it.
func (v *settingsView) onAdd() {
	if !v.checkAddName() {
		return
	}
	// Added by the user: saved even if nothing else in it is changed.
	v.addRow(state.ServerPolicy{Name: strings.TrimSpace(v.addName.Text), Rule: ruleAsk, Own: true})
	v.addName.SetText("")
	v.validate()
	v.scroll.ScrollToBottom()
}

// onRemove takes r out of the list: the server then follows the defaults.
func (v *settingsView) onRemove(r *policyRow) {
	i := slices.Index(v.servers, r)
	if i < 0 {
		return
	}
	v.servers = slices.Delete(v.servers, i, i+1)
	v.list.Remove(r.box)
	v.noServers.Hidden = len(v.servers) > 0
	v.noServers.Refresh()
	v.checkAddName() // the removed name may be added again
	v.validate()
}

// settings reads the window: the Settings to save, and the fields that
// are not valid, as "Every (defaults)".
func (v *settingsView) settings() (state.Settings, []string) {
	var bad []string
	d, errs := v.defaults.policy()
	d.Rule = v.defaultsRule
	for _, f := range errs {
		bad = append(bad, f+lang.L(" (defaults)"))
	}
	s := state.Settings{Defaults: d, Remember: v.remember.now(), Notice: v.notice.now(), Tools: v.tools.now()}
	for _, r := range v.servers {
		p, errs := r.policy()
		for _, f := range errs {
			bad = append(bad, f+" ("+r.name+")")
		}
		s.Servers = append(s.Servers, p)
	}
	return s, bad
}

// validate shows the errors of edited fields (all of them once saving was
// attempted), updates the help lines, and enables Save only when every
// field is valid, saying otherwise which fields to fix. It reports whether
// the settings are valid.
func (v *settingsView) validate() bool {
	d := v.defaultsNow()
	for _, r := range v.rows() {
		r.validate(v.attempted, d)
	}
	_, bad := v.settings()
	v.hint.Importance = widget.LowImportance
	if len(bad) == 0 {
		v.saveBtn.Enable()
		v.hint.SetText("")
		return true
	}
	v.saveBtn.Disable()
	v.hint.SetText(lang.L("To save, fix: {{.Fields}}", map[string]any{"Fields": strings.Join(bad, lang.L(", "))}))
	return false
}

// rows is the defaults' row, then the servers'.
func (v *settingsView) rows() []*policyRow {
	return append([]*policyRow{v.defaults}, v.servers...)
}

// onSave hands the settings to save and closes the window, or shows why it
// cannot.
func (v *settingsView) onSave() {
	s, bad := v.settings()
	if len(bad) > 0 {
		// Return in a field while something is invalid: show every error.
		v.attempted = true
		v.validate()
		return
	}
	if err := v.save(s); err != nil {
		log.Printf("ui: saving the settings: %v", err)
		v.hint.Importance = widget.DangerImportance
		v.hint.SetText(saveErrorText(err))
		return
	}
	v.closeWindow()
}

// onClose closes the window without saving, after asking when the
// settings were changed: Close, Escape, Ctrl+W and the window's close
// button all come here.
func (v *settingsView) onClose() {
	if v.snapshot() == v.shown || v.confirm == nil {
		v.closeWindow()
		return
	}
	if v.asking {
		return // the question is on screen
	}
	v.asking = true
	v.confirm(lang.L("Discard your changes?"), lang.L("The settings you changed are not saved. Close the window and discard the changes?"),
		lang.L("Discard"), lang.L("Keep editing"), func(discard bool) {
			v.asking = false
			if discard {
				v.closeWindow()
			}
		})
}

// snapshot is what the window's fields hold, rows in order: two
// snapshots are equal when nothing was changed (a value typed and put
// back included).
func (v *settingsView) snapshot() string {
	var b strings.Builder
	for _, r := range v.rows() {
		b.WriteString(r.name + "\x00" + r.ruleValue)
		if r.destructive != nil && r.destructive.Checked {
			b.WriteString("\x00destructive")
		}
		for _, f := range r.fields() {
			b.WriteString("\x00" + strings.TrimSpace(f.entry.Text))
		}
		b.WriteString("\x01")
	}
	b.WriteString(v.remember.snapshot())
	b.WriteString(v.notice.snapshot())
	b.WriteString(v.tools.snapshot())
	return b.String()
}

// saveErrorText is the sentence shown when save fails.
func saveErrorText(err error) string {
	if !strings.HasPrefix(strings.ToLower(err.Error()), "could not ") {
		return lang.L("Could not {{.Doing}}: {{.Error}}.", map[string]any{"Doing": lang.L("save the settings"), "Error": err})
	}
	return sentence(err)
}

// policyRow is the part of the window editing one ServerPolicy: for a
// server, its name, Remove and its rule; then burst, every and timeout,
// a help line saying what they amount to, and the keep-alive; for a
// server, its guard.
type policyRow struct {
	name string // "" for the defaults
	view *settingsView

	rule      *closeSelect // nil for the defaults
	ruleValue string       // the rule selected; kept as given when unknown
	// own is ServerPolicy.Own as given (or set for a row the user added);
	// givenRule is the rule as given: a row whose rule and fields read as
	// given is unchanged.
	own       bool
	givenRule string
	ruleHelp  *widget.Label
	burst     *settingField
	every     *settingField
	timeout   *settingField
	// keepAlive is keep_alive (settings_keepalive.go): empty follows the
	// defaults, or for the defaults the built-in interval.
	keepAlive *settingField
	// guard and destructive are a server's tool-call guard (nil for the
	// defaults); givenDestructive is the check box as given.
	guard            *settingField
	destructive      *widget.Check
	givenDestructive bool
	summary          *widget.Label
	remove           *closeButton // nil for the defaults
	box              *fyne.Container
}

// newPolicyRow makes the row for p; fields p leaves zero start empty (for
// a server: following the defaults).
func newPolicyRow(p state.ServerPolicy, v *settingsView) *policyRow {
	if p.Name != "" && p.Rule == "" {
		p.Rule = ruleAsk
	}
	r := &policyRow{name: p.Name, view: v, ruleValue: p.Rule, own: p.Own, givenRule: p.Rule}
	burst := ""
	if p.Burst > 0 {
		burst = strconv.Itoa(p.Burst)
	}
	changed := func() { v.validate() }
	// A server's empty field follows the defaults; the defaults' own fields
	// must be filled in.
	optional := p.Name != ""
	r.burst = newSettingField(lang.L("Burst"), burst, "3", optional, checkBurst, changed, v)
	r.every = newSettingField(lang.L("Every"), formatDuration(p.Every), "5s", optional, checkDuration, changed, v)
	r.timeout = newSettingField(lang.L("Timeout"), formatDuration(p.Timeout), "10m", optional, checkDuration, changed, v)
	r.keepAlive = newSettingField(lang.L("Keep-alive"), formatKeepAlive(p.KeepAlive), "15s", true, checkKeepAlive, changed, v)
	if p.Name == "" {
		r.keepAlive.entry.PlaceHolder = formatDuration(builtInKeepAlive) + lang.L(" (default)")
	}
	if p.Name != "" {
		r.guard = newSettingField(lang.L("Guard"), strings.Join(p.Guard, ", "), lang.L("delete_*, deploy"), true, checkGuard, changed, v)
		r.givenDestructive = p.GuardDestructive
		r.destructive = widget.NewCheck(lang.L("Also guard the tools the server marks destructive"), nil)
		r.destructive.Checked = p.GuardDestructive // as given: not a change
		r.destructive.OnChanged = func(bool) { changed() }
	}
	return r
}

// fields are the row's burst, every, timeout and keep-alive, and a
// server's guard.
func (r *policyRow) fields() []*settingField {
	if r.guard != nil {
		return []*settingField{r.burst, r.every, r.timeout, r.keepAlive, r.guard}
	}
	return []*settingField{r.burst, r.every, r.timeout, r.keepAlive}
}

// changed reports whether the user changed the row since it was shown.
func (r *policyRow) changed() bool {
	if r.ruleValue != r.givenRule || (r.destructive != nil && r.destructive.Checked != r.givenDestructive) {
		return true
	}
	for _, f := range r.fields() {
		if strings.TrimSpace(f.entry.Text) != strings.TrimSpace(f.given) {
			return true
		}
	}
	return false
}

func (r *policyRow) build() fyne.CanvasObject {
	r.box = container.NewVBox()
	if r.name != "" {
		name := boldLabel(r.name)
		r.box.Add(container.NewBorder(nil, nil, nil, r.remove, name))
		r.box.Add(r.buildRule())
	}
	r.box.Add(container.NewGridWithColumns(3, r.burst.build(), r.every.build(), r.timeout.build()))
	r.summary = helpLabel("")
	r.box.Add(r.summary)
	r.box.Add(r.keepAlive.build())
	if r.name == "" {
		// Said once, under the defaults: a server's placeholder says
		// what it follows.
		r.box.Add(helpLabel(lang.L(keepAliveHelp)))
	}
	if r.guard != nil {
		r.box.Add(r.guard.build())
		r.box.Add(r.destructive)
		r.box.Add(helpLabel(lang.L("Calls of these tools (names, or patterns with * and ?, separated by commas) run only after you approve each in a window.")))
	}
	if r.name != "" {
		r.box.Add(widget.NewSeparator())
	}
	return r.box
}

// buildRule is the rule's select, labelled, with its help line.
func (r *policyRow) buildRule() fyne.CanvasObject {
	if r.ruleValue == "" {
		r.ruleValue = ruleAsk
	}
	var labels []string
	known := false
	for _, c := range ruleChoices() {
		labels = append(labels, c.label)
		known = known || c.value == r.ruleValue
	}
	if !known {
		// A rule this version does not know (a newer config, a typo) is
		// kept unless the user picks another.
		labels = append(labels, unknownRuleLabel(r.ruleValue))
	}
	r.rule = newCloseSelect(r.view.keys, labels, nil)
	r.rule.SetSelected(ruleLabel(r.ruleValue))
	r.ruleHelp = helpLabel(ruleHelp(r.ruleValue))
	given := r.ruleValue
	r.rule.OnChanged = func(label string) {
		r.ruleValue = given
		for _, c := range ruleChoices() {
			if c.label == label {
				r.ruleValue = c.value
			}
		}
		r.ruleHelp.SetText(ruleHelp(r.ruleValue))
	}
	return container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel(lang.L("Rule")), nil, r.rule),
		r.ruleHelp,
	)
}

// policy reads the row: the ServerPolicy (fields that are not valid, and
// a server's empty fields, are zero), and the names of the fields that
// are not valid.
func (r *policyRow) policy() (state.ServerPolicy, []string) {
	p := state.ServerPolicy{Name: r.name, Rule: r.ruleValue}
	if r.name != "" {
		p.Own = r.own || r.changed()
	}
	var bad []string
	if !r.burst.follows() {
		if n, err := parseBurst(r.burst.entry.Text); err == nil {
			p.Burst = n
		} else {
			bad = append(bad, r.burst.name)
		}
	}
	if !r.every.follows() {
		if d, err := parseDuration(r.every.entry.Text); err == nil {
			p.Every = d
		} else {
			bad = append(bad, r.every.name)
		}
	}
	if !r.timeout.follows() {
		if d, err := parseDuration(r.timeout.entry.Text); err == nil {
			p.Timeout = d
		} else {
			bad = append(bad, r.timeout.name)
		}
	}
	if !r.keepAlive.follows() {
		if d, err := parseKeepAlive(r.keepAlive.entry.Text); err == nil {
			p.KeepAlive = &d
		} else {
			bad = append(bad, r.keepAlive.name)
		}
	}
	if r.guard != nil {
		if g, err := parseGuard(r.guard.entry.Text); err == nil {
			p.Guard = g
		} else {
			bad = append(bad, r.guard.name)
		}
		p.GuardDestructive = r.destructive.Checked
	}
	return p, bad
}

// validate shows the row's field errors (all when all is set, else those of
// edited fields) and its help line; d is the defaults as they read now,
// which a server's empty fields follow.
func (r *policyRow) validate(all bool, d state.ServerPolicy) {
	for _, f := range r.fields() {
		f.validate(all)
	}
	if r.name != "" {
		r.burst.followDefault(d.Burst, strconv.Itoa(d.Burst))
		r.every.followDefault(int(d.Every), formatDuration(d.Every))
		r.timeout.followDefault(int(d.Timeout), formatDuration(d.Timeout))
		r.keepAlive.followKeepAlive(d.KeepAlive, r.view.defaults.keepAlive)
	}
	p, bad := r.policy()
	following := p.Burst == 0 && p.Every == 0 && p.Timeout == 0
	p.Burst, p.Every, p.Timeout = cmpOr(p.Burst, d.Burst), cmpOr(p.Every, d.Every), cmpOr(p.Timeout, d.Timeout)
	if len(bad) > 0 || p.Burst == 0 || p.Every == 0 || p.Timeout == 0 {
		// Not valid here, or it follows defaults that are not valid.
		r.summary.Hide()
		return
	}
	text := policySummary(p)
	if r.name != "" && following {
		text = lang.L("As the defaults: {{.Summary}}", map[string]any{"Summary": text})
	}
	r.summary.SetText(text)
	r.summary.Show()
}

// cmpOr is v, or else when v is zero.
func cmpOr[T int | time.Duration](v, orElse T) T {
	if v == 0 {
		return orElse
	}
	return v
}

// policySummary says in one line what a policy's numbers amount to.
func policySummary(p state.ServerPolicy) string {
	return lang.L("{{.Burst}} at once, then one every {{.Every}}; a prompt waits {{.Timeout}} for an answer.",
		map[string]any{"Burst": p.Burst, "Every": formatDuration(p.Every), "Timeout": formatDuration(p.Timeout)})
}

// ruleLabel is the select's label for rule.
func ruleLabel(rule string) string {
	for _, c := range ruleChoices() {
		if c.value == rule {
			return c.label
		}
	}
	return unknownRuleLabel(rule)
}

// ruleHelp is the help line for rule.
func ruleHelp(rule string) string {
	for _, c := range ruleChoices() {
		if c.value == rule {
			return c.help
		}
	}
	return lang.L("This version of elicitray does not know this rule; it is kept as it is unless you choose another.")
}

func unknownRuleLabel(rule string) string {
	return lang.L("“{{.Rule}}” (unknown rule)", map[string]any{"Rule": oneLine(rule)})
}

// settingField is one entry of a policy row: its label before it, its
// error under it.
type settingField struct {
	name     string // "Burst", "Every", "Timeout": the config's key
	given    string // the text it was shown with
	optional bool   // a server's field: empty follows the defaults
	check    func(string) error
	entry    *settingsEntry
	errLabel *widget.Label
	wheel    func(*fyne.ScrollEvent) // scrolls the window (passWheel)
	// edited is set once the user changed the text; shown once its error
	// was shown. An error shows after the user leaves an edited field, and
	// from then on follows every keystroke, so that it goes away as soon
	// as the text is fixed.
	edited, shown bool
}

func newSettingField(name, text, placeholder string, optional bool, check func(string) error, changed func(), v *settingsView) *settingField {
	f := &settingField{name: name, given: text, optional: optional, check: check, wheel: wheelTo(&v.scroll)}
	if optional {
		// Empty is valid: it follows the defaults.
		f.check = func(s string) error {
			if strings.TrimSpace(s) == "" {
				return nil
			}
			return check(s)
		}
	}
	f.entry = newSettingsEntry(v.keys)
	f.entry.SetText(text)
	f.entry.PlaceHolder = lang.L("e.g. {{.Example}}", map[string]any{"Example": placeholder})
	f.entry.OnChanged = func(string) {
		f.edited = true
		changed()
	}
	f.entry.OnSubmitted = func(string) { v.onSave() }
	f.entry.onFocusLost = func() {
		if f.edited {
			f.shown = true
			changed()
		}
	}
	return f
}

func (f *settingField) build() fyne.CanvasObject {
	f.errLabel = errorLabel()
	return container.NewVBox(container.NewBorder(nil, nil, widget.NewLabel(f.name), nil, passWheel(f.entry, &f.entry.Entry, nil, f.wheel)), f.errLabel)
}

// follows reports whether the field is a server's, left empty: its value
// is the defaults'.
func (f *settingField) follows() bool {
	return f.optional && strings.TrimSpace(f.entry.Text) == ""
}

// followDefault makes the placeholder of a server's field say the value it
// follows when empty: text, or "as the defaults" while value is not valid
// (zero).
func (f *settingField) followDefault(value int, text string) {
	p := text + lang.L(" (default)")
	if value <= 0 {
		p = lang.L("as the defaults")
	}
	if f.entry.PlaceHolder != p {
		f.entry.SetPlaceHolder(p)
	}
}

// validate shows the field's error when it has one and shown or all is set.
func (f *settingField) validate(all bool) {
	err := f.check(f.entry.Text)
	if err == nil || !(f.shown || all) {
		f.errLabel.Hide()
		return
	}
	f.shown = true
	f.errLabel.SetText(chars.Capitalize(lang.L("{{.Field}} {{.Problem}}.", map[string]any{"Field": f.name, "Problem": err.Error()})))
	f.errLabel.Show()
}

// parseGuard reads a guard: tool names or patterns (path.Match: *, ?,
// [...]) separated by commas; empty guards none.
func parseGuard(s string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil {
			return nil, errors.New(lang.L("“{{.Pattern}}” is not a name or pattern: * matches any characters, ? one, [abc] one of those",
				map[string]any{"Pattern": p}))
		}
		out = append(out, p)
	}
	return out, nil
}

func checkGuard(s string) error {
	_, err := parseGuard(s)
	return err
}

// parseBurst reads a burst: a whole number, at least 1.
func parseBurst(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, errors.New(lang.L("must be a whole number, like 3"))
	case n < 1:
		return 0, errors.New(lang.L("must be at least 1"))
	}
	return n, nil
}

// parseDuration reads a Go duration ("5s", "2m", "1h30m"), more than zero.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, errors.New(lang.L("must be a duration like 30s, 5m or 1h30m"))
	case d <= 0:
		return 0, errors.New(lang.L("must be more than zero"))
	}
	return d, nil
}

func checkBurst(s string) error {
	_, err := parseBurst(s)
	return err
}

func checkDuration(s string) error {
	_, err := parseDuration(s)
	return err
}

// formatDuration writes d as people type it: "5m" rather than Go's
// "5m0s", "1h30m" rather than "1h30m0s"; "" for zero or less.
func formatDuration(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// heading is a section's title.
func heading(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.SizeName = theme.SizeNameSubHeadingText
	return l
}

// errorLabel is a hidden, wrapping label for an error under a field.
func errorLabel() *widget.Label {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.DangerImportance
	l.Hide()
	return l
}

// settingsEntry is an entry that reports losing the focus (so that its
// error can wait until the user is done typing) and hands Escape and
// Ctrl+W to the window, which closes on them.
type settingsEntry struct {
	closeEntry
	onFocusLost func()
}

func newSettingsEntry(keys *windowKeys) *settingsEntry {
	e := &settingsEntry{closeEntry: closeEntry{keys: keys}}
	e.ExtendBaseWidget(e)
	return e
}

// FocusLost implements fyne.Focusable.
func (e *settingsEntry) FocusLost() {
	e.Entry.FocusLost()
	if e.onFocusLost != nil {
		e.onFocusLost()
	}
}
