package hosts

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConfigFormatBearerEnv: a file given with --config --format HOST is
// wrapped in HOST's forms: an Authorization header of `Bearer ` and one of
// HOST's variable references becomes --bearer-env VAR, with the reference
// in the entry's env, as docs/hosts.md's remote example promises, not
// --header-env Authorization=ELICITRAY_HEADER_AUTHORIZATION.
func TestConfigFormatBearerEnv(t *testing.T) {
	const bin = `"command": "/opt/elicitray/bin/elicitray", "args": ["wrap", "--name", "github", "--url", "https://api.githubcopilot.com/mcp/", "--bearer-env", "GH_TOKEN"]`
	for _, tt := range []struct {
		format, file, want string
	}{
		{"cursor",
			`{"mcpServers": {"github": {"url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${env:GH_TOKEN}"}}}}`,
			`{"mcpServers": {"github": {` + bin + `, "env": {"GH_TOKEN": "${env:GH_TOKEN}"}}}}`},
		{"vscode",
			`{"servers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${env:GH_TOKEN}"}}}}`,
			`{"servers": {"github": {"type": "stdio", ` + bin + `, "env": {"GH_TOKEN": "${env:GH_TOKEN}"}}}}`},
		{"windsurf",
			`{"mcpServers": {"github": {"serverUrl": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${env:GH_TOKEN}"}}}}`,
			`{"mcpServers": {"github": {` + bin + `, "env": {"GH_TOKEN": "${env:GH_TOKEN}"}}}}`},
		{"claude-code",
			`{"mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${GH_TOKEN}"}}}}`,
			`{"mcpServers": {"github": {"type": "stdio", ` + bin + `, "env": {"GH_TOKEN": "${GH_TOKEN}"}}}}`},
		{"gemini",
			`{"mcpServers": {"github": {"httpUrl": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer $GH_TOKEN"}}}}`,
			`{"mcpServers": {"github": {` + bin + `, "env": {"GH_TOKEN": "$GH_TOKEN"}}}}`},
		{"gemini",
			`{"mcpServers": {"github": {"httpUrl": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${GH_TOKEN}"}}}}`,
			`{"mcpServers": {"github": {` + bin + `, "env": {"GH_TOKEN": "${GH_TOKEN}"}}}}`},
		{"codex",
			"[mcp_servers.github]\nurl = \"https://api.githubcopilot.com/mcp/\"\nbearer_token_env_var = \"GH_TOKEN\"\n",
			"[mcp_servers.github]\ncommand = \"/opt/elicitray/bin/elicitray\"\nargs = [\"wrap\", \"--name\", \"github\", \"--url\", \"https://api.githubcopilot.com/mcp/\", \"--bearer-env\", \"GH_TOKEN\"]\nenv_vars = [\"GH_TOKEN\"]\n"},
	} {
		t.Run(tt.format, func(t *testing.T) {
			loc, err := ForFile("/home/me/mcp-config", []byte(tt.file), tt.format)
			if err != nil {
				t.Fatal(err)
			}
			got, changes, err := Wrap([]byte(tt.file), loc, nil, goldenBin)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("hosts wrap --config FILE --format %s mismatch (-want +got):\n%s", tt.format, diff)
			}
			if len(changes) != 1 || changes[0].Outcome != Wrapped {
				t.Errorf("changes %+v, want github wrapped", changes)
			}
		})
	}
}

// TestConfigFormatGolden: each host's golden config, given with --config
// and --format HOST, wraps to the same bytes as found in its own place.
func TestConfigFormatGolden(t *testing.T) {
	for _, tt := range []struct{ file, host, scope string }{
		{"claude-desktop/claude_desktop_config.json", "claude-desktop", "user"},
		{"claude-code/mcp.json", "claude-code", "project"},
		{"vscode/mcp.json", "vscode", "user"},
		{"cursor/mcp.json", "cursor", "user"},
		{"windsurf/mcp_config.json", "windsurf", "user"},
		{"zed/settings.json", "zed", "user"},
		{"codex/config.toml", "codex", "user"},
		{"gemini/settings.json", "gemini", "user"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(goldenDir, tt.file)
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(path + ".wrapped")
			if err != nil {
				t.Fatal(err)
			}
			loc, err := ForFile(path, orig, tt.host)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := Wrap(orig, loc, nil, goldenBin)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("wrapped with --config --format %s mismatch (-want +got):\n%s", tt.host, diff)
			}
		})
	}
}
