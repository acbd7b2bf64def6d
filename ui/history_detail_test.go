package ui

import (
	"encoding/json"
	"fmt"
	"image/color"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/history"
)

// fieldTexts is what the read-only form shows: label → value.
func fieldTexts(d *historyDetail) map[string]string {
	out := map[string]string{}
	for _, f := range d.fields {
		out[f.f.Label()] = f.text()
	}
	return out
}

// factTexts is the facts table: title → text.
func factTexts(d *historyDetail) map[string]string {
	out := map[string]string{}
	for k, l := range d.facts {
		out[k] = l.Text
	}
	return out
}

// showOne puts rec alone in a history window and selects it.
func showOne(t *testing.T, rec history.Record) *historyHarness {
	t.Helper()
	h := newHistoryHarness(t, newFakeHistory(rec))
	h.v.list.Select(0)
	if h.v.detail.rec == nil {
		t.Fatal("no details after selecting the row")
	}
	return h
}

func TestHistorySelectShowsDetails(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	d := h.v.detail
	if d.rec != nil || !contains(visibleTexts(d.content), "Select a decision to see what was asked and how it was answered.") {
		t.Errorf("pane before any selection shows %q", visibleTexts(d.content))
	}
	h.v.list.Select(0)
	wantFacts := map[string]string{
		"Asked":       formatTime(t0.Add(2 * time.Hour)),
		"Tool":        "create_repo",
		"Answered in": "4.2 s",
		"Action":      "accept",
		"Decided by":  "user",
		"Delivered":   "yes",
		"Mode":        "form",
		"Record":      "#3",
	}
	if diff := cmp.Diff(wantFacts, factTexts(d)); diff != "" {
		t.Errorf("facts mismatch (-want +got):\n%s", diff)
	}
	shown := visibleTexts(d.content)
	for _, want := range []string{"github", "calls itself “github-mcp 1.2.0”", "during tool call create_repo",
		"Form as shown", "Read-only, with the values sent.", "Repository name *"} {
		if !contains(shown, want) {
			t.Errorf("pane does not show %q; it shows %q", want, shown)
		}
	}
	if got := d.message.Text; got != "Name for the new repository?\nIt will be private." {
		t.Errorf("message %q", got)
	}
	if diff := cmp.Diff(map[string]string{"Repository name": "widgets", "private": "true"}, fieldTexts(d)); diff != "" {
		t.Errorf("form mismatch (-want +got):\n%s", diff)
	}
	for _, f := range d.fields {
		if (f.entry != nil && !f.entry.Disabled()) || (f.check != nil && !f.check.Disabled()) {
			t.Errorf("field %q can be edited", f.f.Name)
		}
	}
	if got, want := d.answer.Text, "{\n  \"name\": \"widgets\",\n  \"private\": true\n}"; got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
	if h.v.deleteB.Disabled() {
		t.Error("Delete… disabled with a decision selected")
	}

	h.v.list.Select(2)
	if got := factTexts(d); got["Reason"] != "no answer within 10 min" || got["Decided by"] != "timeout" {
		t.Errorf("third row shows facts %q", got)
	} else if _, ok := got["Answered in"]; ok {
		t.Errorf("a timeout shows a time to answer, though no person answered: %q", got)
	}
	if got := d.answer.Text; got != "Cancelled: no content was sent." {
		t.Errorf("answer %q", got)
	}
	if !contains(visibleTexts(d.content), "No fields: the server asked for a yes or no.") {
		t.Errorf("pane shows %q", visibleTexts(d.content))
	}
	h.noErrors()
}

func TestHistoryDetailShowsDefaultsWhenNothingWasSent(t *testing.T) {
	h := newHistoryHarness(t, newFakeHistory(sampleRecords()...))
	h.v.list.Select(1)
	d := h.v.detail
	if diff := cmp.Diff(map[string]string{"color": "Green"}, fieldTexts(d)); diff != "" {
		t.Errorf("form mismatch (-want +got):\n%s", diff)
	}
	if !contains(visibleTexts(d.content), "Read-only, with its defaults: nothing was sent.") {
		t.Errorf("pane shows %q", visibleTexts(d.content))
	}
	if got := d.answer.Text; got != "Declined: no content was sent." {
		t.Errorf("answer %q", got)
	}
}

