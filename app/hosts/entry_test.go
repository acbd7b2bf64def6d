package hosts

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	jsonLoc = Location{Path: "mcp.json", Format: FormatJSON, Servers: []string{"s"}}
	tomlLoc = Location{Path: "config.toml", Format: FormatTOML, Servers: []string{"mcp_servers"}}
)

// TestHostsSplices: the shapes configs come in, each wrapped as the user
// would expect to read it, wrapped again without change, and unwrapped back
// to the bytes it had.
func TestHostsSplices(t *testing.T) {
	const bin = "/usr/local/bin/elicitray"
	for _, tt := range []struct {
		name    string
		loc     Location
		bin     string // "" is bin
		in      string
		wrapped string
		back    string // "" is in
	}{
		{
			name:    "no args, one line",
			loc:     jsonLoc,
			in:      `{"s": {"a": {"command": "x", "env": {"K": "v"}}}}`,
			wrapped: `{"s": {"a": {"command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "a", "--", "x"], "env": {"K": "v"}}}}`,
		},
		{
			name:    "compact JSON keeps its separators",
			loc:     jsonLoc,
			in:      `{"s":{"a":{"command":"x","args":["p","q"]}}}`,
			wrapped: `{"s":{"a":{"command":"/usr/local/bin/elicitray","args":["wrap","--name","a","--","x","p","q"]}}}`,
		},
		{
			name:    "empty args elsewhere stays empty",
			loc:     jsonLoc,
			in:      `{"s": {"a": {"args": [ ], "command": "x"}}}`,
			wrapped: `{"s": {"a": {"args": ["wrap", "--name", "a", "--", "x" ], "command": "/usr/local/bin/elicitray"}}}`,
		},
		{
			// The one shape the wrapped bytes cannot tell: an empty args
			// right where Wrap adds a missing one. Without the backup
			// (TestHostsUnwrapFromBackup) it goes; hosts read both the same.
			name:    "empty args right after the command, no backup",
			loc:     jsonLoc,
			in:      `{"s": {"a": {"command": "x", "args": []}}}`,
			wrapped: `{"s": {"a": {"command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "a", "--", "x"]}}}`,
			back:    `{"s": {"a": {"command": "x"}}}`,
		},
		{
			name:    "a comment in an empty args right after the command",
			loc:     jsonLoc,
			in:      `{"s": {"a": {"command": "x", "args": [ /* none */ ], "env": {"T": "x"}}}}`,
			wrapped: `{"s": {"a": {"command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "a", "--", "x" /* none */ ], "env": {"T": "x"}}}}`,
		},
		{
			name:    "a space in an empty args right after the command",
			loc:     jsonLoc,
			in:      "{\"s\": {\"a\": {\"command\": \"x\",\n  \"args\": [\n  ]}}}",
			wrapped: "{\"s\": {\"a\": {\"command\": \"/usr/local/bin/elicitray\",\n  \"args\": [\"wrap\", \"--name\", \"a\", \"--\", \"x\"\n  ]}}}",
		},
		{
			name:    "TOML: a comment in an empty args right after the command",
			loc:     tomlLoc,
			in:      "[mcp_servers.a]\ncommand = \"x\"\nargs = [ # none\n]\n",
			wrapped: "[mcp_servers.a]\ncommand = \"/usr/local/bin/elicitray\"\nargs = [\"wrap\", \"--name\", \"a\", \"--\", \"x\" # none\n]\n",
		},
		{
			name:    "a comment between elements is not copied",
			loc:     jsonLoc,
			in:      `{"s": {"a": {"command": "x", "args": ["-y", /* pinned */ "pkg@1"]}}}`,
			wrapped: `{"s": {"a": {"command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "a", "--", "x", "-y", /* pinned */ "pkg@1"]}}}`,
		},
		{
			name:    "one element on its own line",
			loc:     jsonLoc,
			in:      "{\"s\": {\"a\": {\n  \"command\": \"x\",\n  \"args\": [\n    \"pkg\"\n  ]\n}}}",
			wrapped: "{\"s\": {\"a\": {\n  \"command\": \"/usr/local/bin/elicitray\",\n  \"args\": [\n    \"wrap\",\n    \"--name\",\n    \"a\",\n    \"--\",\n    \"x\",\n    \"pkg\"\n  ]\n}}}",
		},
		{
			name:    "CRLF lines",
			loc:     jsonLoc,
			in:      "{\r\n  \"s\": {\r\n    \"a\": {\r\n      \"command\": \"x\"\r\n    }\r\n  }\r\n}\r\n",
			wrapped: "{\r\n  \"s\": {\r\n    \"a\": {\r\n      \"command\": \"/usr/local/bin/elicitray\",\r\n      \"args\": [\"wrap\", \"--name\", \"a\", \"--\", \"x\"]\r\n    }\r\n  }\r\n}\r\n",
		},
		{
			name:    "quotes in the key, escapes in the command",
			loc:     jsonLoc,
			in:      `{"s": {"my \"odd\" server": {"command": "C:\\srv\\x.exe", "args": ["\u00e9"]}}}`,
			wrapped: `{"s": {"my \"odd\" server": {"command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "my \"odd\" server", "--", "C:\\srv\\x.exe", "\u00e9"]}}}`,
		},
		{
			name:    "a key with a bidi character is passed as an escape",
			loc:     jsonLoc,
			in:      `{"s": {"a\u202eb\u0085": {"command": "x"}}}`,
			wrapped: `{"s": {"a\u202eb\u0085": {"command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "a\u202eb\u0085", "--", "x"]}}}`,
		},
		{
			name:    "TOML: a key with a bidi character is passed as an escape",
			loc:     tomlLoc,
			in:      "[mcp_servers.\"a\\u202Eb\"]\ncommand = \"x\"\n",
			wrapped: "[mcp_servers.\"a\\u202Eb\"]\ncommand = \"/usr/local/bin/elicitray\"\nargs = [\"wrap\", \"--name\", \"a\\u202Eb\", \"--\", \"x\"]\n",
		},
		{
			name:    "a Windows binary",
			loc:     jsonLoc,
			bin:     `C:\Program Files\elicitray\elicitray.exe`,
			in:      `{"s": {"a": {"command": "npx", "args": ["-y", "srv"]}}}`,
			wrapped: `{"s": {"a": {"command": "C:\\Program Files\\elicitray\\elicitray.exe", "args": ["wrap", "--name", "a", "--", "npx", "-y", "srv"]}}}`,
		},
		{
			name:    "a duplicate key: the last one counts, as hosts read it",
			loc:     jsonLoc,
			in:      `{"s": {"a": {"command": "old"}, "a": {"command": "new"}}}`,
			wrapped: `{"s": {"a": {"command": "old"}, "a": {"command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "a", "--", "new"]}}}`,
		},
		{
			name:    "a byte order mark first stays first",
			loc:     jsonLoc,
			in:      "\ufeff{\"s\": {\"a\": {\"command\": \"x\"}}}\r\n",
			wrapped: "\ufeff{\"s\": {\"a\": {\"command\": \"/usr/local/bin/elicitray\", \"args\": [\"wrap\", \"--name\", \"a\", \"--\", \"x\"]}}}\r\n",
		},
		{
			name:    "a // comment at the end with no newline after it",
			loc:     jsonLoc,
			in:      "{\"s\": {\"a\": {\"command\": \"x\"}}}\n// the end",
			wrapped: "{\"s\": {\"a\": {\"command\": \"/usr/local/bin/elicitray\", \"args\": [\"wrap\", \"--name\", \"a\", \"--\", \"x\"]}}}\n// the end",
		},
		{
			name:    "no newline at the end, a byte order mark, a /* comment */ last",
			loc:     jsonLoc,
			in:      "\ufeff{\"s\": {\"a\": {\"command\": \"x\"}}} /* end */",
			wrapped: "\ufeff{\"s\": {\"a\": {\"command\": \"/usr/local/bin/elicitray\", \"args\": [\"wrap\", \"--name\", \"a\", \"--\", \"x\"]}}} /* end */",
		},
		{
			name:    "TOML: a comment in the array",
			loc:     tomlLoc,
			in:      "[mcp_servers.a]\ncommand = \"x\"\nargs = [\n  \"p\", # first\n  \"q\",\n]\n",
			wrapped: "[mcp_servers.a]\ncommand = \"/usr/local/bin/elicitray\"\nargs = [\n  \"wrap\",\n  \"--name\",\n  \"a\",\n  \"--\",\n  \"x\",\n  \"p\", # first\n  \"q\",\n]\n",
		},
		{
			name:    "TOML: a table after its sub-table is no duplicate",
			loc:     tomlLoc,
			in:      "[mcp_servers.a.env]\nK = \"v\"\n\n[mcp_servers.a]\ncommand = \"x\"\n",
			wrapped: "[mcp_servers.a.env]\nK = \"v\"\n\n[mcp_servers.a]\ncommand = \"/usr/local/bin/elicitray\"\nargs = [\"wrap\", \"--name\", \"a\", \"--\", \"x\"]\n",
		},
		{
			name:    "TOML: arrays of tables, a sub-table of a dotted table, a table between",
			loc:     tomlLoc,
			in:      "[[profiles]]\nname = \"a\"\n[[profiles]]\nname = \"b\"\n[profiles.x]\nk = 1\n[tools]\nweb.search = true\n[tools.web.limits]\nn = 1\n[mcp_servers.a]\ncommand = \"x\"\n",
			wrapped: "[[profiles]]\nname = \"a\"\n[[profiles]]\nname = \"b\"\n[profiles.x]\nk = 1\n[tools]\nweb.search = true\n[tools.web.limits]\nn = 1\n[mcp_servers.a]\ncommand = \"/usr/local/bin/elicitray\"\nargs = [\"wrap\", \"--name\", \"a\", \"--\", \"x\"]\n",
		},
		{
			name:    "TOML: dotted keys at the top",
			loc:     tomlLoc,
			in:      "mcp_servers.a.command = \"x\"\nmcp_servers.a.env = { K = \"v\" }\n",
			wrapped: "mcp_servers.a.command = \"/usr/local/bin/elicitray\"\nmcp_servers.a.args = [\"wrap\", \"--name\", \"a\", \"--\", \"x\"]\nmcp_servers.a.env = { K = \"v\" }\n",
		},
		{
			name:    "TOML: no newline at the end, an indented table",
			loc:     tomlLoc,
			in:      "[mcp_servers.\"my server\"]\n  command = 'C:\\srv\\x.exe'",
			wrapped: "[mcp_servers.\"my server\"]\n  command = \"/usr/local/bin/elicitray\"\n  args = [\"wrap\", \"--name\", \"my server\", \"--\", 'C:\\srv\\x.exe']",
		},
		{
			name:    "TOML: a Windows binary",
			loc:     tomlLoc,
			bin:     `C:\Program Files\elicitray\elicitray.exe`,
			in:      "[mcp_servers.a]\ncommand = \"x\"\n",
			wrapped: "[mcp_servers.a]\ncommand = \"C:\\\\Program Files\\\\elicitray\\\\elicitray.exe\"\nargs = [\"wrap\", \"--name\", \"a\", \"--\", \"x\"]\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.bin
			if b == "" {
				b = bin
			}
			got, _, err := Wrap([]byte(tt.in), tt.loc, nil, b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wrapped, string(got)); diff != "" {
				t.Fatalf("wrap mismatch (-want +got):\n%s", diff)
			}
			again, _, err := Wrap(got, tt.loc, nil, b)
			if err != nil || string(again) != string(got) {
				t.Errorf("wrapping again: %v\n%s", err, cmp.Diff(string(got), string(again)))
			}
			back, _, err := Unwrap(got, tt.loc, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.back
			if want == "" {
				want = tt.in
			}
			if diff := cmp.Diff(want, string(back)); diff != "" {
				t.Errorf("unwrap mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHostsReadEntries: what list shows for each kind of entry.
func TestHostsReadEntries(t *testing.T) {
	dir := t.TempDir()
	present := filepath.Join(dir, "elicitray")
	if runtime.GOOS == "windows" {
		present += ".exe" // what PATH finds there
	}
	if err := os.WriteFile(present, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir) // a bare "elicitray" is looked up there
	in := `{"s": {
		"plain": {"command": "npx", "args": ["-y", "srv"]},
		"wrapped": {"command": ` + jsonString(present) + `, "args": ["wrap", "--name", "w", "--", "uvx", "srv"]},
		"moved": {"command": "/gone/elicitray", "args": ["wrap", "--", "srv"]},
		"flags": {"command": "elicitray", "args": ["wrap", "--grace=5s", "--name=n", "srv", "--x"]},
		"empty-wrap": {"command": "elicitray", "args": ["wrap", "--name", "e"]},
		"not-wrap": {"command": "/opt/elicitray", "args": ["hub"]},
		"http": {"type": "http", "url": "https://example.com/mcp"},
		"windsurf": {"serverUrl": "https://example.com/sse"},
		"gemini": {"httpUrl": "https://example.com/mcp"},
		"nothing": {"type": "stdio"},
		"number": {"command": 7},
		"mixed": {"command": "x", "args": ["a", 1]},
		"list": ["x"]
	}}`
	got, err := Read([]byte(in), jsonLoc)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Key: "plain", State: StateNotWrapped, Command: "npx", Args: []string{"-y", "srv"}, Server: []string{"npx", "-y", "srv"}},
		{Key: "wrapped", State: StateWrapped, Command: present, Args: []string{"wrap", "--name", "w", "--", "uvx", "srv"}, Server: []string{"uvx", "srv"}, Name: "w", Binary: present, BinaryExists: true},
		{Key: "moved", State: StateWrapped, Command: "/gone/elicitray", Args: []string{"wrap", "--", "srv"}, Server: []string{"srv"}, Binary: "/gone/elicitray"},
		{Key: "flags", State: StateWrapped, Command: "elicitray", Args: []string{"wrap", "--grace=5s", "--name=n", "srv", "--x"}, Server: []string{"srv", "--x"}, Name: "n", Binary: "elicitray", BinaryExists: true},
		{Key: "empty-wrap", State: StateWrapped, Command: "elicitray", Args: []string{"wrap", "--name", "e"}, Name: "e", Binary: "elicitray", BinaryExists: true},
		{Key: "not-wrap", State: StateNotWrapped, Command: "/opt/elicitray", Args: []string{"hub"}, Server: []string{"/opt/elicitray", "hub"}},
		{Key: "http", State: StateRemote, URL: "https://example.com/mcp"},
		{Key: "windsurf", State: StateRemote, URL: "https://example.com/sse"},
		{Key: "gemini", State: StateRemote, URL: "https://example.com/mcp"},
		{Key: "nothing", State: StateUnsupported, Note: "it has neither a command nor a url"},
		{Key: "number", State: StateUnsupported, Note: "its command is not a string"},
		{Key: "mixed", State: StateUnsupported, Command: "x", Args: []string{"a"}, Note: "its args are not all strings"},
		{Key: "list", State: StateUnsupported, Note: "it is not an object"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries mismatch (-want +got):\n%s", diff)
	}
}

// TestHostsEditErrors: what Wrap and Unwrap refuse, and that they refuse
// it with the file unchanged and a sentence a user can act on.
func TestHostsEditErrors(t *testing.T) {
	const servers = `{"s": {"a": {"command": "x"}, "r": {"url": "https://example.com/mcp"}, "z": {"source": "extension"}}}`
	for _, tt := range []struct {
		name   string
		loc    Location
		in     string
		keys   []string
		unwrap bool
		is     error
		msg    string
	}{
		{"unknown server", jsonLoc, servers, []string{"b"}, false, ErrUnknownServer, `no such server "b" in mcp.json`},
		{"unknown server to unwrap", jsonLoc, servers, []string{"b"}, true, ErrUnknownServer, `no such server "b"`},
		{"remote with a key in its URL named", jsonLoc, `{"s": {"r": {"url": "https://example.com/mcp?apiKey=k"}}}`, []string{"r"}, false, ErrRemote, `"r" is a remote server that elicitray cannot wrap (https://example.com/mcp?apiKey=k): its url may hold a secret (the apiKey parameter), and elicitray wrap would have the URL on its command line, which other users of this computer can read`},
		{"extension named", jsonLoc, servers, []string{"z"}, false, ErrUnsupported, "a Zed extension starts this server"},
		{"the empty key named", jsonLoc, `{"s": {"": {"command": "x"}}}`, []string{""}, false, ErrEmptyKey, `the server's name is empty: elicitray wrap --name needs a name`},
		{"broken wrap named to unwrap", jsonLoc, `{"s": {"a": {"command": "elicitray", "args": ["wrap"]}}}`, []string{"a"}, true, ErrUnsupported, "no server command"},
		{"malformed JSON", jsonLoc, "{\n  \"s\": {\n    \"a\": {\"command\": \"x\",}\n    \"b\": 1\n  }\n}", nil, false, ErrSyntax, "mcp.json:4:5: not valid JSON: invalid character"},
		{"JSON ends early", jsonLoc, "{\"s\": {", nil, false, ErrSyntax, "mcp.json:1:8: not valid JSON: "},
		{"servers named in an empty file", jsonLoc, " \n", []string{"a"}, false, ErrUnknownServer, `no such server "a"`},
		{"not an object", jsonLoc, `{"s": []}`, nil, false, nil, "mcp.json: s is not an object"},
		{"JSON nested two million deep", jsonLoc, `{"s": ` + strings.Repeat("[", 2_000_000), nil, false, ErrSyntax, "mcp.json:1:1006: arrays and objects are nested more than 1000 levels deep here"},
		{"JSON nested deep inside strings and comments is not counted", jsonLoc, `{"s": {"a": {"command": "` + strings.Repeat("[", 2000) + `"}}} // ` + strings.Repeat("{", 2000) + "\n/* " + strings.Repeat("[", 2000) + " */ x", nil, false, ErrSyntax, "mcp.json:2:2008: not valid JSON: invalid character 'x'"},
		{"TOML nested two million deep", tomlLoc, "[mcp_servers.a]\nargs = " + strings.Repeat("[", 2_000_000), nil, false, ErrSyntax, "config.toml:2:10008: not valid TOML: arrays and inline tables are nested more than the maximum of 10000 levels deep"},
		{"TOML: a key twice", tomlLoc, "[mcp_servers.a]\ncommand = \"x\"\ncommand = \"y\"\n", nil, false, ErrSyntax, "config.toml:3:1: not valid TOML: mcp_servers.a.command is defined twice (Codex refuses a file that defines a key or a table twice)"},
		{"TOML: a table twice", tomlLoc, "[mcp_servers.a]\ncommand = \"x\"\n\n[mcp_servers.a]\nargs = [\"y\"]\n", nil, false, ErrSyntax, "config.toml:4:14: not valid TOML: [mcp_servers.a] defines mcp_servers.a, which is already defined as a [table] (Codex refuses"},
		{"TOML: a value, then a table of its name", tomlLoc, "mcp_servers.a = \"x\"\n[mcp_servers.a]\ncommand = \"y\"\n", nil, false, ErrSyntax, "config.toml:2:14: not valid TOML: [mcp_servers.a] defines mcp_servers.a, which is already defined as a value"},
		{"TOML: a table by dotted keys, then its header", tomlLoc, "[mcp_servers]\na.command = \"x\"\n[mcp_servers.a]\nargs = []\n", nil, false, ErrSyntax, "config.toml:3:14: not valid TOML: [mcp_servers.a] defines mcp_servers.a, which is already defined as a table by dotted keys"},
		{"TOML: dotted keys into a table defined by its header", tomlLoc, "[mcp_servers.a]\ncommand = \"x\"\n[mcp_servers]\na.args = []\n", nil, false, ErrSyntax, "config.toml:4:1: not valid TOML: mcp_servers.a is already defined as a [table], so dotted keys cannot add mcp_servers.a.args to it"},
		{"TOML: a key twice in an inline table", tomlLoc, "[mcp_servers]\na = { command = \"x\", command = \"y\" }\n", nil, false, ErrSyntax, "config.toml:2:22: not valid TOML: mcp_servers.a.command is defined twice"},
		{"TOML: an inline table extended", tomlLoc, "[mcp_servers]\na = { command = \"x\" }\n[mcp_servers.a.env]\nK = \"v\"\n", nil, false, ErrSyntax, "config.toml:3:14: not valid TOML: mcp_servers.a is a value, not a table, so [mcp_servers.a.env] cannot be under it"},
		{"TOML: a table and an array of tables of one name", tomlLoc, "[[mcp_servers.a]]\ncommand = \"x\"\n[mcp_servers.a]\n", nil, false, ErrSyntax, "config.toml:3:14: not valid TOML: [mcp_servers.a] defines mcp_servers.a, which is already defined as an [[array of tables]]"},
		{"TOML: a quoted key twice", tomlLoc, "[mcp_servers.\"my server\"]\ncommand = \"x\"\n[mcp_servers.'my server']\n", nil, false, ErrSyntax, `config.toml:3:14: not valid TOML: [mcp_servers."my server"] defines`},
		{"malformed TOML", tomlLoc, "[mcp_servers.a]\ncommand = \"x\"\nargs = [\"y\" \"z\"]\n", nil, false, ErrSyntax, "config.toml:3:13: not valid TOML: expected ',' or ']' after array value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.unwrap {
				_, _, err = Unwrap([]byte(tt.in), tt.loc, tt.keys, nil)
			} else {
				_, _, err = Wrap([]byte(tt.in), tt.loc, tt.keys, "/bin/elicitray")
			}
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %q is not %q", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
		})
	}
}

// TestHostsAllSkips: with no keys, remote entries that cannot be wrapped,
// unsupported entries, and one
// whose key is empty (--name "" would call it "elicitray"), are reported
// skipped and left as they are.
func TestHostsAllSkips(t *testing.T) {
	in := `{"s": {"a": {"command": "x"}, "r": {"url": "https://u:p@example.com/mcp"}, "z": {"source": "extension"}, "": {"command": "y"}}}`
	out, changes, err := Wrap([]byte(in), jsonLoc, nil, "/bin/elicitray")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Key+": "+string(c.Outcome)+" "+c.Note)
	}
	want := []string{"a: wrapped ", "r: skipped remote https://u:p@example.com/mcp: its url has a user name or password in it, and elicitray wrap would have the URL on its command line, which other users of this computer can read: move the secret into a header to wrap it", "z: skipped a Zed extension starts this server, not a command in this file",
		": skipped its name is empty, and elicitray wrap --name needs one: name it in the file first"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(out), `"": {"command": "y"}`) {
		t.Errorf("the entry with the empty key was changed:\n%s", out)
	}
}

// TestHostsRepoint: a wrapped entry whose binary was moved away is pointed
// at the running one; one whose binary is still there is left alone, even
// if it is another install.
func TestHostsRepoint(t *testing.T) {
	other := filepath.Join(t.TempDir(), "elicitray")
	if err := os.WriteFile(other, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	entry := func(bin string) string {
		return `{"s": {"a": {"command": ` + jsonString(bin) + `, "args": ["wrap", "--name", "a", "--", "srv"]}}}`
	}
	for _, tt := range []struct {
		name, from, to string
		outcome        Outcome
	}{
		{"moved", "/gone/elicitray", "/new/elicitray", Repointed},
		{"another install", other, other, AlreadyWrapped},
		{"this binary", "/new/elicitray", "/new/elicitray", AlreadyWrapped},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, changes, err := Wrap([]byte(entry(tt.from)), jsonLoc, []string{"a"}, "/new/elicitray")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(entry(tt.to), string(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			if changes[0].Outcome != tt.outcome {
				t.Errorf("outcome %s, want %s", changes[0].Outcome, tt.outcome)
			}
		})
	}
}

// TestHostsBinaryName: a binary renamed to something else cannot wrap, as
// nothing would recognise its entries as wrapped afterwards.
func TestHostsBinaryName(t *testing.T) {
	in := []byte(`{"s": {"a": {"command": "x"}}}`)
	for _, bin := range []string{"/usr/local/bin/elicitray-linux-amd64", "/tmp/app.test"} {
		if _, _, err := Wrap(in, jsonLoc, nil, bin); !errors.Is(err, ErrBinaryName) {
			t.Errorf("%s: error %v, want ErrBinaryName", bin, err)
		}
	}
	if _, _, err := Wrap(in, jsonLoc, nil, `C:\elicitray\ELICITRAY.EXE`); err != nil {
		t.Errorf("Windows name: %v", err)
	}
}

// TestHostsUnwrapFromBackup: an entry that had an empty args right after
// its command (Claude Code writes `"args": []` for a server without
// arguments) wraps to the bytes of one that had no args, and unwrap takes
// its bytes back from the newest backup that shows it; without such a
// backup the args member goes.
func TestHostsUnwrapFromBackup(t *testing.T) {
	const bin = "/usr/local/bin/elicitray"
	const claude = "{\n  \"mcpServers\": {\n    \"fs\": {\n      \"command\": \"mcp-server-fs\",\n      \"args\": [],\n      \"env\": {\"TOKEN\": \"x\"}\n    }\n  }\n}\n"
	loc := Location{Path: "claude.json", Format: FormatJSON, Servers: []string{"mcpServers"}}
	for _, tt := range []struct {
		name string
		loc  Location
		in   string
		// earlier returns the backups, newest first, given the original
		// and the wrapped file.
		earlier func(in, wrapped string) []string
		back    string // "" is in
	}{
		{
			name:    "JSON, the backup wrap made",
			loc:     loc,
			in:      claude,
			earlier: func(in, _ string) []string { return []string{in} },
		},
		{
			name:    "TOML table",
			loc:     tomlLoc,
			in:      "[mcp_servers.fs]\ncommand = \"mcp-server-fs\" # the server\nargs = []\n\n[mcp_servers.fs.env]\nTOKEN = \"x\"\n",
			earlier: func(in, _ string) []string { return []string{in} },
		},
		{
			name:    "TOML inline table",
			loc:     tomlLoc,
			in:      "[mcp_servers]\nfs = { command = \"mcp-server-fs\", args = [] }\n",
			earlier: func(in, _ string) []string { return []string{in} },
		},
		{
			name: "after an unwrap and a wrap again: a wrapped backup is passed over",
			loc:  loc,
			in:   claude,
			earlier: func(in, wrapped string) []string {
				return []string{in, wrapped, in, "{not json", wrapped}
			},
		},
		{
			name: "the other entries changed since: only this entry's bytes count",
			loc:  loc,
			in:   claude,
			earlier: func(in, _ string) []string {
				return []string{strings.Replace(in, `"TOKEN": "x"`, `"TOKEN": "old", "MORE": "y"`, 1)}
			},
		},
		{
			name:    "the entry had another command then: the member goes",
			loc:     loc,
			in:      claude,
			earlier: func(in, _ string) []string { return []string{strings.Replace(in, "mcp-server-fs", "old-fs", 1)} },
			back:    strings.Replace(claude, "\n      \"args\": [],", "", 1),
		},
		{
			name:    "no backup: the member goes",
			loc:     loc,
			in:      claude,
			earlier: func(string, string) []string { return nil },
			back:    strings.Replace(claude, "\n      \"args\": [],", "", 1),
		},
		{
			name:    "an entry that had no args keeps none",
			loc:     loc,
			in:      strings.Replace(claude, "\n      \"args\": [],", "", 1),
			earlier: func(in, _ string) []string { return []string{in, claude} },
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wrapped, _, err := Wrap([]byte(tt.in), tt.loc, nil, bin)
			if err != nil {
				t.Fatal(err)
			}
			backups := tt.earlier(tt.in, string(wrapped))
			read := 0
			opts := &UnwrapOptions{Earlier: func(yield func([]byte) bool) {
				for _, b := range backups {
					read++
					if !yield([]byte(b)) {
						return
					}
				}
			}}
			back, changes, err := Unwrap(wrapped, tt.loc, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.back
			if want == "" {
				want = tt.in
			}
			if diff := cmp.Diff(want, string(back)); diff != "" {
				t.Errorf("unwrap mismatch (-want +got):\n%s", diff)
			}
			if len(changes) != 1 || changes[0].Outcome != Unwrapped {
				t.Errorf("changes %+v", changes)
			}
			if tt.back == "" && read > 3 {
				t.Errorf("%d backups read, want only as many as it took", read)
			}
		})
	}
}

// TestHostsUnwrapReadsBackupsOnlyWhenNeeded: entries whose wrapped bytes
// say what they were never open a backup (a ~/.claude.json backup can be
// tens of megabytes).
func TestHostsUnwrapReadsBackupsOnlyWhenNeeded(t *testing.T) {
	in := `{"s": {"a": {"command": "x", "args": ["p"]}, "b": {"command": "y"}, "c": {"args": [ ], "command": "z"}}}`
	wrapped, _, err := Wrap([]byte(in), jsonLoc, nil, "/bin/elicitray")
	if err != nil {
		t.Fatal(err)
	}
	opts := &UnwrapOptions{Earlier: func(yield func([]byte) bool) {
		t.Error("a backup was read")
	}}
	back, _, err := Unwrap(wrapped, jsonLoc, []string{"a", "c"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"s": {"a": {"command": "x", "args": ["p"]}, "b": {"command": "/bin/elicitray", "args": ["wrap", "--name", "b", "--", "y"]}, "c": {"args": [ ], "command": "z"}}}`
	if diff := cmp.Diff(want, string(back)); diff != "" {
		t.Errorf("unwrap mismatch (-want +got):\n%s", diff)
	}
}

// jsonString is s as a JSON string: a Windows path's backslashes escaped.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
