//go:build linux

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/elicitray/elicitray/app/hub"
	"github.com/elicitray/elicitray/app/internal/testkit"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/toolpins"
	"github.com/elicitray/elicitray/history"
)

// TestCLIUsage: calling elicitray wrongly is exit 2 with a sentence and a
// hint on stderr, and nothing on stdout (which is MCP's in a wrapper).
func TestCLIUsage(t *testing.T) {
	testkit.Home(t)
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown flag", []string{"wrap", "--nmae", "x", "--", "true"}, 2, "unknown flag: --nmae"},
		{"missing command", []string{"wrap", "--name", "x"}, 2, "wrap needs the server command after --"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"show without id", []string{"history", "show"}, 2, "show needs one decision ID"},
		{"show bad id", []string{"history", "show", "abc"}, 2, `"abc" is not a decision ID`},
		{"forgot --", []string{"wrap", "--name", "x", "npx", "-y", "some-server"}, 2, "put the server command after --"},
		{"unknown history subcommand", []string{"history", "lst"}, 2, `unknown command "lst" for "elicitray history"`},
		{"history alone", []string{"history"}, 2, "history needs a subcommand"},
		{"bad limit", []string{"history", "list", "--limit", "0"}, 2, "--limit must be at least 1"},
		{"misspelt command", []string{"histroy"}, 2, "Did you mean this?"},
		// Flags after a misspelt command: the command is what is wrong.
		{"misspelt command with flags", []string{"wrapp", "--name", "x", "--", "true"}, 2,
			"elicitray: unknown command \"wrapp\" for \"elicitray\"\n\nDid you mean this?\n\twrap\n"},
		{"misspelt command with a subcommand", []string{"histroy", "list", "--limit", "5"}, 2, "Did you mean this?\n\thistory\n"},
		{"misspelt subcommand with flags", []string{"history", "lst", "--json"}, 2,
			"unknown command \"lst\" for \"elicitray history\"\n\nDid you mean this?\n\tlist\n"},
		{"unknown flag of a known command", []string{"history", "list", "--bogus"}, 2, "unknown flag: --bogus"},
		{"server exit code", []string{"wrap", "--", "sh", "-c", "exit 7"}, 7, ""},
		{"missing server", []string{"wrap", "--", "/nonexistent/server"}, 127,
			`elicitray: the server command "/nonexistent/server" could not be started: no such file or directory` + "\n"},
		{"mute an empty name", []string{"mute", ""}, 2, "mute needs one server name"},
		{"server not in PATH", []string{"wrap", "--", "no-such-mcp-server-here"}, 127,
			`elicitray: the server command "no-such-mcp-server-here" could not be started: it is not in PATH`},
		// Said before any hub starts or window opens.
		{"demo at an unknown era", []string{"demo", "--protocol", "2025-06-18"}, 2,
			`elicitray: the demo host speaks protocol 2026-07-28 or 2025-11-25, not "2025-06-18"`},
		{"demo of an unknown tool", []string{"demo", "--tool", "deploy"}, 2,
			`elicitray: the demo has no tool "deploy"; its tools are choose_tags, confirm_deploy, pick_environment, profile_form, request_change`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tt.stderr)
			}
			if tt.code == 2 && !strings.Contains(stderr.String(), "--help") {
				t.Errorf("stderr %q has no usage hint", stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
		})
	}
}

// TestCLIHelp: help goes to stdout, where people page and grep it, except
// wrap's: in a wrapper stdout is MCP's.
func TestCLIHelp(t *testing.T) {
	for _, tt := range []struct {
		args     []string
		toStdout bool
	}{
		{[]string{"--help"}, true},
		{[]string{"history", "--help"}, true},
		{[]string{"--version"}, true},
		{[]string{"wrap", "--help"}, false},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main(context.Background(), tt.args, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", tt.args, code, stderr.String())
		}
		out, other := stdout.String(), stderr.String()
		if !tt.toStdout {
			out, other = other, out
		}
		if out == "" || other != "" {
			t.Errorf("%v: stdout %q, stderr %q; want it on %s only", tt.args, stdout.String(), stderr.String(), map[bool]string{true: "stdout", false: "stderr"}[tt.toStdout])
		}
	}
}

func TestCLIVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"version"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := stdout.String(); got != "elicitray "+Version+"\n" {
		t.Errorf("version printed %q", got)
	}
	stdout.Reset()
	stderr.Reset()
	// --version prints the same, where scripts read it.
	if code := Main(context.Background(), []string{"--version"}, nil, &stdout, &stderr); code != 0 || stdout.String() != "elicitray "+Version+"\n" {
		t.Errorf("--version: exit %d, stdout %q", code, stdout.String())
	}
}

// TestCLIDemoNeedsDisplay: without a display the demo says why at once
// instead of running four tools that all fail.
func TestCLIDemoNeedsDisplay(t *testing.T) {
	testkit.Home(t)
	argv := append(testkit.NoSession(t), testkit.Binary(t), "demo")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "DISPLAY=", "WAYLAND_DISPLAY=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || stdout.Len() != 0 ||
		!strings.Contains(stderr.String(), "the demo shows desktop windows: no elicitray hub is running and none could be started: no desktop session of yours was found") {
		t.Errorf("%v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
}

// TestCLIDemoServerAuditLog runs the real `elicitray demo-server` as a
// 2025-11-25 host would: request_change's result names the audit log it
// wrote, by default demo-audit.jsonl in ELICITRAY_HOME, and --audit moves it
// (a relative path is named absolute, so the user can open it).
func TestCLIDemoServerAuditLog(t *testing.T) {
	home := testkit.Home(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"demo-server"}, filepath.Join(home, "demo-audit.jsonl")},
		{[]string{"demo-server", "--audit", "audit/changes.jsonl"}, filepath.Join(dir, "audit", "changes.jsonl")},
	} {
		cmd := exec.Command(testkit.Binary(t), tt.args...)
		cmd.Dir = dir
		host := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "cancel"}, nil
			},
		})
		cs, err := host.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("%v: connecting: %v", tt.args, err)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "request_change"})
		cs.Close()
		if err != nil {
			t.Fatalf("%v: calling request_change: %v", tt.args, err)
		}
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if !strings.HasPrefix(text, "aborted at round 1 (approval): ") || !strings.Contains(text, "Audit log: "+tt.want+" (call ") {
			t.Errorf("%v: result %q, want aborted at round 1 naming %s", tt.args, text, tt.want)
		}
		b, err := os.ReadFile(tt.want)
		if err != nil || !strings.Contains(string(b), `"outcome":"aborted"`) {
			t.Errorf("%v: audit log %q (%v), want the aborted call", tt.args, b, err)
		}
	}
}

