//go:build linux

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/app/hosts"
	"github.com/elicitray/elicitray/app/internal/testkit"
)

const hostsFixtures = "../testdata/hosts"

// fakeHosts makes a home directory where Cursor, Zed, Codex, Claude Code
// and Gemini CLI are installed, with their configs from testdata/hosts, and
// a project directory in it. It returns both.
func fakeHosts(t *testing.T) (home, project string) {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir()) // as Claude Code records projects
	if err != nil {
		t.Fatal(err)
	}
	project = filepath.Join(home, "project")
	for _, f := range []struct{ from, to string }{
		{"cursor/mcp.json", ".cursor/mcp.json"},
		{"zed/settings.json", ".config/zed/settings.json"},
		{"codex/config.toml", ".codex/config.toml"},
		{"claude-code/mcp.json", "project/.mcp.json"},
	} {
		data, err := os.ReadFile(filepath.Join(hostsFixtures, f.from))
		if err != nil {
			t.Fatal(err)
		}
		testkit.WriteFile(t, filepath.Join(home, f.to), string(data), 0o644)
	}
	// Claude Code keeps the project's local scope under its absolute path.
	testkit.WriteFile(t, filepath.Join(home, ".claude.json"), `{
  "mcpServers": {
    "dup": {"command": "user-dup"}
  },
  "projects": {
    "`+project+`": {
      "mcpServers": {
        "dup": {"command": "local-dup"}
      }
    }
  }
}
`, 0o600)
	// A server that runs anywhere: it says what ECHO_MODE it got, then cat
	// answers each message with itself.
	gemini, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{
			"command": "sh",
			"args":    []string{"-c", echoScript},
			"env":     map[string]string{"ECHO_MODE": "plain"},
		},
	}}, "", "  ")
	testkit.WriteFile(t, filepath.Join(home, ".gemini", "settings.json"), string(gemini)+"\n", 0o600)
	return home, project
}

const echoScript = `printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%s"}}\n' "$ECHO_MODE"; exec cat`

// hostsEnv points the host-finding variables at home for an in-process
// run, in project, with the built binary as the one wrap puts in configs.
func hostsEnv(t *testing.T, home, project string) {
	t.Helper()
	bin := testkit.Binary(t)
	hostsBinary = func() (string, error) { return bin, nil }
	t.Cleanup(func() { hostsBinary = os.Executable })
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "APPDATA"} {
		t.Setenv(v, "")
	}
	t.Chdir(project)
}

// runBin runs the built elicitray as a user whose home is home, in dir.
func runBin(t *testing.T, home, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runBinAs(t, testkit.Binary(t), home, dir, args...)
}

// runBinAs is runBin with the built elicitray run as bin (a link to it).
func runBinAs(t *testing.T, bin, home, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runBinWith(t, os.Environ(), bin, home, dir, args...)
}

// runBinEnv is runBin with env as the environment it is run in, but for
// HOME (home) and the variables that find hosts' configs.
func runBinEnv(t *testing.T, env []string, home, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runBinWith(t, env, testkit.Binary(t), home, dir, args...)
}

