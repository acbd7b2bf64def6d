package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// Format is the syntax of a config file.
type Format string

// The formats.
const (
	FormatJSON Format = "json" // JSON, or JSON with comments and trailing commas
	FormatTOML Format = "toml"
)

// Location is one config file of one host and scope, and where in it the
// server entries are.
type Location struct {
	Host  string `json:"host"`  // the name commands take: "cursor", "claude-code"
	Title string `json:"title"` // what people call it: "Cursor", "Claude Code"
	// Scope is "user" (every project), "local" (Claude Code: one project,
	// kept in ~/.claude.json), "project" (a file in the project, shared
	// with it) or "workspace" (VS Code's name for project); "" for a file
	// given with --config.
	Scope  string `json:"scope,omitempty"`
	Path   string `json:"path"`
	Format Format `json:"format"`
	// Servers is the path of keys from the top of the file to the table of
	// server entries: ["mcpServers"], ["projects", "/home/me/p", "mcpServers"].
	Servers []string `json:"servers"`
	// As, for a file given with --config --format HOST, is HOST: the file
	// is that host's, and its entries are read and written in that host's
	// forms (remote members, variable references such as Cursor's
	// ${env:VAR}, which become --bearer-env VAR). "" is Host's own.
	As string `json:"as,omitempty"`
}

// dialect is the host whose forms the file at l uses: As, else Host.
func (l Location) dialect() string {
	if l.As != "" {
		return l.As
	}
	return l.Host
}

// Env is what decides where hosts keep their configs: the user's
// directories and variables, the project, the OS. EnvFromOS fills it for the
// running process; tests fill it themselves.
type Env struct {
	Home string // the user's home directory; required
	// ConfigHome is $XDG_CONFIG_HOME (Linux); "" means Home/.config.
	ConfigHome string
	// AppData is %APPDATA% (Windows); "" means Home\AppData\Roaming.
	AppData string
	// CodexHome is $CODEX_HOME; "" means Home/.codex.
	CodexHome string
	// ClaudeConfigDir is $CLAUDE_CONFIG_DIR, where Claude Code then keeps
	// .claude.json; "" means Home.
	ClaudeConfigDir string
	// Project is the absolute project (workspace) directory whose project
	// and local scopes are reported; "" reports user scopes only.
	Project string
	// GOOS is "linux", "darwin" or "windows"; "" means runtime.GOOS.
	GOOS string
}

// ClaudeProjects are the project directories Claude Code keeps servers
// for in its .claude.json (its local scopes), as the file writes them and
// in its order, those whose entry mentions the text mentioning (any case;
// "" for all); none when there is no such file or it does not read.
func ClaudeProjects(e Env, mentioning string) []string {
	data, err := ReadConfig(filepath.Join(orDefault(e.ClaudeConfigDir, e.Home), ".claude.json"))
	if err != nil {
		return nil
	}
	var state struct {
		Projects json.RawMessage `json:"projects"`
	}
	if json.Unmarshal(data, &state) != nil || len(state.Projects) == 0 {
		return nil
	}
	// The keys in the file's order: a map would lose it.
	dec := json.NewDecoder(bytes.NewReader(state.Projects))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var dirs []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return dirs
		}
		var entry json.RawMessage
		if dec.Decode(&entry) != nil {
			return dirs
		}
		dir, ok := tok.(string)
		if ok && filepath.IsAbs(dir) && bytes.Contains(bytes.ToLower(entry), []byte(strings.ToLower(mentioning))) {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// EnvFromOS returns the Env of the running process, with project (made
// absolute, symbolic links resolved; "" for none) as the project directory.
func EnvFromOS(project string) (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, err
	}
	if project != "" {
		if project, err = filepath.Abs(project); err != nil {
			return Env{}, err
		}
		// Claude Code keys projects by the physical directory (getcwd),
		// not by a path through a symbolic link.
		if real, err := filepath.EvalSymlinks(project); err == nil {
			project = real
		}
	}
	return Env{
		Home:            home,
		ConfigHome:      os.Getenv("XDG_CONFIG_HOME"),
		AppData:         os.Getenv("APPDATA"),
		CodexHome:       os.Getenv("CODEX_HOME"),
		ClaudeConfigDir: os.Getenv("CLAUDE_CONFIG_DIR"),
		Project:         project,
		GOOS:            runtime.GOOS,
	}, nil
}

func (e Env) goos() string {
	if e.GOOS == "" {
		return runtime.GOOS
	}
	return e.GOOS
}

// appConfig is the directory desktop (Electron) apps keep their settings in:
// $XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support on
// macOS, %APPDATA% on Windows.
func (e Env) appConfig() string {
	switch e.goos() {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support")
	case "windows":
		if e.AppData != "" {
			return e.AppData
		}
		return filepath.Join(e.Home, "AppData", "Roaming")
	}
	return e.xdgConfig()
}

// xdgConfig is $XDG_CONFIG_HOME, else ~/.config. Only XDG base directories
// that are absolute count (the XDG spec says to ignore relative ones).
func (e Env) xdgConfig() string {
	if filepath.IsAbs(e.ConfigHome) {
		return e.ConfigHome
	}
	return filepath.Join(e.Home, ".config")
}

