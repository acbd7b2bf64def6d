package ui

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/lang"
)

// redacted is what the detail pane shows for the value of a field that
// looks like it asks for a secret, whatever the history kept; the hub
// stores the same text in its place (DESIGN.md: secrets are "never stored
// or shown in clear").
const redacted = "[redacted]"

// maxDetailMessage is the most of a message the detail pane shows, in
// characters: Fyne wraps text again at every layout (see maxMessage).
const maxDetailMessage = maxMessage

// historyDetail is the pane beside the table showing one decision: who
// asked, when, the message, the form as it was shown (read-only) with the
// values answered, and the answer.
type historyDetail struct {
	box     *fyne.Container
	scroll  *container.Scroll
	content fyne.CanvasObject

	// What the pane shows, for tests: nil or empty when not shown.
	rec     *history.Record
	facts   map[string]*widget.Label // by the fact's title ("Asked", "Decided by"…)
	message *bidiLabel
	fields  []*detailField
	formErr *widget.Label // why the form cannot be shown
	answer  *widget.Label
	link    *widget.RichText
}

// detailField is one field of the read-only form: exactly one of entry,
// check, sel and multi is set, as in the prompt window.
type detailField struct {
	f     *elicit.Field
	entry *widget.Entry
	check *widget.Check
	sel   *widget.Select
	multi []*widget.Check
	sent  bool // the form's values were sent (accept): an empty entry was empty
}

func newHistoryDetail() *historyDetail {
	d := &historyDetail{box: container.NewVBox()}
	// Room on the right for the scroll bar, which Fyne draws over the content.
	padded := container.New(layout.NewCustomPaddedLayout(0, 0, theme.Padding(), 2*theme.Padding()), d.box)
	d.scroll = container.NewVScroll(padded)
	d.content = d.scroll
	d.show(nil)
	return d
}

// show fills the pane with r, or asks to select a decision for nil.
func (d *historyDetail) show(r *history.Record) {
	d.rec, d.facts, d.message, d.fields, d.formErr, d.answer, d.link = r, nil, nil, nil, nil, nil, nil
	if r == nil {
		empty := widget.NewLabel(lang.L("Select a decision to see what was asked and how it was answered."))
		empty.Wrapping = fyne.TextWrapWord
		empty.Importance = widget.LowImportance
		d.box.Objects = []fyne.CanvasObject{hinted(empty)}
		d.box.Refresh()
		return
	}
	if r.Unreadable != "" {
		// Only what its key says: when, and which record.
		facts := widget.NewForm()
		if !r.Time.IsZero() {
			facts.Append(lang.L("Asked"), widget.NewLabel(formatTime(r.Time)))
		}
		facts.Append(lang.L("Record"), widget.NewLabel("#"+strconv.FormatUint(r.ID, 10)))
		d.box.Objects = []fyne.CanvasObject{facts, widget.NewSeparator(), warningLabel(lang.L(unreadableDetail))}
		d.box.Refresh()
		d.scroll.ScrollToTop()
		return
	}

	var form *elicit.Form
	var formErr error
	if r.Mode != "url" && len(r.RequestedSchema) > 0 {
		form, formErr = elicit.Parse(r.RequestedSchema)
		unrefuseRedacted(form)
	}
	// Server text is untrusted: made visible, shown as plain text.
	p, hidden := cleanPrompt(&Prompt{
		Server:     r.Server,
		ServerInfo: serverInfoLine(r.ServerInfo),
		Tool:       r.Tool,
		Message:    r.Message,
		Form:       form,
	})
	var c textCleaner
	reason := recordReason(c.clean(r.Reason))
	hidden = hidden || c.found

	headerTool := p.Tool
	if r.Mode == bridge.ModeToolChange {
		headerTool = "" // no call was in flight: the message names the tool, as the window did
	}
	objs := []fyne.CanvasObject{promptHeader(p.Server, p.ServerInfo, headerTool)}
	if hidden {
		objs = append(objs, hiddenCharsWarning())
	}
	objs = append(objs, d.buildFacts(r, chars.Cut(oneLine(p.Tool), 500), reason), widget.NewSeparator())

	objs = append(objs, heading(lang.L("Message")))
	d.message = newBidiLabel(detailMessage(p.Message, r.ID), true)
	objs = append(objs, d.message, widget.NewSeparator())

	if r.Mode == "url" {
		objs = append(objs, d.buildLink(r.URL)...)
	} else {
		objs = append(objs, d.buildForm(r, p.Form, formErr)...)
	}
	objs = append(objs, widget.NewSeparator())
	objs = append(objs, d.buildAnswer(r, p.Form)...)

	d.box.Objects = objs
	d.box.Refresh()
	d.scroll.ScrollToTop()
}

