package hosts

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Remote entries: a server the host reaches by URL. Wrap turns one into the
// host's command form running `elicitray wrap --name KEY --url URL` with its
// headers as flags, and Unwrap turns it back.
//
// Where each header goes (PROTOCOL.md §12: tokens travel in headers, never
// in the URL):
//
//   - A value that is one of the host's own variable references (Claude
//     Code `${VAR}`, VS Code, Cursor and Windsurf `${env:VAR}`, Gemini CLI
//     `$VAR`), or `Bearer ` and one: `--header-env NAME=VAR` (or
//     `--bearer-env VAR`), and the entry's env gets `"VAR": "${VAR}"`, the
//     reference as it was, which the host expands in env as it did in
//     headers. Hosts start commands with little of their own environment
//     (DESIGN.md, "Hosts strip the environment"), so the env member is what
//     brings the value to the wrapper.
//   - A value that looks secret (by the header's name: Authorization,
//     *token*, *key*…, or by the value: `Bearer …`, a long token) or holds
//     any `$` (another host variable, VS Code's `${input:…}` included, which
//     VS Code keeps in its secret storage and resolves in env too): its
//     bytes move, as they were, into env as ELICITRAY_HEADER_NAME, and the
//     flag is `--header-env NAME=ELICITRAY_HEADER_NAME`. The secret stays
//     in the same file and reaches only the wrapper's environment, which
//     only the user can read, never its command line, which every user of
//     the machine can (ps, /proc/PID/cmdline).
//   - Any other value: `--header 'NAME: value'`.
//   - Codex: bearer_token_env_var VAR is `--bearer-env VAR` and
//     env_http_headers NAME=VAR `--header-env NAME=VAR`, with VAR in
//     env_vars, which Codex passes through from its own environment;
//     http_headers are literal values, as above.
//
// A URL that may hold a secret (a password, a key or token parameter, a
// token-like path segment, a variable) cannot be wrapped: `--url` is on the
// command line. Nor can an entry with settings the wrapper has no flag for
// (OAuth client settings, Claude Code's headersHelper).
//
// Unwrap gives the entry's bytes back from the newest backup whose entry,
// wrapped, reads as this one does (restore.go); with none it writes the
// host's remote form from the flags and env, in the entry's style.

// remote is what a remote entry connects to, as found in the file.
type remote struct {
	url     string
	typ     string // the "type" member's string ("http", "sse"), "" for none
	headers []header
}

// header is one header of a remote entry.
type header struct {
	name  string
	value string // the literal value ("" for one from a variable)
	tok   string // the value's token as written, for a literal
	// envVar is the variable Codex takes the value from (env_http_headers,
	// bearer_token_env_var), "" for a literal.
	envVar string
	bearer bool // Codex bearer_token_env_var: "Authorization: Bearer $envVar"
}

// hostForm is how one host writes remote entries and refers to variables.
type hostForm struct {
	urlKey string // the member naming the URL
	sseKey string // the member for an SSE endpoint ("" is urlKey): Gemini's url
	// typed: the host marks entries "type": "stdio", "http" or "sse", so
	// Wrap writes "stdio" in place of a remote entry's type (and Unwrap
	// "http" or "sse" in place of that). For the other hosts a remote
	// entry's type is dropped, as "http" beside a command would confuse.
	typed bool
	// ref writes a reference to variable name as the host expands it in
	// config values; nil when it expands none.
	ref func(name string) string
	// single matches a value that is one reference, capturing the name.
	single *regexp.Regexp
}

var (
	dollarBrace = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)
	envColon    = regexp.MustCompile(`^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$`)
	dollarAny   = regexp.MustCompile(`^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$`)
)

// hostForms are the remote forms of the hosts (by Location.Host, or the
// host a --config file is in the format of: Location.As). Claude
// Desktop's config has no remote form (remote servers are connectors, set
// in the app, not in the file), so a url entry there is read generically.
var hostForms = map[string]hostForm{
	"claude-code": {urlKey: "url", typed: true, ref: func(n string) string { return "${" + n + "}" }, single: dollarBrace},
	"vscode":      {urlKey: "url", typed: true, ref: func(n string) string { return "${env:" + n + "}" }, single: envColon},
	"cursor":      {urlKey: "url", ref: func(n string) string { return "${env:" + n + "}" }, single: envColon},
	"windsurf":    {urlKey: "serverUrl", ref: func(n string) string { return "${env:" + n + "}" }, single: envColon},
	"gemini":      {urlKey: "httpUrl", sseKey: "url", ref: func(n string) string { return "${" + n + "}" }, single: dollarAny},
	"codex":       {urlKey: "url"},
}

