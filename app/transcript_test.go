//go:build linux

package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hub"
	"github.com/elicitray/elicitray/app/internal/hubkit"
	"github.com/elicitray/elicitray/app/internal/testkit"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
	"golang.org/x/tools/txtar"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
)

// The protocol transcripts of testdata/transcripts: each .txtar is one
// conversation between a host, the real wrapper binary and a server, with
// the hub's prompts answered by a scripted person. The language is
// described in testdata/transcripts/README.md.

var updateTranscripts = flag.Bool("update", false, "rewrite the form sections of testdata/transcripts/*.txtar from the forms the hub shows")

const transcriptDir = "../testdata/transcripts"

// transcriptWait bounds every wait of a transcript. It is a safety net that
// turns a hang into a failure naming the step, not a timing assertion:
// every step waits for an event (a line, a prompt, a hub reply), never for
// time to pass.
const transcriptWait = 30 * time.Second

// wrapperIDPrefix starts every id the wrapper makes up itself (its
// input_required retries, PROTOCOL.md §7): a transcript's "$name"
// placeholders bind only to such ids.
const wrapperIDPrefix = "elicitray-"

// peerServer is the wrapped server: whatever the wrapper writes to its stdin
// comes out on fd 3 (read by the test), and what the test writes to fd 4 is
// its stdout. The wrapper starts it with the fds it inherited from the test.
const peerServer = "cat <&4 & exec cat >&3"

// TestTranscripts runs every testdata/transcripts/*.txtar through the real
// wrapper binary (cases/README.md: the expected behaviour is the assertion).
func TestTranscripts(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(transcriptDir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no transcripts in %s", transcriptDir)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runTranscript(t, file) })
	}
}

// casesDir holds the real-world cases (testdata/cases, a copy of the
// developers' shared folder: a fresh clone has everything its tests read).
const casesDir = "../testdata/cases"