func TestHistoryDetailMasksSecrets(t *testing.T) {
	h := showOne(t, history.Record{
		ID: 7, Time: t0, Server: "payments", Mode: "form", Message: "Connect your account",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{
			"api_key":{"type":"string","title":"API key"},
			"pin":{"type":"string","format":"password"},
			"region":{"type":"string","enum":["eu","us"],"enumNames":["Europe","United States"]},
			"scopes":{"type":"array","items":{"enum":["read","write","admin"]}},
			"max_tokens":{"type":"integer"},
			"note":{"type":"string"}},"required":["api_key"]}`),
		Action: "accept",
		// An old record kept a secret in clear: the pane must not show it.
		Content:   map[string]any{"api_key": "sk-live-0123456789", "pin": "[redacted]", "region": "us", "scopes": []any{"read", "admin"}, "max_tokens": float64(512)},
		DecidedBy: "user", Elapsed: 3 * time.Second,
	})
	d := h.v.detail
	want := map[string]string{
		"API key":    redacted,
		"pin":        redacted,
		"region":     "United States",
		"scopes":     "read, admin",
		"max_tokens": "512",
		"note":       "",
	}
	if diff := cmp.Diff(want, fieldTexts(d)); diff != "" {
		t.Errorf("form mismatch (-want +got):\n%s", diff)
	}
	if strings.Contains(d.answer.Text, "sk-live") {
		t.Errorf("answer shows the secret: %s", d.answer.Text)
	}
	var content map[string]any
	if err := json.Unmarshal([]byte(d.answer.Text), &content); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, d.answer.Text)
	}
	if content["api_key"] != redacted || content["pin"] != redacted || content["max_tokens"] != float64(512) {
		t.Errorf("answer content %v", content)
	}
	shown := visibleTexts(d.content)
	if n := strings.Count(strings.Join(shown, "\n"), "Looked like a secret"); n != 2 {
		t.Errorf("%d secret notes, want 2 (API key, pin); pane shows %q", n, shown)
	}
}

// TestHistoryDetailRedactedDefaults: history keeps a secret field's
// default as the marker, which an integer or a pattern does not admit; the
// pane shows the field masked, without saying the server's default was
// left out.
func TestHistoryDetailRedactedDefaults(t *testing.T) {
	h := showOne(t, history.Record{
		ID: 8, Time: t0, Server: "bank", Mode: "form", Message: "Confirm the transfer",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{
			"pin":{"type":"integer","title":"Bank PIN","default":"[redacted]"},
			"otp":{"type":"string","title":"One-time code","pattern":"^[0-9]{6}$","default":"[redacted]"},
			"memo":{"type":"string","default":"rent"}}}`),
		Action: "decline", DecidedBy: "user", Elapsed: time.Second,
	})
	d := h.v.detail
	if diff := cmp.Diff(map[string]string{"Bank PIN": redacted, "One-time code": redacted, "memo": "rent"}, fieldTexts(d)); diff != "" {
		t.Errorf("form mismatch (-want +got):\n%s", diff)
	}
	if shown := strings.Join(visibleTexts(d.content), "\n"); strings.Contains(shown, "default was left out") {
		t.Errorf("the pane says a redacted default was the server's mistake:\n%s", shown)
	}
}

func TestHistoryDetailStripsHiddenCharacters(t *testing.T) {
	h := showOne(t, history.Record{
		ID: 1, Time: t0, Server: "files", Mode: "form", Tool: "open\u200b_file",
		ServerInfo: history.ServerInfo{Name: "files\u202Esrv"},
		Message:    "Open invoice-\u202Efdp.exe?", Action: "decline", DecidedBy: "user",
	})
	d := h.v.detail
	if got := d.message.Text; got != "Open invoice-fdp.exe?" {
		t.Errorf("message %q", got)
	}
	shown := visibleTexts(d.content)
	for _, want := range []string{hiddenCharsNote, "calls itself “filessrv”", "during tool call open_file"} {
		if !contains(shown, want) {
			t.Errorf("pane does not show %q; it shows %q", want, shown)
		}
	}
}

