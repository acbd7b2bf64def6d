package hosts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"github.com/tailscale/hujson"
)

// TestHostsWrappedEntries reads each golden pair with decoders that know
// nothing of the splices (encoding/json after hujson.Standardize, and
// BurntSushi/toml) and checks what a host would run: every entry that had a
// command now has command = the binary and args = [wrap --name KEY --
// COMMAND ARGS…], and with that undone the whole document (env, cwd, every
// other key and entry) equals the original.
func TestHostsWrappedEntries(t *testing.T) {
	for _, tt := range []struct {
		file    string
		servers [][]string
	}{
		{"claude-desktop/claude_desktop_config.json", [][]string{mcpServers}},
		{"claude-code/claude.json", [][]string{mcpServers, {"projects", "/home/me/project", "mcpServers"}}},
		{"claude-code/mcp.json", [][]string{mcpServers}},
		{"vscode/mcp.json", [][]string{vscodeKey}},
		{"cursor/mcp.json", [][]string{mcpServers}},
		{"windsurf/mcp_config.json", [][]string{mcpServers}},
		{"zed/settings.json", [][]string{zedKey}},
		{"codex/config.toml", [][]string{codexKey}},
		{"codex/inline.toml", [][]string{codexKey}},
		{"codex/crlf.toml", [][]string{codexKey}},
		{"gemini/settings.json", [][]string{mcpServers}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(goldenDir, tt.file)
			orig := decodeFile(t, path)
			wrapped := decodeFile(t, path+".wrapped")
			n := 0
			for _, servers := range tt.servers {
				origTable, wrappedTable := table(t, orig, servers), table(t, wrapped, servers)
				for key, v := range wrappedTable {
					entry, ok := v.(map[string]any)
					if !ok {
						continue
					}
					holder, cmdKey := entry, "command"
					if inner, ok := entry["command"].(map[string]any); ok {
						holder, cmdKey = inner, "path" // Zed's older form
					}
					if holder[cmdKey] != goldenBin {
						continue
					}
					n++
					args, _ := holder["args"].([]any)
					if len(args) < 5 {
						t.Fatalf("%s: args %v", key, args)
					}
					if diff := cmp.Diff([]any{"wrap", "--name", key, "--"}, args[:4]); diff != "" {
						t.Errorf("%s: args mismatch (-want +got):\n%s", key, diff)
					}
					// Undo it as a host would see it undone.
					holder[cmdKey] = args[4]
					origHolder := origTable[key].(map[string]any)
					if inner, ok := origHolder["command"].(map[string]any); ok {
						origHolder = inner
					}
					if _, had := origHolder["args"]; had {
						holder["args"] = args[5:]
					} else {
						delete(holder, "args")
					}
				}
			}
			if n == 0 {
				t.Fatal("no wrapped entry in the golden")
			}
			if diff := cmp.Diff(orig, wrapped); diff != "" {
				t.Errorf("with wrap undone, the documents differ (-original +wrapped):\n%s", diff)
			}
		})
	}
}

func decodeFile(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if strings.Contains(filepath.Base(path), ".toml") { // config.toml and config.toml.wrapped
		if _, err := toml.Decode(string(data), &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return doc
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := json.Unmarshal(std, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

func table(t *testing.T, doc map[string]any, path []string) map[string]any {
	t.Helper()
	var v any = doc
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("no %v", path)
		}
		v = m[k]
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%v is not a table", path)
	}
	return m
}
