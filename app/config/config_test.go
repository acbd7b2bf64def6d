package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/google/go-cmp/cmp"
)

// TestLoadConfig: the timeout a user writes is the one the hub uses; no file
// means the 10-minute default; a typo is an error that names the file.
func TestLoadConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		name, text string
		want       time.Duration
		err        string
	}{
		{"missing file", "", DefaultTimeout, ""},
		{"timeout", `timeout = "90s"`, 90 * time.Second, ""},
		{"zero means default", `timeout = "0s"`, DefaultTimeout, ""},
		{"bad duration", `timeout = "ten minutes"`, 0, `not a duration like "10m"`},
		{"not TOML", `timeout = `, 0, "config.toml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name, "config.toml")
			if tt.text != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.text+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, err := Load(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || c.Timeout.Duration != tt.want {
				t.Fatalf("got %v, %v; want %v", c.Timeout.Duration, err, tt.want)
			}
		})
	}
}

// TestCheckConfigEveryMistake: a file with several mistakes is reported
// all at once, each naming its line, table and key, in the file's order,
// with the keys elicitray does not know as warnings; LoadConfig's error
// lists every mistake too (issue 9: one mistake per reload).
func TestCheckConfigEveryMistake(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.toml")
	text := `timeout = "ten minutes"
rules = "ask"

[rate]
burst = -2
every = 3

[server.github]
rule = "ask"

[servers.github]
rule = "maybe"
timeout = "2m"
burst = 1.5
colour = "red"

[servers.jira]
every = "-1s"
keep_alive = "1us"

[history]
max_records = -1
keep = "1y"
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	_, problems, err := Check(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		kind := "mistake"
		if p.Warning {
			kind = "warning"
		}
		got = append(got, kind+": "+p.String())
	}
	unknown := " is not a setting elicitray knows; it is ignored (see the README's Configuration)"
	want := []string{
		`mistake: line 1: timeout "ten minutes" is not a duration like "10m" or "90s"`,
		`warning: line 2: "rules"` + unknown,
		`mistake: line 5: rate: burst must be 1 or more, not -2`,
		`mistake: line 6: rate: every must be a duration in quotes, like "10m" or "90s", not 3`,
		`warning: line 8: "server.github"` + unknown,
		`mistake: line 12: servers.github: rule "maybe" is not one of ask, decline, cancel, accept-defaults, accept-defaults-or-cancel`,
		`mistake: line 14: servers.github: burst must be a whole number, not 1.5`,
		`warning: line 15: "servers.github.colour"` + unknown,
		`mistake: line 18: servers.jira: every cannot be negative: "-1s"`,
		`mistake: line 19: servers.jira: keep_alive must be "0s" (never) or at least "1s", not "1us"`,
		`mistake: line 22: history: max_records cannot be negative: -1`,
		`mistake: line 23: history: keep "1y" is not a duration like "10m" or "90s"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems mismatch (-want +got):\n%s", diff)
	}

	c, err := Load(path)
	var ce *Errors
	if !errors.As(err, &ce) || len(ce.Problems) != 9 {
		t.Fatalf("LoadConfig: %v, want the 9 mistakes", err)
	}
	if c.Servers != nil || c.Rate.Burst != 0 {
		t.Errorf("a file with mistakes was used in part: %+v", c)
	}
	// One line per mistake, each naming the file (what doctor prints), and
	// the warnings beside them.
	if lines := strings.Split(err.Error(), "\n"); len(lines) != 9 || !strings.HasPrefix(lines[8], path+": line 23: history: keep") {
		t.Errorf("LoadConfig's error has %d lines, want 9 each naming the file:\n%v", len(lines), err)
	}
	if len(c.Warnings) != 3 {
		t.Errorf("warnings with the mistakes: %q, want the 3 unknown keys", c.Warnings)
	}
	for _, w := range want {
		if line, ok := strings.CutPrefix(w, "mistake: "); ok && !strings.Contains(err.Error(), line) {
			t.Errorf("LoadConfig's error lacks %q:\n%v", line, err)
		}
	}

	// fixed but for the unknown keys: the file applies, and the warnings
	// still name them.
	fixed := strings.NewReplacer(`"ten minutes"`, `"5m"`, "-2", "2", "every = 3", `every = "3s"`, `"maybe"`, `"decline"`,
		"1.5", "1", `"-1s"`, `"1s"`, `"1us"`, `"1s"`, "-1", "10", `"1y"`, `"8760h"`).Replace(text)
	if err := os.WriteFile(path, []byte(fixed), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = Load(path)
	if err != nil {
		t.Fatalf("the fixed file: %v", err)
	}
	if p := c.Policy("github"); p != (Policy{Rule: RuleDecline, Timeout: 2 * time.Minute, Burst: 1, Every: 3 * time.Second}) {
		t.Errorf("github's policy from the fixed file: %+v", p)
	}
	if len(c.Warnings) != 3 || !strings.Contains(c.Warnings[1], `line 8: "server.github" is not a setting`) {
		t.Errorf("warnings %q, want the three unknown keys", c.Warnings)
	}
}

