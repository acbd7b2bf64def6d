//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWindowsBuildUnderWine (issue 28): elicitray.exe, the Windows build,
// end to end under Wine 8 on this machine's X server: a host (this test,
// with the go-sdk) runs `elicitray.exe wrap` in front of elicitray.exe's
// demo server; the wrapper starts a hub, which serves its API on the named
// pipe. A rule answers the first question and history keeps it (`history
// list`); then a real window, drawn by elicitray.exe's window process,
// asks, and Return (xdotool) answers it; `doctor` says prompts can be
// shown; `hosts wrap` and `unwrap` rewrite a Claude Desktop config with
// Windows line ends at a Windows path and give it back byte for byte.
//
// make test-windows (.ci/test-windows) runs it, with ELICITRAY_WINE_EXE
// naming a cross-built elicitray.exe and WINEPREFIX the tests' Wine prefix,
// under Xvfb; elsewhere it is skipped.
func TestWindowsBuildUnderWine(t *testing.T) {
	exe := os.Getenv("ELICITRAY_WINE_EXE")
	if exe == "" || os.Getenv("WINEPREFIX") == "" {
		t.Skip("make test-windows runs it: it needs a cross-built elicitray.exe and a Wine prefix (ELICITRAY_WINE_EXE, WINEPREFIX)")
	}
	needDisplay(t)
	home := t.TempDir()
	w := &wineRun{t: t, exe: exe, env: append(os.Environ(), "WINEDEBUG=-all", "ELICITRAY_HOME="+winPath(home))}
	t.Cleanup(func() { w.run("quit") })
	config := filepath.Join(home, "config.toml")
	if err := os.WriteFile(config, []byte("[servers.demo]\nrule = \"accept-defaults\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := w.connect()

	// A rule answers, through the hub the wrapper started.
	if got := w.call(cs, "pick_environment"); got != `accept: {"environment":"staging"}` {
		t.Fatalf("with the rule the tool said %q%s", got, w.logs())
	}
	recs := w.history()
	if len(recs) != 1 || recs[0].DecidedBy != "rule" || recs[0].Action != "accept" || recs[0].Server != "demo" {
		t.Fatalf("history after the rule: %+v%s", recs, w.logs())
	}

	// A person answers, in a window of elicitray.exe's.
	if err := os.WriteFile(config, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() { done <- w.call(cs, "pick_environment") }()
	win := w.window("elicitray — demo asks")
	w.screenshot(win, "wine-prompt.png")
	var got string
	// The window takes no key until its key guard is over (Windows has no
	// X property to say so): Return is pressed until one answers (an
	// early one is ignored, never lost as an answer). A key that goes down
	// while the window is held starts its guard again, so the presses come
	// pressPastGuard apart; and once keys went down while it was held, it
	// takes no answer until the person turns to it: Tab first (and back,
	// to the field).
	for answered := false; !answered; {
		_ = exec.Command("xdotool", "key", "--window", win, "Tab", "shift+Tab", "Return").Run()
		select {
		case got = <-done:
			answered = true
		case <-time.After(pressPastGuard):
		}
	}
	if got != `accept: {"environment":"staging"}` {
		t.Fatalf("Return in the window sent %q%s", got, w.logs())
	}
	if recs := w.history(); len(recs) != 2 || recs[0].DecidedBy != "user" || recs[0].Action != "accept" {
		t.Fatalf("history after the window: %+v%s", recs, w.logs())
	}

	if out, _ := w.run("doctor"); !strings.Contains(out, "Prompts can be shown.") {
		t.Errorf("doctor under Wine says:\n%s", out)
	}

	// A Claude Desktop config with Windows line ends, at a Windows path.
	hostCfg := filepath.Join(home, "Claude", "claude_desktop_config.json")
	if err := os.MkdirAll(filepath.Dir(hostCfg), 0o700); err != nil {
		t.Fatal(err)
	}
	orig := []byte(crlfClaudeConfig)
	if err := os.WriteFile(hostCfg, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := w.run("hosts", "wrap", "claude-desktop", "--config", winPath(hostCfg), "--all"); err != nil {
		t.Fatalf("hosts wrap: %v\n%s", err, out)
	}
	wrapped, _ := os.ReadFile(hostCfg)
	e := claudeEntry(t, hostCfg)
	if !strings.EqualFold(e.Command, winPath(exe)) || strings.Join(e.Args, " ") != "wrap --name files -- npx -y server-files" ||
		bytes.Count(wrapped, []byte("\r\n")) != bytes.Count(wrapped, []byte("\n")) {
		t.Errorf("hosts wrap wrote:\n%q\nwant the entry run through %s, every line ending CRLF", wrapped, winPath(exe))
	}
	if out, err := w.run("hosts", "unwrap", "claude-desktop", "--config", winPath(hostCfg), "--all"); err != nil {
		t.Fatalf("hosts unwrap: %v\n%s", err, out)
	}
	if back, _ := os.ReadFile(hostCfg); !bytes.Equal(back, orig) {
		t.Errorf("hosts unwrap left:\n%q\nwant the file as it was:\n%q", back, orig)
	}
}

// crlfClaudeConfig is a Claude Desktop config as Windows writes it: one
// stdio server, files, and CRLF line ends.
const crlfClaudeConfig = "{\r\n  \"mcpServers\": {\r\n    \"files\": {\r\n      \"command\": \"npx\",\r\n      \"args\": [\"-y\", \"server-files\"]\r\n    }\r\n  }\r\n}\r\n"

// wineRun runs elicitray.exe under Wine with an ELICITRAY_HOME of the
// test's own.
type wineRun struct {
	t    *testing.T
	exe  string
	env  []string
	logf string // the wrapper's stderr
}

// winPath is a Linux path as Wine's Z: drive names it.
func winPath(p string) string { return "Z:" + strings.ReplaceAll(p, "/", `\`) }

// run runs elicitray.exe ARGS… and returns what it printed.
func (w *wineRun) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), desktopWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "wine", append([]string{w.exe}, args...)...)
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// connect starts `elicitray.exe wrap --name demo -- elicitray.exe
// demo-server` as a host does and initializes a session.
func (w *wineRun) connect() *mcp.ClientSession {
	w.t.Helper()
	w.logf = filepath.Join(w.t.TempDir(), "wrapper.log")
	logf, err := os.Create(w.logf)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { logf.Close() })
	cmd := exec.Command("wine", w.exe, "wrap", "--name", "demo", "--", winPath(w.exe), "demo-server")
	cmd.Env = w.env
	cmd.Stderr = logf
	host := mcp.NewClient(&mcp.Implementation{Name: "elicitray-wine-host", Version: "1.0.0"}, nil)
	cs, err := host.Connect(w.t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		w.t.Fatalf("connecting to elicitray.exe wrap under Wine: %v%s", err, w.logs())
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls tool and returns the text of its result.
func (w *wineRun) call(cs *mcp.ClientSession, tool string) string {
	ctx, cancel := context.WithTimeout(w.t.Context(), desktopWait)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil {
		return "error: " + err.Error()
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// wineRecord is what `history list --json` says of a decision.
type wineRecord struct {
	Server    string `json:"server"`
	Action    string `json:"action"`
	DecidedBy string `json:"decidedBy"`
}

// history is `elicitray.exe history list --json`, newest first.
func (w *wineRun) history() []wineRecord {
	w.t.Helper()
	out, err := w.run("history", "list", "--json")
	if err != nil {
		w.t.Fatalf("history list: %v\n%s", err, out)
	}
	var recs []wineRecord
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r wineRecord
		if json.Unmarshal([]byte(line), &r) == nil && r.Action != "" {
			recs = append(recs, r)
		}
	}
	return recs
}

// window waits for a window titled title and returns its X id.
func (w *wineRun) window(title string) string {
	w.t.Helper()
	deadline := time.Now().Add(desktopWait)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("xdotool", "search", "--name", "^elicitray").Output()
		for _, id := range strings.Fields(string(out)) {
			if name, _ := exec.Command("xdotool", "getwindowname", id).Output(); strings.TrimSpace(string(name)) == title {
				return id
			}
		}
		time.Sleep(pollEvery)
	}
	var names []string
	out, _ := exec.Command("xdotool", "search", "--name", ".").Output()
	for _, id := range strings.Fields(string(out)) {
		if name, _ := exec.Command("xdotool", "getwindowname", id).Output(); len(bytes.TrimSpace(name)) > 0 {
			names = append(names, strings.TrimSpace(string(name)))
		}
	}
	w.t.Fatalf("no window %q within %v (the windows: %q)%s", title, desktopWait, names, w.logs())
	return ""
}

// screenshot saves window win as DIR/name when ELICITRAY_SCREENSHOTS names
// a directory, once two captures in a row agree (it has drawn itself).
func (w *wineRun) screenshot(win, name string) {
	dir := os.Getenv("ELICITRAY_SCREENSHOTS")
	if dir == "" {
		return
	}
	path := filepath.Join(dir, name)
	var prev []byte
	for deadline := time.Now().Add(desktopWait); time.Now().Before(deadline); time.Sleep(pollEvery) {
		out, err := exec.Command("import", "-window", win, "rgb:-").Output()
		if err == nil && len(out) > 0 && bytes.Equal(out, prev) {
			break
		}
		prev = out
	}
	if out, err := exec.Command("import", "-window", win, path).CombinedOutput(); err != nil {
		w.t.Errorf("import -window %s %s: %v\n%s", win, path, err, out)
	}
}

// logs is the wrapper's log, for a failure.
func (w *wineRun) logs() string {
	b, _ := os.ReadFile(w.logf)
	return "\nthe wrapper's log:\n" + string(b)
}
