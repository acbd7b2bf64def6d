package ui

import (
	"log"
	"net/url"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/ui/lang"
)

// URLPrompt is one URL-mode elicitation to put before the user: a link the
// server asks the user to open in the browser (PROTOCOL.md §6).
type URLPrompt struct {
	// Server is the name the user configured for the server, shown first in
	// large type, as in Prompt.
	Server string
	// ServerInfo is what the server calls itself; empty hides that line.
	ServerInfo string
	// Tool is the tools/call in flight; empty hides that line.
	Tool string
	// Message is the server's message, shown as plain text.
	Message string
	// Check is elicit.CheckURL of the url the server sent: the URL shown in
	// full and opened, its host and registrable domain, the warnings, and
	// whether it may be opened at all. The zero URLCheck shows no link and
	// offers nothing to open.
	Check elicit.URLCheck
	// Deadline is when the hub answers the prompt cancel if nobody did,
	// counted down in the window as in Prompt; zero shows no countdown.
	Deadline time.Time
	// Waiting is how many prompts are queued behind this one, as in
	// Prompt; 0 shows nothing.
	Waiting int
	// Shown is called once the window was shown, as in Prompt.
	Shown func()
	// Open opens the link in the system browser once the user agreed;
	// nil means the app's OpenURL.
	Open func(*url.URL) error
}

// ShowURLPrompt opens a window for p and returns it. It must be called on
// the Fyne goroutine (inside fyne.Do). done is called exactly once, on the
// Fyne goroutine, unless Close is called first; it must not block.
//
// The window shows the whole URL with its registrable domain highlighted,
// the host it opens, and every warning of p.Check. Nothing is fetched or
// opened until the user chooses "Open in browser" (a click, or Space or
// Return while that button has the focus): then done gets accept — which
// means only that the user agreed to open the link — and a.OpenURL opens it
// in the system browser (PROTOCOL.md §6). The focus starts on Cancel, so
// Return alone never opens a link. Escape, Cancel and closing the window
// answer cancel; Alt+D and Decline answer decline; keys pressed in the first
// half second are ignored, and the focus reaches Cancel only after it
// (keyGuard). A refused URL (p.Check.Refused) has no Open
// button. If the browser cannot be started, the answer stands, an error
// says so, and the window stays open until closed so that the user can copy
// the link. As in ShowPrompt, the answer carries MuteHour when "Don't ask
// again for an hour" was ticked, and a Deadline is counted down.
func ShowURLPrompt(a fyne.App, p *URLPrompt, done func(Answer)) *PromptWindow {
	v := newURLPromptView(p, done)
	v.openURL = a.OpenURL
	if p.Open != nil {
		v.openURL = p.Open
	}
	v.shown = p.Shown
	pw := showPromptWindow(a, urlPromptTitle(p.Server), &v.promptBase, v.onDismiss, v.content, v.size(), v.focusFirst)
	pw.urlView = v
	win := pw.win
	v.onError = func(doing string, err error) { showError(win, doing, err) }
	return pw
}

// urlPromptTitle is the window title naming the asking server.
func urlPromptTitle(server string) string {
	return lang.L("elicitray — {{.Server}} asks to open a link", map[string]any{"Server": server})
}

// urlPromptView is the content of a URL prompt window, without the window,
// so that tests can drive it on a test canvas.
type urlPromptView struct {
	promptBase
	p *URLPrompt
	// hiddenChars: the server's text had invisible characters, removed.
	hiddenChars bool

	// target is the URL that "Open in browser" opens: p.Check.URL, parsed.
	// It is nil when the check refused the URL, which leaves no Open
	// button.
	target *url.URL
	// openURL opens a link in the system browser: fyne.App.OpenURL in a
	// window, a fake in tests. It is called only after done got accept.
	openURL func(*url.URL) error
	// onError tells the user that doing failed (showError over the window).
	onError func(doing string, err error)
	// openFailed is set when the user accepted but the browser could not
	// be started: the window stays open, and closing it only closes it.
	openFailed bool

	body     fyne.CanvasObject
	bottom   fyne.CanvasObject
	link     *widget.RichText
	opens    *widget.Label // "Opens host"; nil for a refused URL or one without a host
	hint     *widget.Label
	copyLink *keyButton // nil when there is nothing to open
	cancel   *keyButton
	decline  *keyButton
	open     *keyButton // nil when there is nothing to open
	content  fyne.CanvasObject
}

// newURLPromptView builds the content for p; done receives the answer.
// Its openURL opens nothing and its onError only logs until set.
func newURLPromptView(p *URLPrompt, done func(Answer)) *urlPromptView {
	var c textCleaner
	q := *p
	q.ServerInfo, q.Tool, q.Message = c.clean(p.ServerInfo), c.clean(p.Tool), c.clean(p.Message)
	p = &q
	v := &urlPromptView{p: p, hiddenChars: c.found}
	// Return where no button takes it does nothing: a link must be opened
	// deliberately, with its own button.
	v.setup(done, func() {})
	v.keys.escape = v.guarded(v.onDismiss)
	v.openURL = func(*url.URL) error { return nil }
	v.onError = func(doing string, err error) { log.Printf("ui: %s: %v", doing, err) }
	if p.Check.Refused == nil && p.Check.URL != "" {
		if u, err := url.Parse(p.Check.URL); err == nil {
			v.target = u
		}
	}
	v.content = v.build()
	return v
}

