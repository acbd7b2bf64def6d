package hosts

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hostLoc is the location of a file of host's shape.
func hostLoc(host string) Location {
	l := jsonLoc
	l.Host = host
	if host == "codex" {
		l = tomlLoc
		l.Host = host
	}
	return l
}

// TestHostsRemoteSplices: remote entries as each host writes them, wrapped
// as a user would expect to read them (a secret never on the command line;
// the host's own variables left for the host to expand, in env), wrapped
// again without change, and unwrapped with no backup to what they were.
func TestHostsRemoteSplices(t *testing.T) {
	const bin = "/usr/local/bin/elicitray"
	for _, tt := range []struct {
		name    string
		host    string
		in      string
		wrapped string
		back    string // with no backup; "" is in
		note    string // what Change.Note says, in part
	}{
		{
			name:    "Claude Code: a bearer token from ${VAR}",
			host:    "claude-code",
			in:      `{"s": {"docs": {"type": "http", "url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}}}`,
			wrapped: `{"s": {"docs": {"type": "stdio", "command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "docs", "--url", "https://docs.example.com/mcp", "--bearer-env", "DOCS_TOKEN"], "env": {"DOCS_TOKEN": "${DOCS_TOKEN}"}}}}`,
			note:    "Authorization from ${DOCS_TOKEN}, through the entry's env",
		},
		{
			name:    "Claude Code: ${VAR:-default} is the host's to expand",
			host:    "claude-code",
			in:      `{"s": {"d": {"type": "sse", "url": "https://d.example.com/sse", "headers": {"X-Region": "${REGION:-eu}"}}}}`,
			wrapped: `{"s": {"d": {"type": "stdio", "command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "d", "--url", "https://d.example.com/sse", "--header-env", "X-Region=ELICITRAY_HEADER_X_REGION"], "env": {"ELICITRAY_HEADER_X_REGION": "${REGION:-eu}"}}}}`,
		},
		{
			// VS Code keeps an input's value in its secret storage and
			// resolves ${input:…} in env as in headers: the reference moves,
			// the secret never reaches the file or the command line.
			name:    "VS Code: a token from ${input:…}",
			host:    "vscode",
			in:      `{"s": {"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${input:github-token}"}}}}`,
			wrapped: `{"s": {"gh": {"type": "stdio", "command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "gh", "--url", "https://api.githubcopilot.com/mcp/", "--header-env", "Authorization=ELICITRAY_HEADER_AUTHORIZATION"], "env": {"ELICITRAY_HEADER_AUTHORIZATION": "Bearer ${input:github-token}"}}}}`,
		},
		{
			name:    "VS Code: a key from ${env:VAR}, a plain header on the command line",
			host:    "vscode",
			in:      `{"s": {"n": {"type": "http", "url": "https://n.example.com/mcp", "headers": {"X-Api-Key": "${env:N_KEY}", "Accept-Language": "fr"}}}}`,
			wrapped: `{"s": {"n": {"type": "stdio", "command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "n", "--url", "https://n.example.com/mcp", "--header-env", "X-Api-Key=N_KEY", "--header", "Accept-Language: fr"], "env": {"N_KEY": "${env:N_KEY}"}}}}`,
		},
		{
			name:    "Cursor: literal secrets move to env, escapes and all",
			host:    "cursor",
			in:      `{"s": {"r": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer sk-\u00e9t\u00e9", "X-Trace": "0123456789abcdef0123456789"}}}}`,
			wrapped: `{"s": {"r": {"command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "r", "--url", "https://example.com/mcp", "--header-env", "Authorization=ELICITRAY_HEADER_AUTHORIZATION", "--header-env", "X-Trace=ELICITRAY_HEADER_X_TRACE"], "env": {"ELICITRAY_HEADER_AUTHORIZATION": "Bearer sk-\u00e9t\u00e9", "ELICITRAY_HEADER_X_TRACE": "0123456789abcdef0123456789"}}}}`,
			note:    "Authorization: its value moved into the entry's env as ELICITRAY_HEADER_AUTHORIZATION, not onto the command line",
		},
		{
			name:    "two headers whose variables would share a name",
			host:    "cursor",
			in:      `{"s": {"r": {"url": "https://example.com/mcp", "headers": {"X-Key": "a", "X_Key": "b"}}}}`,
			wrapped: `{"s": {"r": {"command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "r", "--url", "https://example.com/mcp", "--header-env", "X-Key=ELICITRAY_HEADER_X_KEY", "--header-env", "X_Key=ELICITRAY_HEADER_X_KEY_2"], "env": {"ELICITRAY_HEADER_X_KEY": "a", "ELICITRAY_HEADER_X_KEY_2": "b"}}}}`,
		},
		{
			name:    "Windsurf: serverUrl, other keys kept where they are",
			host:    "windsurf",
			in:      `{"s": {"f": {"disabled": false, "serverUrl": "https://mcp.figma.com/sse", "disabledTools": ["x"]}}}`,
			wrapped: `{"s": {"f": {"disabled": false, "command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "f", "--url", "https://mcp.figma.com/sse"], "disabledTools": ["x"]}}}`,
		},
		{
			name:    "Gemini CLI: url is SSE, and comes back as url",
			host:    "gemini",
			in:      `{"s": {"e": {"url": "http://localhost:8080/sse", "headers": {"Authorization": "Bearer $GEMINI_TOKEN"}, "trust": true}}}`,
			wrapped: `{"s": {"e": {"command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "e", "--url", "http://localhost:8080/sse", "--bearer-env", "GEMINI_TOKEN"], "env": {"GEMINI_TOKEN": "$GEMINI_TOKEN"}, "trust": true}}}`,
		},
		{
			name:    "Zed: no variables, the literal token moves to env",
			host:    "zed",
			in:      `{"s": {"r": {"url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer token" }}}}`,
			wrapped: `{"s": {"r": {"command": "/usr/local/bin/elicitray", "args": ["wrap", "--name", "r", "--url", "https://mcp.example.com/mcp", "--header-env", "Authorization=ELICITRAY_HEADER_AUTHORIZATION"], "env": { "ELICITRAY_HEADER_AUTHORIZATION": "Bearer token" }}}}`,
		},
		{
			name:    "JSON with comments: a comment between remote members goes (the backup keeps it)",
			host:    "vscode",
			in:      "{\"s\": {\"g\": {\n  \"type\": \"http\", // remote\n  \"url\": \"https://g.example.com/mcp\",\n}}}",
			wrapped: "{\"s\": {\"g\": {\n  \"type\": \"stdio\",\n  \"command\": \"/usr/local/bin/elicitray\",\n  \"args\": [\"wrap\", \"--name\", \"g\", \"--url\", \"https://g.example.com/mcp\"],\n}}}",
			back:    "{\"s\": {\"g\": {\n  \"type\": \"http\",\n  \"url\": \"https://g.example.com/mcp\",\n}}}",
		},
		{
			name:    "Codex: bearer_token_env_var passed through env_vars",
			host:    "codex",
			in:      "[mcp_servers.figma]\nurl = \"https://mcp.figma.com/mcp\"\nbearer_token_env_var = \"FIGMA_OAUTH_TOKEN\"\nstartup_timeout_sec = 20\n",
			wrapped: "[mcp_servers.figma]\ncommand = \"/usr/local/bin/elicitray\"\nargs = [\"wrap\", \"--name\", \"figma\", \"--url\", \"https://mcp.figma.com/mcp\", \"--bearer-env\", \"FIGMA_OAUTH_TOKEN\"]\nenv_vars = [\"FIGMA_OAUTH_TOKEN\"]\nstartup_timeout_sec = 20\n",
			note:    "Authorization from $FIGMA_OAUTH_TOKEN, which Codex passes on (env_vars)",
		},
		{
			name:    "Codex: http_headers and env_http_headers",
			host:    "codex",
			in:      "[mcp_servers.c]\nurl = \"https://c.example.test/mcp\"\nhttp_headers = { X-Client = \"review\", Authorization = \"Bearer abc\" }\nenv_http_headers = { X-Tenant = \"TENANT\" }\n",
			wrapped: "[mcp_servers.c]\ncommand = \"/usr/local/bin/elicitray\"\nargs = [\"wrap\", \"--name\", \"c\", \"--url\", \"https://c.example.test/mcp\", \"--header\", \"X-Client: review\", \"--header-env\", \"Authorization=ELICITRAY_HEADER_AUTHORIZATION\", \"--header-env\", \"X-Tenant=TENANT\"]\nenv_vars = [\"TENANT\"]\nenv = { ELICITRAY_HEADER_AUTHORIZATION = \"Bearer abc\" }\n",
		},
		{
			name:    "Codex: dotted keys at the top, CRLF lines",
			host:    "codex",
			in:      "mcp_servers.x.url = \"https://x.example.com/mcp\"\r\nmcp_servers.x.bearer_token_env_var = \"X_TOKEN\"\r\n",
			wrapped: "mcp_servers.x.command = \"/usr/local/bin/elicitray\"\r\nmcp_servers.x.args = [\"wrap\", \"--name\", \"x\", \"--url\", \"https://x.example.com/mcp\", \"--bearer-env\", \"X_TOKEN\"]\r\nmcp_servers.x.env_vars = [\"X_TOKEN\"]\r\n",
		},
		{
			name:    "Codex: a [headers] sub-table comes back inline (the backup keeps it)",
			host:    "codex",
			in:      "[mcp_servers.n]\nurl = \"https://n.example.com/mcp\"\n\n[mcp_servers.n.http_headers]\nAuthorization = \"Bearer s3cr3t\"\n\n[other]\nk = 1\n",
			wrapped: "[mcp_servers.n]\ncommand = \"/usr/local/bin/elicitray\"\nargs = [\"wrap\", \"--name\", \"n\", \"--url\", \"https://n.example.com/mcp\", \"--header-env\", \"Authorization=ELICITRAY_HEADER_AUTHORIZATION\"]\nenv = { ELICITRAY_HEADER_AUTHORIZATION = \"Bearer s3cr3t\" }\n\n[other]\nk = 1\n",
			back:    "[mcp_servers.n]\nurl = \"https://n.example.com/mcp\"\nhttp_headers = { Authorization = \"Bearer s3cr3t\" }\n\n[other]\nk = 1\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			loc := hostLoc(tt.host)
			out, changes, err := Wrap([]byte(tt.in), loc, nil, bin)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wrapped, string(out)); diff != "" {
				t.Errorf("wrapped mismatch (-want +got):\n%s", diff)
			}
			if len(changes) != 1 || changes[0].Outcome != Wrapped || !strings.Contains(changes[0].Note, tt.note) {
				t.Errorf("changes %+v, want one wrapped saying %q", changes, tt.note)
			}
			again, changes, err := Wrap(out, loc, nil, bin)
			if err != nil || string(again) != string(out) || changes[0].Outcome != AlreadyWrapped {
				t.Errorf("second wrap: %v %+v\n%s", err, changes, again)
			}
			back, changes, err := Unwrap(out, loc, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.back
			if want == "" {
				want = tt.in
			}
			if diff := cmp.Diff(want, string(back)); diff != "" {
				t.Errorf("unwrapped mismatch (-want +got):\n%s", diff)
			}
			if changes[0].Outcome != Unwrapped || changes[0].Entry.State != StateRemote {
				t.Errorf("unwrap: %+v", changes)
			}
			// With the backup wrap made, unwrap is exact whatever the shape.
			exact, _, err := Unwrap(out, loc, nil, &UnwrapOptions{Earlier: slices.Values([][]byte{[]byte(tt.in)})})
			if err != nil || string(exact) != tt.in {
				t.Errorf("unwrap with the backup: %v\n%s", err, cmp.Diff(tt.in, string(exact)))
			}
		})
	}
}