func TestHistoryDetailURLMode(t *testing.T) {
	h := showOne(t, history.Record{
		ID: 4, Time: t0, Server: "github", Mode: "url", Message: "Authorise the app",
		URL: "https://login.example.co.uk/oauth?state=1", Action: "accept", DecidedBy: "user",
	})
	d := h.v.detail
	if d.link == nil || d.link.String() != "https://login.example.co.uk/oauth?state=1" {
		t.Fatalf("link not shown")
	}
	var bold string
	for _, s := range d.link.Segments {
		if ts, ok := s.(*widget.TextSegment); ok && ts.Style.TextStyle.Bold {
			bold += ts.Text
		}
	}
	if bold != "example.co.uk" {
		t.Errorf("highlighted %q, want the registrable domain", bold)
	}
	if !contains(visibleTexts(d.content), "Opens login.example.co.uk") {
		t.Errorf("pane shows %q", visibleTexts(d.content))
	}
	if factTexts(d)["Mode"] != "URL" || d.fields != nil {
		t.Errorf("URL mode shown as a form")
	}
	if got := d.answer.Text; got != "Accepted, with no content." {
		t.Errorf("answer %q", got)
	}
}

func TestHistoryDetailUnrenderableSchema(t *testing.T) {
	h := showOne(t, history.Record{
		ID: 9, Time: t0, Server: "deep", Mode: "form", Message: "Nested",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"address":{"type":"object","properties":{"street":{"type":"string"}}}}}`),
		Action:          "error", DecidedBy: "error", Reason: "unsupported requestedSchema",
	})
	d := h.v.detail
	if d.formErr == nil || !strings.HasPrefix(d.formErr.Text, "This requestedSchema cannot be shown as a form: ") {
		t.Fatalf("no explanation of the schema; pane shows %q", visibleTexts(d.content))
	}
	if !strings.Contains(strings.Join(visibleTexts(d.content), "\n"), `"street"`) {
		t.Errorf("the schema itself is not shown")
	}
	if got := d.answer.Text; got != "Answered with an error: no content was sent." {
		t.Errorf("answer %q", got)
	}
}

func TestHistoryDetailLongMessage(t *testing.T) {
	long := strings.Repeat("word ", 3000)
	h := showOne(t, history.Record{ID: 12, Time: t0, Server: "s", Mode: "form", Message: long, Action: "cancel", DecidedBy: "user"})
	got := h.v.detail.message.Text
	if len([]rune(got)) > maxDetailMessage+200 || !strings.HasSuffix(got, "`elicitray history show 12` prints all of it.)") {
		t.Errorf("long message shown as %d runes ending %q", len([]rune(got)), got[len(got)-60:])
	}
}

// TestHistoryDetailShowsEveryDigit (issue 10): numbers the history kept
// beyond what a float64 holds are shown in the pane's form and answer as
// the server received them.
func TestHistoryDetailShowsEveryDigit(t *testing.T) {
	h := showOne(t, history.Record{
		ID: 3, Time: t0, Server: "bank", Mode: "form", Message: "Transfer?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"from":{"type":"integer","default":9007199254740993},"share":{"type":"number"}}}`),
		Action:          "accept",
		Content:         map[string]any{"from": json.Number("9007199254740993"), "share": json.Number("0.1000000000000000000001")},
		DecidedBy:       "user", Elapsed: time.Second,
	})
	d := h.v.detail
	want := map[string]string{"from": "9007199254740993", "share": "0.1000000000000000000001"}
	if diff := cmp.Diff(want, fieldTexts(d)); diff != "" {
		t.Errorf("form mismatch (-want +got):\n%s", diff)
	}
	for _, digits := range want {
		if !strings.Contains(d.answer.Text, digits) {
			t.Errorf("the answer does not show %s:\n%s", digits, d.answer.Text)
		}
	}
}