func (v *urlPromptView) build() fyne.CanvasObject {
	c := v.p.Check
	body := []fyne.CanvasObject{promptHeader(v.p.Server, v.p.ServerInfo, v.p.Tool)}
	if v.hiddenChars {
		body = append(body, hiddenCharsWarning())
	}
	body = append(body, widget.NewSeparator(), messageBox(v.p.Message), widget.NewSeparator())

	// The whole URL, never shortened, wrapping anywhere: a URL has no
	// spaces to wrap at. Segments, not markdown: the URL is server text.
	v.link = widget.NewRichText(linkSegments(c)...)
	v.link.Wrapping = fyne.TextWrapBreak
	body = append(body, container.New(&maxHeightLayout{max: 200, inner: v.link}, container.NewVScroll(v.link)))

	if v.target != nil {
		v.copyLink = newKeyButton(v.keys, lang.L("Copy link"), v.onCopy, v.onCopy)
		v.copyLink.Icon = theme.ContentCopyIcon()
		v.copyLink.Importance = widget.LowImportance
		var opens fyne.CanvasObject = container.NewStack() // nothing beside the button
		if s := opensText(c); s != "" {
			v.opens = widget.NewLabel(bidiText(s))
			v.opens.Wrapping = fyne.TextWrapWord
			opens = v.opens
		}
		body = append(body, container.NewBorder(nil, nil, nil, v.copyLink, opens))
	}

	if c.Refused != nil {
		body = append(body, note(theme.NewErrorThemedResource(theme.ErrorIcon()), widget.DangerImportance, urlRefusal(c.Refused)))
	}
	for _, w := range c.Warnings {
		body = append(body, note(theme.NewWarningThemedResource(theme.WarningIcon()), widget.WarningImportance, urlWarning(w)))
	}
	v.body = container.NewVBox(body...)

	v.cancel = newKeyButton(v.keys, lang.L("Cancel"), v.onDismiss, v.keys.escape)
	v.decline = newKeyButton(v.keys, lang.L("Decline"), v.tapGuarded(v.onDecline), v.keys.decline)
	buttons := container.NewHBox(v.cancel, v.decline)
	if v.target != nil {
		v.open = newKeyButton(v.keys, lang.L("Open in browser"), v.tapGuarded(v.onOpen), v.guarded(v.onOpen))
		v.open.Importance = widget.HighImportance
		buttons.Add(v.open)
	}
	v.hint = widget.NewLabel("")
	v.hint.Truncation = fyne.TextTruncateEllipsis
	v.hint.Importance = widget.LowImportance
	v.cue = v.hint
	v.answering = []*keyButton{v.decline, v.open}
	status := v.buildStatus(v.p.Deadline, v.p.Waiting)
	v.bottom = ownPanel(status, container.NewBorder(nil, nil, nil, buttons, hinted(v.hint)))
	return container.NewBorder(nil, v.bottom, nil, nil, container.NewVScroll(v.body))
}

// note is a line of text beside an icon, in the colour of importance: a
// warning or the refusal.
func note(icon fyne.Resource, importance widget.Importance, text string) fyne.CanvasObject {
	l := widget.NewLabel(bidiSentence(text))
	l.Wrapping = fyne.TextWrapWord
	l.Importance = importance
	// The icon sits centred on the first line of a wrapped note.
	lineHeight := widget.NewLabel("X").MinSize().Height
	top := max((lineHeight-theme.IconInlineSize())/2, 0)
	iconBox := container.New(layout.NewCustomPaddedLayout(top, 0, 0, 0), widget.NewIcon(icon))
	return container.NewBorder(nil, nil, container.NewVBox(iconBox), nil, l)
}

// size is 560 wide and as tall as the content wants, within bounds; the
// body scrolls beyond them.
func (v *urlPromptView) size() fyne.Size {
	const width = 560
	// Wrapped text is as tall as the width makes it: lay out once at the
	// window's width before measuring.
	inner := width - 2*theme.Padding()
	v.body.Resize(fyne.NewSize(inner, v.body.MinSize().Height))
	h := v.body.MinSize().Height + v.bottom.MinSize().Height + 4*theme.Padding()
	return fyne.NewSize(width, min(max(h, 280), 720))
}

// focusFirst gives the keyboard focus to Cancel: Return then cancels, and
// opening takes a click or a Tab to the Open button first.
func (v *urlPromptView) focusFirst() {
	if v.canvas != nil {
		v.canvas.Focus(v.cancel)
	}
}