// TestHostsRemoteRefused: remote entries Wrap leaves alone, each with the
// reason a user reads (Entry.Note, and the error when named), and the file
// unchanged.
func TestHostsRemoteRefused(t *testing.T) {
	for _, tt := range []struct {
		name, host, entry, note string
	}{
		{"a password in the URL", "cursor", `{"url": "https://me:pw@example.com/mcp"}`, "its url has a user name or password in it, and elicitray wrap would have the URL on its command line, which other users of this computer can read"},
		{"a key parameter", "cursor", `{"url": "https://server.smithery.ai/x/mcp?api_key=0123"}`, "its url may hold a secret (the api_key parameter)"},
		{"a token-like parameter", "cursor", `{"url": "https://example.com/mcp?s=a1b2c3d4e5f6g7h8i9j0k1"}`, "its url may hold a secret (the s parameter)"},
		{"a token in the path", "cursor", `{"url": "https://mcp.zapier.com/api/mcp/s/NjA1ZjQ2ZDgtOGQ2Zi00YjA5LTk/mcp"}`, "a token-like part of its path"},
		{"a variable in the query", "claude-code", `{"type": "http", "url": "https://example.com/mcp?k=${KEY}"}`, "its url refers to a variable"},
		{"not http", "cursor", `{"url": "ws://example.com/mcp"}`, "its url is not an http or https URL"},
		{"Claude Code's headersHelper", "claude-code", `{"type": "http", "url": "https://example.com/mcp", "headersHelper": "/bin/h"}`, "its headers come from a headersHelper command"},
		{"Gemini CLI signing in itself", "gemini", `{"httpUrl": "https://example.com/mcp", "authProviderType": "google_credentials"}`, "it signs in through a provider"},
		{"a number as a header", "cursor", `{"url": "https://example.com/mcp", "headers": {"X-N": 1}}`, "its headers are not all strings"},
		{"a header name with a space", "cursor", `{"url": "https://example.com/mcp", "headers": {"X N": "v"}}`, `its header "X N" is not a valid HTTP header name`},
		{"env beside url", "cursor", `{"url": "https://example.com/mcp", "env": {"A": "b"}}`, "it has env beside its url"},
		{"Codex OAuth settings", "codex", "[mcp_servers.r]\nurl = \"https://example.com/mcp\"\noauth_resource = \"https://example.com\"\n", "it has OAuth settings (oauth_resource)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			loc := hostLoc(tt.host)
			in := `{"s": {"r": ` + tt.entry + `}}`
			if tt.host == "codex" {
				in = tt.entry
			}
			es, err := Read([]byte(in), loc)
			if err != nil {
				t.Fatal(err)
			}
			if es[0].State != StateRemote || !strings.Contains(es[0].Note, tt.note) {
				t.Errorf("entry %+v, want remote with a note saying %q", es[0], tt.note)
			}
			out, changes, err := Wrap([]byte(in), loc, nil, "/bin/elicitray")
			if err != nil || string(out) != in || changes[0].Outcome != Skipped || !strings.Contains(changes[0].Note, tt.note) {
				t.Errorf("wrap all: %v %+v\n%s", err, changes, out)
			}
			_, _, err = Wrap([]byte(in), loc, []string{"r"}, "/bin/elicitray")
			if !errors.Is(err, ErrRemote) || !strings.Contains(err.Error(), tt.note) {
				t.Errorf("wrap r: %v", err)
			}
		})
	}
}