func orDefault(dir, def string) string {
	if dir != "" {
		return dir
	}
	return def
}

// Host is one MCP host elicitray knows.
type Host struct {
	Name  string // what commands take: "claude-desktop"
	Title string // "Claude Desktop"
	// dir is the host's own directory: when it exists the host counts as
	// installed even before it has a config file.
	dir func(Env) string
	// locations are its config files, user scope first.
	locations func(Env) []Location
}

var (
	mcpServers = []string{"mcpServers"}
	vscodeKey  = []string{"servers"}
	zedKey     = []string{"context_servers"}
	codexKey   = []string{"mcp_servers"}
)

// known is every host, in the order `hosts list` shows them.
var known = []Host{
	{
		Name: "claude-desktop", Title: "Claude Desktop",
		dir: func(e Env) string { return filepath.Join(e.appConfig(), "Claude") },
		locations: func(e Env) []Location {
			return []Location{{Scope: "user", Path: filepath.Join(e.appConfig(), "Claude", "claude_desktop_config.json"), Format: FormatJSON, Servers: mcpServers}}
		},
	},
	{
		// User scope: ~/.claude.json's top-level mcpServers; local scope:
		// its projects["/abs/dir"].mcpServers; project scope: .mcp.json.
		Name: "claude-code", Title: "Claude Code",
		dir: func(e Env) string { return orDefault(e.ClaudeConfigDir, filepath.Join(e.Home, ".claude")) },
		locations: func(e Env) []Location {
			state := filepath.Join(orDefault(e.ClaudeConfigDir, e.Home), ".claude.json")
			ls := []Location{{Scope: "user", Path: state, Format: FormatJSON, Servers: mcpServers}}
			if e.Project != "" {
				ls = append(ls,
					Location{Scope: "local", Path: state, Format: FormatJSON, Servers: []string{"projects", e.Project, "mcpServers"}},
					Location{Scope: "project", Path: filepath.Join(e.Project, ".mcp.json"), Format: FormatJSON, Servers: mcpServers})
			}
			return ls
		},
	},
	{
		// VS Code's mcp.json: servers (and inputs, left alone).
		Name: "vscode", Title: "VS Code",
		dir: func(e Env) string { return filepath.Join(e.appConfig(), "Code", "User") },
		locations: func(e Env) []Location {
			ls := []Location{{Scope: "user", Path: filepath.Join(e.appConfig(), "Code", "User", "mcp.json"), Format: FormatJSON, Servers: vscodeKey}}
			if e.Project != "" {
				ls = append(ls, Location{Scope: "workspace", Path: filepath.Join(e.Project, ".vscode", "mcp.json"), Format: FormatJSON, Servers: vscodeKey})
			}
			return ls
		},
	},
	{
		Name: "cursor", Title: "Cursor",
		dir: func(e Env) string { return filepath.Join(e.Home, ".cursor") },
		locations: func(e Env) []Location {
			ls := []Location{{Scope: "user", Path: filepath.Join(e.Home, ".cursor", "mcp.json"), Format: FormatJSON, Servers: mcpServers}}
			if e.Project != "" {
				ls = append(ls, Location{Scope: "project", Path: filepath.Join(e.Project, ".cursor", "mcp.json"), Format: FormatJSON, Servers: mcpServers})
			}
			return ls
		},
	},
	{
		// Windsurf's remote entries use serverUrl.
		Name: "windsurf", Title: "Windsurf",
		dir: func(e Env) string { return filepath.Join(e.Home, ".codeium", "windsurf") },
		locations: func(e Env) []Location {
			return []Location{{Scope: "user", Path: filepath.Join(e.Home, ".codeium", "windsurf", "mcp_config.json"), Format: FormatJSON, Servers: mcpServers}}
		},
	},
	{
		// Zed's settings.json (JSON with comments): context_servers. Zed
		// uses ~/.config/zed on macOS too.
		Name: "zed", Title: "Zed",
		dir: func(e Env) string { return zedDir(e) },
		locations: func(e Env) []Location {
			return []Location{{Scope: "user", Path: filepath.Join(zedDir(e), "settings.json"), Format: FormatJSON, Servers: zedKey}}
		},
	},
	{
		Name: "codex", Title: "Codex CLI",
		dir: func(e Env) string { return orDefault(e.CodexHome, filepath.Join(e.Home, ".codex")) },
		locations: func(e Env) []Location {
			dir := orDefault(e.CodexHome, filepath.Join(e.Home, ".codex"))
			return []Location{{Scope: "user", Path: filepath.Join(dir, "config.toml"), Format: FormatTOML, Servers: codexKey}}
		},
	},
	{
		// Gemini CLI: remote entries use url (SSE) or httpUrl.
		Name: "gemini", Title: "Gemini CLI",
		dir: func(e Env) string { return filepath.Join(e.Home, ".gemini") },
		locations: func(e Env) []Location {
			ls := []Location{{Scope: "user", Path: filepath.Join(e.Home, ".gemini", "settings.json"), Format: FormatJSON, Servers: mcpServers}}
			if e.Project != "" {
				ls = append(ls, Location{Scope: "project", Path: filepath.Join(e.Project, ".gemini", "settings.json"), Format: FormatJSON, Servers: mcpServers})
			}
			return ls
		},
	},
}

