package hosts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
// other key and entry) equals the original. A remote entry runs `wrap
// --name KEY --url URL …`, whose flags and env send the URL and headers
// the host sent (no secret value on the command line), and keeps its other
// keys.
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
					if args[3] == "--url" {
						// A remote entry: what the wrapper will send is
						// what the host sent.
						origEntry := origTable[key].(map[string]any)
						wrappedTable[key], origTable[key] = sentByWrapper(t, entry), sentByHost(origEntry)
						for _, a := range args {
							for name, v := range origTable[key].(map[string]any)["headers"].(map[string]any) {
								if secretHeader(name, v.(string)) && strings.Contains(a.(string), v.(string)) {
									t.Errorf("%s: the value of %s is on the command line: %q", key, name, a)
								}
							}
						}
						continue
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

// The members that make an entry remote (any host) or wrapped.
var remoteOrWrapped = []string{"type", "url", "serverUrl", "httpUrl", "headers", "bearer_token_env_var", "http_headers", "env_http_headers", "command", "args", "env", "env_vars"}

// sentByHost is what a host connects with for a remote entry: its URL,
// the headers with their values as configured ($VAR for Codex's variables),
// and its other members.
func sentByHost(e map[string]any) map[string]any {
	out := map[string]any{}
	hs := map[string]any{}
	for k, v := range e {
		switch k {
		case "url", "serverUrl", "httpUrl":
			out["url"] = v
		case "headers", "http_headers":
			for n, hv := range v.(map[string]any) {
				hs[n] = hv
			}
		case "env_http_headers":
			for n, hv := range v.(map[string]any) {
				hs[n] = "$" + hv.(string)
			}
		case "bearer_token_env_var":
			hs["Authorization"] = "Bearer $" + v.(string)
		}
	}
	others(out, e)
	out["headers"] = hs
	return out
}

// sentByWrapper is what `elicitray wrap --url` connects with for an entry:
// the URL, the headers of its flags with values from the entry's env (or,
// passed through from the host, $VAR), and its other members.
func sentByWrapper(t *testing.T, e map[string]any) map[string]any {
	t.Helper()
	env, _ := e["env"].(map[string]any)
	fromEnv := func(v string) string {
		if s, ok := env[v]; ok {
			return s.(string)
		}
		if passed, _ := e["env_vars"].([]any); slices.Contains(passed, any(v)) {
			return "$" + v
		}
		t.Errorf("$%s reaches the wrapper from nowhere: env %v, env_vars %v", v, env, e["env_vars"])
		return ""
	}
	out := map[string]any{}
	hs := map[string]any{}
	args := e["args"].([]any)
	for i := 3; i+1 < len(args); i += 2 {
		flag, v := args[i].(string), args[i+1].(string)
		switch flag {
		case "--url":
			out["url"] = v
		case "--header":
			n, hv, _ := strings.Cut(v, ": ")
			hs[n] = hv
		case "--header-env":
			n, name, _ := strings.Cut(v, "=")
			hs[n] = fromEnv(name)
		case "--bearer-env":
			hs["Authorization"] = "Bearer " + fromEnv(v)
		default:
			t.Errorf("unknown flag %s in %v", flag, args)
		}
	}
	others(out, e)
	out["headers"] = hs
	return out
}

func others(out, e map[string]any) {
	for k, v := range e {
		if !slices.Contains(remoteOrWrapped, k) {
			out[k] = v
		}
	}
}