// TestHistoryShowsWhatNeverReachedTheServer: a decision whose answer never
// reached its server says so in its row and its details, in the user's
// words (issue 25); one not confirmed yet says that.
func TestHistoryShowsWhatNeverReachedTheServer(t *testing.T) {
	recs := sampleRecords()
	recs[0].Delivery = "the wrapper ended (it crashed or was killed) before it passed the answer on to the server"
	recs[1].Delivery = history.DeliveryPending
	h := newHistoryHarness(t, newFakeHistory(recs...))
	for _, tt := range []struct {
		row             int
		action, details string
	}{
		{0, "accept, unsent", "no: the wrapper ended (it crashed or was killed) before it passed the answer on to the server"},
		{1, "decline, unconfirmed", "not confirmed: sent to the wrapper, which has not said it wrote the answer to the server"},
		{2, "cancel", "yes"},
	} {
		if got := rowTexts(&recs[tt.row])[4]; got != tt.action {
			t.Errorf("row %d shows the action %q, want %q", tt.row, got, tt.action)
		}
		h.v.list.Select(tt.row)
		if got := factTexts(h.v.detail)["Delivered"]; got != tt.details {
			t.Errorf("record %d: Delivered reads %q, want %q", recs[tt.row].ID, got, tt.details)
		}
	}
}

// TestHistoryDetailUnsentFieldsAreNotEmpty: a form nobody sent (it timed
// out) keeps nothing of what was typed into it; its empty fields say "not
// sent", not "not filled", which the person may well have done. A sent
// form's empty field was empty.
func TestHistoryDetailUnsentFieldsAreNotEmpty(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Name"},"note":{"type":"string","title":"Note"}}}`)
	h := showOne(t, history.Record{ID: 1, Time: t0, Server: "github", Mode: "form", Message: "Who?", RequestedSchema: schema,
		Action: "cancel", DecidedBy: "timeout", Reason: "no answer within 10 min", Elapsed: 10 * time.Minute})
	for _, f := range h.v.detail.fields {
		if f.entry == nil || f.entry.Text != "" || f.entry.PlaceHolder != "(not sent)" {
			t.Errorf("field %q of an unsent form shows %+v, want an empty entry saying (not sent)", f.f.Name, f.entry)
		}
	}
	h = showOne(t, history.Record{ID: 2, Time: t0, Server: "github", Mode: "form", Message: "Who?", RequestedSchema: schema,
		Action: "accept", Content: map[string]any{"name": "Ada"}, DecidedBy: "user", Elapsed: time.Second})
	for _, f := range h.v.detail.fields {
		if f.f.Name == "note" && f.entry.PlaceHolder != "(not filled)" {
			t.Errorf("the empty field of a sent form says %q, want (not filled)", f.entry.PlaceHolder)
		}
	}
	// The placeholder reads dimmer than an answer (a new user took
	// "(not filled)" for a value), and still at 4.5:1.
	fyne.CurrentApp().Settings().SetTheme(theme.DefaultTheme())
	nrgba := func(c color.Color) color.NRGBA { return color.NRGBAModel.Convert(c).(color.NRGBA) }
	for _, f := range h.v.detail.fields {
		for _, v := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
			th, bg := theme.CurrentForWidget(f.entry), nrgba(theme.DefaultTheme().Color(theme.ColorNameInputBackground, v))
			drawn, answer := contrast(nrgba(th.Color(theme.ColorNameDisabled, v)), bg), contrast(nrgba(th.Color(theme.ColorNameForeground, v)), bg)
			if empty := f.entry.Text == ""; empty && (drawn >= answer || drawn < 4.5) || !empty && drawn != answer {
				t.Errorf("%s (%q) is drawn at %.1f:1 where an answer is %.1f:1, in variant %d", f.f.Name, f.entry.Text+f.entry.PlaceHolder, drawn, answer, v)
			}
		}
	}
}