// runBinWith runs bin with args in directory dir and the environment env
// but for HOME, which is home, and the variables that would find the
// test process's host configs, which it lacks.
func runBinWith(t *testing.T, env []string, bin, home, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	for _, kv := range env {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "HOME", "XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "APPDATA":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func backups(t *testing.T, path string) []string {
	t.Helper()
	b, err := filepath.Glob(path + ".elicitray-backup-*")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHostsCommand runs the real binary as a user with a few hosts
// installed: list, wrap Cursor's servers, wrap again, read the entries back,
// unwrap, and the file is what it was.
func TestHostsCommand(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	orig, _ := os.ReadFile(cursor)

	out, errOut, code := runBin(t, home, project, "hosts", "list")
	if code != 0 {
		t.Fatalf("hosts list: exit %d: %s", code, errOut)
	}
	want := `Claude Code (user) — ~/.claude.json
  dup  not wrapped  user-dup

Claude Code (local) — ~/.claude.json
  dup  not wrapped  local-dup

Claude Code (project) — ~/project/.mcp.json
  playwright  not wrapped  npx @playwright/mcp@latest
  docs        remote       https://docs.example.com/mcp  (headers: Authorization)
  linear      remote       https://mcp.linear.app/mcp  (headers: Authorization, X-Client, X-Workspace)
  smithery    remote       https://server.smithery.ai/@acme/tools/mcp?api_key=0123abcd  (cannot be wrapped: its url may hold a secret (the api_key parameter), and elicitray wrap would have the URL on its command line, which other users of this computer can read: move the secret into a header to wrap it)
  helper      remote       https://helper.example.com/sse  (cannot be wrapped: its headers come from a headersHelper command, which elicitray wrap cannot run)

Cursor (user) — ~/.cursor/mcp.json
  web-search     not wrapped  npx -y @example/web-search-mcp
  python-tools   not wrapped  python3 -m mcp_server_tools
  notes          not wrapped  notes-mcp
  remote-server  remote       https://example.com/mcp  (headers: API_KEY)
  docs           remote       https://docs.example.com/sse
  search         remote       https://search.example.com/mcp  (headers: Authorization, Accept-Language)

Zed (user) — ~/.config/zed/settings.json
  mcp-server-github    not wrapped  npx -y @modelcontextprotocol/server-github
  postgres             not wrapped  /usr/local/bin/postgres-context-server postgresql://localhost/dev
  bare-old             not wrapped  context-server-bare
  no-args              not wrapped  mcp-no-args
  remote               remote       https://mcp.example.com/mcp  (headers: Authorization)
  mcp-server-context7  unsupported  a Zed extension starts this server, not a command in this file

Codex CLI (user) — ~/.codex/config.toml
  docs     not wrapped  docs-server
  github   not wrapped  npx -y @modelcontextprotocol/server-github
  fetch    not wrapped  uvx mcp-server-fetch
  figma    remote       https://mcp.figma.com/mcp  (headers: Authorization)
  catalog  remote       https://catalog.example.test/mcp  (headers: X-Client, X-Api-Key, X-Tenant)
  notion   remote       https://mcp.notion.com/mcp  (headers: Authorization)

Gemini CLI (user) — ~/.gemini/settings.json
  echo  not wrapped  sh -c ` + shellJoin([]string{echoScript}) + `

Not installed: Claude Desktop, VS Code, Windsurf.

` + "`elicitray hosts wrap HOST --all`" + ` puts elicitray in front of a host's servers (a backup
of the file is made first); ` + "`elicitray hosts unwrap HOST --all`" + ` takes it out again.
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("hosts list mismatch (-want +got):\n%s", diff)
	}

	out, errOut, code = runBin(t, home, project, "hosts", "wrap", "cursor", "--all")
	if code != 0 {
		t.Fatalf("hosts wrap: exit %d: %s", code, errOut)
	}
	golden, _ := os.ReadFile(filepath.Join(hostsFixtures, "cursor", "mcp.json.wrapped"))
	wantWrapped := strings.ReplaceAll(string(golden), "/opt/elicitray/bin/elicitray", testkit.Binary(t))
	got, _ := os.ReadFile(cursor)
	if diff := cmp.Diff(wantWrapped, string(got)); diff != "" {
		t.Errorf("wrapped file mismatch (-want +got):\n%s", diff)
	}
	bs := backups(t, cursor)
	if len(bs) != 1 {
		t.Fatalf("backups %v, want one", bs)
	}
	if !strings.Contains(out, "backup of the file as it was: "+bs[0]) || !strings.Contains(out, "remote-server  wrapped (remote https://example.com/mcp; API_KEY: its value moved into the entry's env as ELICITRAY_HEADER_API_KEY, not onto the command line)\n") {
		t.Errorf("hosts wrap said:\n%s", out)
	}
	checkMode(t, cursor, 0o644)
	checkMode(t, bs[0], 0o600)
	if b, _ := os.ReadFile(bs[0]); !bytes.Equal(b, orig) {
		t.Error("the backup is not the original")
	}

	// What Cursor will run: this binary, wrap --name KEY -- the server.
	entries, err := hosts.ReadFile(hosts.Location{Path: cursor, Format: hosts.FormatJSON, Servers: []string{"mcpServers"}})
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string][]string{
		"web-search":   {"npx", "-y", "@example/web-search-mcp"},
		"python-tools": {"python3", "-m", "mcp_server_tools"},
		"notes":        {"notes-mcp"},
	}
	remotes := map[string][]string{
		"remote-server": {"--url", "https://example.com/mcp", "--header-env", "API_KEY=ELICITRAY_HEADER_API_KEY"},
		"docs":          {"--url", "https://docs.example.com/sse"},
		"search":        {"--url", "https://search.example.com/mcp", "--bearer-env", "SEARCH_TOKEN", "--header", "Accept-Language: fr"},
	}
	for _, e := range entries {
		if s, ok := servers[e.Key]; ok {
			if e.Command != testkit.Binary(t) || !slices.Equal(e.Args, append([]string{"wrap", "--name", e.Key, "--"}, s...)) {
				t.Errorf("%s runs %s %q", e.Key, e.Command, e.Args)
			}
		}
		if flags, ok := remotes[e.Key]; ok {
			if e.State != hosts.StateWrapped || e.Command != testkit.Binary(t) || !slices.Equal(e.Args, append([]string{"wrap", "--name", e.Key}, flags...)) {
				t.Errorf("%s: %s runs %s %q", e.Key, e.State, e.Command, e.Args)
			}
		}
	}

	out, _, code = runBin(t, home, project, "hosts", "wrap", "cursor", "--all")
	if got2, _ := os.ReadFile(cursor); code != 0 || !bytes.Equal(got2, got) || len(backups(t, cursor)) != 1 {
		t.Errorf("wrapping again: exit %d, file changed %v, backups %v", code, !bytes.Equal(got2, got), backups(t, cursor))
	}
	if !strings.Contains(out, "web-search     already wrapped") || !strings.Contains(out, "nothing to change: the file was not written") {
		t.Errorf("wrapping again said:\n%s", out)
	}

	out, _, _ = runBin(t, home, project, "hosts", "list")
	if !strings.Contains(out, "Cursor (user) — ~/.cursor/mcp.json\n  web-search     wrapped  npx -y @example/web-search-mcp  (through "+testkit.Binary(t)+")\n") ||
		!strings.Contains(out, "  search         wrapped  https://search.example.com/mcp  (headers: Authorization, Accept-Language)  (through "+testkit.Binary(t)+")\n") {
		t.Errorf("list after wrap:\n%s", out)
	}

	out, errOut, code = runBin(t, home, project, "hosts", "unwrap", "cursor", "--all")
	if code != 0 {
		t.Fatalf("hosts unwrap: exit %d: %s", code, errOut)
	}
	if back, _ := os.ReadFile(cursor); !bytes.Equal(back, orig) {
		t.Errorf("unwrap did not give the original back:\n%s", cmp.Diff(string(orig), string(back)))
	}
	if len(backups(t, cursor)) != 2 || !strings.Contains(out, "web-search     unwrapped") {
		t.Errorf("unwrap: backups %v, said:\n%s", backups(t, cursor), out)
	}
	checkMode(t, cursor, 0o644)
}

// TestHostsUnwrapEveryHost: `hosts unwrap --all` with no host (what the
// Windows uninstaller runs) gives every host's wrapped entries their own
// commands back, byte for byte, in each host whose config exists, and
// says so for each, in the user's scopes and in every project Claude Code
// has on record, wherever it is run from; one host's config that cannot
// be written fails that host alone, with the exit code; run again, it
// changes nothing and says so.
func TestHostsUnwrapEveryHost(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	files := []string{
		filepath.Join(home, ".cursor", "mcp.json"),
		filepath.Join(home, ".codex", "config.toml"),
		filepath.Join(home, ".claude.json"), // Claude Code's user and local scopes
		filepath.Join(project, ".mcp.json"), // Claude Code's project scope
	}
	// The project's "docs" is another server than Cursor's and Codex's
	// "docs", which hosts wrap refuses to give one name
	// (TestHostsWrapRefusesAProjectsNameTwice): theirs are named apart here.
	for i, rename := range map[int][2]string{0: {`"docs":`, `"docs-sse":`}, 1: {"[mcp_servers.docs]", "[mcp_servers.docs-cli]"}} {
		b, _ := os.ReadFile(files[i])
		if err := os.WriteFile(files[i], bytes.Replace(b, []byte(rename[0]), []byte(rename[1]), 1), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var origs [][]byte
	for _, f := range files {
		b, _ := os.ReadFile(f)
		origs = append(origs, b)
	}
	for _, h := range []string{"cursor", "codex", "claude-code"} {
		if _, errOut, code := runBin(t, home, project, "hosts", "wrap", h, "--all"); code != 0 {
			t.Fatalf("hosts wrap %s: exit %d: %s", h, code, errOut)
		}
	}
	if _, errOut, code := runBin(t, home, project, "hosts", "unwrap", "--all", "--scope", "user"); code != 2 || !strings.Contains(errOut, "takes no --scope") {
		t.Errorf("hosts unwrap --all --scope user: exit %d, said %q; want a usage error", code, errOut)
	}
	// A config that cannot be written stops its host alone: the others
	// are unwrapped, its error is on stderr, and the exit code says so.
	// Run from the home directory: the project's configs are found
	// through Claude Code's record of it.
	if err := os.Chmod(files[1], 0o444); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runBin(t, home, home, "hosts", "unwrap", "--all")
	if code != 1 || !strings.Contains(errOut, "Codex CLI: ") || !strings.Contains(errOut, "read-only") || !strings.Contains(errOut, "could not unwrap the configs of Codex CLI ") {
		t.Errorf("hosts unwrap --all with Codex's config read-only: exit %d, said %q", code, errOut)
	}
	for i, f := range files {
		if back, _ := os.ReadFile(f); i != 1 && !bytes.Equal(back, origs[i]) {
			t.Errorf("%s is not what it was:\n%s", f, cmp.Diff(string(origs[i]), string(back)))
		}
	}
	for _, said := range []string{"Cursor (user)", "web-search     unwrapped", "Claude Code (user, local) — " + files[2], "Claude Code (project) — " + files[3], "Restart Cursor"} {
		if !strings.Contains(out, said) {
			t.Errorf("hosts unwrap --all does not say %q:\n%s", said, out)
		}
	}
	if strings.Contains(out, "Zed") || strings.Contains(out, "nothing to change") {
		t.Errorf("hosts unwrap --all speaks of files it did not change:\n%s", out)
	}
	if err := os.Chmod(files[1], 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runBin(t, home, home, "hosts", "unwrap", "--all")
	if back, _ := os.ReadFile(files[1]); code != 0 || !bytes.Equal(back, origs[1]) || !strings.Contains(out, "Codex CLI (user)") {
		t.Errorf("hosts unwrap --all again: exit %d, %s: %s\n%s", code, errOut, files[1], out)
	}
	out, _, code = runBin(t, home, home, "hosts", "unwrap", "--all")
	if code != 0 || !strings.Contains(out, "nothing to unwrap") {
		t.Errorf("unwrapping once more: exit %d, said:\n%s", code, out)
	}
}

// TestHostsUnwrapEveryHostManyProjects: five projects in Claude Code's
// .claude.json, each with a server whose args are empty, wrapped one
// project at a time (five backups of the file, as many as are kept), come
// back byte for byte from one `hosts unwrap --all` run elsewhere: the file
// is edited once, from the backups made before each wrap (edited once per
// project, each edit's backup pushed out the oldest of them, and its
// empty args with it). A config that
// does not parse and has nothing of elicitray in it (Cursor's, here) is
// left alone and fails nothing.
func TestHostsUnwrapEveryHostManyProjects(t *testing.T) {
	testkit.Home(t)
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var projects []string
	state := `{"mcpServers":{},"projects":{`
	for i := range 5 {
		dir := filepath.Join(home, fmt.Sprintf("项目 %d", i))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		projects = append(projects, dir)
		if i > 0 {
			state += ","
		}
		state += fmt.Sprintf("\n  %q: {\"mcpServers\": {\"srv%d\": {\"type\": \"stdio\", \"command\": \"srv%d\", \"args\": [], \"env\": {}}}}", dir, i, i)
	}
	state += "\n}}\n"
	claude := filepath.Join(home, ".claude.json")
	if err := os.WriteFile(claude, []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(cursor), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cursor, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range projects {
		if _, errOut, code := runBin(t, home, dir, "hosts", "wrap", "claude-code", "--all", "--scope", "local"); code != 0 {
			t.Fatalf("hosts wrap in %s: exit %d: %s", dir, code, errOut)
		}
	}
	if b, _ := os.ReadFile(claude); strings.Count(string(b), `"wrap"`) != 5 {
		t.Fatalf("after wrapping five projects .claude.json is:\n%s", b)
	}
	out, errOut, code := runBin(t, home, home, "hosts", "unwrap", "--all")
	if code != 0 {
		t.Fatalf("hosts unwrap --all: exit %d: %s\n%s", code, errOut, out)
	}
	if back, _ := os.ReadFile(claude); string(back) != state {
		t.Errorf(".claude.json is not what it was:\n%s", cmp.Diff(state, string(back)))
	}
	if n := strings.Count(out, "backup of the file as it was"); n != 1 {
		t.Errorf("hosts unwrap --all wrote .claude.json %d times, want once:\n%s", n, out)
	}
}

// TestHostsWrappedServerRuns: after `hosts wrap`, the command line in the
// config starts the server through the wrapper, and the entry's env (set
// by the host, as hosts do) reaches the server: it reports it, then echoes
// the host's message back through the wrapper.
func TestHostsWrappedServerRuns(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	settings := filepath.Join(home, ".gemini", "settings.json")
	if _, errOut, code := runBin(t, home, project, "hosts", "wrap", "gemini", "echo"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(settings)
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	e := cfg.MCPServers["echo"]
	if diff := cmp.Diff([]string{"wrap", "--name", "echo", "--", "sh", "-c", echoScript}, e.Args); e.Command != testkit.Binary(t) || diff != "" {
		t.Fatalf("command %s, args mismatch (-want +got):\n%s", e.Command, diff)
	}
	if e.Env["ECHO_MODE"] != "plain" {
		t.Errorf("env lost: %v", e.Env)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Command, e.Args...)
	cmd.Env = append(os.Environ(), "ECHO_MODE="+e.Env["ECHO_MODE"])
	msg := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}` + "\n"
	cmd.Stdin = strings.NewReader(msg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	want := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"plain"}}` + "\n" + msg
	if string(out) != want {
		t.Errorf("the wrapped server sent %q, want %q", out, want)
	}
}

// TestHostsMovedBinary: an entry wrapped by a binary that was moved away is
// flagged by list, and wrap points it at this one.
func TestHostsMovedBinary(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	testkit.WriteFile(t, cursor, `{"mcpServers": {"old": {"command": "/gone/bin/elicitray", "args": ["wrap", "--name", "old", "--", "srv"]}}}`, 0o600)
	out, _, _ := runBin(t, home, project, "hosts", "list")
	if !strings.Contains(out, "old  wrapped  srv  (through /gone/bin/elicitray, which no longer exists: `elicitray hosts wrap cursor old` points it at this binary)") {
		t.Errorf("list:\n%s", out)
	}
	out, errOut, code := runBin(t, home, project, "hosts", "wrap", "cursor", "old")
	got, _ := os.ReadFile(cursor)
	want := `{"mcpServers": {"old": {"command": "` + testkit.Binary(t) + `", "args": ["wrap", "--name", "old", "--", "srv"]}}}`
	if code != 0 || string(got) != want || !strings.Contains(out, "old  repointed") {
		t.Errorf("exit %d (%s), said %q, file:\n%s", code, errOut, out, got)
	}
}

// TestHostsCLIErrors: wrong names get a sentence and a suggestion (exit 2),
// things that cannot be done a sentence (exit 1), and no file is touched.
func TestHostsCLIErrors(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	hostsEnv(t, home, project)
	testkit.WriteFile(t, filepath.Join(home, ".gemini", "settings.json"), "{\n  \"mcpServers\": {\n    \"x\" {\"command\": \"y\"}\n  }\n}\n", 0o600)
	if os.Getuid() == 0 {
		// A settings.json that someone else linked to a file of theirs.
		zed := filepath.Join(home, ".config", "zed", "settings.json")
		os.Rename(zed, zed+".real")
		os.Symlink(zed+".real", zed)
		os.Lchown(zed, 4242, 4242)
	}
	files := map[string][]byte{}
	filepath.Walk(home, func(path string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			files[path], _ = os.ReadFile(path)
		}
		return nil
	})
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
		root   bool // needs root (the symlink)
	}{
		{"hosts alone", []string{"hosts"}, 2, []string{"hosts needs a subcommand: list, wrap HOST or unwrap HOST"}, false},
		{"unknown subcommand", []string{"hosts", "lst"}, 2, []string{`unknown command "lst" for "elicitray hosts"`}, false},
		{"no host", []string{"hosts", "wrap"}, 2, []string{"wrap needs a host (claude-desktop, claude-code, vscode, cursor, windsurf, zed, codex, gemini) or --config FILE"}, false},
		{"unknown host", []string{"hosts", "wrap", "cursr", "--all"}, 2, []string{`unknown host "cursr"`, "Did you mean this?\n\tcursor\n"}, false},
		{"unknown server", []string{"hosts", "wrap", "cursor", "web-serch"}, 2, []string{`cursor has no server "web-serch"`, "Did you mean this?\n\tweb-search"}, false},
		{"unknown server, nothing close", []string{"hosts", "unwrap", "cursor", "zzz"}, 2, []string{`cursor has no server "zzz" (it has web-search, python-tools, notes, remote-server, docs, search)`}, false},
		{"no servers named", []string{"hosts", "wrap", "cursor"}, 2, []string{"wrap needs the names of the servers to wrap, or --all (Cursor has web-search, python-tools, notes, remote-server, docs, search)"}, false},
		{"servers and --all", []string{"hosts", "wrap", "cursor", "notes", "--all"}, 2, []string{"wrap takes server names or --all, not both"}, false},
		{"no such scope", []string{"hosts", "wrap", "cursor", "--all", "--scope", "local"}, 2, []string{`cursor has no scope "local" (it has user, project)`}, false},
		{"in two scopes", []string{"hosts", "wrap", "claude-code", "dup"}, 2, []string{`"dup" is in claude-code's user and local scopes: say which with --scope`}, false},
		{"remote with a secret in its URL named", []string{"hosts", "wrap", "claude-code", "docs", "smithery"}, 1, []string{"smithery is a remote server (https://server.smithery.ai/@acme/tools/mcp?api_key=0123abcd) that elicitray cannot wrap: its url may hold a secret (the api_key parameter), and elicitray wrap would have the URL on its command line, which other users of this computer can read: move the secret into a header to wrap it; it was left as it is"}, false},
		{"extension named", []string{"hosts", "wrap", "zed", "mcp-server-context7"}, 1, []string{"mcp-server-context7 cannot be edited: a Zed extension starts this server"}, false},
		{"no config file", []string{"hosts", "wrap", "windsurf", "--all"}, 1, []string{"Windsurf has no config file here (~/.codeium/windsurf/mcp_config.json does not exist)"}, false},
		{"malformed JSON", []string{"hosts", "wrap", "gemini", "--all"}, 1, []string{filepath.Join(home, ".gemini", "settings.json") + ":3:9: not valid JSON: invalid character '{' after object name (nothing was changed)"}, false},
		{"malformed JSON in list", []string{"hosts", "list", "--config", filepath.Join(home, ".gemini", "settings.json")}, 1, []string{filepath.Join(home, ".gemini", "settings.json") + ":3:9: not valid JSON: invalid character '{' after object name"}, false},
		{"malformed JSON in list --json", []string{"hosts", "list", "--json", "--config", filepath.Join(home, ".gemini", "settings.json")}, 1, []string{"settings.json:3:9: not valid JSON"}, false},
		{"missing file in list", []string{"hosts", "list", "--config", filepath.Join(home, "nothing.json")}, 1, []string{"nothing.json: no such file or directory"}, false},
		{"unknown --format", []string{"hosts", "list", "--config", filepath.Join(home, ".cursor", "mcp.json"), "--format", "atom"}, 2, []string{`--format "atom" is not a host elicitray knows`}, false},
		{"someone else's symlink", []string{"hosts", "wrap", "zed", "--all"}, 1, []string{"settings.json is a symbolic link owned by user 4242, not you", "elicitray does not write through it"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root && os.Getuid() != 0 {
				t.Skip("making a link owned by another user needs root")
			}
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr %q does not say %q", stderr.String(), s)
				}
			}
			if hint := strings.Contains(stderr.String(), "--help"); hint != (tt.code == 2) {
				t.Errorf("usage hint %v for exit %d: %q", hint, tt.code, stderr.String())
			}
			if tt.code != 0 && stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
			for path, data := range files {
				if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
					t.Errorf("%s changed", path)
				}
			}
			if bs, _ := filepath.Glob(filepath.Join(home, "*", "*.elicitray-backup-*")); len(bs) > 0 {
				t.Errorf("backups made: %v", bs)
			}
		})
	}
	// The list shows the broken file's error where the file is.
	var stdout, stderr bytes.Buffer
	Main(context.Background(), []string{"hosts", "list"}, nil, &stdout, &stderr)
	if !strings.Contains(stdout.String(), "Gemini CLI (user) — ~/.gemini/settings.json\n  cannot read it: ~/.gemini/settings.json:3:9: not valid JSON: invalid character '{' after object name\n") {
		t.Errorf("list:\n%s", stdout.String())
	}
}