// TestTranscriptsCoverCases checks that each case file has its transcript
// and that the transcript uses the case's messages verbatim: a .json case
// is a section of the same name, byte for byte; each line of a .jsonl case
// is written, as it stands, by the side its "dir" names.
func TestTranscriptsCoverCases(t *testing.T) {
	t.Parallel()
	cases, err := filepath.Glob(filepath.Join(casesDir, "*"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no case files at %s", casesDir)
	}
	for _, c := range cases {
		name := filepath.Base(c)
		if name == "README.md" {
			continue
		}
		base := strings.TrimSuffix(name, filepath.Ext(name))
		ar, err := txtar.ParseFile(filepath.Join(transcriptDir, base+".txtar"))
		if err != nil {
			t.Errorf("case %s has no transcript: %v", name, err)
			continue
		}
		caseData, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		var script string
		for _, f := range ar.Files {
			if f.Name == "script" {
				script = string(f.Data)
			}
			if f.Name == name && !bytes.Equal(f.Data, caseData) {
				t.Errorf("%s.txtar: section %s differs from the case file", base, name)
			}
		}
		switch filepath.Ext(name) {
		case ".json":
			if !slices.ContainsFunc(ar.Files, func(f txtar.File) bool { return f.Name == name }) {
				t.Errorf("%s.txtar: no section %s holding the case", base, name)
			}
		case ".jsonl":
			for i, line := range bytes.Split(bytes.TrimSpace(caseData), []byte("\n")) {
				var msg struct {
					Dir string          `json:"dir"`
					Msg json.RawMessage `json:"msg"`
				}
				if err := json.Unmarshal(line, &msg); err != nil {
					t.Fatalf("%s:%d: %v", name, i+1, err)
				}
				side := map[string]string{"host→": "host> ", "server→": "server> "}[msg.Dir]
				if side == "" || !strings.Contains(script, "\n"+side+string(msg.Msg)+"\n") {
					t.Errorf("%s.txtar: line %d of %s is not written verbatim as %q%s", base, i+1, name, side, msg.Msg)
				}
			}
		}
	}
}

// step is one line of a transcript's script.
type step struct {
	pos  string // file:line, for messages
	verb string
	arg  string
}

// stepVerbs are the verbs of the script language.
var stepVerbs = map[string]bool{
	"wrap": true, "host>": true, "host<": true, "host<~": true, "server>": true, "server<": true, "server<~": true,
	"prompt": true, "form": true, "invalid": true, "answer": true, "dismissed": true, "history": true,
	"end": true, "noconnect": true, "log": true,
	// The hub's policy (issue 4): see testdata/transcripts/README.md.
	"nohub": true, "pause": true, "resume": true, "mute": true, "queued": true,
	// The CLI against the hub, as a user runs it (issue 10).
	"run": true, "output~": true, "history-lacks": true,
}

// afterEnd are the steps that may follow end: they read what was kept.
var afterEnd = map[string]bool{"history": true, "history-lacks": true, "noconnect": true, "run": true, "output~": true}

func parseScript(file string, script []byte, scriptLine int) ([]step, error) {
	var steps []step
	for i, line := range strings.Split(string(script), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, arg, _ := strings.Cut(line, " ")
		st := step{pos: fmt.Sprintf("%s:%d", file, scriptLine+i), verb: verb, arg: strings.TrimSpace(arg)}
		if !stepVerbs[verb] {
			return nil, fmt.Errorf("%s: unknown step %q", st.pos, verb)
		}
		first := len(steps) == 0 || (len(steps) == 1 && steps[0].verb == "nohub")
		if verb == "nohub" && len(steps) == 0 {
			first = false // nohub may come before wrap
		}
		if (verb == "wrap") != first || (verb == "nohub" && len(steps) > 0) {
			return nil, fmt.Errorf("%s: the script starts with wrap (after nohub, if any), and only there", st.pos)
		}
		steps = append(steps, st)
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("%s: empty script", file)
	}
	return steps, nil
}

// transcript is one running transcript.
type transcript struct {
	t        *testing.T
	archive  *txtar.Archive
	binds    map[string]any    // placeholder ("$retry") → the value it stands for
	expanded map[string][]byte // {{repeat}} expansions, by the text they came from
	hub      *transcriptHub
	w        *wrapperProc
	server   string              // the wrapper's --name
	prompt   *hubkit.ShownPrompt // the prompt on screen, until answered or dismissed
	ended    bool
	updated  bool
	nohub    bool   // no hub runs: the wrapper has no desktop
	output   *step  // the last run step, for output~
	stdout   string // what it printed
	// env is the environment of the processes the transcript starts (the
	// wrapper, run steps): the test process's with the transcript's own
	// ELICITRAY_HOME, whose files are paths.
	env   []string
	paths paths.Paths
}

func runTranscript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(data)
	base := filepath.Base(file)
	var steps []step
	for i, f := range ar.Files {
		if f.Name == "script" {
			steps, err = parseScript(base, f.Data, scriptStart(data, ar, i))
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if steps == nil {
		t.Fatalf("%s: no script section", base)
	}
	home := testkit.TempHome(t)
	tr := &transcript{t: t, archive: ar, binds: map[string]any{}, expanded: map[string][]byte{},
		env: append(os.Environ(), "ELICITRAY_HOME="+home), paths: paths.Under(home)}
	if steps[0].verb == "nohub" {
		// The wrapper runs without DISPLAY (startWrapper), so with no hub
		// listening it has no desktop at all.
		tr.nohub = true
	} else {
		tr.hub = startTranscriptHubAt(t, tr.paths)
	}
	for _, f := range ar.Files {
		if f.Name != "config.toml" {
			continue
		}
		if tr.hub == nil {
			t.Fatalf("%s: a config.toml section needs a hub", base)
		}
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, f.Data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(path)
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		tr.hub.h.SetConfig(cfg)
		tr.hub.h.Timeout = 0 // the config's timeouts, not the test hub's hour
	}
	for _, st := range steps {
		tr.do(st)
	}
	if !tr.ended {
		last := steps[len(steps)-1]
		tr.end(step{pos: last.pos + " (end of script)", verb: "end"})
	}
	if tr.updated {
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: form sections rewritten", base)
	}
}

// scriptStart is the line number of the first line of section i.
func scriptStart(data []byte, ar *txtar.Archive, i int) int {
	marker := []byte("-- " + ar.Files[i].Name + " --\n")
	idx := bytes.Index(data, marker)
	if idx < 0 {
		return 1
	}
	return bytes.Count(data[:idx], []byte("\n")) + 2
}

func (tr *transcript) fatalf(st step, format string, args ...any) {
	tr.t.Helper()
	tr.t.Fatalf("%s: %s %s\n%s", st.pos, st.verb, shorten(st.arg, 300), fmt.Sprintf(format, args...))
}

func (tr *transcript) do(st step) {
	tr.t.Helper()
	if tr.ended && !afterEnd[st.verb] {
		tr.fatalf(st, "after end, only history, history-lacks, noconnect, run and output~ may follow")
	}
	switch st.verb {
	case "wrap":
		args := strings.Fields(st.arg)
		for i, a := range args {
			if a == "--name" && i+1 < len(args) {
				tr.server = args[i+1]
			} else if n, ok := strings.CutPrefix(a, "--name="); ok {
				tr.server = n
			}
		}
		tr.w = startWrapperIn(tr.t, tr.env, args, tr.nohub)
	case "host>":
		tr.write(st, "host", tr.w.host)
	case "server>":
		tr.write(st, "server", tr.w.server)
	case "host<":
		tr.expectExact(st, "host", tr.w.toHost)
	case "server<":
		tr.expectExact(st, "server", tr.w.toServer)
	case "host<~":
		tr.expectJSON(st, "host", tr.w.toHost)
	case "server<~":
		tr.expectJSON(st, "server", tr.w.toServer)
	case "prompt":
		tr.expectPrompt(st)
	case "form":
		tr.checkForm(st)
	case "invalid":
		tr.checkInvalid(st)
	case "answer":
		tr.answer(st)
	case "dismissed":
		p := tr.shown(st)
		select {
		case <-p.Dismissed:
		case <-time.After(transcriptWait):
			tr.fatalf(st, "the prompt %q stayed open for %v", p.Prompt.Request.Message, transcriptWait)
		}
		tr.prompt = nil
	case "history":
		tr.checkHistory(st)
	case "end":
		tr.end(st)
	case "nohub":
	case "pause":
		tr.hub.h.SetPaused(true)
	case "resume":
		tr.hub.h.SetPaused(false)
	case "mute":
		tr.hub.h.Mute(st.arg, hub.MuteFor)
	case "queued":
		n, err := strconv.Atoi(st.arg)
		if err != nil {
			tr.fatalf(st, "queued takes a count: %v", err)
		}
		hubkit.WaitQueued(tr.t, tr.hub.h, n)
	case "noconnect":
		if !tr.ended {
			tr.fatalf(st, "noconnect comes after end")
		}
		tr.checkNoConnect(st)
	case "history-lacks":
		tr.checkLacks(st)
	case "run":
		tr.run(st)
	case "output~":
		tr.checkOutput(st)
	case "log":
		tr.checkLog(st)
	}
}

// checkLog: the wrapper's stderr (the host's log) so far holds the text.
// The wrapper says why before it acts, so the step after the line it
// explains (a reply, a marker) needs no waiting.
func (tr *transcript) checkLog(st step) {
	tr.t.Helper()
	text, ok := strings.CutPrefix(st.arg, "~")
	if !ok {
		tr.fatalf(st, "want log ~TEXT")
	}
	b, err := os.ReadFile(tr.w.stderr)
	if err != nil {
		tr.fatalf(st, "reading the wrapper's stderr: %v", err)
	}
	if !strings.Contains(string(b), strings.TrimSpace(text)) {
		tr.fatalf(st, "the wrapper's stderr does not say so; it holds:\n%s", shorten(string(b), 4000))
	}
}

// line returns the step's argument as a message line (see raw), bound
// placeholders replaced by their values.
func (tr *transcript) line(st step) []byte {
	tr.t.Helper()
	return tr.substitute(st, tr.raw(st))
}

// raw returns the step's argument as a message line: a section's content
// for "@name" (JSON made one line), {{repeat S N}} expanded.
func (tr *transcript) raw(st step) []byte {
	tr.t.Helper()
	arg := st.arg
	if name, ok := strings.CutPrefix(arg, "@"); ok {
		data := tr.section(st, name)
		var buf bytes.Buffer
		if err := json.Compact(&buf, data); err != nil {
			tr.fatalf(st, "section %s is not JSON: %v", name, err)
		}
		arg = buf.String()
	}
	return tr.expand(arg)
}

func (tr *transcript) section(st step, name string) []byte {
	for _, f := range tr.archive.Files {
		if f.Name == name {
			return f.Data
		}
	}
	tr.fatalf(st, "no section %q", name)
	return nil
}

var repeatRE = regexp.MustCompile(`\{\{repeat (\S+) (\d+)\}\}`)

// expand replaces {{repeat S N}} with N copies of S, and {{bom}} with a
// UTF-8 byte order mark (EF BB BF), which a text file would not show.
// Expansions are kept, so that a line the server writes and the same line
// the host must read share one copy (big-line: 64 MiB).
func (tr *transcript) expand(arg string) []byte {
	if !strings.Contains(arg, "{{") {
		return []byte(arg)
	}
	arg = strings.ReplaceAll(arg, "{{bom}}", "\uFEFF")
	if b, ok := tr.expanded[arg]; ok {
		return b
	}
	var out []byte
	last := 0
	for _, m := range repeatRE.FindAllStringSubmatchIndex(arg, -1) {
		n, _ := strconv.Atoi(arg[m[4]:m[5]])
		out = append(out, arg[last:m[0]]...)
		out = append(out, bytes.Repeat([]byte(arg[m[2]:m[3]]), n)...)
		last = m[1]
	}
	out = append(out, arg[last:]...)
	tr.expanded[arg] = out
	return out
}

// placeholderValueRE finds "$name" strings; only those in value position
// (not followed by a colon, which would make them keys such as "$ref") are
// placeholders.
var placeholderValueRE = regexp.MustCompile(`"\$([A-Za-z_][A-Za-z0-9_]*)"\s*([:]?)`)

var placeholderRE = regexp.MustCompile(`^\$[A-Za-z_][A-Za-z0-9_]*$`)

func (tr *transcript) substitute(st step, b []byte) []byte {
	if !bytes.Contains(b, []byte(`"$`)) {
		return b
	}
	var out []byte
	last := 0
	for _, m := range placeholderValueRE.FindAllSubmatchIndex(b, -1) {
		if m[5] > m[4] { // a key
			continue
		}
		name := "$" + string(b[m[2]:m[3]])
		v, ok := tr.binds[name]
		if !ok {
			tr.fatalf(st, "placeholder %s is used before a host<~ or server<~ line bound it", name)
		}
		enc, _ := json.Marshal(v)
		out = append(out, b[last:m[0]]...)
		out = append(out, enc...)
		last = m[3] + 1
	}
	return append(out, b[last:]...)
}

func (tr *transcript) write(st step, who string, w io.Writer) {
	tr.t.Helper()
	line := tr.line(st)
	if _, err := w.Write(append(line[:len(line):len(line)], '\n')); err != nil {
		tr.fatalf(st, "the %s could not write: %v", who, err)
	}
}

// next returns the next line that reached who.
func (tr *transcript) next(st step, who string, ch <-chan streamItem) []byte {
	tr.t.Helper()
	select {
	case it, ok := <-ch:
		if !ok {
			tr.fatalf(st, "the %s's input had already ended", who)
		}
		if it.err != nil {
			tr.fatalf(st, "the %s's input ended (%v) before this line; last bytes: %q", who, it.err, shorten(string(it.line), 300))
		}
		return it.line
	case <-time.After(transcriptWait):
		tr.fatalf(st, "nothing reached the %s within %v", who, transcriptWait)
	}
	return nil
}

func (tr *transcript) expectExact(st step, who string, ch <-chan streamItem) {
	tr.t.Helper()
	want := tr.line(st)
	got := tr.next(st, who, ch)
	if !bytes.Equal(want, got) {
		tr.fatalf(st, "the %s received other bytes: %s", who, describeDiff(want, got))
	}
}

func (tr *transcript) expectJSON(st step, who string, ch <-chan streamItem) {
	tr.t.Helper()
	want, err := decodeJSON(tr.raw(st))
	if err != nil {
		tr.fatalf(st, "the expected line is not JSON: %v", err)
	}
	raw := tr.next(st, who, ch)
	got, err := decodeJSON(raw)
	if err != nil {
		tr.fatalf(st, "the %s received a line that is not JSON (%v): %s", who, err, shorten(string(raw), 2000))
	}
	var notes []string
	resolved := tr.resolve(want, got, &notes)
	if diff := cmp.Diff(resolved, got); diff != "" || len(notes) > 0 {
		tr.fatalf(st, "the %s received another message (-want +got):\n%s%s\nreceived: %s", who, diff, strings.Join(notes, "\n"), shorten(string(raw), 2000))
	}
}

// resolve returns want with its placeholders replaced by what they match in
// got: "$name" binds a string id the wrapper made up (or must equal the one
// bound before), "$~text" matches any string that contains text.
func (tr *transcript) resolve(want, got any, notes *[]string) any {
	switch w := want.(type) {
	case string:
		if text, ok := strings.CutPrefix(w, "$~"); ok {
			if g, ok := got.(string); ok && strings.Contains(g, text) {
				return g
			}
			return w
		}
		if !placeholderRE.MatchString(w) {
			return w
		}
		if v, ok := tr.binds[w]; ok {
			return v
		}
		if g, ok := got.(string); ok && strings.HasPrefix(g, wrapperIDPrefix) {
			tr.binds[w] = g
			return g
		}
		*notes = append(*notes, fmt.Sprintf("%s stands for a string id the wrapper made up (%s…); got %s", w, wrapperIDPrefix, testkit.JSONText(got)))
		return w
	case map[string]any:
		g, _ := got.(map[string]any)
		out := make(map[string]any, len(w))
		for k, v := range w {
			out[k] = tr.resolve(v, g[k], notes)
		}
		return out
	case []any:
		g, _ := got.([]any)
		out := make([]any, len(w))
		for i, v := range w {
			var gv any
			if i < len(g) {
				gv = g[i]
			}
			out[i] = tr.resolve(v, gv, notes)
		}
		return out
	}
	return want
}

// decodeJSON decodes exactly one JSON value, numbers kept as written (so
// 42 and 42.0, or "42", are different answers).
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// jsonView is x as generic JSON, for key=value checks.
func jsonView(x any) map[string]any {
	b, err := json.Marshal(x)
	if err != nil {
		panic(err)
	}
	v, err := decodeJSON(b)
	if err != nil {
		panic(err)
	}
	m, _ := v.(map[string]any)
	return m
}

// check is one key=value (equal) or key~text (contains) of a prompt or
// history step.
type check struct {
	key, op string
	value   any    // the expected JSON value (op "=")
	text    string // the expected string or bare token
	bare    bool   // value written without quotes: compared as a string, or as JSON if the field is not one
}

func parseChecks(s string) ([]check, error) {
	var checks []check
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		i := strings.IndexAny(s, "=~")
		if i <= 0 || strings.ContainsAny(s[:i], " \t") {
			return nil, fmt.Errorf("want key=value or key~text at %q", shorten(s, 40))
		}
		c := check{key: s[:i], op: s[i : i+1]}
		s = s[i+1:]
		if s != "" && strings.ContainsRune(`"{[`, rune(s[0])) {
			dec := json.NewDecoder(strings.NewReader(s))
			dec.UseNumber()
			if err := dec.Decode(&c.value); err != nil {
				return nil, fmt.Errorf("the value of %s: %v", c.key, err)
			}
			c.text, _ = c.value.(string)
			s = s[dec.InputOffset():]
		} else {
			end := strings.IndexAny(s, " \t")
			if end < 0 {
				end = len(s)
			}
			c.text, c.bare, s = s[:end], true, s[end:]
		}
		checks = append(checks, c)
	}
	return checks, nil
}

func lookup(view map[string]any, key string) any {
	var v any = view
	for _, k := range strings.Split(key, ".") {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// failed returns a sentence for each check view does not pass.
func failed(view map[string]any, checks []check) []string {
	var out []string
	for _, c := range checks {
		got := lookup(view, c.key)
		ok := false
		switch {
		case c.op == "~":
			s, isString := got.(string)
			ok = isString && strings.Contains(s, c.text)
		case c.bare:
			if s, isString := got.(string); isString {
				ok = s == c.text
			} else if v, err := decodeJSON([]byte(c.text)); err == nil {
				ok = cmp.Equal(v, got)
			}
		default:
			ok = cmp.Equal(c.value, got)
		}
		if !ok {
			want := c.text
			if !c.bare {
				want = testkit.JSONText(c.value)
			}
			out = append(out, fmt.Sprintf("%s%s%s, but it is %s", c.key, c.op, want, testkit.JSONText(got)))
		}
	}
	return out
}

func (tr *transcript) expectPrompt(st step) {
	tr.t.Helper()
	checks, err := parseChecks(st.arg)
	if err != nil {
		tr.fatalf(st, "%v", err)
	}
	if tr.server != "" && !slices.ContainsFunc(checks, func(c check) bool { return c.key == "server" }) {
		// The configured name is the identity a window shows first
		// (PROTOCOL.md §6): every prompt must carry it.
		checks = append(checks, check{key: "server", op: "=", text: tr.server, bare: true})
	}
	var p hubkit.ShownPrompt
	select {
	case p = <-tr.hub.sp.Shown:
	case <-time.After(transcriptWait):
		tr.fatalf(st, "no prompt was shown within %v", transcriptWait)
	}
	tr.prompt = &p
	if bad := failed(promptView(p.Prompt), checks); len(bad) > 0 {
		tr.fatalf(st, "the prompt shown does not match: %s\nprompt: %s", strings.Join(bad, "; "), testkit.JSONText(promptView(p.Prompt)))
	}
}

// promptView is what a prompt step checks: the request's fields (server,
// serverInfo, tool, mode, message, url…) and, in URL mode, link: what the
// consent window shows about the URL.
func promptView(p *hub.Prompt) map[string]any {
	v := jsonView(p.Request)
	if p.URL != nil {
		warnings := []any{}
		for _, w := range p.URL.Warnings {
			warnings = append(warnings, w)
		}
		v["link"] = map[string]any{"host": p.URL.Host, "hostASCII": p.URL.HostASCII, "hostUnicode": p.URL.HostUnicode,
			"registrable": p.URL.Registrable, "isIP": p.URL.IsIP, "warnings": warnings}
	}
	return v
}

func (tr *transcript) shown(st step) *hubkit.ShownPrompt {
	tr.t.Helper()
	if tr.prompt == nil {
		tr.fatalf(st, "no prompt is on screen: a prompt step comes first")
	}
	return tr.prompt
}

func (tr *transcript) form(st step) *elicit.Form {
	tr.t.Helper()
	p := tr.shown(st)
	if p.Prompt.Form == nil {
		tr.fatalf(st, "the prompt has no form (mode %q)", p.Prompt.Request.Mode)
	}
	return p.Prompt.Form
}

func (tr *transcript) checkForm(st step) {
	tr.t.Helper()
	name, ok := strings.CutPrefix(st.arg, "@")
	if !ok {
		tr.fatalf(st, "want form @SECTION")
	}
	got := renderForm(tr.form(st))
	want := string(tr.section(st, name))
	if got == want {
		return
	}
	if *updateTranscripts {
		for i := range tr.archive.Files {
			if tr.archive.Files[i].Name == name {
				tr.archive.Files[i].Data = []byte(got)
			}
		}
		tr.updated = true
		return
	}
	tr.fatalf(st, "the form shown differs from section %s (-want +got):\n%s(go test -run TestTranscripts -update rewrites it)",
		name, cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n")))
}

// renderForm describes a form as the window builds it: one line per field,
// in order, with its widget kind, label, whether it is a secret,
// constraints, options (value and the label shown for it), default and
// help text.
func renderForm(f *elicit.Form) string {
	var b strings.Builder
	for _, fld := range f.Fields {
		parts := []string{fld.Name + ":", strings.ReplaceAll(fld.Kind.String(), " ", "-"), "label=" + strconv.Quote(fld.Label())}
		if fld.Required {
			parts = append(parts, "required")
		}
		if fld.Sensitive {
			parts = append(parts, "secret") // masked, warned about, redacted in history
		}
		if fld.Format != "" {
			parts = append(parts, "format="+fld.Format)
		}
		if fld.Pattern != "" {
			parts = append(parts, "pattern="+strconv.Quote(fld.Pattern))
		}
		for _, n := range []struct {
			name string
			v    *int
		}{{"minLength", fld.MinLength}, {"maxLength", fld.MaxLength}, {"minItems", fld.MinItems}, {"maxItems", fld.MaxItems}} {
			if n.v != nil {
				parts = append(parts, fmt.Sprintf("%s=%d", n.name, *n.v))
			}
		}
		for _, n := range []struct {
			name string
			v    *json.Number
		}{{"minimum", fld.Minimum}, {"maximum", fld.Maximum}, {"exclusiveMinimum", fld.ExclusiveMinimum},
			{"exclusiveMaximum", fld.ExclusiveMaximum}, {"multipleOf", fld.MultipleOf}} {
			if n.v != nil {
				parts = append(parts, n.name+"="+string(*n.v))
			}
		}
		if len(fld.Options) > 0 {
			var opts []string
			for _, o := range fld.Options {
				if o.Label == o.Value {
					opts = append(opts, quoteIfNeeded(o.Value))
				} else {
					opts = append(opts, quoteIfNeeded(o.Value)+"="+strconv.Quote(o.Label))
				}
			}
			parts = append(parts, "options=["+strings.Join(opts, " ")+"]")
		}
		if fld.Default != nil {
			parts = append(parts, "default="+testkit.JSONText(fld.Default))
		}
		if fld.Description != "" {
			parts = append(parts, "help="+strconv.Quote(fld.Description))
		}
		b.WriteString(strings.Join(parts, " ") + "\n")
	}
	if f.MinProperties != nil || f.MaxProperties != nil {
		fmt.Fprintf(&b, "(fields filled: min %v, max %v)\n", f.MinProperties, f.MaxProperties)
	}
	return b.String()
}

var plainRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

func quoteIfNeeded(s string) string {
	if plainRE.MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}

// checkInvalid: the form refuses this answer, as the window's Submit does
// (and the wrapper, which checks the hub's answer the same way).
func (tr *transcript) checkInvalid(st step) {
	tr.t.Helper()
	v, err := decodeJSON([]byte(st.arg))
	values, ok := v.(map[string]any)
	if err != nil || !ok {
		tr.fatalf(st, "want invalid {JSON object}: %v", err)
	}
	if _, err := tr.form(st).Content(values); err == nil {
		tr.fatalf(st, "the form accepts this answer; want it refused")
	}
}

func (tr *transcript) answer(st step) {
	tr.t.Helper()
	p := tr.shown(st)
	action, rest, _ := strings.Cut(st.arg, " ")
	res := bridge.Result{Action: action}
	switch action {
	case bridge.ActionAccept:
		rest = strings.TrimSpace(rest)
		if r, ok := strings.CutPrefix(rest, "defaults"); ok {
			if p.Prompt.Form == nil {
				tr.fatalf(st, "accept defaults, but the prompt has no form")
			}
			res.Content = p.Prompt.Form.Defaults()
			rest = strings.TrimSpace(r)
		}
		r, typed := strings.CutPrefix(rest, "typed")
		if typed {
			rest = strings.TrimSpace(r)
		}
		if rest != "" {
			// Numbers as written: the person's answer keeps every digit.
			v, err := decodeJSON([]byte(rest))
			given, ok := v.(map[string]any)
			if err != nil || !ok {
				tr.fatalf(st, "want answer accept [defaults] [typed] [{JSON object}]: %v", err)
			}
			if res.Content == nil {
				res.Content = map[string]any{}
			}
			for k, v := range given {
				if typed {
					v = tr.typeInto(st, k, v)
				}
				res.Content[k] = v
			}
		}
	case bridge.ActionDecline, bridge.ActionCancel:
		if strings.TrimSpace(rest) != "" {
			tr.fatalf(st, "%s takes no content", action)
		}
	default:
		tr.fatalf(st, "want answer accept|decline|cancel")
	}
	p.Answer(res)
	tr.prompt = nil
}

// typeInto returns what the window reads from text typed into field name's
// entry: the typed value its Field.ParseText makes of it.
func (tr *transcript) typeInto(st step, name string, text any) any {
	tr.t.Helper()
	s, ok := text.(string)
	if !ok {
		tr.fatalf(st, "typed: %s must be given as the text typed, a JSON string", name)
	}
	form := tr.form(st)
	for i := range form.Fields {
		if fld := &form.Fields[i]; fld.Name == name {
			v, err := fld.ParseText(s)
			if err != nil {
				tr.fatalf(st, "typed: the window refuses %q in %s: %v", s, name, err)
			}
			return v
		}
	}
	tr.fatalf(st, "typed: the form has no field %s", name)
	return nil
}

// run runs the real binary with the step's arguments, as the user would in
// a terminal, against the hub of the transcript; it must exit 0. Its
// standard output is what output~ steps check.
func (tr *transcript) run(st step) {
	tr.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), transcriptWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, testkit.Binary(tr.t), strings.Fields(st.arg)...)
	cmd.Env = append(slices.Clone(tr.env), "DISPLAY=", "WAYLAND_DISPLAY=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tr.fatalf(st, "elicitray %s: %v\nstderr: %s", st.arg, err, shorten(stderr.String(), 2000))
	}
	tr.output, tr.stdout = &st, stdout.String()
}

// checkLacks: the history file, read byte for byte, does not hold the
// step's text: a secret typed in must never be kept in clear (DESIGN.md).
// A history step comes first, so that the record is in the file.
func (tr *transcript) checkLacks(st step) {
	tr.t.Helper()
	b, err := os.ReadFile(tr.paths.History)
	if err != nil {
		tr.fatalf(st, "reading the history file: %v", err)
	}
	if bytes.Contains(b, []byte(st.arg)) {
		tr.fatalf(st, "the history file holds %q in clear", st.arg)
	}
}

// checkOutput: the last run step printed the step's text.
func (tr *transcript) checkOutput(st step) {
	tr.t.Helper()
	if tr.output == nil {
		tr.fatalf(st, "no run step came before")
	}
	if !strings.Contains(tr.stdout, st.arg) {
		tr.fatalf(st, "elicitray %s printed no %s; it printed:\n%s", tr.output.arg, st.arg, shorten(tr.stdout, 4000))
	}
}

func (tr *transcript) checkHistory(st step) {
	tr.t.Helper()
	if tr.nohub {
		tr.checkFileHistory(st)
		return
	}
	store := tr.hub.h.Store
	if st.arg == "none" {
		recs, err := store.List(history.Query{})
		if err != nil {
			tr.fatalf(st, "%v", err)
		}
		if len(recs) > 0 {
			tr.fatalf(st, "history holds %d records, newest: %s", len(recs), testkit.JSONText(recs[0]))
		}
		return
	}
	checks, err := parseChecks(st.arg)
	if err != nil {
		tr.fatalf(st, "%v", err)
	}
	// The hub records a decision before it writes anything on the socket
	// (the answer, the ack of a record): so each hub write is the moment to
	// look again, and no record can be missed.
	tr.waitHub(st, func() (bool, string) {
		recs, err := store.List(history.Query{Limit: 1})
		if err != nil {
			return false, err.Error()
		}
		if len(recs) == 0 {
			return false, "history is empty"
		}
		view := jsonView(recs[0])
		if bad := failed(view, checks); len(bad) > 0 {
			return false, fmt.Sprintf("the newest record has %s\nnewest record: %s", strings.Join(bad, "; "), testkit.JSONText(view))
		}
		return true, ""
	})
}

// checkFileHistory checks the newest record a wrapper with no hub kept
// itself, in the spool, as `elicitray history list` shows it (taking the
// spool in). The wrapper spools the record before it answers the server or
// passes the elicitation on, so one look suffices.
func (tr *transcript) checkFileHistory(st step) {
	tr.t.Helper()
	checks, err := parseChecks(st.arg)
	if err != nil {
		tr.fatalf(st, "%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), transcriptWait)
	defer cancel()
	recs, err := historySource{paths: tr.paths}.list(ctx, history.Query{Limit: 1})
	if err != nil || len(recs) == 0 {
		tr.fatalf(st, "history: %v, %d records", err, len(recs))
	}
	view := jsonView(recs[0])
	if bad := failed(view, checks); len(bad) > 0 {
		tr.fatalf(st, "the newest record has %s\nnewest record: %s", strings.Join(bad, "; "), testkit.JSONText(view))
	}
}

// waitHub calls ok now and after each hub event (a connection, a write)
// until it holds.
func (tr *transcript) waitHub(st step, ok func() (bool, string)) {
	tr.t.Helper()
	deadline := time.NewTimer(transcriptWait)
	defer deadline.Stop()
	for {
		event := tr.hub.watch.next()
		done, why := ok()
		if done {
			return
		}
		select {
		case <-event:
		case <-deadline.C:
			tr.fatalf(st, "not so after %v: %s", transcriptWait, why)
		}
	}
}

// end closes the host's side (the wrapper's stdin) and the server's stdout,
// then asserts that nothing more reached either side, that the wrapper
// exited 0, and that no prompt is left that the script did not see.
func (tr *transcript) end(st step) {
	tr.t.Helper()
	tr.w.host.Close()
	tr.w.server.Close()
	for _, side := range []struct {
		who string
		ch  <-chan streamItem
	}{{"host", tr.w.toHost}, {"server", tr.w.toServer}} {
		select {
		case it, ok := <-side.ch:
			if ok && (it.err == nil || len(it.line) > 0) {
				tr.fatalf(st, "after the end, the %s received %s", side.who, shorten(string(it.line), 2000))
			}
			if ok && !errors.Is(it.err, io.EOF) {
				tr.fatalf(st, "reading what reached the %s: %v", side.who, it.err)
			}
		case <-time.After(transcriptWait):
			tr.fatalf(st, "the %s's input did not end within %v of the host closing the wrapper's stdin", side.who, transcriptWait)
		}
	}
	select {
	case <-tr.w.exited:
	case <-time.After(transcriptWait):
		tr.fatalf(st, "the wrapper did not exit within %v", transcriptWait)
	}
	if code := tr.w.cmd.ProcessState.ExitCode(); code != 0 {
		tr.fatalf(st, "the wrapper exited %d (%v), want 0 (its server's exit code)", code, tr.w.err)
	}
	if tr.hub != nil {
		select {
		case p := <-tr.hub.sp.Shown:
			tr.fatalf(st, "a prompt the script does not expect was shown: %s", testkit.JSONText(promptView(p.Prompt)))
		default:
		}
	}
	tr.ended = true
}

// checkNoConnect: the wrapper never connected to the hub, so it neither
// showed a window nor started a hub (it starts one only when dialling the
// socket fails). The test connects once itself: connections are accepted
// in order, so once its own is, the wrapper's would have been too.
func (tr *transcript) checkNoConnect(st step) {
	tr.t.Helper()
	conn, err := net.Dial("unix", tr.paths.Socket)
	if err != nil {
		tr.fatalf(st, "dialling the hub: %v", err)
	}
	defer conn.Close()
	self := int32(os.Getpid())
	tr.waitHub(st, func() (bool, string) {
		return slices.ContainsFunc(tr.hub.watch.peerPIDs(), func(p int32) bool { return p == self }), "the hub did not accept the test's own connection"
	})
	for _, pid := range tr.hub.watch.peerPIDs() {
		if pid != self {
			tr.fatalf(st, "process %d connected to the hub (the wrapper was %d)", pid, tr.w.cmd.Process.Pid)
		}
	}
}

// wrapperProc is the real wrapper binary, its host side held by the test,
// and its server the peerServer whose stdin and stdout the test holds too.
type wrapperProc struct {
	cmd      *exec.Cmd
	host     *os.File // the host's writes: the wrapper's stdin
	server   *os.File // the server's writes: its stdout
	toHost   <-chan streamItem
	toServer <-chan streamItem
	exited   chan struct{}
	err      error  // cmd.Wait's, once exited is closed
	stderr   string // the file its stderr goes to: the host's log
}

// streamItem is one line (without its newline) that reached a side, or,
// with err set, the end of its input (line holds any bytes after the last
// newline).
type streamItem struct {
	line []byte
	err  error
}

// startWrapper is startWrapperIn the test process's environment.
func startWrapper(t *testing.T, args []string, nohub bool) *wrapperProc {
	t.Helper()
	return startWrapperIn(t, os.Environ(), args, nohub)
}

// startWrapperIn starts `elicitray wrap ARGS… -- peerServer` in the
// environment env, without a display; with nohub, where no desktop session
// can be found either.
func startWrapperIn(t *testing.T, env []string, args []string, nohub bool) *wrapperProc {
	t.Helper()
	var files []*os.File
	pipe := func() (r, w *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, r, w)
		return r, w
	}
	hostInR, hostInW := pipe()
	hostOutR, hostOutW := pipe()
	srvInR, srvInW := pipe()   // what the server receives: its fd 3
	srvOutR, srvOutW := pipe() // what the server writes: its fd 4
	stderr, err := os.CreateTemp(t.TempDir(), "wrapper-stderr-")
	if err != nil {
		t.Fatal(err)
	}
	argv := append(append([]string{testkit.Binary(t), "wrap"}, args...), "--", "sh", "-c", peerServer)
	if nohub {
		// No desktop at all: none in its environment, and none to find.
		argv = append(testkit.NoSession(t), argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = hostInR, hostOutW, stderr
	// The wrapper passes fds it inherited on to the server it starts.
	cmd.ExtraFiles = []*os.File{srvInW, srvOutR}
	// Should anything start a real hub, it must not reach a display.
	cmd.Env = append(slices.Clone(env), "DISPLAY=", "WAYLAND_DISPLAY=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []*os.File{hostInR, hostOutW, srvInW, srvOutR} {
		f.Close()
	}
	w := &wrapperProc{cmd: cmd, host: hostInW, server: srvOutW, exited: make(chan struct{}), stderr: stderr.Name()}
	w.toHost = readLines(hostOutR)
	w.toServer = readLines(srvInR)
	go func() {
		w.err = cmd.Wait()
		close(w.exited)
	}()
	t.Cleanup(func() {
		if b, _ := os.ReadFile(stderr.Name()); t.Failed() && len(b) > 0 {
			t.Logf("the wrapper's stderr:\n%s", shorten(string(b), 8000))
		}
		stderr.Close()
	})
	t.Cleanup(func() {
		hostInW.Close()
		srvOutW.Close()
		select {
		case <-w.exited:
		default:
			_ = cmd.Process.Kill()
			<-w.exited
		}
		for _, f := range files {
			f.Close()
		}
	})
	return w
}

// readLines delivers the lines read from f, then its end. It never stops
// reading while the process writes, so no write of the wrapper blocks on
// the test.
func readLines(f *os.File) <-chan streamItem {
	ch := make(chan streamItem, 1024)
	go func() {
		defer close(ch)
		br := bufio.NewReaderSize(f, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				ch <- streamItem{line: line, err: err}
				return
			}
			ch <- streamItem{line: line[:len(line)-1]}
		}
	}()
	return ch
}

// transcriptHub is an in-process hub with a scripted person, whose socket
// is watched: which processes connected, and each write (after which the
// history holds every decision sent).
type transcriptHub struct {
	h     *hub.Hub
	sp    *hubkit.ScriptedPrompter
	watch *hubWatch
}

// startTranscriptHub is startTranscriptHubAt a home of t's own, set in the
// test process (testHome).
func startTranscriptHub(t *testing.T) *transcriptHub {
	t.Helper()
	return startTranscriptHubAt(t, paths.Under(testkit.Home(t)))
}

// startTranscriptHubAt serves a transcriptHub at p until the test ends.
func startTranscriptHubAt(t *testing.T, p paths.Paths) *transcriptHub {
	t.Helper()
	th := &transcriptHub{watch: &hubWatch{event: make(chan struct{})}}
	th.h, th.sp = hubkit.ServeHub(t, p, func(ln net.Listener) net.Listener { return &watchedListener{Listener: ln, w: th.watch} })
	return th
}

// hubWatch reports the hub's socket events.
type hubWatch struct {
	mu    sync.Mutex
	event chan struct{} // closed (and replaced) at each event
	pids  []int32       // the processes that connected, in order
}

// next returns a channel closed at the next event.
func (w *hubWatch) next() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.event
}

func (w *hubWatch) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	close(w.event)
	w.event = make(chan struct{})
}

func (w *hubWatch) peerPIDs() []int32 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]int32(nil), w.pids...)
}

type watchedListener struct {
	net.Listener
	w *hubWatch
}

func (l *watchedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	pid := int32(-1)
	if uc, ok := c.(*net.UnixConn); ok {
		if raw, err := uc.SyscallConn(); err == nil {
			_ = raw.Control(func(fd uintptr) {
				if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
					pid = cred.Pid
				}
			})
		}
	}
	l.w.mu.Lock()
	l.w.pids = append(l.w.pids, pid)
	l.w.mu.Unlock()
	l.w.fire()
	return &watchedConn{Conn: c, w: l.w}, nil
}

type watchedConn struct {
	net.Conn
	w *hubWatch
}

func (c *watchedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.w.fire()
	return n, err
}

// describeDiff says how got differs from want, briefly even for lines of
// many megabytes.
func describeDiff(want, got []byte) string {
	if len(want) <= 2000 && len(got) <= 2000 {
		return fmt.Sprintf("\nwant: %s\n got: %s", want, got)
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-40)
	return fmt.Sprintf("want %d bytes, got %d; they differ from byte %d:\nwant …%q…\n got …%q…",
		len(want), len(got), i, want[from:min(len(want), i+40)], got[from:min(len(got), i+40)])
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:n], len(s))
}