// formOf is the remote form of the host named host (Location.dialect); a file
// named with --config, whose host is not known, gets the generic one.
func formOf(host string) hostForm {
	if f, ok := hostForms[host]; ok {
		return f
	}
	return hostForm{urlKey: "url"}
}

// singleRef returns the variable a value names when it is exactly one
// reference in the host's syntax.
func (f hostForm) singleRef(v string) (string, bool) {
	if f.single == nil {
		return "", false
	}
	m := f.single.FindStringSubmatch(v)
	if m == nil {
		return "", false
	}
	for _, g := range m[1:] {
		if g != "" {
			return g, true
		}
	}
	return "", false
}

// Members a remote entry has that a command entry does not, and those a
// wrapped one has that a remote entry does not.
var (
	jsonRemoteKeys  = []string{"type", "url", "serverUrl", "httpUrl", "headers"}
	tomlRemoteKeys  = []string{"url", "bearer_token_env_var", "http_headers", "env_http_headers"}
	jsonWrappedKeys = []string{"type", "command", "args", "env"}
	tomlWrappedKeys = []string{"command", "args", "env", "env_vars"}
	// blockingKeys are settings of a remote entry that `elicitray wrap` has
	// no flag for, so wrapping would drop them; and members a command
	// entry would take otherwise (args, env).
	blockingKeys = map[string]string{
		"headersHelper":    "its headers come from a headersHelper command, which elicitray wrap cannot run",
		"oauth":            "it has OAuth settings (oauth), which elicitray wrap does not take",
		"oauth_resource":   "it has OAuth settings (oauth_resource), which elicitray wrap does not take",
		"auth":             "it has sign-in settings (auth), which elicitray wrap does not take",
		"authProviderType": "it signs in through a provider (authProviderType), which elicitray wrap does not do",
		"bearer_token":     "it has an inline bearer_token, which Codex refuses: use bearer_token_env_var",
		"args":             "it has args beside its url",
		"env":              "it has env beside its url",
		"env_vars":         "it has env_vars beside its url",
	}
)

// secretName matches header and parameter names whose values are secrets.
var secretName = regexp.MustCompile(`(?i)auth|token|key|secret|passw|cookie|session|credential|signature|sig$|jwt|bearer`)

// authScheme matches a value that starts with an authorization scheme.
var authScheme = regexp.MustCompile(`(?i)^(bearer|basic|token|digest)\s`)

// tokenLike reports whether s looks like a token: long, one word of the
// characters tokens are made of, letters and digits both.
func tokenLike(s string, min int) bool {
	if len(s) < min {
		return false
	}
	var letter, digit bool
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune("-_.~+/=", r):
		default:
			return false
		}
	}
	return letter && digit
}

// secretHeader reports whether a literal header value must stay off the
// command line.
func secretHeader(name, value string) bool {
	return secretName.MatchString(name) || authScheme.MatchString(value) ||
		tokenLike(value, 20) || strings.Contains(value, "$")
}

// varName matches the name of an environment variable.
var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// httpToken matches a header name (RFC 9110 token).
var httpToken = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// urlBlocker says why a URL cannot go on the wrapper's command line, or "".
func urlBlocker(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "its url is not an http or https URL elicitray can read"
	}
	const why = ", and elicitray wrap would have the URL on its command line, which other users of this computer can read: move the secret into a header to wrap it"
	if u.User != nil {
		return "its url has a user name or password in it" + why
	}
	rest := strings.TrimPrefix(raw, u.Scheme+"://")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[i:]
	} else {
		rest = ""
	}
	if strings.Contains(rest, "$") {
		return "its url refers to a variable, which may hold a secret" + why
	}
	for k, vs := range u.Query() {
		for _, v := range vs {
			if secretName.MatchString(k) || tokenLike(v, 20) {
				return fmt.Sprintf("its url may hold a secret (the %s parameter)", k) + why
			}
		}
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if tokenLike(seg, 24) {
			return "its url may hold a secret (a token-like part of its path)" + why
		}
	}
	return ""
}