// TestCLIHistoryWithoutHub: with no hub running, `history` reads the file
// itself.
func TestCLIHistoryWithoutHub(t *testing.T) {
	testkit.Home(t)
	st, err := history.Open(paths.FromEnv(os.Getenv).History, nil)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 11, 30, 9, 30, 0, 0, time.Local)
	if _, err := st.Add(history.Record{Time: when, Server: "github", Tool: "deploy", Mode: "form", Message: "Deploy build 1.4.2?\nIt goes to production.\x1b]0;pwned\a\u202e",
		Action: "accept", Content: map[string]any{"confirm": true}, DecidedBy: "user", Elapsed: 2500 * time.Millisecond,
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","description":"Ship it` + "\u202e" + ` now"},"build":{"type":"number","default":1.50}}}`)}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"history", "list"}, nil, &out, &errb); code != 0 {
		t.Fatalf("list: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"ID", "DECIDED BY", "1", "2026-11-30 09:30:00", "github", "deploy", "accept", "user", "Deploy build 1.4.2? …"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("list output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := Main(context.Background(), []string{"history", "show", "1"}, nil, &out, &errb); code != 0 {
		t.Fatalf("show: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"Decided by", "user", "Time to answer", "2.5s", "It goes to production.", `"confirm": true`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("show output lacks %q:\n%s", want, out.String())
		}
	}
	// The schema as the server wrote it: its fields in the form's order,
	// numbers as written.
	if i, j := strings.Index(out.String(), `"confirm": {`), strings.Index(out.String(), `"build": {`); i < 0 || j < i || !strings.Contains(out.String(), `"default": 1.50`) {
		t.Errorf("the requested schema is not shown as the server wrote it:\n%s", out.String())
	}
	if strings.ContainsAny(out.String(), "\x1b\a\u202e") {
		t.Errorf("a server's escape sequence reached the terminal: %q", out.String())
	}
	// A rule's decision took no person any time: no time to answer.
	st, err = history.Open(paths.FromEnv(os.Getenv).History, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Add(history.Record{Time: when, Server: "github", Mode: "form", Message: "Again?", Action: "decline", DecidedBy: "rule", Elapsed: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	out.Reset()
	if code := Main(context.Background(), []string{"history", "show", "2"}, nil, &out, &errb); code != 0 || strings.Contains(out.String(), "Time to answer") || !strings.Contains(out.String(), "rule") {
		t.Errorf("show of a rule's decision: exit %d, says a time to answer or no rule:\n%s", code, out.String())
	}
	errb.Reset()
	if code := Main(context.Background(), []string{"history", "show", "3"}, nil, &out, &errb); code != 1 || !strings.Contains(errb.String(), "no decision with ID 3") {
		t.Errorf("show 3: exit %d, stderr %q", code, errb.String())
	}
}

// TestCLIToolsAcceptKept: a change accepted with `elicitray tools accept`
// is kept in history as a decision of the user's, as its window's answer
// would be: a tool change, accept, decided on the command line, with what
// changed; with no hub running, through the spool, which the next history
// command takes in. Before, history showed the change kept waiting, then
// the tool's calls running unasked, with no word of why.
func TestCLIToolsAcceptKept(t *testing.T) {
	testkit.Home(t)
	p := paths.FromEnv(os.Getenv)
	pins := toolpins.New(p)
	now := time.Now()
	for _, d := range []string{"Deploys to staging.", "Deploys to production. نشر إلى الإنتاج 🚀"} {
		if _, err := pins.Listed("部署", []toolpins.Named{{Name: "deploy", Def: toolpins.Def{Description: d}}}, now); err != nil {
			t.Fatal(err)
		}
	}
	// With no terminal to ask on, it shows what changed and accepts
	// nothing unless told to (--yes).
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"tools", "accept", "部署"}, strings.NewReader("y\n"), &out, &errb); code != 1 ||
		!strings.Contains(out.String(), "+Deploys to production. نشر إلى الإنتاج 🚀") || !strings.Contains(errb.String(), "add --yes") {
		t.Fatalf("tools accept with no terminal: exit %d: %s%s", code, out.String(), errb.String())
	}
	if ch, _ := pins.Changes("部署", nil); len(ch) != 1 {
		t.Fatal("tools accept with no terminal and no --yes accepted the change")
	}
	out.Reset()
	errb.Reset()
	if code := Main(context.Background(), []string{"tools", "accept", "--yes", "部署"}, nil, &out, &errb); code != 0 || errb.Len() > 0 {
		t.Fatalf("tools accept: exit %d: %s%s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := Main(context.Background(), []string{"history", "list", "--json", "--decided-by", "command-line"}, nil, &out, &errb); code != 0 {
		t.Fatalf("history list: exit %d: %s", code, errb.String())
	}
	var rec history.Record
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
		t.Fatalf("history list --json: %v\n%s", err, out.String())
	}
	if rec.Server != "部署" || rec.Tool != "deploy" || rec.Mode != "tool change" || rec.Action != "accept" || rec.DecidedBy != "command-line" ||
		!strings.Contains(rec.Message, "+Deploys to production. نشر إلى الإنتاج 🚀") || !strings.Contains(rec.Message, "-Deploys to staging.") {
		t.Errorf("history keeps %+v, want the change of 部署's deploy accepted on the command line, with what changed", rec)
	}
	// Nothing more is accepted, nor kept, by a second run.
	out.Reset()
	if code := Main(context.Background(), []string{"tools", "accept", "--yes", "部署"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "No tool of 部署 has a change waiting") {
		t.Errorf("tools accept again: exit %d: %s", code, out.String())
	}
	out.Reset()
	if code := Main(context.Background(), []string{"history", "list", "--json"}, nil, &out, &errb); code != 0 || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("history holds, after accepting twice:\n%s", out.String())
	}
	// A tool named twice is accepted once (it failed: "no changed
	// definition waiting", as if the second were another tool).
	long := strings.Repeat("部署工具", 500)
	for _, d := range []string{"v1", "v2"} {
		if _, err := pins.Listed("部署", []toolpins.Named{{Name: long, Def: toolpins.Def{Description: d}}}, now); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	if code := Main(context.Background(), []string{"tools", "accept", "--yes", "部署", long, long}, nil, &out, &errb); code != 0 {
		t.Errorf("tools accept of a tool named twice: exit %d: %s%s", code, out.String(), errb.String())
	}
	// The table stays readable with a name of 2,000 characters.
	out.Reset()
	if code := Main(context.Background(), []string{"history", "list"}, nil, &out, &errb); code != 0 {
		t.Fatalf("history list: exit %d: %s", code, errb.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if n := utf8.RuneCountInString(line); n > 250 {
			t.Errorf("a line of history list is %d characters long", n)
		}
	}
	// A server's name as typed reaches the terminal escaped: no colour
	// change, no text turned right to left (it did in the error).
	for _, cmd := range [][]string{{"tools", "accept", "--yes", "ev\x1b[31mil\u202e", "deploy"}, {"tools", "forget", "ev\x1b[31mil\u202e"}} {
		out.Reset()
		errb.Reset()
		if code := Main(context.Background(), cmd, nil, &out, &errb); code != 1 || strings.ContainsAny(out.String()+errb.String(), "\x1b\u202e") || !strings.Contains(errb.String(), "are pinned") {
			t.Errorf("%q: exit %d: %q%q", cmd, code, out.String(), errb.String())
		}
	}
	// export -o - writes to standard output, as - means in commands.
	out.Reset()
	if code := Main(context.Background(), []string{"history", "export", "-o", "-"}, nil, &out, &errb); code != 0 || strings.Count(out.String(), `"decidedBy":"command-line"`) != 2 {
		t.Errorf("history export -o -: exit %d:\n%s", code, out.String())
	}
	if _, err := os.Lstat("-"); err == nil {
		t.Error("history export -o - wrote a file named -")
		os.Remove("-")
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"demo", "github", "github-enterprise", "jira"}
	for _, tt := range []struct {
		name string
		want string
	}{
		{"demoo", "did you mean demo?"},
		{"Demo", "did you mean demo?"},
		{"githbu", "did you mean github?"},
		{"git", "did you mean github or github-enterprise?"},
		{"payments", ""},
		{"jira", ""},
	} {
		if got := hub.DidYouMean(tt.name, names); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestServerName(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"npx", "-y", "@modelcontextprotocol/server-everything"}, "server-everything"},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-github@2025.4.8"}, "server-github"},
		{[]string{"uvx", "mcp-server-git", "--repository", "."}, "mcp-server-git"},
		{[]string{"node", "/opt/srv/build/index.js"}, "index"},
		{[]string{"/usr/local/bin/github-mcp-server", "stdio"}, "github-mcp-server"},
		{[]string{"docker", "run", "-i", "--rm", "ghcr.io/github/github-mcp-server"}, "github-mcp-server"},
	} {
		if got := serverName(tt.args); got != tt.want {
			t.Errorf("serverName(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestMain(m *testing.M) {
	// TestFlood (flood_test.go) runs this test binary again as its
	// flooding server behind `elicitray wrap`.
	if os.Getenv(floodServerEnv) != "" {
		os.Exit(floodServe())
	}
	os.Exit(testkit.Run(m))
}

// testEnv is the environment one test gives every process it starts (the
// binary as wrapper, hub and CLI; hosts), passed in exec.Cmd.Env, never set
// in the test process, so that tests using it may run in parallel: its own
// ELICITRAY_HOME. (app/e2e's gives a test that shows windows its own X
// server and session bus too.)
type testEnv struct {
	home string
	vars []string // the test process's environment, the test's own entries last
}

// newTestEnv is a testEnv with a home of its own.
func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	e := &testEnv{home: testkit.TempHome(t)}
	e.vars = append(os.Environ(), "ELICITRAY_HOME="+e.home)
	return e
}

// command is name args… in e's environment.
func (e *testEnv) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = e.vars
	return cmd
}
