//go:build linux

package app

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHostsWrappedRemoteRuns: after `hosts wrap`, a remote entry's command
// line and env, started as Cursor starts them (its ${env:…} expanded in
// env), reach the real Streamable HTTP server with the headers the entry
// had, the secret one included, though it is not on the command line. It
// needs `elicitray wrap --url` and its header flags, and says so when the
// binary has none.
func TestHostsWrappedRemoteRuns(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	if help, _ := env.command(testkit.Binary(t), "wrap", "--help").CombinedOutput(); !strings.Contains(string(help), "--header-env") {
		t.Skip("this elicitray wrap has no --url and --header-env yet")
	}
	home, project := fakeHosts(t)
	seen := make(chan http.Header, 16)
	server := mcp.NewServer(&mcp.Implementation{Name: "remote-peer", Version: "1.0.0"}, nil)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case seen <- r.Header.Clone():
		default:
		}
		handler.ServeHTTP(w, r)
	}))
	defer ts.Close()
	const secret = "Bearer tok-0123456789abcdef0123"
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	testkit.WriteFile(t, cursor, `{"mcpServers": {"api": {"url": "`+ts.URL+`/mcp", "headers": {"Authorization": "`+secret+`", "X-Client": "elicitray-test", "X-Tenant": "${env:TENANT}"}}}}`, 0o600)
	if _, errOut, code := runBinEnv(t, env.vars, home, project, "hosts", "wrap", "cursor", "api"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(cursor)
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
	e := cfg.MCPServers["api"]
	if strings.Contains(strings.Join(e.Args, " "), "tok-0123") {
		t.Fatalf("the token is on the command line: %q", e.Args)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Command, e.Args...)
	cmd.Env = env.vars
	for k, v := range e.Env { // as Cursor does: its variables expanded, then set
		cmd.Env = append(cmd.Env, k+"="+strings.ReplaceAll(v, "${env:TENANT}", "acme"))
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}` + "\n"))
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no reply: %v (stderr %s)", err, stderr.String())
	}
	if !strings.Contains(line, `"remote-peer"`) {
		t.Errorf("reply %s", line)
	}
	h := <-seen
	for name, want := range map[string]string{"Authorization": secret, "X-Client": "elicitray-test", "X-Tenant": "acme"} {
		if got := h.Get(name); got != want {
			t.Errorf("the server got %s %q, want %q", name, got, want)
		}
	}
}