// buildFacts is the table of when, how and by whom, and the tool call
// whole (tool, made visible): the table's Tool column and the header above
// may cut it.
func (d *historyDetail) buildFacts(r *history.Record, tool, reason string) fyne.CanvasObject {
	d.facts = map[string]*widget.Label{}
	form := widget.NewForm()
	// facts are keyed by the English title, and shown with its translation.
	add := func(title, shown, text string) *widget.Label {
		l := newBidiLabel(text, true)
		d.facts[title] = &l.Label
		form.Append(shown, l)
		return &l.Label
	}
	add("Asked", lang.L("Asked"), formatTime(r.Time))
	if tool != "" {
		add("Tool", lang.L("Tool"), tool)
	}
	if d, ok := r.AnsweredIn(); ok {
		add("Answered in", lang.L("Answered in"), formatElapsed(d))
	}
	action := add("Action", lang.L("Action"), orDash(recordTerm(r.Action)))
	action.Importance = actionImportance(r.Action)
	add("Decided by", lang.L("Decided by"), orDash(recordTerm(r.DecidedBy)))
	if reason != "" {
		add("Reason", lang.L("Reason"), reason)
	}
	// A guarded call's or a changed tool's answer is elicitray's to act
	// on: nothing was sent to the server for it to get.
	guard := bridge.Guards(r.Mode)
	if !guard {
		delivered := add("Delivered", lang.L("Delivered"), deliveryText(r))
		if !r.Delivered() {
			delivered.Importance = widget.DangerImportance
		}
	}
	mode := lang.L("form")
	switch {
	case r.Mode == "url":
		mode = lang.L("URL")
	case guard:
		mode = recordTerm(r.Mode)
	}
	add("Mode", lang.L("Mode"), mode)
	add("Record", lang.L("Record"), "#"+strconv.FormatUint(r.ID, 10))
	return form
}

// buildLink shows a URL-mode request's link with its host highlighted, as
// the consent window did.
func (d *historyDetail) buildLink(raw string) []fyne.CanvasObject {
	objs := []fyne.CanvasObject{heading(lang.L("Link"))}
	check := elicit.CheckURL(raw)
	d.link = widget.NewRichText(linkSegments(check)...)
	d.link.Wrapping = fyne.TextWrapBreak
	objs = append(objs, d.link)
	if check.Refused != nil {
		objs = append(objs, warningLabel(urlRefusal(check.Refused)))
	} else if s := opensText(check); s != "" {
		objs = append(objs, smallLabel(s))
	}
	for _, w := range check.Warnings {
		objs = append(objs, warningLabel(urlWarning(w)))
	}
	return objs
}