// TestHistoryDetailWheelOverAnswer: the mouse wheel over an answer of
// the read-only form scrolls the pane, as it does over the rest of it
// (found by a new user: it stopped over every text field).
func TestHistoryDetailWheelOverAnswer(t *testing.T) {
	props, content := []string{}, map[string]any{}
	for i := range 30 {
		name := fmt.Sprintf("f%02d", i)
		props = append(props, fmt.Sprintf(`"%s":{"type":"string","title":"字段 %d"}`, name, i))
		content[name] = "שלום 👋🏽 e\u0301"
	}
	schema := json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
	h := showOne(t, history.Record{ID: 1, Time: t0, Server: "表单", Mode: "form", Message: "Fill it in", RequestedSchema: schema,
		Action: "accept", Content: content, DecidedBy: "user", Elapsed: time.Second})
	e := h.v.detail.fields[0].entry
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(e).Add(fyne.NewPos(e.Size().Width/2, e.Size().Height/2))
	test.Scroll(h.w.Canvas(), at, 0, -80)
	if h.v.detail.scroll.Offset.Y == 0 {
		t.Fatal("the wheel over the first answer left the pane where it was")
	}
	// An answer wider than its field keeps the wheel, which scrolls its
	// text sideways, as Fyne's entries do: the pane stays.
	content["f00"] = strings.Repeat("مرحبا بالعالم 🌍 ", 30)
	h = showOne(t, history.Record{ID: 1, Time: t0, Server: "表单", Mode: "form", Message: "Fill it in", RequestedSchema: schema,
		Action: "accept", Content: content, DecidedBy: "user", Elapsed: time.Second})
	e = h.v.detail.fields[0].entry
	at = fyne.CurrentApp().Driver().AbsolutePositionForObject(e).Add(fyne.NewPos(e.Size().Width/2, e.Size().Height/2))
	test.Scroll(h.w.Canvas(), at, 0, -80)
	if h.v.detail.scroll.Offset.Y != 0 {
		t.Error("the wheel over an answer wider than its field scrolled the pane, not the answer")
	}
}

// TestHistoryDetailRightToLeftAnswer: an Arabic or Hebrew answer in the
// read-only form reads in the order it was typed, as in the prompt, not
// letter by letter backwards (found by a new user: Fyne's entry draws
// its text as stored); Latin text and digits beside it keep their order.
func TestHistoryDetailRightToLeftAnswer(t *testing.T) {
	schema := `{"type":"object","properties":{"city":{"type":"string","title":"City"},"note":{"type":"string","title":"Note"}}}`
	for _, answer := range []string{"القاهرة الجديدة", "תל אביב 2026", "مرحبا ABC ١٢٣"} {
		h := showOne(t, history.Record{ID: 1, Time: t0, Server: "maps", Mode: "form", Message: "Where?",
			RequestedSchema: json.RawMessage(schema), Action: "accept", DecidedBy: "user",
			Content: map[string]any{"city": answer, "note": "plain"}})
		got := fieldTexts(h.v.detail)
		if got["City"] != bidiText(answer) || got["City"] == answer {
			t.Errorf("%q is shown as %q, want it in visual order %q", answer, got["City"], bidiText(answer))
		}
		if got["Note"] != "plain" {
			t.Errorf("a left-to-right answer is shown as %q", got["Note"])
		}
	}
}

// TestHistoryDetailToolChange: a tool change's record reads as its window
// did: the message names the tool, and no header says a tool call was in
// flight, since none was; its mode is "tool change", not "form".
func TestHistoryDetailToolChange(t *testing.T) {
	h := showOne(t, history.Record{
		ID: 1, Time: t0, Server: "部署", Mode: "tool change", Tool: "deploy",
		Message: "The server changed the definition of its tool \"deploy\" since you first saw it.", Action: "decline", DecidedBy: "user",
	})
	shown := visibleTexts(h.v.detail.content)
	if slices.ContainsFunc(shown, func(s string) bool { return strings.Contains(s, "during tool call") }) {
		t.Errorf("the pane says a tool call was in flight: %q", shown)
	}
	if got := h.v.detail.message.Text; !strings.Contains(got, `its tool "deploy"`) {
		t.Errorf("message %q", got)
	}
	// Its mode is what it was, and nothing was sent to the server for it
	// to get: no Delivered line. A guarded call's record the same.
	facts := factTexts(h.v.detail)
	if facts["Mode"] != "tool change" || facts["Delivered"] != "" {
		t.Errorf("Mode %q, Delivered %q; want tool change and no Delivered line", facts["Mode"], facts["Delivered"])
	}
	h = showOne(t, history.Record{ID: 2, Time: t0, Server: "部署", Mode: "tool call", Tool: "deploy",
		Message: "The AI wants to call deploy.", Action: "accept", DecidedBy: "user"})
	if facts := factTexts(h.v.detail); facts["Mode"] != "tool call" || facts["Delivered"] != "" {
		t.Errorf("a guarded call's Mode %q, Delivered %q; want tool call and no Delivered line", facts["Mode"], facts["Delivered"])
	}
}

