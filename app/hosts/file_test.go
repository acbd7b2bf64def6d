package hosts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/elicitray/elicitray/app/platform"
	"github.com/google/go-cmp/cmp"
)

var when = time.Date(2026, 12, 1, 9, 30, 0, 0, time.Local)

// TestHostsWriteFile: the new file keeps the old one's mode, a 0600 backup
// of the old contents sits beside it, and two writes in one second get two
// backups.
func TestHostsWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o640) // whatever the umask
	backup, err := WriteFile(path, []byte("old"), []byte("new"), when)
	if err != nil {
		t.Fatal(err)
	}
	if want := path + ".elicitray-backup-20261201-093000"; backup != want {
		t.Errorf("backup %s, want %s", backup, want)
	}
	checkFile(t, path, "new", 0o640)
	checkFile(t, backup, "old", 0o600)

	second, err := WriteFile(path, []byte("new"), []byte("newer"), when)
	if err != nil {
		t.Fatal(err)
	}
	if second == backup {
		t.Error("the second backup overwrote the first")
	}
	checkFile(t, second, "new", 0o600)
	checkFile(t, backup, "old", 0o600)
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".mcp.json.elicitray-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestHostsWriteFileRefuses: a changed file, and a symbolic link someone
// else owns, are not written (and the link's target is untouched); a link of
// the user's own is written through and stays a link.
func TestHostsWriteFileRefuses(t *testing.T) {
	t.Run("changed meanwhile", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "mcp.json")
		os.WriteFile(path, []byte("rewritten by the host"), 0o600)
		_, err := WriteFile(path, []byte("old"), []byte("new"), when)
		if !errors.Is(err, ErrChanged) {
			t.Fatalf("error %v, want ErrChanged", err)
		}
		checkFile(t, path, "rewritten by the host", 0o600)
	})
	t.Run("own symlink", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "dotfiles", "mcp.json")
		os.Mkdir(filepath.Dir(target), 0o700)
		os.WriteFile(target, []byte("old"), 0o600)
		link := filepath.Join(dir, "mcp.json")
		if platform.UnderWine() {
			t.Skip("Wine 8 makes os.Symlink a Unix symbolic link, which Go's Windows build cannot read back as one")
		}
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		backup, err := WriteFile(link, []byte("old"), []byte("new"), when)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v %v", fi, err)
		}
		checkFile(t, target, "new", 0o600)
		if filepath.Dir(backup) != dir {
			t.Errorf("backup %s is not beside %s", backup, link)
		}
	})
	t.Run("someone else's symlink", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("making a link owned by another user needs root")
		}
		dir := t.TempDir()
		target := filepath.Join(dir, "elsewhere")
		os.WriteFile(target, []byte("old"), 0o600)
		link := filepath.Join(dir, "mcp.json")
		os.Symlink(target, link)
		if err := os.Lchown(link, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		_, err := WriteFile(link, []byte("old"), []byte("new"), when)
		if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), "owned by user 4242") {
			t.Fatalf("error %v, want ErrSymlink naming the owner", err)
		}
		checkFile(t, target, "old", 0o600)
		if backups, _ := filepath.Glob(link + ".elicitray-backup-*"); len(backups) > 0 {
			t.Errorf("a backup was made: %v", backups)
		}
	})
}

func checkFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Windows keeps no modes: there the directory's access list keeps a
	// backup private.
	if runtime.GOOS != "windows" && fi.Mode().Perm() != mode {
		t.Errorf("%s: mode %v, want %v", filepath.Base(path), fi.Mode().Perm(), mode)
	}
	if got, _ := os.ReadFile(path); string(got) != content {
		t.Errorf("%s holds %q, want %q", filepath.Base(path), got, content)
	}
}