// TestHostsListJSON: --json gives every known config file with its entries,
// for scripts.
func TestHostsListJSON(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	hostsEnv(t, home, project)
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"hosts", "list", "--json"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got []struct {
		Host, Scope, Path string
		Installed, Exists bool
		Entries           []hosts.Entry
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, stdout.String())
	}
	i := slices.IndexFunc(got, func(r struct {
		Host, Scope, Path string
		Installed, Exists bool
		Entries           []hosts.Entry
	}) bool {
		return r.Host == "cursor" && r.Scope == "user"
	})
	if i < 0 {
		t.Fatalf("no cursor in %s", stdout.String())
	}
	c := got[i]
	var states []string
	for _, e := range c.Entries {
		states = append(states, e.Key+": "+string(e.State))
	}
	want := []string{"web-search: not wrapped", "python-tools: not wrapped", "notes: not wrapped", "remote-server: remote", "docs: remote", "search: remote"}
	if diff := cmp.Diff(want, states); diff != "" || c.Path != filepath.Join(home, ".cursor", "mcp.json") || !c.Installed || !c.Exists {
		t.Errorf("cursor: %+v, states mismatch (-want +got):\n%s", c, diff)
	}
	// Header values are often secrets: the JSON names headers only.
	for _, secret := range []string{"Bearer", "lin_api_0123456789abcdef", "${DOCS_TOKEN}", `"value"`} {
		if strings.Contains(stdout.String(), secret) {
			t.Errorf("list --json shows %s", secret)
		}
	}
	if len(got) != len(hosts.Survey(hosts.Env{Home: home, Project: project})) {
		t.Errorf("%d reports, want one per known config file", len(got))
	}
}