// buildForm shows the form as it was shown, read-only, with the values
// sent (accept) or the ones it was shown with (its defaults).
func (d *historyDetail) buildForm(r *history.Record, form *elicit.Form, formErr error) []fyne.CanvasObject {
	objs := []fyne.CanvasObject{heading(lang.L("Form as shown"))}
	switch {
	case formErr != nil:
		d.formErr = widget.NewLabel(lang.L("This requestedSchema cannot be shown as a form: {{.Error}}.", map[string]any{"Error": formErr}))
		d.formErr.Wrapping = fyne.TextWrapWord
		schema := widget.NewLabelWithStyle(chars.Cut(string(r.RequestedSchema), maxDescription*4), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		schema.Wrapping = fyne.TextWrapBreak
		return append(objs, d.formErr, schema)
	case form == nil || len(form.Fields) == 0:
		return append(objs, hinted(lowLabel(lang.L("No fields: the server asked for a yes or no."))))
	}
	values := form.Defaults()
	note := lang.L("Read-only, with its defaults: nothing was sent.")
	sent := r.Action == actionAccept
	if sent {
		values = r.Content
		note = lang.L("Read-only, with the values sent.")
	}
	objs = append(objs, hinted(lowLabel(note)))
	for i := range form.Fields {
		f := &form.Fields[i]
		df := &detailField{f: f, sent: sent}
		d.fields = append(d.fields, df)
		// The widgets cannot be changed, and their values must still read
		// as well as any text (appTheme.readable).
		objs = append(objs, container.NewThemeOverride(df.build(values[f.Name], wheelTo(&d.scroll)), appTheme{readable: true}))
	}
	return objs
}

// maxDetailChoices is the most chosen choices of a long multi select
// (more than longList) the pane shows.
const maxDetailChoices = 50

// chosenOf is the line under the choices shown of a long multi select:
// "2 of 10,000 choices chosen", "50 shown of 120 chosen, of 10,000
// choices".
func chosenOf(shown, chosen, choices int) string {
	if shown < chosen {
		return lang.N("{{.Shown}} shown of {{.Chosen}} chosen, of {{.Count}} choices", choices,
			map[string]any{"Shown": lang.Thousands(shown), "Chosen": lang.Thousands(chosen), "Count": lang.Thousands(choices)})
	}
	return lang.N("{{.Chosen}} of {{.Count}} choices chosen", choices, map[string]any{"Chosen": lang.Thousands(chosen), "Count": lang.Thousands(choices)})
}

// build makes the field's read-only widgets showing v, its value; the
// mouse wheel over them goes to wheel (the pane's scroll).
func (df *detailField) build(v any, wheel func(*fyne.ScrollEvent)) fyne.CanvasObject {
	f := df.f
	label := chars.Cut(oneLine(f.Label()), maxLabel)
	if f.Required {
		label += " *"
	}
	box := container.NewVBox()
	switch f.Kind {
	case elicit.KindBoolean:
		b, _ := v.(bool)
		df.check = widget.NewCheck(bidiText(label), nil)
		df.check.Checked = b
		df.check.Disable()
		box.Add(df.check)
	case elicit.KindSelect:
		box.Add(boldLabel(label))
		opts := optionLabels(f.Options)
		df.sel = widget.NewSelect(opts, nil)
		df.sel.PlaceHolder = lang.L(noneLabel)
		if s, ok := v.(string); ok {
			shown := bidiText(chars.Cut(oneLine(f.OptionLabel(s)), maxLabel))
			for i, o := range f.Options {
				if o.Value == s {
					shown = opts[i]
					break
				}
			}
			if f.OptionLabel(s) == s && !hasOption(f, s) {
				df.sel.Options = append(df.sel.Options, shown)
			}
			df.sel.Selected = shown
		}
		df.sel.Disable()
		box.Add(df.sel)
	case elicit.KindMultiSelect:
		box.Add(boldLabel(label))
		ticked := map[string]bool{}
		for _, s := range stringsOf(v) {
			ticked[s] = true
		}
		long := len(f.Options) > longList
		labels := optionLabels(f.Options)
		for i, o := range f.Options {
			// Of a long list, only what was chosen: a check box for each
			// of 10,000 choices would stall the window (issue 10).
			if long && (!ticked[o.Value] || len(df.multi) == maxDetailChoices) {
				continue
			}
			c := widget.NewCheck(labels[i], nil)
			c.Checked = ticked[o.Value]
			c.Disable()
			df.multi = append(df.multi, c)
			box.Add(c)
		}
		if long {
			box.Add(smallLabel(chosenOf(len(df.multi), len(ticked), len(f.Options))))
		}
	default:
		box.Add(boldLabel(label))
		df.entry = widget.NewEntry()
		// What a person typed into a form that was not sent is not kept:
		// an empty field of it was not necessarily empty in the window.
		df.entry.PlaceHolder = lang.L("(not filled)")
		if !df.sent {
			df.entry.PlaceHolder = lang.L("(not sent)")
		}
		// In visual order: Fyne draws an entry's text as stored, so an
		// Arabic or Hebrew answer read backwards (the window's own entries
		// cover themselves with it, bidientry.go; this one never takes
		// the focus).
		df.entry.Text = bidiText(shownValue(f, v))
		df.entry.Disable()
		var shown fyne.CanvasObject = df.entry
		if df.entry.Text == "" {
			// Its placeholder, "(not filled)", dimmer than an answer, as
			// a placeholder is: drawn disabled, it took the answers' colour.
			shown = hinted(df.entry)
		}
		box.Add(passWheel(shown, df.entry, nil, wheel))
		if f.Sensitive {
			box.Add(warningLabel(lang.L("Looked like a secret: the history keeps {{.Redacted}} in its place.", map[string]any{"Redacted": redacted})))
		}
	}
	if help := helpText(f); help != "" {
		l := newBidiLabel(help, true)
		l.SizeName = theme.SizeNameCaptionText
		l.TextStyle.Italic = true
		box.Add(l)
	}
	return box
}

// text is what the field shows, for tests: the entry's text, the choice,
// "true"/"false", or the ticked labels joined by ", ".
func (df *detailField) text() string {
	switch {
	case df.entry != nil:
		return df.entry.Text
	case df.check != nil:
		return strconv.FormatBool(df.check.Checked)
	case df.sel != nil:
		return df.sel.Selected
	}
	var ticked []string
	for _, c := range df.multi {
		if c.Checked {
			ticked = append(ticked, c.Text)
		}
	}
	return strings.Join(ticked, ", ")
}

// buildAnswer shows what was sent back: the content of an accept, secrets
// masked, or that nothing was.
func (d *historyDetail) buildAnswer(r *history.Record, form *elicit.Form) []fyne.CanvasObject {
	objs := []fyne.CanvasObject{heading(lang.L("Answer"))}
	if r.Content == nil {
		d.answer = lowLabel(noContentText(r.Action))
		return append(objs, hinted(d.answer))
	}
	// The values are the server's and the user's text: drawn in the
	// bidi algorithm's order, as the form above them is.
	l := newBidiLabel(contentText(maskContent(r.Content, form)), true)
	l.TextStyle = fyne.TextStyle{Monospace: true}
	l.Wrapping = fyne.TextWrapBreak
	d.answer = &l.Label
	return append(objs, l)
}

// noContentText says why an answer carried no content.
func noContentText(action string) string {
	switch action {
	case actionAccept:
		return lang.L("Accepted, with no content.")
	case actionDecline:
		return lang.L("Declined: no content was sent.")
	case actionCancel:
		return lang.L("Cancelled: no content was sent.")
	case "error":
		return lang.L("Answered with an error: no content was sent.")
	case "forwarded":
		return lang.L("Forwarded to the host, which answered it.")
	}
	return lang.L("No content was sent.")
}

// maskContent is c with the values of fields that look like secrets
// replaced by redacted, whatever the history kept for them.
func maskContent(c map[string]any, form *elicit.Form) map[string]any {
	if form == nil {
		return c
	}
	out := make(map[string]any, len(c))
	for k, v := range c {
		out[k] = v
	}
	for i := range form.Fields {
		f := &form.Fields[i]
		if _, ok := out[f.Name]; ok && f.Sensitive {
			out[f.Name] = redacted
		}
	}
	return out
}

// unrefuseRedacted gives back the defaults of form's secret fields that
// Parse refused: history keeps a secret default as redacted, which the
// field's type, length or pattern may not admit, though the server's did.
// Shown masked, as every secret is, such a default says that there was one.
func unrefuseRedacted(form *elicit.Form) {
	if form == nil {
		return
	}
	for i := range form.Fields {
		if f := &form.Fields[i]; f.Sensitive && f.DefaultRefused != "" {
			f.Default, f.DefaultRefused = redacted, ""
		}
	}
}

// shownValue is the text of a typed-in field showing v: redacted for a
// secret, "" when unfilled.
func shownValue(f *elicit.Field, v any) string {
	switch {
	case v == nil:
		return ""
	case f.Sensitive:
		return redacted
	}
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return string(v) // every digit the server received
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// stringsOf is v as a list of strings: a multi select's value, from the
// history ([]any) or a default ([]string).
func stringsOf(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func hasOption(f *elicit.Field, v string) bool {
	for _, o := range f.Options {
		if o.Value == v {
			return true
		}
	}
	return false
}

// detailMessage is the message as the pane shows it: whole, or its start
// and where to read the rest.
func detailMessage(m string, id uint64) string {
	if m = collapseBlank(m); m == "" {
		return lang.L("(no message)")
	}
	if c := chars.Cut(m, maxDetailMessage); c != m {
		return c + "\n\n" + lang.L("(Shortened here: `elicitray history show {{.ID}}` prints all of it.)", map[string]any{"ID": strconv.FormatUint(id, 10)})
	}
	return m
}

// serverInfoLine is what the server calls itself, "title (name) version",
// or "" when it said nothing.
func serverInfoLine(si history.ServerInfo) string {
	if s := serverInfoText(si); s != "—" {
		return s
	}
	return ""
}

// serverInfoText is what the server calls itself: "title (name) version",
// or "—".
func serverInfoText(si history.ServerInfo) string {
	var parts []string
	switch {
	case si.Title != "" && si.Name != "" && si.Title != si.Name:
		parts = append(parts, si.Title+" ("+si.Name+")")
	case si.Name != "":
		parts = append(parts, si.Name)
	case si.Title != "":
		parts = append(parts, si.Title)
	}
	if len(parts) == 0 && si.Version == "" {
		return "—"
	}
	return versioned(strings.Join(parts, " "), si.Version)
}

// Called is what a server calls itself as a window shows it
// (bridge.ServerInfo.Called: its title, else its name, and its version).
func Called(si bridge.ServerInfo) string {
	name := si.Name
	if si.Title != "" {
		name = si.Title
	}
	if name == "" {
		return ""
	}
	return versioned(name, si.Version)
}

// versioned is name and version as a window shows them: a name that ends
// right to left keeps the version after it, not inside it (the digits of
// "سرور آزمایشی 0.0.1" took the name's direction and were drawn first).
func versioned(name, version string) string {
	switch {
	case version == "":
		return name
	case name == "":
		return version
	case strings.ContainsFunc(name, rtlRune):
		name += string(lrm)
	}
	return name + " " + version
}

// contentText is the answer's content as indented JSON.
func contentText(c map[string]any) string {
	if c == nil {
		return "—"
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Sprint(c)
	}
	return string(b)
}

func lowLabel(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	return l
}

func warningLabel(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.WarningImportance
	return l
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// formatTime shows t in local time to the second.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// formatElapsed shows a time to answer the way people say it: "0.8 s",
// "12 s", "2 min 5 s", "1 h 3 min".
func formatElapsed(d time.Duration) string {
	switch {
	case d <= 0:
		return "—"
	case d < 10*time.Second:
		return lang.L("{{.S}} s", map[string]any{"S": fmt.Sprintf("%.1f", d.Seconds())})
	case d < time.Minute:
		return lang.L("{{.S}} s", map[string]any{"S": int(d.Round(time.Second) / time.Second)})
	case d < time.Hour:
		d = d.Round(time.Second)
		return lang.L("{{.M}} min {{.S}} s", map[string]any{"M": int(d / time.Minute), "S": int(d % time.Minute / time.Second)})
	}
	d = d.Round(time.Minute)
	return lang.L("{{.H}} h {{.M}} min", map[string]any{"H": int(d / time.Hour), "M": int(d % time.Hour / time.Minute)})
}

// firstLine is the first non-empty line of s, cut to n characters with "…",
// its runs of spaces and tabs made one.
func firstLine(s string, n int) string {
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if line = oneLine(line); line != "" {
			return chars.Cut(line, n)
		}
	}
	return ""
}