// TestHostsRemoteHostRewrote: Claude Code rewrites ~/.claude.json all the
// time (a counter, a new project). A wrapped remote entry written as
// Claude Code writes JSON survives that, and unwrap still takes its bytes
// from the backup, whatever else changed in the file.
func TestHostsRemoteHostRewrote(t *testing.T) {
	loc := hostLoc("claude-code")
	loc.Servers = mcpServers
	const orig = "{\n  \"numStartups\": 1,\n  \"mcpServers\": {\n    \"sentry\": {\n      \"type\": \"http\",\n      \"url\": \"https://mcp.sentry.dev/mcp\",\n      \"headers\": {\"Authorization\": \"Bearer ${SENTRY_TOKEN}\"}\n    }\n  }\n}\n"
	wrapped, _, err := Wrap([]byte(orig), loc, nil, "/opt/bin/elicitray")
	if err != nil {
		t.Fatal(err)
	}
	rewritten := strings.Replace(string(wrapped), `"numStartups": 1`, `"numStartups": 2, "tipsHistory": {}`, 1)
	back, _, err := Unwrap([]byte(rewritten), loc, nil, &UnwrapOptions{Earlier: slices.Values([][]byte{[]byte(orig)})})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(orig, `"numStartups": 1`, `"numStartups": 2, "tipsHistory": {}`, 1)
	if diff := cmp.Diff(want, string(back)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	// A backup whose entry differs (the user changed the URL since) is
	// passed over, and the entry is written from its flags.
	other := strings.Replace(orig, "mcp.sentry.dev", "old.sentry.dev", 1)
	back, _, _ = Unwrap([]byte(rewritten), loc, nil, &UnwrapOptions{Earlier: slices.Values([][]byte{[]byte(other)})})
	if diff := cmp.Diff(want, string(back)); diff != "" {
		t.Errorf("with a stale backup, mismatch (-want +got):\n%s", diff)
	}
}

// TestHostsRemoteUnwrapRefused: a wrapped remote entry that unwrap cannot
// turn back without losing something says so, and nothing changes.
func TestHostsRemoteUnwrapRefused(t *testing.T) {
	for _, tt := range []struct{ name, host, entry, msg string }{
		{"an env no header uses", "cursor", `{"command": "elicitray", "args": ["wrap", "--name", "r", "--url", "https://e.example/mcp"], "env": {"OTHER": "x"}}`, `"r" cannot be unwrapped: its env has OTHER, which no header uses`},
		{"a variable Zed cannot name", "zed", `{"command": "elicitray", "args": ["wrap", "--name", "r", "--url", "https://e.example/mcp", "--bearer-env", "TOKEN"]}`, "its Authorization comes from $TOKEN, and this host's config has no way to name a variable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Unwrap([]byte(`{"s": {"r": `+tt.entry+`}}`), hostLoc(tt.host), nil, nil)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v, want one saying %q", err, tt.msg)
			}
		})
	}
	// A variable the wrapper gets from the host's own environment comes
	// back as the host names it.
	out, _, err := Unwrap([]byte(`{"s": {"r": {"command": "elicitray", "args": ["wrap", "--name", "r", "--url", "https://e.example/mcp", "--bearer-env", "TOKEN", "--header-env", "X-K=K"]}}}`), hostLoc("cursor"), nil, nil)
	if want := `{"s": {"r": {"url": "https://e.example/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}", "X-K": "${env:K}"}}}}`; err != nil || string(out) != want {
		t.Errorf("%v\n%s", err, cmp.Diff(want, string(out)))
	}
}