// TestHostsRemoteCommand: `hosts wrap` turns a host's remote entries into
// `elicitray wrap --url` entries as the goldens show, says where each
// secret header went and which entries it left alone, and `hosts unwrap`
// gives the file back byte for byte, from the backup wrap made.
func TestHostsRemoteCommand(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	fixtures, err := filepath.Abs(hostsFixtures)
	if err != nil {
		t.Fatal(err)
	}
	hostsEnv(t, home, project) // in project from here on
	for _, tt := range []struct {
		host, scope, file, golden string
		said                      []string
	}{
		{"claude-code", "project", filepath.Join(project, ".mcp.json"), "claude-code/mcp.json.wrapped", []string{
			"  docs        wrapped (remote https://docs.example.com/mcp; Authorization from ${DOCS_TOKEN}, through the entry's env)\n",
			"  linear      wrapped (remote https://mcp.linear.app/mcp; Authorization: its value moved into the entry's env as ELICITRAY_HEADER_AUTHORIZATION, not onto the command line; X-Workspace: its value moved into the entry's env as ELICITRAY_HEADER_X_WORKSPACE, not onto the command line)\n",
			"  smithery    left alone (remote https://server.smithery.ai/@acme/tools/mcp?api_key=0123abcd: its url may hold a secret (the api_key parameter)",
			"  helper      left alone (remote https://helper.example.com/sse: its headers come from a headersHelper command, which elicitray wrap cannot run)\n",
		}},
		{"codex", "user", filepath.Join(home, ".codex", "config.toml"), "codex/config.toml.wrapped", []string{
			"  figma    wrapped (remote https://mcp.figma.com/mcp; Authorization from $FIGMA_OAUTH_TOKEN, which Codex passes on (env_vars))\n",
			"  catalog  wrapped (remote https://catalog.example.test/mcp; X-Api-Key: its value moved into the entry's env as ELICITRAY_HEADER_X_API_KEY, not onto the command line; X-Tenant from $CATALOG_TENANT, which Codex passes on (env_vars))\n",
		}},
	} {
		t.Run(tt.host, func(t *testing.T) {
			orig, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if code := Main(context.Background(), []string{"hosts", "wrap", tt.host, "--all", "--scope", tt.scope}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			for _, s := range tt.said {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("hosts wrap did not say %q:\n%s", s, stdout.String())
				}
			}
			golden, err := os.ReadFile(filepath.Join(fixtures, tt.golden))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(tt.file)
			if diff := cmp.Diff(strings.ReplaceAll(string(golden), "/opt/elicitray/bin/elicitray", testkit.Binary(t)), string(got)); diff != "" {
				t.Errorf("wrapped file mismatch (-want +got):\n%s", diff)
			}
			stdout.Reset()
			if code := Main(context.Background(), []string{"hosts", "unwrap", tt.host, "--all", "--scope", tt.scope}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if back, _ := os.ReadFile(tt.file); !bytes.Equal(back, orig) {
				t.Errorf("unwrap did not give the original back:\n%s", cmp.Diff(string(orig), string(back)))
			}
		})
	}
}

// TestHostsConfigFlag: --config edits a file named directly, in its own
// format, and unwrap restores it.
func TestHostsConfigFlag(t *testing.T) {
	elicitrayHome := testkit.Home(t)
	home, project := fakeHosts(t)
	orig, err := os.ReadFile(filepath.Join(hostsFixtures, "codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	hostsEnv(t, home, project)
	path := filepath.Join(project, "codex.toml")
	testkit.WriteFile(t, path, string(orig), 0o600)
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"hosts", "wrap", "--config", "codex.toml", "github"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), path+"\n  github  wrapped\n  backup of the file as it was: "+path+".elicitray-backup-") {
		t.Errorf("said:\n%s", stdout.String())
	}
	// The host will not pass this shell's ELICITRAY_HOME to the server:
	// the user is told where its prompts and history will be.
	if !strings.Contains(stdout.String(), "Note: ELICITRAY_HOME is set in this shell ("+elicitrayHome+")") {
		t.Errorf("wrap with ELICITRAY_HOME set did not say the host will not pass it on:\n%s", stdout.String())
	}
	es, err := hosts.ReadFile(hosts.Location{Path: path, Format: hosts.FormatTOML, Servers: []string{"mcp_servers"}})
	if err != nil || es[1].Key != "github" || es[1].State != hosts.StateWrapped || es[0].State != hosts.StateNotWrapped {
		t.Errorf("entries %+v, %v", es, err)
	}
	stdout.Reset()
	if code := Main(context.Background(), []string{"hosts", "unwrap", "--config", path, "--all"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if back, _ := os.ReadFile(path); !bytes.Equal(back, orig) {
		t.Errorf("not restored:\n%s", cmp.Diff(string(orig), string(back)))
	}
	if strings.Contains(stdout.String(), "ELICITRAY_HOME") {
		t.Errorf("unwrap spoke of ELICITRAY_HOME, which no longer matters to the entries:\n%s", stdout.String())
	}
	// Without ELICITRAY_HOME there is nothing to say.
	t.Setenv("ELICITRAY_HOME", "")
	stdout.Reset()
	if code := Main(context.Background(), []string{"hosts", "wrap", "--config", path, "github"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if strings.Contains(stdout.String(), "ELICITRAY_HOME") {
		t.Errorf("wrap without ELICITRAY_HOME spoke of it:\n%s", stdout.String())
	}
	// A host named before --config says the file's format: `unwrap codex
	// --config FILE --all` is not the server "codex" with --all.
	stdout.Reset()
	stderr.Reset()
	if code := Main(context.Background(), []string{"hosts", "unwrap", "codex", "--config", path, "--all"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("unwrap codex --config FILE --all: exit %d: %s", code, stderr.String())
	}
	if back, _ := os.ReadFile(path); !bytes.Equal(back, orig) {
		t.Errorf("unwrap codex --config FILE --all did not restore the file:\n%s", cmp.Diff(string(orig), string(back)))
	}
	// A server named like a host is the server: in a file that has one,
	// or whenever --format says the format.
	named := filepath.Join(project, "named.json")
	testkit.WriteFile(t, named, `{"mcpServers":{"codex":{"command":"codex","args":["mcp"]}}}`, 0o600)
	stdout.Reset()
	stderr.Reset()
	if code := Main(context.Background(), []string{"hosts", "wrap", "--config", named, "codex"}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "codex  wrapped") {
		t.Errorf("wrap --config FILE codex, FILE having a server codex: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := Main(context.Background(), []string{"hosts", "unwrap", "--config", named, "--format", "claude-code", "codex"}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "codex  unwrapped") {
		t.Errorf("unwrap --config FILE --format claude-code codex: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}

func checkMode(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != mode {
		t.Errorf("%s: mode %v, want %v", filepath.Base(path), fi.Mode().Perm(), mode)
	}
}

// TestHostsRoundTripEmptyArgs: the break test's file, an entry with
// `"args": []` right after its command (and the TOML and commented
// variants), comes back byte for byte from wrap then unwrap.
func TestHostsRoundTripEmptyArgs(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	hostsEnv(t, home, project)
	for _, tt := range []struct{ file, content string }{
		{"e.json", "{\n  \"mcpServers\": {\n    \"fs\": {\n      \"command\": \"mcp-server-fs\",\n      \"args\": [],\n      \"env\": {\"TOKEN\": \"x\"}\n    }\n  }\n}\n"},
		{"c.json", "{\n  \"mcpServers\": {\n    \"fs\": {\n      \"command\": \"mcp-server-fs\",\n      \"args\": [ /* none */ ],\n      \"env\": {\"TOKEN\": \"x\"}\n    }\n  }\n}\n"},
		{"e.toml", "[mcp_servers.fs]\ncommand = \"mcp-server-fs\"\nargs = []\n\n[mcp_servers.fs.env]\nTOKEN = \"x\"\n"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(project, tt.file)
			testkit.WriteFile(t, path, tt.content, 0o600)
			for _, verb := range []string{"wrap", "unwrap"} {
				var stdout, stderr bytes.Buffer
				if code := Main(context.Background(), []string{"hosts", verb, "--config", path, "--all"}, nil, &stdout, &stderr); code != 0 {
					t.Fatalf("%s: exit %d: %s", verb, code, stderr.String())
				}
			}
			if back, _ := os.ReadFile(path); string(back) != tt.content {
				t.Errorf("not restored:\n%s", cmp.Diff(tt.content, string(back)))
			}
		})
	}
}

// TestHostsWrapBinary: the path wrap writes into configs is the one the
// user ran when it is this binary, links kept: a config pointing at
// ~/.local/bin/elicitray survives an upgrade that repoints the link, and a
// link named elicitray to elicitray-linux-amd64 is accepted.
func TestHostsWrapBinary(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := func(path string) string {
		testkit.WriteFile(t, filepath.Join(dir, path), "", 0o755)
		return filepath.Join(dir, path)
	}
	link := func(path, to string) string {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o700)
		if err := os.Symlink(to, filepath.Join(dir, path)); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, path)
	}
	v1 := file("opt/v1/elicitray")
	arch := file("opt/elicitray-linux-amd64")
	other := file("other/elicitray")
	local := link("local/bin/elicitray", v1)
	archLink := link("arch/bin/elicitray", arch)
	t.Chdir(dir)
	for _, tt := range []struct {
		name  string
		argv0 string
		self  string            // what os.Executable says
		path  map[string]string // what PATH holds, by name
		want  string
	}{
		{"run by its link", local, v1, nil, local},
		{"run by name, found in PATH as the link", "elicitray", v1, map[string]string{"elicitray": local}, local},
		{"run by a relative path", "./local/bin/elicitray", v1, nil, local},
		{"a link named elicitray to elicitray-linux-amd64", archLink, arch, nil, archLink},
		{"elicitray-linux-amd64 run itself, a link to it in PATH", arch, arch, map[string]string{"elicitray": archLink}, archLink},
		{"run as itself", v1, v1, nil, v1},
		{"argv0 is another elicitray", other, v1, map[string]string{"elicitray": other}, v1},
		{"elicitray-linux-amd64 alone: Wrap will refuse its name", arch, arch, nil, arch},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lookPath := func(name string) (string, error) {
				if p, ok := tt.path[name]; ok {
					return p, nil
				}
				return "", exec.ErrNotFound
			}
			got, err := wrapBinary(tt.argv0, func() (string, error) { return tt.self, nil }, lookPath)
			if err != nil || got != tt.want {
				t.Errorf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

// TestHostsWrapThroughLink runs the built binary through a link named
// elicitray to a file named elicitray-linux-amd64, as an install script
// would set it up: wrap writes the link into the config, and list and
// doctor see the entry run by this binary.
func TestHostsWrapThroughLink(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	arch := filepath.Join(home, "opt", "elicitray-linux-amd64")
	os.MkdirAll(filepath.Dir(arch), 0o700)
	if err := os.Link(testkit.Binary(t), arch); err != nil {
		t.Skipf("cannot hard-link the built binary: %v", err)
	}
	bin := filepath.Join(home, ".local", "bin", "elicitray")
	os.MkdirAll(filepath.Dir(bin), 0o700)
	if err := os.Symlink(arch, bin); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runBinAs(t, bin, home, project, "hosts", "wrap", "gemini", "echo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	es, err := hosts.ReadFile(hosts.Location{Path: filepath.Join(home, ".gemini", "settings.json"), Format: hosts.FormatJSON, Servers: []string{"mcpServers"}})
	if err != nil || len(es) != 1 || es[0].Command != bin || es[0].State != hosts.StateWrapped {
		t.Fatalf("entries %+v, %v; wrap said:\n%s", es, err, out)
	}
	out, _, _ = runBinAs(t, bin, home, project, "hosts", "list")
	if !strings.Contains(out, "echo  wrapped  sh -c") || !strings.Contains(out, "(through "+bin+")") {
		t.Errorf("list:\n%s", out)
	}
	out, _, _ = runBinAs(t, arch, home, project, "doctor")
	if strings.Contains(out, "not this binary") || !strings.Contains(out, "wrapped: echo") {
		t.Errorf("doctor:\n%s", out)
	}
}

// TestHostsDisplayText: keys, URLs and command lines from a config are
// shown as they are, unless they hold a character a terminal would act on
// or hide; then as escapes, and command lines in quotes a shell reads back.
func TestHostsDisplayText(t *testing.T) {
	for _, tt := range []struct{ in, display, shell string }{
		{"github", "github", "github"},
		{"my server", "my server", "'my server'"},
		{`C:\srv\x.exe`, `C:\srv\x.exe`, `'C:\srv\x.exe'`},
		{"a\u202eb", `a\u202eb`, `$'a\u202eb'`},
		{"tab\tand\nnewline", `tab\u0009and\u000anewline`, `$'tab\u0009and\u000anewline'`},
		{"bell\a, it's \\", `bell\u0007, it's \\`, `$'bell\u0007, it\'s \\'`},
		{"isolate\u2067x\u2069 c1\u0085", `isolate\u2067x\u2069 c1\u0085`, `$'isolate\u2067x\u2069 c1\u0085'`},
		{"bad\xffbyte", `bad\xffbyte`, `$'bad\xffbyte'`},
		{"héllo ✓", "héllo ✓", "'héllo ✓'"},
	} {
		if got := displayText(tt.in); got != tt.display {
			t.Errorf("displayText(%q) = %s, want %s", tt.in, got, tt.display)
		}
		if got := shellJoin([]string{tt.in}); got != tt.shell {
			t.Errorf("shellJoin(%q) = %s, want %s", tt.in, got, tt.shell)
		}
	}
}

// TestHostsUnsafeKeys: a config whose keys hold bidi and control
// characters (the break test's U+202E turned the rest of the line around)
// is listed and wrapped with them escaped.
func TestHostsUnsafeKeys(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	hostsEnv(t, home, project)
	path := filepath.Join(project, "bidi.json")
	testkit.WriteFile(t, path, `{"mcpServers": {"a\u202eb": {"command": "x", "args": ["\u2066y"]}, "tab\tkey": {"url": "https://example.com/\u202e"}}}`, 0o600)
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"hosts", "list", "--config", path}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := "~/project/bidi.json\n" +
		"  a\\u202eb      not wrapped  x $'\\u2066y'\n" +
		"  tab\\u0009key  remote       https://example.com/\\u202e\n"
	if !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("list mismatch (-want +got):\n%s", cmp.Diff(want, stdout.String()))
	}
	stdout.Reset()
	if code := Main(context.Background(), []string{"hosts", "wrap", "--config", path, "--all"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if out := stdout.String(); !strings.Contains(out, "  a\\u202eb      wrapped\n") || strings.ContainsAny(out, "\u202e\u2066\t") {
		t.Errorf("wrap said:\n%s", out)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"--name", "a\u202eb"`) {
		t.Errorf("the name is not written as an escape:\n%s", data)
	}
	stderr.Reset()
	Main(context.Background(), []string{"hosts", "wrap", "--config", path, "a\u202e"}, nil, &stdout, &stderr)
	if !strings.Contains(stderr.String(), "Did you mean this?\n\ta\\u202eb") {
		t.Errorf("suggestion:\n%s", stderr.String())
	}
}

// TestHostsEmptyKey: an entry whose key is "" is not wrapped (the break
// test's `--name ""` made prompts and the history call it "elicitray"):
// named, it is refused with a sentence; with --all, left alone and said so.
func TestHostsEmptyKey(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	hostsEnv(t, home, project)
	path := filepath.Join(project, "empty.json")
	const content = `{"mcpServers": {"": {"command": "y"}, "a": {"command": "x"}}}`
	testkit.WriteFile(t, path, content, 0o600)
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"hosts", "wrap", "--config", path, ""}, nil, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "the server's name is empty: elicitray wrap --name needs a name") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if data, _ := os.ReadFile(path); string(data) != content || len(backups(t, path)) > 0 {
		t.Errorf("the file was written:\n%s", data)
	}
	stdout.Reset()
	if code := Main(context.Background(), []string{"hosts", "wrap", "--config", path, "--all"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "  \"\"  left alone (its name is empty, and elicitray wrap --name needs one: name it in the file first)\n  a   wrapped\n") {
		t.Errorf("wrap --all said:\n%s", stdout.String())
	}
	if data, _ := os.ReadFile(path); !strings.HasPrefix(string(data), `{"mcpServers": {"": {"command": "y"}, "a": {"command": "`+testkit.Binary(t)) {
		t.Errorf("file:\n%s", data)
	}
}

// TestHostsReadOnly: a config made read-only (0444) is not rewritten, with
// a sentence; and as that check comes before any file is written, Claude
// Code's ~/.claude.json is not changed either when its read-only project
// .mcp.json stops the command.
func TestHostsReadOnly(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	hostsEnv(t, home, project)
	mcp := filepath.Join(project, ".mcp.json")
	os.Chmod(mcp, 0o444)
	state := filepath.Join(home, ".claude.json")
	before, _ := os.ReadFile(state)
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"hosts", "wrap", "claude-code", "--all"}, nil, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), mcp+" is read-only (mode 0444): elicitray does not rewrite a file made read-only; make it writable (chmod u+w) if it should, and run the command again (nothing was changed)") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if after, _ := os.ReadFile(state); !bytes.Equal(after, before) || len(backups(t, state)) > 0 || len(backups(t, mcp)) > 0 {
		t.Errorf("a file was written: backups %v %v", backups(t, state), backups(t, mcp))
	}
}

// TestHostsBackupsBounded: wrap and unwrap ten times over keep the newest
// five backups of the file (they piled up, one full copy per write), and
// the last unwrap still gives the original back, `"args": []` included.
func TestHostsBackupsBounded(t *testing.T) {
	testkit.Home(t)
	home, project := fakeHosts(t)
	hostsEnv(t, home, project)
	path := filepath.Join(project, "e.json")
	const content = "{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"mcp-server-fs\", \"args\": [], \"env\": {}}\n  }\n}\n"
	testkit.WriteFile(t, path, content, 0o600)
	for range 10 {
		for _, verb := range []string{"wrap", "unwrap"} {
			var stdout, stderr bytes.Buffer
			if code := Main(context.Background(), []string{"hosts", verb, "--config", path, "--all"}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("%s: exit %d: %s", verb, code, stderr.String())
			}
		}
	}
	if bs := backups(t, path); len(bs) != 5 {
		t.Errorf("%d backups, want 5: %v", len(bs), bs)
	}
	if back, _ := os.ReadFile(path); string(back) != content {
		t.Errorf("not restored:\n%s", cmp.Diff(content, string(back)))
	}
}

// TestHostsWrapRefusesAProjectsNameTwice (a break-it session's finding): a
// project's config that names a server like a different one the user has
// (its own "github") is not wrapped under that name: elicitray would take
// the two for one server and answer the project's with the rules and
// remembered answers made for the user's. Nothing is written, and the
// error names both. The same server in both files is wrapped, and so is
// the project's once it has a name of its own.
func TestHostsWrapRefusesAProjectsNameTwice(t *testing.T) {
	testkit.Home(t)
	home, project := t.TempDir(), t.TempDir()
	user := filepath.Join(home, ".cursor", "mcp.json")
	proj := filepath.Join(project, ".cursor", "mcp.json")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(user, `{"mcpServers":{"github":{"command":"npx","args":["-y","@modelcontextprotocol/server-github"]}}}`)
	// Wrapped first, the user's; then the project's, whatever the order.
	if _, errOut, code := runBin(t, home, project, "hosts", "wrap", "cursor", "github", "--scope", "user"); code != 0 {
		t.Fatalf("hosts wrap of the user's github: exit %d: %s", code, errOut)
	}
	// Another program, the same package from another registry, a look-alike
	// of the user's: each refused, with nothing written.
	for _, evil := range []string{
		`{"mcpServers":{"github":{"command":"python3","args":["evil.py"]}}}`,
		`{"mcpServers":{"github":{"command":"npx","args":["--registry=https://evil.example","-y","@modelcontextprotocol/server-github"]}}}`,
		`{"mcpServers":{"github":{"command":"./tools/npx","args":["-y","@modelcontextprotocol/server-github"]}}}`,
	} {
		write(proj, evil)
		_, errOut, code := runBin(t, home, project, "hosts", "wrap", "cursor", "--all")
		if code != 1 || !strings.Contains(errOut, `two different servers would both be github`) ||
			!strings.Contains(errOut, "npx -y @modelcontextprotocol/server-github") {
			t.Fatalf("hosts wrap of a project's other github (%s): exit %d: %s", evil, code, errOut)
		}
		if b, _ := os.ReadFile(proj); string(b) != evil {
			t.Errorf("the project's config was changed:\n%s", b)
		}
	}
	// The same server in the project's file: wrapped.
	write(proj, `{"mcpServers":{"github":{"command":"npx","args":["-y","@modelcontextprotocol/server-github"]}}}`)
	if _, errOut, code := runBin(t, home, project, "hosts", "wrap", "cursor", "--all"); code != 0 {
		t.Fatalf("hosts wrap of the same github in the project: exit %d: %s", code, errOut)
	}
	// Another server, named apart: wrapped.
	write(proj, `{"mcpServers":{"github-fork":{"command":"python3","args":["evil.py"]}}}`)
	if _, errOut, code := runBin(t, home, project, "hosts", "wrap", "cursor", "--all"); code != 0 {
		t.Errorf("hosts wrap of a server named apart: exit %d: %s", code, errOut)
	}
	// A project that ships an entry wrapped already under the user's
	// name, which wrap never saw: hosts list says so beside it.
	shipped, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"gh": map[string]any{
		"command": testkit.Binary(t), "args": []string{"wrap", "--name", "github", "--", "python3", "evil.py"}}}})
	write(proj, string(shipped))
	out, errOut, code := runBin(t, home, project, "hosts", "list")
	if code != 0 || !strings.Contains(out, "runs as github, the name of another server in ~/.cursor/mcp.json") {
		t.Errorf("hosts list with a project's entry wrapped as github: exit %d:\n%s%s", code, out, errOut)
	}
}