// TestHostsPaths: where each host's config is on each OS, and the
// variables that move them.
func TestHostsPaths(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  Env
		want map[string]string
	}{
		{
			name: "linux",
			env:  Env{Home: "/home/me", Project: "/home/me/p", GOOS: "linux"},
			want: map[string]string{
				"claude-desktop/user": "/home/me/.config/Claude/claude_desktop_config.json",
				"claude-code/user":    "/home/me/.claude.json",
				"claude-code/local":   "/home/me/.claude.json",
				"claude-code/project": "/home/me/p/.mcp.json",
				"vscode/user":         "/home/me/.config/Code/User/mcp.json",
				"vscode/workspace":    "/home/me/p/.vscode/mcp.json",
				"cursor/user":         "/home/me/.cursor/mcp.json",
				"cursor/project":      "/home/me/p/.cursor/mcp.json",
				"windsurf/user":       "/home/me/.codeium/windsurf/mcp_config.json",
				"zed/user":            "/home/me/.config/zed/settings.json",
				"codex/user":          "/home/me/.codex/config.toml",
				"gemini/user":         "/home/me/.gemini/settings.json",
				"gemini/project":      "/home/me/p/.gemini/settings.json",
			},
		},
		{
			name: "linux with XDG_CONFIG_HOME, CODEX_HOME, CLAUDE_CONFIG_DIR",
			env:  Env{Home: "/home/me", ConfigHome: "/cfg", CodexHome: "/codex", ClaudeConfigDir: "/claude", GOOS: "linux"},
			want: map[string]string{
				"claude-desktop/user": "/cfg/Claude/claude_desktop_config.json",
				"claude-code/user":    "/claude/.claude.json",
				"vscode/user":         "/cfg/Code/User/mcp.json",
				"cursor/user":         "/home/me/.cursor/mcp.json",
				"windsurf/user":       "/home/me/.codeium/windsurf/mcp_config.json",
				"zed/user":            "/cfg/zed/settings.json",
				"codex/user":          "/codex/config.toml",
				"gemini/user":         "/home/me/.gemini/settings.json",
			},
		},
		{
			name: "a relative XDG_CONFIG_HOME is ignored",
			env:  Env{Home: "/home/me", ConfigHome: "cfg", GOOS: "linux"},
			want: map[string]string{
				"claude-desktop/user": "/home/me/.config/Claude/claude_desktop_config.json",
				"claude-code/user":    "/home/me/.claude.json",
				"vscode/user":         "/home/me/.config/Code/User/mcp.json",
				"cursor/user":         "/home/me/.cursor/mcp.json",
				"windsurf/user":       "/home/me/.codeium/windsurf/mcp_config.json",
				"zed/user":            "/home/me/.config/zed/settings.json",
				"codex/user":          "/home/me/.codex/config.toml",
				"gemini/user":         "/home/me/.gemini/settings.json",
			},
		},
		{
			name: "macOS",
			env:  Env{Home: "/Users/me", ConfigHome: "/ignored", GOOS: "darwin"},
			want: map[string]string{
				"claude-desktop/user": "/Users/me/Library/Application Support/Claude/claude_desktop_config.json",
				"claude-code/user":    "/Users/me/.claude.json",
				"vscode/user":         "/Users/me/Library/Application Support/Code/User/mcp.json",
				"cursor/user":         "/Users/me/.cursor/mcp.json",
				"windsurf/user":       "/Users/me/.codeium/windsurf/mcp_config.json",
				"zed/user":            "/Users/me/.config/zed/settings.json",
				"codex/user":          "/Users/me/.codex/config.toml",
				"gemini/user":         "/Users/me/.gemini/settings.json",
			},
		},
		{
			name: "Windows",
			env:  Env{Home: "/Users/me", AppData: "/Users/me/AppData/Roaming", GOOS: "windows"},
			want: map[string]string{
				"claude-desktop/user": "/Users/me/AppData/Roaming/Claude/claude_desktop_config.json",
				"claude-code/user":    "/Users/me/.claude.json",
				"vscode/user":         "/Users/me/AppData/Roaming/Code/User/mcp.json",
				"cursor/user":         "/Users/me/.cursor/mcp.json",
				"windsurf/user":       "/Users/me/.codeium/windsurf/mcp_config.json",
				"zed/user":            "/Users/me/AppData/Roaming/Zed/settings.json",
				"codex/user":          "/Users/me/.codex/config.toml",
				"gemini/user":         "/Users/me/.gemini/settings.json",
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && tt.env.GOOS != "windows" {
				t.Skip("the paths of another OS, in its own form, are checked off Windows")
			}
			got := map[string]string{}
			for _, h := range Hosts() {
				for _, l := range h.Locations(tt.env) {
					got[l.Host+"/"+l.Scope] = l.Path
				}
			}
			want := map[string]string{}
			for k, v := range tt.want {
				want[k] = filepath.FromSlash(v) // the paths of the OS the test runs on
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("paths mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHostsSurvey: what doctor gets for a user with a few hosts installed:
// every location reported, installed or not, with its entries, a parse
// error with its position, and a wrapped entry's binary checked.
func TestHostsSurvey(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "project")
	bin := filepath.Join(home, "bin", "elicitray")
	write := func(path, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(bin, "")
	write(filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {
		"a": {"command": "npx", "args": ["srv"]},
		"b": {"command": `+jsonString(bin)+`, "args": ["wrap", "--name", "b", "--", "srv"]},
		"c": {"command": "/moved/elicitray", "args": ["wrap", "--name", "c", "--", "srv"]},
		"d": {"url": "https://example.com/mcp"}}}`)
	write(filepath.Join(home, ".claude.json"), `{"mcpServers": {}, "projects": {`+jsonString(project)+`: {"mcpServers": {"local": {"command": "x"}}}}}`)
	write(filepath.Join(home, ".gemini", "settings.json"), "{\n  \"mcpServers\": {\n    \"x\" {\"command\": \"y\"}\n  }\n}")
	os.MkdirAll(filepath.Join(home, ".codex"), 0o700) // installed, no config yet

	type row struct {
		Loc, Installed, Exists, Err string
		Entries                     []string
	}
	var got []row
	for _, r := range Survey(Env{Home: home, Project: project, GOOS: "linux"}) {
		rw := row{Loc: r.Host + "/" + r.Scope, Installed: yes(r.Installed), Exists: yes(r.Exists)}
		if r.Err != nil {
			rw.Err = filepath.ToSlash(strings.ReplaceAll(r.Err.Error(), home, "~"))
		}
		for _, e := range r.Entries {
			s := e.Key + " " + string(e.State)
			if e.State == StateWrapped {
				s += " " + filepath.ToSlash(strings.ReplaceAll(e.Binary, home, "~")) + " exists=" + yes(e.BinaryExists)
			}
			rw.Entries = append(rw.Entries, s)
		}
		got = append(got, rw)
	}
	want := []row{
		{Loc: "claude-desktop/user", Installed: "no", Exists: "no"},
		{Loc: "claude-code/user", Installed: "yes", Exists: "yes"},
		{Loc: "claude-code/local", Installed: "yes", Exists: "yes", Entries: []string{"local not wrapped"}},
		{Loc: "claude-code/project", Installed: "yes", Exists: "no"},
		{Loc: "vscode/user", Installed: "no", Exists: "no"},
		{Loc: "vscode/workspace", Installed: "no", Exists: "no"},
		{Loc: "cursor/user", Installed: "yes", Exists: "yes", Entries: []string{
			"a not wrapped", "b wrapped ~/bin/elicitray exists=yes", "c wrapped /moved/elicitray exists=no", "d remote"}},
		{Loc: "cursor/project", Installed: "yes", Exists: "no"},
		{Loc: "windsurf/user", Installed: "no", Exists: "no"},
		{Loc: "zed/user", Installed: "no", Exists: "no"},
		{Loc: "codex/user", Installed: "yes", Exists: "no"},
		{Loc: "gemini/user", Installed: "yes", Exists: "yes", Err: "~/.gemini/settings.json:3:9: not valid JSON: invalid character '{' after object name"},
		{Loc: "gemini/project", Installed: "yes", Exists: "no"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("survey mismatch (-want +got):\n%s", diff)
	}
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// TestHostsForFile: what --config guesses from a file's name and contents.
func TestHostsForFile(t *testing.T) {
	for _, tt := range []struct {
		name, path, data, format string
		want                     Location
		err                      string
	}{
		{"toml by name", "/x/config.toml", "", "", Location{Format: FormatTOML, Servers: codexKey}, ""},
		{"toml by content", "/x/conf", "[mcp_servers.a]\ncommand = \"x\"\n", "", Location{Format: FormatTOML, Servers: codexKey}, ""},
		{"zed", "/x/settings.json", "// hi\n{\"theme\": \"x\", \"context_servers\": {}}", "", Location{Format: FormatJSON, Servers: zedKey}, ""},
		{"mcpServers", "/x/a.json", `{"mcpServers": {}}`, "", Location{Format: FormatJSON, Servers: mcpServers}, ""},
		{"a byte order mark and a comment last", "/x/a", "\ufeff{\"mcpServers\": {}}\n// end", "", Location{Format: FormatJSON, Servers: mcpServers}, ""},
		{"vscode", "/x/mcp.json", `{"servers": {}, "inputs": []}`, "", Location{Format: FormatJSON, Servers: vscodeKey}, ""},
		{"broken JSON: Read says where", "/x/a.json", `{"mcpServers": {`, "", Location{Format: FormatJSON, Servers: mcpServers}, ""},
		{"--format", "/x/a", `{}`, "zed", Location{Format: FormatJSON, Servers: zedKey, As: "zed"}, ""},
		{"unknown --format", "/x/a", `{}`, "atom", Location{}, `--format "atom" is not a host elicitray knows`},
		{"nested too deep: Read says so", "/x/a.json", strings.Repeat("[", 2_000_000), "", Location{Format: FormatJSON, Servers: mcpServers}, ""},
		{"cannot tell", "/x/a.json", `{"editor": {}}`, "", Location{}, "cannot tell which host's config /x/a.json is"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ForFile(tt.path, []byte(tt.data), tt.format)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Host, tt.want.Title, tt.want.Path = "file", tt.path, tt.path
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHostsSuggest(t *testing.T) {
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"cursr", []string{"cursor"}},
		{"claude", []string{"claude-code", "claude-desktop"}}, // nearest first
		{"VSCode", []string{"vscode"}},                        // Lookup ignores case and finds it first
		{"vs-code", []string{"vscode"}},
		{"emacs", nil},
	} {
		if diff := cmp.Diff(tt.want, Suggest(tt.name, Names())); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestHostsDanglingLink: a config that is a symbolic link to nothing is
// reported as such, with where it points, not as "no config file yet".
func TestHostsDanglingLink(t *testing.T) {
	if platform.UnderWine() {
		t.Skip("Wine 8 makes os.Symlink a Unix symbolic link, which Go's Windows build cannot read back as one")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if err := os.Symlink(filepath.Join(dir, "dotfiles", "mcp.json"), path); err != nil {
		t.Fatal(err)
	}
	_, err := ReadConfig(path)
	want := path + " is a symbolic link to nothing (" + filepath.Join(dir, "dotfiles", "mcp.json") + ", which does not exist)"
	if !errors.Is(err, ErrDanglingLink) || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want ErrDanglingLink saying %q", err, want)
	}
	r := Report(Location{Path: path, Format: FormatJSON, Servers: mcpServers}, true)
	if !r.Exists || !errors.Is(r.Err, ErrDanglingLink) {
		t.Errorf("report: exists %v, error %v", r.Exists, r.Err)
	}
	if _, err := ReadConfig(filepath.Join(dir, "none.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: error %v, want fs.ErrNotExist", err)
	}
}

// TestHostsLongPath: a config deeper than Windows' old limit of 260
// characters (MAX_PATH), under folders whose names have spaces and
// non-ASCII letters, with Windows line ends, is read, rewritten with a
// backup of what it was, and read back (Go gives Windows such a path in
// its long form; make test-windows runs this under Wine).
func TestHostsLongPath(t *testing.T) {
	dir := t.TempDir()
	for utf8.RuneCountInString(dir) <= 300 {
		dir = filepath.Join(dir, "Zoë Ångström 项目 folder")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatalf("making a folder %d characters long: %v", utf8.RuneCountInString(dir), err)
	}
	path := filepath.Join(dir, "claude_desktop_config.json")
	old := []byte("{\r\n  \"mcpServers\": {}\r\n}\r\n")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := ReadConfig(path)
	if err != nil || string(data) != string(old) {
		t.Fatalf("ReadConfig of a %d-character path: %q, %v", utf8.RuneCountInString(path), data, err)
	}
	updated := []byte("{\r\n  \"mcpServers\": {\"a\": {\"command\": \"x\"}}\r\n}\r\n")
	backup, err := WriteFile(path, data, updated, time.Now())
	if err != nil {
		t.Fatalf("WriteFile of a %d-character path: %v", utf8.RuneCountInString(path), err)
	}
	if got, _ := ReadConfig(path); string(got) != string(updated) {
		t.Errorf("read back %q, want %q", got, updated)
	}
	if got, err := ReadConfig(backup); err != nil || string(got) != string(old) {
		t.Errorf("the backup %s holds %q (%v), want what the file was", backup, got, err)
	}
}

// TestHostsWriteFileFails: a read-only config is not rewritten, and a
// write that fails midway (a full disk) leaves neither the temporary file
// nor the backup, and says nothing was changed.
func TestHostsWriteFileFails(t *testing.T) {
	t.Run("read-only", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "mcp.json")
		os.WriteFile(path, []byte("old"), 0o444)
		os.Chmod(path, 0o444)
		_, err := WriteFile(path, []byte("old"), []byte("new"), when)
		// The advice is the system's own way to make it writable.
		how := "(chmod u+w)"
		if runtime.GOOS == "windows" {
			how = "clear Read-only in its Properties"
		}
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), path+" is read-only") || !strings.Contains(err.Error(), how) {
			t.Errorf("error %v, want ErrReadOnly with a sentence saying %s", err, how)
		}
		if err := Writable(path); !errors.Is(err, ErrReadOnly) {
			t.Errorf("Writable: %v, want ErrReadOnly", err)
		}
		checkFile(t, path, "old", 0o444)
		checkClean(t, dir, "mcp.json")
	})
	t.Run("disk full", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "mcp.json")
		os.WriteFile(path, []byte("old"), 0o600)
		writeTemp = func(*os.File, []byte) error { return syscall.ENOSPC }
		t.Cleanup(func() { writeTemp = func(f *os.File, data []byte) error { _, err := f.Write(data); return err } })
		backup, err := WriteFile(path, []byte("old"), []byte("new"), when)
		if !errors.Is(err, syscall.ENOSPC) || !strings.HasSuffix(err.Error(), "no space left on device; nothing was changed") || backup != "" {
			t.Errorf("backup %q, error %v, want ENOSPC saying nothing was changed", backup, err)
		}
		checkFile(t, path, "old", 0o600)
		checkClean(t, dir, "mcp.json")
	})
}

// checkClean fails when dir holds anything but names: a backup or a
// temporary file left behind.
func checkClean(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !slices.Contains(names, e.Name()) {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestHostsBackupsKept: each write keeps the newest five backups of the
// file and deletes older ones elicitray made (100 wrap/unwrap cycles left
// 200 full copies), and nothing else that sits beside it.
func TestHostsBackupsKept(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	os.WriteFile(path, []byte("v0"), 0o600)
	others := []string{"mcp.json.elicitray-backup-notes", "other.json.elicitray-backup-20200101-000000", "mcp.json.bak"}
	for _, o := range others {
		os.WriteFile(filepath.Join(dir, o), nil, 0o600)
	}
	var made []string
	for i := range 12 {
		at := when.Add(time.Duration(i/3) * time.Second) // three a second: -2 and -3 names
		b, err := WriteFile(path, fmt.Appendf(nil, "v%d", i), fmt.Appendf(nil, "v%d", i+1), at)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, b)
	}
	got, err := Backups(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{made[11], made[10], made[9], made[8], made[7]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backups kept mismatch (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(got[0]); string(b) != "v11" {
		t.Errorf("the newest backup holds %q", b)
	}
	for _, o := range others {
		if _, err := os.Stat(filepath.Join(dir, o)); err != nil {
			t.Errorf("%s was deleted", o)
		}
	}
}

// TestHostsBackupsOrder: newest first by the time in the name, then by
// number (-10 after -9, not after -1).
func TestHostsBackupsOrder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	names := []string{"20261201-093000", "20261201-093000-2", "20261201-093000-10", "20261201-093000-9", "20261202-000000", "20251231-235959"}
	for _, n := range names {
		os.WriteFile(path+".elicitray-backup-"+n, nil, 0o600)
	}
	got, _ := Backups(path)
	var stamps []string
	for _, g := range got {
		stamps = append(stamps, strings.TrimPrefix(g, path+".elicitray-backup-"))
	}
	want := []string{"20261202-000000", "20261201-093000-10", "20261201-093000-9", "20261201-093000-2", "20261201-093000", "20251231-235959"}
	if diff := cmp.Diff(want, stamps); diff != "" {
		t.Errorf("order mismatch (-want +got):\n%s", diff)
	}
}

// TestHostsBackupAfterGap: a backup made in a second whose first backups
// were pruned is numbered after the ones left, so it sorts newest (filling
// the gap sorted it oldest, and the next pruning deleted it first).
func TestHostsBackupAfterGap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	for _, n := range []string{"-3", "-4"} {
		os.WriteFile(path+".elicitray-backup-20261201-093000"+n, nil, 0o600)
	}
	made, err := writeBackup(path, []byte("v"), when)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := Backups(path); len(got) != 3 || got[0] != made || made != path+".elicitray-backup-20261201-093000-5" {
		t.Errorf("made %s; backups newest first: %v", made, got)
	}
}