// TestCheckConfigQuotedServerNames: a server whose name needs quotes in
// TOML is named with them in every problem.
func TestCheckConfigQuotedServerNames(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("[servers.\"acme.tools\"]\nrule = \"never\"\ncolour = \"red\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, problems, err := Check(path)
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		`line 2: servers."acme.tools": rule "never" is not one of ask, decline, cancel, accept-defaults, accept-defaults-or-cancel`,
		`line 3: "servers."acme.tools".colour" is not a setting elicitray knows; it is ignored (see the README's Configuration)`,
	}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("%v; problems mismatch (-want +got):\n%s", err, diff)
	}
}

// TestConfigOfAnotherUserRefused: a config.toml another user wrote (an
// ELICITRAY_HOME in a shared directory) or can write must not set rules:
// accept-defaults from such a file answered "Delete repository?" for the
// user. It is refused, naming why; the defaults apply (the hub asks).
func TestConfigOfAnotherUserRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no file modes: a config others may change is refused by its access list (platform.WritableByOthers)")
	}
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte("[servers.github]\nrule = \"accept-defaults\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatalf("the user's own config: %v", err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !errors.Is(err, paths.ErrUntrusted) || !strings.Contains(err.Error(), "other users") {
		t.Errorf("a config anyone can write: %v, want it refused", err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		t.Skip("a config of another user needs root to make (chown); not run")
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !errors.Is(err, paths.ErrUntrusted) || !strings.Contains(err.Error(), "uid 65534") {
		t.Errorf("a config of uid 65534: %v, want it refused", err)
	}
	link := filepath.Join(dir, "link.toml")
	mine := filepath.Join(dir, "mine.toml")
	if err := os.WriteFile(mine, []byte("timeout = \"1m\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mine, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(link); err == nil || !errors.Is(err, paths.ErrUntrusted) {
		t.Errorf("a link of uid 65534 to the user's config: %v, want it refused", err)
	}
}

// TestRemoteMaxMessage: [remote] max_message_mib sets the most a remote
// server's message may have (wrap --url); a value that is not a number of
// MiB from 1 to 4096 is a mistake named with its line.
func TestRemoteMaxMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text    string
		bytes   int
		mistake string
	}{
		{"", 0, ""},
		{"[remote]\nmax_message_mib = 8\n", 8 << 20, ""},
		{"[remote]\nmax_message_mib = 5000\n", 0, "line 2: remote: max_message_mib must be 4096 or less, not 5000"},
		{"[remote]\nmax_message_mib = -1\n", 0, "line 2: remote: max_message_mib must be 1 or more, not -1"},
		{"[remote]\nmax_message_mib = \"64MiB\"\n", 0, `line 2: remote: max_message_mib must be a whole number, not "64MiB"`},
	} {
		t.Run(tc.text, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			c, problems, err := Check(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
			}
			var want []string
			if tc.mistake != "" {
				want = []string{tc.mistake}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
			if n := c.Remote.MaxMessage(); n != tc.bytes {
				t.Errorf("MaxMessage = %d, want %d", n, tc.bytes)
			}
		})
	}
}