func zedDir(e Env) string {
	switch e.goos() {
	case "windows":
		return filepath.Join(e.appConfig(), "Zed")
	case "darwin":
		return filepath.Join(e.Home, ".config", "zed")
	}
	return filepath.Join(e.xdgConfig(), "zed")
}

// Hosts returns every host elicitray knows, in the order `hosts list` shows
// them.
func Hosts() []Host { return append([]Host(nil), known...) }

// Lookup returns the host named name ("cursor", case ignored), or false.
func Lookup(name string) (Host, bool) {
	for _, h := range known {
		if strings.EqualFold(h.Name, name) {
			return h, true
		}
	}
	return Host{}, false
}

// Locations returns the host's config files under env, user scope first;
// project scopes only when env.Project is set.
func (h Host) Locations(env Env) []Location {
	ls := h.locations(env)
	for i := range ls {
		ls[i].Host, ls[i].Title = h.Name, h.Title
	}
	return ls
}

// Installed reports whether the host's own directory or one of its config
// files (a project's included) exists.
func (h Host) Installed(env Env) bool {
	if exists(h.dir(env)) {
		return true
	}
	return slices.ContainsFunc(h.Locations(env), func(l Location) bool { return exists(l.Path) })
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// HostReport is what Survey found in one config file of one host.
type HostReport struct {
	Location
	// Installed: the host's own directory, or one of its config files,
	// exists.
	Installed bool `json:"installed"`
	// Exists: the config file exists.
	Exists bool `json:"exists"`
	// Err is why the file could not be read or parsed (Entries is then
	// empty): a syntax error says path:line:column.
	Err error `json:"-"`
	// Entries are the file's server entries, in file order.
	Entries []Entry `json:"entries"`
}

// Survey reports every config file of every known host under env, in the
// order of Hosts, installed or not: one report per Location (project scopes
// only when env.Project is set). It reads files and stats wrapped entries'
// binaries, and never writes. `elicitray doctor` calls it:
//
//	env, _ := hosts.EnvFromOS(".")
//	for _, r := range hosts.Survey(env) {
//		if r.Installed && r.Exists { … r.Entries … }
//	}
func Survey(env Env) []HostReport {
	var out []HostReport
	for _, h := range known {
		installed := h.Installed(env)
		for _, l := range h.Locations(env) {
			out = append(out, Report(l, installed))
		}
	}
	return out
}

// Report reads one location into a HostReport; installed is copied into it.
func Report(l Location, installed bool) HostReport {
	r := HostReport{Location: l, Installed: installed}
	data, err := ReadConfig(l.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return r
	case err != nil:
		r.Exists, r.Err = true, err
		return r
	}
	r.Exists = true
	r.Entries, r.Err = Read(data, l)
	return r
}

// ForFile returns the Location of a config file named directly (--config).
// format is a host name ("zed", "codex"…) saying whose shape the file has;
// with "" it is guessed: TOML by the .toml name or an mcp_servers table,
// JSON by which of context_servers (Zed), mcpServers or servers (VS Code)
// the top level holds.
func ForFile(path string, data []byte, format string) (Location, error) {
	loc := Location{Host: "file", Title: path, Path: path}
	if format != "" {
		h, ok := Lookup(format)
		if !ok {
			return loc, fmt.Errorf("--format %q is not a host elicitray knows (%s)", format, strings.Join(Names(), ", "))
		}
		l := h.locations(Env{Home: "/"})[0]
		loc.Format, loc.Servers, loc.As = l.Format, l.Servers, h.Name
		return loc, nil
	}
	if strings.EqualFold(filepath.Ext(path), ".toml") {
		loc.Format, loc.Servers = FormatTOML, codexKey
		return loc, nil
	}
	if v, err := parseJSONC(data); err == nil {
		if obj, ok := v.Value.(*hujson.Object); ok {
			for _, key := range [][]string{zedKey, mcpServers, vscodeKey} {
				if member(obj, key[0]) != nil {
					loc.Format, loc.Servers = FormatJSON, key
					return loc, nil
				}
			}
		}
	} else if ents, err := (tomlSyntax{}).entries(data, codexKey); err == nil && len(ents) > 0 {
		loc.Format, loc.Servers = FormatTOML, codexKey
		return loc, nil
	} else if strings.EqualFold(filepath.Ext(path), ".json") || len(strings.TrimSpace(string(data))) > 0 && strings.TrimSpace(string(data))[0] == '{' {
		loc.Format, loc.Servers = FormatJSON, mcpServers
		return loc, nil // let Read report the syntax error with its position
	}
	return loc, fmt.Errorf("cannot tell which host's config %s is (no mcpServers, servers, context_servers or mcp_servers in it): say it with --format HOST", path)
}

// Names returns the names of the known hosts.
func Names() []string {
	names := make([]string, len(known))
	for i, h := range known {
		names[i] = h.Name
	}
	return names
}