// remoteBlocker says why the remote entry r cannot be wrapped, or "".
func remoteBlocker(r *rawEntry) string {
	for _, m := range r.members {
		if why, ok := blockingKeys[m.key]; ok {
			return why
		}
	}
	if r.remoteNote != "" {
		return r.remoteNote
	}
	if why := urlBlocker(r.URL); why != "" {
		return why
	}
	for _, h := range r.remote.headers {
		if !httpToken.MatchString(h.name) {
			return fmt.Sprintf("its header %q is not a valid HTTP header name", h.name)
		}
		if strings.ContainsAny(h.value, "\r\n") {
			return fmt.Sprintf("its header %s has a line break in its value", h.name)
		}
		if h.bearer && !varName.MatchString(h.envVar) {
			return fmt.Sprintf("its bearer_token_env_var %q is not the name of a variable", h.envVar)
		}
		if !h.bearer && h.tok == "" && !varName.MatchString(h.envVar) {
			return fmt.Sprintf("its env_http_headers give %s a variable %q, which is not the name of one", h.name, h.envVar)
		}
	}
	return ""
}

// newMember is a member Wrap or Unwrap writes: its key and its value as
// written in the file's syntax.
type newMember struct{ key, text string }

// plan is what Wrap writes for a remote entry.
type plan struct {
	args    []string   // after the binary
	env     []newEntry // the entry's env: name and value token
	envVars []string   // Codex env_vars
	notes   []string   // what happened to each header, for Change.Note
}

// newEntry is one member of an env map Wrap writes.
type newEntry struct{ name, text string }