// TestHistoryDetailAnswerDrawsBidiInOrder: the Answer block shows the
// user's Arabic in the bidi algorithm's order, as the form above it does:
// its first word drawn right of its last, with the digits between them
// kept whole.
func TestHistoryDetailAnswerDrawsBidiInOrder(t *testing.T) {
	h := showOne(t, history.Record{ID: 1, Time: t0, Server: "deployer", Mode: "form", Message: "Deploy?",
		Action: "accept", DecidedBy: "user", Content: map[string]any{"note": "نشر الإصدار 2.1 إلى (prod) — 部署"}})
	var line string
	for l := range strings.SplitSeq(h.v.detail.answer.Text, "\n") {
		if strings.Contains(l, "نشر") {
			line = l
		}
	}
	drawn := drawnLeftToRight(line)
	first, last := slices.Index(drawn, "نشر"), slices.Index(drawn, "إلى")
	if first < 0 || last < 0 || last > first || !strings.Contains(line, "2.1") {
		t.Errorf("the answer's Arabic is drawn %q, want إلى left of نشر and 2.1 whole", drawn)
	}
}

// TestHistoryDetailValuesReadable: the read-only form's values read as
// well as any text, in the dark and the light theme: at least 4.5:1 to
// the field's background (WCAG AA). Fyne draws disabled widgets' text in
// its disabled colour, which is about 1.2:1 there: a new user found the
// answers of the form as sent "almost invisible".
func TestHistoryDetailValuesReadable(t *testing.T) {
	schema := `{"type":"object","properties":{"who":{"type":"string","title":"שם"},"room":{"type":"string","title":"部屋","enum":["a","b"]},"ok":{"type":"boolean","title":"OK"}}}`
	h := showOne(t, history.Record{ID: 1, Time: t0, Server: "הזמנות", Mode: "form", Message: "?",
		RequestedSchema: json.RawMessage(schema), Action: "accept", DecidedBy: "user",
		Content: map[string]any{"who": "דנה כהן", "room": "a", "ok": true}})
	fyne.CurrentApp().Settings().SetTheme(theme.DefaultTheme())
	var shown []fyne.Widget
	for _, f := range h.v.detail.fields {
		for _, w := range []fyne.Widget{f.entry, f.sel, f.check} {
			if !reflect.ValueOf(w).IsNil() {
				shown = append(shown, w)
			}
		}
	}
	if len(shown) != 3 {
		t.Fatalf("%d read-only widgets shown, want 3", len(shown))
	}
	for _, w := range shown {
		th := theme.CurrentForWidget(w)
		for _, v := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
			text := color.NRGBAModel.Convert(th.Color(theme.ColorNameDisabled, v)).(color.NRGBA)
			bg := color.NRGBAModel.Convert(th.Color(theme.ColorNameInputBackground, v)).(color.NRGBA)
			under := color.NRGBAModel.Convert(th.Color(theme.ColorNameBackground, v)).(color.NRGBA)
			if c := min(contrast(text, bg), contrast(text, under)); c < 4.5 {
				t.Errorf("%T's value in variant %d: %.1f:1 to its background; want at least 4.5:1", w, v, c)
			}
		}
	}
}
