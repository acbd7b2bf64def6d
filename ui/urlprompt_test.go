package ui

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// loadURLCase returns the url and message of the first URL-mode
// elicitation/create in the cases/*.jsonl transcript name.
func loadURLCase(t *testing.T, name string) (rawURL, message string) {
	t.Helper()
	f, err := os.Open(filepath.Join(casesDir, name))
	if err != nil {
		t.Fatalf("reading case: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct {
			Msg struct {
				Method string `json:"method"`
				Params struct {
					Mode    string `json:"mode"`
					URL     string `json:"url"`
					Message string `json:"message"`
				} `json:"params"`
			} `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("decoding %s: %v", name, err)
		}
		if line.Msg.Method == "elicitation/create" && line.Msg.Params.Mode == "url" {
			return line.Msg.Params.URL, line.Msg.Params.Message
		}
	}
	t.Fatalf("%s holds no URL-mode elicitation/create", name)
	return "", ""
}

// urlHarness is a URL prompt view on a test window, recording what happens
// in order: "done:<action>", "open:<url>", "close", "error:<doing>".
type urlHarness struct {
	t      *testing.T
	v      *urlPromptView
	c      fyne.Canvas
	events []string
}

// newURLHarness shows a URL prompt for check on a test canvas the way
// ShowURLPrompt does, with the focus on Cancel and the key guard off.
func newURLHarness(t *testing.T, check elicit.URLCheck) *urlHarness {
	t.Helper()
	test.NewTempApp(t)
	h := &urlHarness{t: t}
	h.v = newURLPromptView(&URLPrompt{
		Server:     "payments",
		ServerInfo: "acme-billing-mcp 1.4.0",
		Tool:       "connect_account",
		Message:    "Connect your account to continue.",
		Check:      check,
	}, func(a Answer) {
		h.events = append(h.events, "done:"+a.Action)
		if a.Content != nil {
			t.Errorf("answer %q carries content %v; URL mode sends none", a.Action, a.Content)
		}
	})
	h.v.openURL = func(u *url.URL) error {
		h.events = append(h.events, "open:"+u.String())
		return nil
	}
	h.v.onError = func(doing string, err error) { h.events = append(h.events, "error:"+doing) }
	h.v.closeWindow = func() { h.events = append(h.events, "close") }
	w := test.NewTempWindow(t, h.v.content)
	w.Resize(fyne.NewSize(560, 600))
	h.c = w.Canvas()
	h.v.attach(h.c)
	h.v.focusFirst()
	return h
}

// sessionURL is the link of cases/url-mode.jsonl.
func sessionURL(t *testing.T) string {
	raw, _ := loadURLCase(t, "url-mode.jsonl")
	return raw
}

// buttonTexts lists the texts of the visible buttons under o.
func buttonTexts(o fyne.CanvasObject) []string {
	var out []string
	walkVisible(o, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*keyButton); ok {
			out = append(out, b.Text)
			return false
		}
		return true
	})
	return out
}

// segment is a rich text segment as the user sees it.
type segment struct {
	Text  string
	Bold  bool
	Color fyne.ThemeColorName
}

func segmentsOf(rt *widget.RichText) []segment {
	var out []segment
	for _, s := range rt.Segments {
		ts := s.(*widget.TextSegment)
		out = append(out, segment{ts.Text, ts.Style.TextStyle.Bold, ts.Style.ColorName})
	}
	return out
}

func TestURLPromptShowsHeaderAndFullURL(t *testing.T) {
	raw, msg := loadURLCase(t, "url-mode.jsonl")
	h := newURLHarness(t, elicit.CheckURL(raw))
	if msg != "Connect your account to continue." {
		t.Fatalf("case message %q; the harness shows another", msg)
	}

	texts := visibleTexts(h.v.content)
	for _, want := range []string{
		"payments",
		"calls itself “acme-billing-mcp 1.4.0”",
		"during tool call connect_account",
		msg,
		"Opens auth.example.com",
	} {
		if !contains(texts, want) {
			t.Errorf("%q not shown; shown: %q", want, texts)
		}
	}
	if got := h.v.link.String(); got != raw {
		t.Errorf("link shows %q, want the full URL %q", got, raw)
	}
	if h.v.link.Wrapping != fyne.TextWrapBreak {
		t.Errorf("link wrapping = %v, want TextWrapBreak (a URL has no spaces)", h.v.link.Wrapping)
	}
	want := []segment{
		{Text: "https://auth."},
		{Text: "example.com", Bold: true, Color: theme.ColorNamePrimary},
		{Text: "/connect?session=7f1c2a90"},
	}
	if diff := cmp.Diff(want, segmentsOf(h.v.link)); diff != "" {
		t.Errorf("link segments mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Copy link", "Cancel", "Decline", "Open in browser"}, buttonTexts(h.v.content)); diff != "" {
		t.Errorf("buttons mismatch (-want +got):\n%s", diff)
	}
	if h.v.open.Importance != widget.HighImportance {
		t.Errorf("Open in browser has importance %v, want high", h.v.open.Importance)
	}
}

func TestURLPromptHighlightsRegistrableDomain(t *testing.T) {
	hl := func(s string) segment { return segment{Text: s, Bold: true, Color: theme.ColorNamePrimary} }
	pl := func(s string) segment { return segment{Text: s} }
	for _, tt := range []struct {
		name string
		raw  string
		want []segment
	}{
		{"user name before the real host", "https://bank.example@evil.test/login", []segment{pl("https://bank.example@"), hl("evil.test"), pl("/login")}},
		{"@ in the path", "https://evil.test/@bank.example", []segment{pl("https://"), hl("evil.test"), pl("/@bank.example")}},
		{"lookalike prefix", "https://example.com.evil.test/", []segment{pl("https://example.com."), hl("evil.test"), pl("/")}},
		{"public suffix of two labels, port", "https://a.b.bbc.co.uk:8443/x", []segment{pl("https://a.b."), hl("bbc.co.uk"), pl(":8443/x")}},
		{"trailing dot", "https://a.b.bbc.co.uk./x", []segment{pl("https://a.b."), hl("bbc.co.uk"), pl("./x")}},
		{"capitals", "https://AUTH.Example.COM/x", []segment{pl("https://AUTH."), hl("Example.COM"), pl("/x")}},
		{"punycode", "https://login.xn--80ak6aa92e.com/", []segment{pl("https://login."), hl("xn--80ak6aa92e.com"), pl("/")}},
		{"Unicode", "https://login.аррӏе.com/", []segment{pl("https://login."), hl("аррӏе.com"), pl("/")}},
		{"full-width letters", "https://www.ＥＸＡＭＰＬＥ.com/", []segment{pl("https://www."), hl("ＥＸＡＭＰＬＥ.com"), pl("/")}},
		{"IP address: the whole host", "http://192.168.1.20:8080/login", []segment{pl("http://"), hl("192.168.1.20"), pl(":8080/login")}},
		{"IP address as a number", "http://2130706433/", []segment{pl("http://"), hl("2130706433"), pl("/")}},
		{"IPv6", "https://[::1]:8443/", []segment{pl("https://"), hl("[::1]"), pl(":8443/")}},
		{"no registrable domain: the whole host", "https://localhost:3000/cb", []segment{pl("https://"), hl("localhost"), pl(":3000/cb")}},
		{"refused, no host", "javascript:alert(1)", []segment{pl("javascript:alert(1)")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			test.NewTempApp(t)
			c := elicit.CheckURL(tt.raw)
			if diff := cmp.Diff(tt.want, segmentsOf(widget.NewRichText(linkSegments(c)...))); diff != "" {
				t.Errorf("%+v: mismatch (-want +got):\n%s", c, diff)
			}
		})
	}
}

// TestURLPromptHighlightsNothingUnsure: when the host found in the URL's
// text is not the host the check saw, nothing is highlighted rather than
// the wrong part.
func TestURLPromptHighlightsNothingUnsure(t *testing.T) {
	test.NewTempApp(t)
	c := elicit.URLCheck{URL: "https://a.example/", Host: "b.example", HostUnicode: "b.example", Registrable: "b.example"}
	want := []segment{{Text: "https://a.example/"}}
	if diff := cmp.Diff(want, segmentsOf(widget.NewRichText(linkSegments(c)...))); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestURLPromptOpensLine(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want string
	}{
		{"https://auth.example.com/connect", "Opens auth.example.com"},
		{"https://AUTH.Example.COM/x", "Opens auth.example.com"},
		{"http://192.168.1.20:8080/login", "Opens 192.168.1.20 on port 8080"},
		{"http://2130706433/", "Opens 127.0.0.1"},
		{"https://[::1]:8443/", "Opens ::1 on port 8443"},
		{"https://bücher.example/", "Opens bücher.example, also written xn--bcher-kva.example"},
		{"https://xn--80ak6aa92e.com/login", "Opens аррӏе.com, also written xn--80ak6aa92e.com"},
		{"javascript:alert(1)", ""},
	} {
		t.Run(tt.raw, func(t *testing.T) {
			if got := opensText(elicit.CheckURL(tt.raw)); got != tt.want {
				t.Errorf("opensText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestURLPromptWarnings(t *testing.T) {
	raw := "http://192.168.1.20:8080/login"
	check := elicit.CheckURL(raw)
	if len(check.Warnings) == 0 || check.Refused != nil {
		t.Fatalf("CheckURL(%q): warnings %q, refused %v; want warnings and no refusal", raw, check.Warnings, check.Refused)
	}
	h := newURLHarness(t, check)
	warnIcon := theme.NewWarningThemedResource(theme.WarningIcon()).Name()
	for _, w := range check.Warnings {
		l := labelWithText(h.v.content, w)
		if l == nil {
			t.Errorf("warning %q not shown; shown: %q", w, visibleTexts(h.v.content))
			continue
		}
		if l.Importance != widget.WarningImportance {
			t.Errorf("warning %q has importance %v, want warning", w, l.Importance)
		}
		if got := iconBeside(h.v.content, l); got != warnIcon {
			t.Errorf("icon beside warning %q is %q, want %q", w, got, warnIcon)
		}
	}
	if !contains(visibleTexts(h.v.content), "Opens 192.168.1.20 on port 8080") {
		t.Errorf("no Opens line with the port; shown: %q", visibleTexts(h.v.content))
	}
	if h.v.open == nil {
		t.Error("a URL with warnings but no refusal offers no Open button")
	}
}

func TestURLPromptRefusedCannotBeOpened(t *testing.T) {
	raw := "javascript:alert(document.cookie)"
	check := elicit.CheckURL(raw)
	if check.Refused == nil {
		t.Fatalf("CheckURL(%q) did not refuse it", raw)
	}
	for _, tt := range []struct {
		name string
		act  func(h *urlHarness)
		want []string
	}{
		{"Return with nothing focused", func(h *urlHarness) { h.c.Unfocus(); pressKey(h.c, fyne.KeyReturn) }, nil},
		{"keypad Enter with nothing focused", func(h *urlHarness) { h.c.Unfocus(); pressKey(h.c, fyne.KeyEnter) }, nil},
		{"Return on Cancel cancels", func(h *urlHarness) { pressKey(h.c, fyne.KeyReturn) }, []string{"done:cancel", "close"}},
		{"Space on Cancel cancels", func(h *urlHarness) { pressKey(h.c, fyne.KeySpace) }, []string{"done:cancel", "close"}},
		{"Space on Decline declines", func(h *urlHarness) { h.c.Focus(h.v.decline); pressKey(h.c, fyne.KeySpace) }, []string{"done:decline", "close"}},
		{"Tab through every button and Return", func(h *urlHarness) {
			for range 4 {
				test.FocusNext(h.c)
				if f := h.c.Focused(); f != h.v.cancel && f != h.v.decline && f != h.v.mute {
					t.Errorf("focus reached %T, beyond Cancel, Decline and the mute check box", f)
				}
			}
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newURLHarness(t, check)
			if h.v.open != nil || contains(buttonTexts(h.v.content), "Open in browser") {
				t.Fatalf("refused URL offers buttons %q", buttonTexts(h.v.content))
			}
			h.v.onOpen() // not reachable, and harmless
			tt.act(h)
			if diff := cmp.Diff(tt.want, h.events); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
		})
	}

	h := newURLHarness(t, check)
	refusal := sentence(check.Refused)
	l := labelWithText(h.v.content, refusal)
	if l == nil {
		t.Fatalf("refusal %q not shown; shown: %q", refusal, visibleTexts(h.v.content))
	}
	if l.Importance != widget.DangerImportance {
		t.Errorf("refusal has importance %v, want danger", l.Importance)
	}
	if got, want := iconBeside(h.v.content, l), theme.NewErrorThemedResource(theme.ErrorIcon()).Name(); got != want {
		t.Errorf("icon beside the refusal is %q, want %q", got, want)
	}
	if got := h.v.link.String(); got != raw {
		t.Errorf("refused link shows %q, want it in full: %q", got, raw)
	}
	for _, s := range visibleTexts(h.v.content) {
		if strings.HasPrefix(s, "Opens") {
			t.Errorf("refused URL shows %q", s)
		}
	}
}

func TestURLPromptAnswers(t *testing.T) {
	for _, tt := range []struct {
		name string
		act  func(h *urlHarness)
		want func(u string) []string
	}{
		{"Open in browser opens after the answer", func(h *urlHarness) { test.Tap(h.v.open) }, opened},
		{"Space on Open opens", func(h *urlHarness) { h.c.Focus(h.v.open); pressKey(h.c, fyne.KeySpace) }, opened},
		{"Return on Open opens", func(h *urlHarness) { h.c.Focus(h.v.open); pressKey(h.c, fyne.KeyReturn) }, opened},
		{"Decline declines", func(h *urlHarness) { test.Tap(h.v.decline) }, answered("decline")},
		{"Alt+D declines", func(h *urlHarness) { typeShortcut(h.c, declineShortcut) }, answered("decline")},
		{"Alt+D on Open declines", func(h *urlHarness) { h.c.Focus(h.v.open); typeShortcut(h.c, declineShortcut) }, answered("decline")},
		{"Cancel cancels", func(h *urlHarness) { test.Tap(h.v.cancel) }, answered("cancel")},
		{"Escape cancels", func(h *urlHarness) { pressKey(h.c, fyne.KeyEscape) }, answered("cancel")},
		{"Escape on Open cancels", func(h *urlHarness) { h.c.Focus(h.v.open); pressKey(h.c, fyne.KeyEscape) }, answered("cancel")},
		{"Escape with nothing focused cancels", func(h *urlHarness) { h.c.Unfocus(); pressKey(h.c, fyne.KeyEscape) }, answered("cancel")},
		{"closing the window cancels", func(h *urlHarness) { h.v.onDismiss() }, answered("cancel")},
		{"Return at open cancels, the focus being on Cancel", func(h *urlHarness) { pressKey(h.c, fyne.KeyReturn) }, answered("cancel")},
		{"Return with nothing focused does nothing", func(h *urlHarness) { h.c.Unfocus(); pressKey(h.c, fyne.KeyReturn) }, nothing},
		{"Return on Copy link does not open", func(h *urlHarness) { h.c.Focus(h.v.copyLink); pressKey(h.c, fyne.KeyReturn) }, nothing},
		{"answers once", func(h *urlHarness) {
			test.Tap(h.v.open)
			test.Tap(h.v.open)
			test.Tap(h.v.decline)
			pressKey(h.c, fyne.KeyEscape)
		}, opened},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := sessionURL(t)
			h := newURLHarness(t, elicit.CheckURL(u))
			tt.act(h)
			if diff := cmp.Diff(tt.want(u), h.events); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func opened(u string) []string { return []string{"done:accept", "open:" + u, "close"} }
func nothing(string) []string  { return nil }

func answered(action string) func(string) []string {
	return func(string) []string { return []string{"done:" + action, "close"} }
}

func TestURLPromptFocusStartsOnCancel(t *testing.T) {
	h := newURLHarness(t, elicit.CheckURL(sessionURL(t)))
	names := map[fyne.Focusable]string{
		h.v.copyLink: "Copy link", h.v.cancel: "Cancel", h.v.decline: "Decline", h.v.open: "Open in browser",
		h.v.mute: "mute",
	}
	var got []string
	for range 6 {
		got = append(got, names[h.c.Focused()])
		test.FocusNext(h.c)
	}
	want := []string{"Cancel", "Decline", "Open in browser", "Copy link", "mute", "Cancel"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("focus order mismatch (-want +got):\n%s", diff)
	}
}

func TestURLPromptKeyGuard(t *testing.T) {
	u := sessionURL(t)
	h := newURLHarness(t, elicit.CheckURL(u))
	clock := &fakeClock{t: time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC)}
	h.v.now = clock.now
	h.v.armedAt = clock.t.Add(keyGuard)

	h.c.Focus(h.v.open)
	pressKey(h.c, fyne.KeyReturn)
	pressKey(h.c, fyne.KeySpace)
	pressKey(h.c, fyne.KeyEscape)
	typeShortcut(h.c, declineShortcut)
	if len(h.events) != 0 {
		t.Fatalf("keys pressed as the window appeared did something: %q", h.events)
	}

	h.v.keys.presses = true // as in a desktop window
	clock.t = clock.t.Add(keyGuard)
	pressKey(h.c, fyne.KeyReturn) // held since before: auto-repeat
	if len(h.events) != 0 {
		t.Fatalf("a held Return opened the link: %q", h.events)
	}
	h.v.open.KeyDown(&fyne.KeyEvent{Name: fyne.KeyReturn}) // released, pressed anew
	pressKey(h.c, fyne.KeyReturn)
	h.v.open.KeyUp(&fyne.KeyEvent{Name: fyne.KeyReturn}) // it acts on release
	if diff := cmp.Diff(opened(u), h.events); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
}

// TestURLPromptOpenFails: when the browser cannot be started, the accept
// stands, the user is told, and the window stays for the link to be copied;
// closing it then answers nothing more.
func TestURLPromptOpenFails(t *testing.T) {
	u := sessionURL(t)
	h := newURLHarness(t, elicit.CheckURL(u))
	h.v.openURL = func(*url.URL) error { return errors.New("exec: xdg-open: not found") }
	test.Tap(h.v.open)
	if diff := cmp.Diff([]string{"done:accept", "error:open the link in your browser"}, h.events); diff != "" {
		t.Fatalf("events mismatch (-want +got):\n%s", diff)
	}
	if !h.v.open.Disabled() || !h.v.decline.Disabled() || h.v.cancel.Text != "Close" {
		t.Errorf("after a failed open: Open disabled %v, Decline disabled %v, Cancel reads %q; want disabled, disabled, Close",
			h.v.open.Disabled(), h.v.decline.Disabled(), h.v.cancel.Text)
	}
	test.Tap(h.v.copyLink)
	if got := fyne.CurrentApp().Clipboard().Content(); got != u {
		t.Errorf("clipboard = %q, want the link", got)
	}
	pressKey(h.c, fyne.KeyEscape)
	if diff := cmp.Diff([]string{"done:accept", "error:open the link in your browser", "close"}, h.events); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
}

func TestURLPromptCopyLink(t *testing.T) {
	u := sessionURL(t)
	h := newURLHarness(t, elicit.CheckURL(u))
	h.c.Focus(h.v.copyLink)
	pressKey(h.c, fyne.KeySpace)
	if got := fyne.CurrentApp().Clipboard().Content(); got != u {
		t.Errorf("clipboard = %q, want %q", got, u)
	}
	if h.v.hint.Text != "Link copied." {
		t.Errorf("hint = %q, want it to say the link was copied", h.v.hint.Text)
	}
	if len(h.events) != 0 {
		t.Errorf("copying the link did %q", h.events)
	}
}

// TestURLPromptLongText: a huge message is clipped as in the form prompt,
// but a long URL is shown whole, wrapped, without widening the window.
func TestURLPromptLongText(t *testing.T) {
	u := "https://auth.example.com/connect?state=" + strings.Repeat("a1b2c3d4", 500)
	check := elicit.URLCheck{URL: u, Host: "auth.example.com", HostASCII: "auth.example.com", HostUnicode: "auth.example.com", Registrable: "example.com"}
	test.NewTempApp(t)
	long := strings.Repeat("M", 50_000)
	v := newURLPromptView(&URLPrompt{Server: "payments", Message: long, Check: check}, func(Answer) {})
	w := test.NewTempWindow(t, v.content)
	size := v.size()
	w.Resize(size)
	if got := v.link.String(); got != u {
		t.Errorf("link shows %d characters, want all %d", len(got), len(u))
	}
	if size.Width > 560 || size.Height > 720 || v.content.MinSize().Width > 1000 {
		t.Errorf("window %v (content min %v): long text stretched it", size, v.content.MinSize())
	}
	if !strings.Contains(visibleTexts(v.content)[1], "the history keeps all of it") {
		t.Error("a shortened message does not say so")
	}
}

// recordingApp is a test app whose OpenURL records instead of starting a
// browser.
type recordingApp struct {
	fyne.App
	opened []string
}

func (a *recordingApp) OpenURL(u *url.URL) error {
	a.opened = append(a.opened, u.String())
	return nil
}

func TestShowURLPrompt(t *testing.T) {
	const title = "elicitray — payments asks to open a link"
	for _, tt := range []struct {
		name       string
		act        func(pw *PromptWindow)
		wantAnswer []Answer
		wantOpened bool
	}{
		{"Open in browser opens with the app", func(pw *PromptWindow) { test.Tap(pw.urlView.open) }, []Answer{{Action: "accept"}}, true},
		{"closing the window cancels", func(pw *PromptWindow) { pw.urlView.onDismiss() }, []Answer{{Action: "cancel"}}, false},
		{"Close does not answer", func(pw *PromptWindow) { pw.Close() }, nil, false},
		{"Close then a late click does not answer or open", func(pw *PromptWindow) {
			pw.Close()
			test.Tap(pw.urlView.open)
			pw.Close()
		}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := &recordingApp{App: test.NewTempApp(t)}
			u := sessionURL(t)
			var got []Answer
			var openedAtDone int
			pw := ShowURLPrompt(a, &URLPrompt{Server: "payments", Message: "Connect.", Check: elicit.CheckURL(u)}, func(an Answer) {
				got = append(got, an)
				openedAtDone = len(a.opened)
			})
			if pw.win.Title() != title {
				t.Errorf("title = %q, want %q", pw.win.Title(), title)
			}
			pw.arm() // the click guard's end: TestClickGuard is about it
			if f := pw.win.Canvas().Focused(); f != pw.urlView.cancel {
				t.Errorf("focus once armed on %T, want Cancel", f)
			}
			tt.act(pw)
			if diff := cmp.Diff(tt.wantAnswer, got); diff != "" {
				t.Errorf("answers mismatch (-want +got):\n%s", diff)
			}
			var wantOpened []string
			if tt.wantOpened {
				wantOpened = []string{u}
			}
			if diff := cmp.Diff(wantOpened, a.opened); diff != "" {
				t.Errorf("opened mismatch (-want +got):\n%s", diff)
			}
			if openedAtDone != 0 {
				t.Error("the link was opened before the answer was given")
			}
			for _, w := range a.Driver().AllWindows() {
				if w.Title() == title {
					t.Error("prompt window still open")
				}
			}
		})
	}
}

// labelWithText is the visible label under o reading text, or nil.
func labelWithText(o fyne.CanvasObject, text string) *widget.Label {
	for _, l := range visibleLabels(o) {
		if l.Text == text {
			return l
		}
	}
	return nil
}

// iconBeside is the resource name of the icon in the container that holds
// l, or "".
func iconBeside(root fyne.CanvasObject, l *widget.Label) string {
	name := ""
	walkVisible(root, func(o fyne.CanvasObject) bool {
		c, ok := o.(*fyne.Container)
		if !ok || !holds(c, l) {
			return true
		}
		walkVisible(c, func(o fyne.CanvasObject) bool {
			if i, ok := o.(*widget.Icon); ok && i.Resource != nil {
				name = i.Resource.Name()
			}
			return true
		})
		return false
	})
	return name
}

func holds(c *fyne.Container, o fyne.CanvasObject) bool {
	for _, x := range c.Objects {
		if x == o {
			return true
		}
	}
	return false
}