// envName is the variable a literal header value moves to.
func envName(header string) string {
	var b strings.Builder
	b.WriteString("ELICITRAY_HEADER_")
	for _, r := range strings.ToUpper(header) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// planRemote works out the flags and env of a wrapped remote entry.
func planRemote(syn syntax, r *rawEntry, form hostForm) plan {
	p := plan{args: []string{"wrap", "--name", r.Key, "--url", r.URL}}
	// addEnv adds a variable holding text, named base (base_2… when base
	// holds something else), and returns its name.
	addEnv := func(base, text string) string {
		name := base
		for i := 2; ; i++ {
			j := slices.IndexFunc(p.env, func(e newEntry) bool { return e.name == name })
			if j < 0 {
				p.env = append(p.env, newEntry{name, text})
				return name
			}
			if p.env[j].text == text {
				return name
			}
			name = fmt.Sprintf("%s_%d", base, i)
		}
	}
	addVar := func(v string) {
		if !slices.Contains(p.envVars, v) {
			p.envVars = append(p.envVars, v)
		}
	}
	for _, h := range r.remote.headers {
		switch {
		case h.envVar != "" && h.bearer:
			p.args = append(p.args, "--bearer-env", h.envVar)
			addVar(h.envVar)
			p.notes = append(p.notes, fmt.Sprintf("Authorization from $%s, which Codex passes on (env_vars)", h.envVar))
		case h.envVar != "":
			p.args = append(p.args, "--header-env", h.name+"="+h.envVar)
			addVar(h.envVar)
			p.notes = append(p.notes, fmt.Sprintf("%s from $%s, which Codex passes on (env_vars)", h.name, h.envVar))
		default:
			if rest, ok := strings.CutPrefix(h.value, "Bearer "); ok && h.name == "Authorization" {
				if v, ok := form.singleRef(rest); ok {
					v = addEnv(v, syn.quote(rest))
					p.args = append(p.args, "--bearer-env", v)
					p.notes = append(p.notes, fmt.Sprintf("Authorization from %s, through the entry's env", rest))
					continue
				}
			}
			if v, ok := form.singleRef(h.value); ok {
				v = addEnv(v, h.tok)
				p.args = append(p.args, "--header-env", h.name+"="+v)
				p.notes = append(p.notes, fmt.Sprintf("%s from %s, through the entry's env", h.name, h.value))
				continue
			}
			if secretHeader(h.name, h.value) || strings.TrimSpace(h.value) != h.value {
				// (Spaces around a value are not part of it in HTTP, and
				// would not come back from --header; env keeps them.)
				v := addEnv(envName(h.name), h.tok)
				p.args = append(p.args, "--header-env", h.name+"="+v)
				p.notes = append(p.notes, fmt.Sprintf("%s: its value moved into the entry's env as %s, not onto the command line", h.name, v))
				continue
			}
			p.args = append(p.args, "--header", h.name+": "+h.value)
		}
	}
	return p
}

// wrapRemote is Wrap for one remote entry: its remote members give way to
// the host's command form, every other member stays as it is.
func wrapRemote(syn syntax, data []byte, r *rawEntry, bin string) ([]splice, Change, error) {
	e := r.Entry
	if e.Note != "" {
		return nil, Change{}, fmt.Errorf("%q is a %w (%s): %s", e.Key, ErrRemote, e.URL, e.Note)
	}
	if e.Key == "" {
		return nil, Change{}, fmt.Errorf(`%w: elicitray wrap --name needs a name (prompts and the history would call the server "elicitray"); give the entry a name in the file first`, ErrEmptyKey)
	}
	form := formOf(r.host)
	p := planRemote(syn, r, form)
	var add []newMember
	remoteKeys := jsonRemoteKeys
	if r.toml {
		remoteKeys = tomlRemoteKeys
	} else if r.remote.typ != "" && (form.typed || r.host == "" || r.host == "file") {
		add = append(add, newMember{"type", syn.quote("stdio")})
	}
	st := r.styleFor(data, remoteKeys, "headers")
	add = append(add, newMember{"command", syn.quote(bin)}, newMember{"args", st.strArray(syn, p.args)})
	if r.toml && len(p.envVars) > 0 {
		add = append(add, newMember{"env_vars", st.strArray(syn, p.envVars)})
	}
	if len(p.env) > 0 {
		add = append(add, newMember{"env", st.strMap(syn, p.env)})
	}
	s := r.replaceMembers(syn, data, remoteKeys, add, st)
	want := e
	want.State, want.Binary, want.Server = StateWrapped, bin, nil
	note := "remote " + e.URL
	if len(p.notes) > 0 {
		note += "; " + strings.Join(p.notes, "; ")
	}
	return s, Change{Key: e.Key, Outcome: Wrapped, Note: note, Entry: want}, nil
}

// replaceMembers returns the splices that put add where the first member
// named in keys is and take out the others named in keys (and, in TOML,
// the header sub-tables); the rest of the entry stays byte for byte.
func (r *rawEntry) replaceMembers(syn syntax, data []byte, keys []string, add []newMember, st memberStyle) []splice {
	var s []splice
	first := true
	for _, m := range r.members {
		if !slices.Contains(keys, m.key) {
			continue
		}
		if m.key == "type" && slices.Contains(keys, "command") && m.val.value != "stdio" {
			continue // not the type Wrap wrote
		}
		if !first {
			s = append(s, splice{m.del[0], m.del[1], ""})
			continue
		}
		first = false
		texts := make([]string, len(add))
		for i, a := range add {
			texts[i] = st.prefix + syn.keyText(a.key) + st.kv + a.text
		}
		if !r.toml || r.inline || len(texts) == 1 {
			s = append(s, splice{m.start, m.end, strings.Join(texts, st.sep)})
			continue
		}
		// A table's lines: the first in the member's place, the others on
		// lines of their own after it, so that a comment ending the line
		// stays on it (as Wrap adds args to a command entry).
		eol := m.del[1]
		if eol > 0 && data[eol-1] == '\n' {
			eol -= len(st.nl)
		}
		s = append(s, splice{m.start, m.end, texts[0]}, splice{eol, eol, st.sep + strings.Join(texts[1:], st.sep)})
	}
	for _, p := range r.pieces {
		s = append(s, splice{p[0], p[1], ""})
	}
	return s
}

// unwrapRemote is Unwrap for a wrapped remote entry: the bytes it had, from
// a backup (orig), or else the host's remote form written from its flags
// and env.
func unwrapRemote(syn syntax, data []byte, r *rawEntry, orig *originals) ([]splice, Change, error) {
	e := r.Entry
	f := wrapFlags(e.Args)
	want := e
	want.State, want.URL, want.Binary, want.BinaryExists, want.Name = StateRemote, f.url, "", false, ""
	change := Change{Key: e.Key, Outcome: Unwrapped, Entry: want}
	if text, ok := orig.remoteRegion(syn, data, r); ok {
		return []splice{{r.region[0], r.region[1], text}}, change, nil
	}
	keys := jsonWrappedKeys
	if r.toml {
		keys = tomlWrappedKeys
	}
	st := r.styleFor(data, keys, "env")
	add, err := remoteMembers(syn, r, f, st)
	if err != nil {
		return nil, Change{}, fmt.Errorf("%q cannot be unwrapped: %w", e.Key, err)
	}
	return r.replaceMembers(syn, data, keys, add, st), change, nil
}

// remoteMembers writes the remote form of a wrapped remote entry from its
// flags (f) and its env: the members Wrap took out, in the host's form.
func remoteMembers(syn syntax, r *rawEntry, f wrapArgs, st memberStyle) ([]newMember, error) {
	form := formOf(r.host)
	used := map[string]bool{}
	fromEnv := func(v string) (envVal, bool) {
		t, ok := r.env[v]
		if ok {
			used[v] = true
		}
		return t, ok
	}
	var add []newMember
	if !r.toml {
		if i := slices.IndexFunc(r.members, func(m entryMember) bool { return m.key == "type" && m.val.value == "stdio" }); i >= 0 {
			add = append(add, newMember{"type", syn.quote(transport(f.url))})
		}
	}
	key := form.urlKey
	if form.sseKey != "" && transport(f.url) == "sse" {
		key = form.sseKey
	}
	add = append(add, newMember{key, syn.quote(f.url)})
	var literal, fromVars []newEntry
	bearerVar := ""
	for _, h := range f.headers {
		switch h.flag {
		case "--header":
			n, v, _ := strings.Cut(h.value, ":")
			literal = append(literal, newEntry{strings.TrimSpace(n), syn.quote(strings.TrimSpace(v))})
		case "--header-env":
			n, v, _ := strings.Cut(h.value, "=")
			switch t, ok := fromEnv(v); {
			case ok:
				literal = append(literal, newEntry{n, t.raw})
			case r.toml:
				fromVars = append(fromVars, newEntry{n, syn.quote(v)})
			case form.ref != nil:
				literal = append(literal, newEntry{n, syn.quote(form.ref(v))})
			default:
				return nil, fmt.Errorf("its header %s comes from $%s, and this host's config has no way to name a variable: unwrap it by hand", n, v)
			}
		case "--bearer-env":
			switch t, ok := fromEnv(h.value); {
			case ok:
				literal = append(literal, newEntry{"Authorization", syn.quote("Bearer " + t.value)})
			case r.toml:
				bearerVar = h.value
			case form.ref != nil:
				literal = append(literal, newEntry{"Authorization", syn.quote("Bearer " + form.ref(h.value))})
			default:
				return nil, fmt.Errorf("its Authorization comes from $%s, and this host's config has no way to name a variable: unwrap it by hand", h.value)
			}
		}
	}
	for _, name := range r.envOrder {
		if !used[name] {
			return nil, fmt.Errorf("its env has %s, which no header uses and a remote entry has no place for: take it out of env first, or unwrap it by hand", name)
		}
	}
	if !r.toml {
		if len(literal) > 0 {
			add = append(add, newMember{"headers", st.strMap(syn, literal)})
		}
		return add, nil
	}
	if bearerVar != "" {
		add = append(add, newMember{"bearer_token_env_var", syn.quote(bearerVar)})
	}
	if len(literal) > 0 {
		add = append(add, newMember{"http_headers", st.strMap(syn, literal)})
	}
	if len(fromVars) > 0 {
		add = append(add, newMember{"env_http_headers", st.strMap(syn, fromVars)})
	}
	return add, nil
}

// transport guesses, for Unwrap with no backup, whether a URL is an
// HTTP+SSE endpoint (its path ends in /sse, as they are named) or a
// Streamable HTTP one: `elicitray wrap --url` tries both, so the wrapped
// entry does not say.
func transport(raw string) string {
	if u, err := url.Parse(raw); err == nil && strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/sse") {
		return "sse"
	}
	return "http"
}