// onOpen answers accept and only then opens the link (PROTOCOL.md §6: "open
// only after explicit consent, in the system browser").
func (v *urlPromptView) onOpen() {
	if v.finished || v.target == nil {
		return
	}
	v.finished = true
	v.answer(Answer{Action: actionAccept})
	if err := v.openURL(v.target); err != nil {
		// The user agreed and the server was told so; what is left is to
		// let them open the link themselves.
		v.openFailed = true
		v.open.Disable()
		v.decline.Disable()
		v.mute.Disable()
		v.refreshStatus() // no countdown to a cancel that cannot come
		v.cancel.SetText(lang.L("Close"))
		v.hint.SetText(lang.L("Copy the link to open it yourself."))
		v.onError(lang.L("open the link in your browser"), err)
		return
	}
	v.closeWindow()
}

// onDismiss is Escape, Cancel and the window's close button: cancel, or
// once the answer is given (the browser would not start), just closing.
func (v *urlPromptView) onDismiss() {
	if v.openFailed {
		v.closeWindow()
		return
	}
	v.onCancel()
}

// onCopy puts the whole link on the clipboard: the shown URL cannot be
// selected, and a user may rather paste it into a browser of their choice.
func (v *urlPromptView) onCopy() {
	fyne.CurrentApp().Clipboard().SetContent(v.p.Check.URL)
	v.hint.SetText(lang.L("Link copied."))
}

// linkSegments is c.URL as rich text: the registrable domain (or, for an IP
// address or when it cannot be found, the whole host) bold in the primary
// colour, the rest plain, so that the part that says who receives the
// click stands out (PROTOCOL.md §6: "highlight the host").
func linkSegments(c elicit.URLCheck) []widget.RichTextSegment {
	plain := widget.RichTextStyle{Inline: true}
	before, mark, after := splitLink(c)
	segs := []widget.RichTextSegment{&widget.TextSegment{Style: plain, Text: before}}
	if mark != "" {
		segs = append(segs, &widget.TextSegment{Text: mark, Style: widget.RichTextStyle{
			Inline:    true,
			ColorName: theme.ColorNamePrimary,
			TextStyle: fyne.TextStyle{Bold: true},
		}})
	}
	if after != "" {
		segs = append(segs, &widget.TextSegment{Style: plain, Text: after})
	}
	return segs
}

// splitLink cuts c.URL around the part to highlight: the registrable
// domain at the end of the host, else the whole host. mark is empty when
// the URL has no host (javascript:) or when the host found in the text is
// not c.Host: better nothing highlighted than the wrong part.
func splitLink(c elicit.URLCheck) (before, mark, after string) {
	s := c.URL
	hostStart, hostEnd, ok := hostSpan(s)
	if !ok {
		return s, "", ""
	}
	host := s[hostStart:hostEnd]
	if c.Host != "" {
		decoded, err := url.PathUnescape(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
		if err != nil || strings.ToLower(decoded) != c.Host {
			return s, "", ""
		}
	}
	markStart, markEnd := hostStart, hostEnd
	// Registrable is in Unicode form while the URL may spell the host in
	// punycode, capitals or full-width letters: count labels, not letters.
	// Mapping a name never removes a dot, so as many dots on both sides
	// means the labels line up.
	name := strings.TrimSuffix(host, ".") // a fully qualified name's dot stays unmarked
	if reg := c.Registrable; !c.IsIP && reg != "" &&
		strings.Count(name, ".") == strings.Count(strings.TrimSuffix(c.HostUnicode, "."), ".") {
		labels := strings.Split(name, ".")
		if n := strings.Count(reg, ".") + 1; n <= len(labels) {
			markStart = hostStart + len(name) - len(strings.Join(labels[len(labels)-n:], "."))
			markEnd = hostStart + len(name)
		}
	}
	return s[:markStart], s[markStart:markEnd], s[markEnd:]
}

// hostSpan finds the host in the text of a URL the way net/url does: the
// authority after "//" ends at the first "/", "?" or "#"; the user name ends
// at its last "@"; the port follows the last ":" outside brackets.
func hostSpan(s string) (start, end int, ok bool) {
	i := strings.Index(s, "://")
	if i < 0 {
		return 0, 0, false
	}
	authStart := i + len("://")
	authEnd := len(s)
	if j := strings.IndexAny(s[authStart:], "/?#"); j >= 0 {
		authEnd = authStart + j
	}
	start = authStart + strings.LastIndex(s[authStart:authEnd], "@") + 1
	end = authEnd
	if j := strings.LastIndex(s[start:authEnd], ":"); j >= 0 && !strings.Contains(s[start+j:authEnd], "]") {
		end = start + j
	}
	return start, end, end > start
}

// opensText is the line naming the host the link opens, its port if any,
// and for an internationalised name the ASCII form the browser uses;
// empty when the URL has no host.
func opensText(c elicit.URLCheck) string {
	host := c.HostUnicode
	if host == "" {
		host = c.Host
	}
	if host == "" {
		return ""
	}
	d := map[string]any{"Host": host, "Port": c.Port, "ASCII": c.HostASCII}
	s := lang.L("Opens {{.Host}}", d)
	if c.Port != "" {
		s = lang.L("Opens {{.Host}} on port {{.Port}}", d)
	}
	if c.HostASCII != "" && c.HostASCII != host {
		s += lang.L(", also written {{.ASCII}}", d)
	}
	return s
}
