package hosts

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the .wrapped and .unwrapped goldens of testdata/hosts")

// goldenDir holds one directory per host, each with configs as the host
// writes them (comments, unknown keys, env, cwd, remote entries, entries
// without args, one-line and multi-line args) and their goldens.
const goldenDir = "../../testdata/hosts"

// goldenBin is the binary the goldens are wrapped with: not on this
// machine, so nothing depends on where the tests run.
const goldenBin = "/opt/elicitray/bin/elicitray"

// testEnv is the user the fixtures belong to.
var testEnv = Env{Home: "/home/me", Project: "/home/me/project", GOOS: "linux"}

// locs returns the locations of host under testEnv whose scope is one of
// scopes, with path as their file.
func locs(t *testing.T, host, path string, scopes ...string) []Location {
	t.Helper()
	h, ok := Lookup(host)
	if !ok {
		t.Fatalf("no host %q", host)
	}
	var out []Location
	for _, l := range h.Locations(testEnv) {
		if slices.Contains(scopes, l.Scope) {
			l.Path = path
			out = append(out, l)
		}
	}
	if len(out) != len(scopes) {
		t.Fatalf("%s has no scopes %v", host, scopes)
	}
	return out
}

// TestHostsGolden: for each host's config, wrapping every entry (remote
// ones too) gives the .wrapped golden; wrapping that again changes nothing;
// unwrapping it, with the backup wrap made, gives the original back byte
// for byte (or the .unwrapped golden, for a config that had wrapped entries
// to begin with), and so does unwrapping it with no backup, but for what
// only the backup has (lossy).
func TestHostsGolden(t *testing.T) {
	for _, tt := range []struct {
		file   string
		host   string
		scopes []string
		// lossy: with no backup, unwrap gives its remote entries back as
		// the host reads them but not byte for byte (a comment inside
		// one, hand-quoted TOML keys, a [headers] sub-table).
		lossy bool
	}{
		{"claude-desktop/claude_desktop_config.json", "claude-desktop", []string{"user"}, false},
		{"claude-code/claude.json", "claude-code", []string{"user", "local"}, false},
		{"claude-code/mcp.json", "claude-code", []string{"project"}, false},
		{"vscode/mcp.json", "vscode", []string{"user"}, true},
		{"cursor/mcp.json", "cursor", []string{"user"}, false},
		{"cursor/moved.json", "cursor", []string{"user"}, false},
		{"windsurf/mcp_config.json", "windsurf", []string{"user"}, false},
		{"zed/settings.json", "zed", []string{"user"}, false},
		{"codex/config.toml", "codex", []string{"user"}, true},
		{"codex/inline.toml", "codex", []string{"user"}, false},
		{"codex/crlf.toml", "codex", []string{"user"}, false},
		{"gemini/settings.json", "gemini", []string{"user"}, false},
	} {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(goldenDir, tt.file)
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ls := locs(t, tt.host, path, tt.scopes...)
			each := func(data []byte, fn func([]byte, Location) ([]byte, []Change, error)) ([]byte, []Change) {
				t.Helper()
				var all []Change
				for _, l := range ls {
					var cs []Change
					data, cs, err = fn(data, l)
					if err != nil {
						t.Fatal(err)
					}
					all = append(all, cs...)
				}
				return data, all
			}
			wrap := func(data []byte, l Location) ([]byte, []Change, error) { return Wrap(data, l, nil, goldenBin) }
			unwrap := func(data []byte, l Location) ([]byte, []Change, error) { return Unwrap(data, l, nil, nil) }

			wrapped, changes := each(orig, wrap)
			golden(t, path+".wrapped", wrapped)
			if !slices.ContainsFunc(changes, func(c Change) bool { return c.Outcome == Wrapped }) {
				t.Errorf("nothing wrapped: %+v", changes)
			}

			again, changes := each(wrapped, wrap)
			if !bytes.Equal(again, wrapped) {
				t.Errorf("wrapping twice changed the file:\n%s", cmp.Diff(string(wrapped), string(again)))
			}
			for _, c := range changes {
				if c.Outcome != AlreadyWrapped && c.Outcome != Skipped {
					t.Errorf("second wrap: %s %s", c.Key, c.Outcome)
				}
			}

			// As `hosts unwrap` does it: with the backup wrap made.
			unwrapBackup := func(data []byte, l Location) ([]byte, []Change, error) {
				return Unwrap(data, l, nil, &UnwrapOptions{Earlier: slices.Values([][]byte{orig})})
			}
			back, _ := each(wrapped, unwrapBackup)
			want := orig
			if _, err := os.Stat(path + ".unwrapped"); err == nil || *update && bytes.Contains(orig, []byte("elicitray")) {
				golden(t, path+".unwrapped", back)
				want, _ = os.ReadFile(path + ".unwrapped")
			}
			if diff := cmp.Diff(string(want), string(back)); diff != "" {
				t.Errorf("unwrap after wrap mismatch (-want +got):\n%s", diff)
			}

			// With no backup left, the remote entries come back from their
			// flags and env: the same URLs, transports and headers, each
			// header from where it was (a value, or a variable).
			fresh, _ := each(wrapped, unwrap)
			if diff := cmp.Diff(string(want), string(fresh)); !tt.lossy && diff != "" {
				t.Errorf("unwrap without a backup mismatch (-want +got):\n%s", diff)
			}
			for _, l := range ls {
				if diff := cmp.Diff(remotes(t, want, l), remotes(t, fresh, l)); diff != "" {
					t.Errorf("%s: unwrap without a backup mismatch (-want +got):\n%s", l.Scope, diff)
				}
			}
		})
	}
}

// remoteView is what a host reads from a remote entry.
type remoteView struct {
	State   State
	URL     string
	URLKey  string // which member holds the URL: url, serverUrl, httpUrl
	Type    string
	Headers []string // NAME: value, or NAME from $VAR
	Other   []string // the entry's other members, as written
}

// remotes returns, by key, what a host reads from each entry of data that
// is remote or wrapped.
func remotes(t *testing.T, data []byte, l Location) map[string]remoteView {
	t.Helper()
	raws, err := parse(data, l)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]remoteView{}
	for _, r := range raws {
		if r.State != StateRemote {
			continue
		}
		v := remoteView{State: r.State, URL: r.URL, Type: r.remote.typ}
		for _, h := range r.remote.headers {
			switch {
			case h.bearer:
				v.Headers = append(v.Headers, "Authorization: Bearer $"+h.envVar)
			case h.envVar != "":
				v.Headers = append(v.Headers, h.name+" from $"+h.envVar)
			default:
				v.Headers = append(v.Headers, h.name+": "+h.value)
			}
		}
		keys := jsonRemoteKeys
		if r.toml {
			keys = tomlRemoteKeys
		}
		for _, m := range r.members {
			switch {
			case m.key == "url" || m.key == "serverUrl" || m.key == "httpUrl":
				v.URLKey = m.key
			case !slices.Contains(keys, m.key):
				v.Other = append(v.Other, string(data[m.start:m.end]))
			}
		}
		out[r.Key] = v
	}
	return out
}

// golden compares got with the file at path, or writes it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", filepath.Base(path), diff)
	}
}