// FuzzHostsRemote: whatever the remote entry, Wrap either refuses it or
// writes an entry that Unwrap, with the backup, turns back byte for byte
// and, with none, back into a remote entry the host reads the same.
func FuzzHostsRemote(f *testing.F) {
	hosts := []string{"claude-code", "vscode", "cursor", "windsurf", "gemini", "zed", "codex", "file"}
	f.Add(uint8(0), `{"s": {"docs": {"type": "http", "url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}}}`)
	f.Add(uint8(0), "{\n  \"s\": {\n    \"a\": {\n      \"type\": \"sse\",\n      \"url\": \"http://localhost:9000/sse\"\n    }\n  }\n}\n")
	f.Add(uint8(1), `{"s": {"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${input:t}", "X": "y"}}}}`)
	f.Add(uint8(2), `{"s": {"r": {"url": "https://example.com/mcp", "headers": {"X-Key": "a", "X_Key": "b"}}}}`)
	f.Add(uint8(3), `{"s": {"f": {"disabled": false, "serverUrl": "https://mcp.figma.com/sse", "disabledTools": ["x"]}}}`)
	f.Add(uint8(4), `{"s": {"e": {"url": "http://localhost:8080/sse", "headers": {"Authorization": "Bearer $T"}, "trust": true}}}`)
	f.Add(uint8(5), "{\"s\": {\"g\": {\n  \"url\": \"https://g.example.com/mcp\", // c\n  \"headers\": { \"A\": \"b\" },\n}}}")
	f.Add(uint8(6), "[mcp_servers.c]\nurl = \"https://c.example.test/mcp\"\nhttp_headers = { X-Client = \"review\", Authorization = \"Bearer abc\" }\nenv_http_headers = { X-Tenant = \"TENANT\" }\n")
	f.Add(uint8(6), "[mcp_servers.n]\nurl = \"https://n.example.com/mcp\" # c\n\n[mcp_servers.n.http_headers]\nAuthorization = \"Bearer s3cr3t\"\n\n[other]\nk = 1\n")
	f.Add(uint8(6), "[mcp_servers]\nr = { url = \"https://e.example/mcp\", bearer_token_env_var = \"T\" }\n")
	f.Add(uint8(6), "mcp_servers.x.url = \"https://x.example.com/mcp\"\r\nmcp_servers.x.bearer_token_env_var = \"X_TOKEN\"\r\n")
	f.Fuzz(func(t *testing.T, h uint8, in string) {
		loc := hostLoc(hosts[int(h)%len(hosts)])
		out, changes, err := Wrap([]byte(in), loc, nil, "/bin/elicitray")
		if err != nil || string(out) == in {
			return
		}
		if !slices.ContainsFunc(changes, func(c Change) bool { return c.Outcome == Wrapped && strings.HasPrefix(c.Note, "remote ") }) {
			return // only command entries changed: TestHostsSplices' ground
		}
		back, _, err := Unwrap(out, loc, nil, &UnwrapOptions{Earlier: slices.Values([][]byte{[]byte(in)})})
		if err != nil {
			t.Fatalf("unwrap with the backup: %v\n%s", err, out)
		}
		want := []byte(in)
		if again, _, err := Wrap(back, loc, nil, "/bin/elicitray"); err != nil || string(again) != string(out) {
			t.Fatalf("wrap, unwrap, wrap gives another file: %v\n%s\n%s", err, out, again)
		}
		fresh, _, err := Unwrap(out, loc, nil, nil)
		if err != nil {
			t.Fatalf("unwrap without a backup: %v\n%s", err, out)
		}
		// Which member names the URL, and the type, are what the flags do
		// not keep (transport guesses them); the goldens check the guess.
		blank := cmp.Transformer("transport", func(v remoteView) remoteView { v.URLKey, v.Type = "", ""; return v })
		if diff := cmp.Diff(remotes(t, want, loc), remotes(t, fresh, loc), blank); diff != "" {
			t.Fatalf("unwrap without a backup mismatch (-want +got):\n%s\nwrapped:\n%s\nunwrapped:\n%s", diff, out, fresh)
		}
	})
}
