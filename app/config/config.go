package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/history"
)

// Config is the user's config.toml: how long prompts wait, how often each
// server may ask, and what to do with each server's prompts. Every field's
// zero value means the default. The Settings window writes it too.
//
//	# ~/.config/elicitray/config.toml
//	timeout = "10m"        # a prompt nobody answers is cancel after this long
//	keep_alive = "15s"     # while a prompt is open, the host hears progress this often; "0s": never
//
//	[rate]                 # every server: 5 prompts at once, then one per 3s
//	burst = 5
//	every = "3s"
//
//	[history]              # keep a year of decisions, and no more than 100000
//	keep = "8760h"
//	max_records = 100000
//
//	[notice]               # how a prompt window makes itself noticed
//	notification = true    # a desktop notification naming the server and tool
//	sound = false          # the notification plays the desktop's message sound
//
//	[remember]             # "Always answer this way" and pre-filled forms
//	for = "720h"           # a remembered answer holds 30 days
//	prefill = true         # free text asked again starts with the text last typed, marked (never secrets, choices, check boxes, defaults)
//
//	[remote]               # servers reached with wrap --url
//	max_message_mib = 64   # the most one message may have; a longer one is refused with an error
//
//	[servers.github]       # the name given to `elicitray wrap --name`
//	rule = "ask"           # ask | decline | cancel | accept-defaults | accept-defaults-or-cancel
//	timeout = "2m"
//	burst = 1
//	every = "30s"
//	keep_alive = "10s"
//	guard = ["delete_*", "deploy"]   # these tools run only once you approve each call
//	guard_destructive = true         # and so do those the server marks destructiveHint: true
type Config struct {
	// Timeout is how long a prompt waits for a person before it is answered
	// cancel (decided by "timeout"). Zero: 10 minutes.
	Timeout Duration `toml:"timeout,omitempty"`
	// KeepAlive is how often the wrapper sends the host
	// notifications/progress for a tool call's progressToken while a
	// prompt of that call is open, so that hosts which reset their
	// timeout on progress keep waiting (PROTOCOL.md §10). Nil:
	// DefaultKeepAlive; zero: none.
	KeepAlive *Duration `toml:"keep_alive,omitempty"`
	// Rate is every server's rate limit unless its own entry says otherwise.
	Rate Rate `toml:"rate,omitempty"`
	// Servers holds per-server settings by configured name.
	Servers map[string]Server `toml:"servers,omitempty"`
	// History is how long decisions are kept.
	History Retention `toml:"history,omitempty"`
	// Notice is how a prompt window makes itself noticed.
	Notice Notice `toml:"notice,omitempty"`
	// Remember is how long remembered answers hold and whether forms are
	// pre-filled with the values last given (remember.go).
	Remember Remember `toml:"remember,omitempty"`
	// Remote is how wrappers of remote servers (wrap --url) read them.
	Remote Remote `toml:"remote,omitempty"`

	// Warnings name what LoadConfig ignored: keys it does not know, such
	// as a misspelt `[server.github]` or `rules = …`.
	Warnings []string `toml:"-"`
}

// Retention says which decisions the history keeps: none older than Keep
// (zero: DefaultKeep), and at most MaxRecords (zero: no limit). The hub
// applies it when it starts and once a day; `elicitray history prune`
// applies it at once.
type Retention struct {
	Keep       Duration `toml:"keep,omitempty"`
	MaxRecords int      `toml:"max_records,omitempty,omitzero"`
}

// Notice is how a prompt window makes itself noticed besides coming to
// the front and asking the window manager for attention, which it always
// does: a desktop notification naming the server and the tool (Notification;
// nil means on), and with it the desktop's sound for a new message (Sound;
// off unless set, and only with the notification, which carries it).
type Notice struct {
	Notification *bool `toml:"notification,omitempty"`
	Sound        bool  `toml:"sound,omitempty"`
}

// Remote is how a wrapper reads a remote server: MaxMessageMiB is the
// most MiB one message from it may have (bridge.HTTPOptions.MaxMessage;
// zero: bridge.DefaultMaxMessage, at most maxMessageMiB). A message is
// held whole before it goes to the host; a longer one ends the stream it
// came on, and the host's request gets an error saying so.
type Remote struct {
	MaxMessageMiB int `toml:"max_message_mib,omitempty,omitzero"`
}

// maxMessageMiB is the most Remote.MaxMessageMiB may be: 4 GiB.
const maxMessageMiB = 4096

// MaxMessage is the most bytes one message from a remote server may
// have: MaxMessageMiB's, or zero for bridge's default.
func (r Remote) MaxMessage() int { return r.MaxMessageMiB << 20 }

// Notifies reports whether a prompt window comes with a notification.
func (n Notice) Notifies() bool { return n.Notification == nil || *n.Notification }

// defaultKeep is how long decisions are kept when the config says
// nothing: a year.
const defaultKeep = 365 * 24 * time.Hour

// Rate is a rate limit (PROTOCOL.md §6: clients rate-limit elicitations):
// Burst prompts may come at once, then one per Every. Suppressed prompts
// are answered cancel.
type Rate struct {
	Burst int      `toml:"burst,omitempty,omitzero"`
	Every Duration `toml:"every,omitempty"`
}

// ServerConfig is one server's settings; zero fields take the defaults.
type Server struct {
	// Rule is what happens to the server's prompts: RuleAsk (default),
	// RuleDecline, RuleCancel, RuleAcceptDefaults or
	// RuleAcceptDefaultsOrCancel.
	Rule      string    `toml:"rule,omitempty"`
	Timeout   Duration  `toml:"timeout,omitempty"`
	Burst     int       `toml:"burst,omitempty,omitzero"`
	Every     Duration  `toml:"every,omitempty"`
	KeepAlive *Duration `toml:"keep_alive,omitempty"`
	// Guard lists patterns of tool names (path.Match: "*" any run of
	// characters, "?" one, "[…]" a class) whose calls wait for the user's
	// approval in a window before they reach the server (issue 14). Nil
	// guards none.
	Guard []string `toml:"guard,omitempty"`
	// GuardDestructive guards, besides, every tool the server annotates
	// destructiveHint: true in its tools/list. False: only Guard's.
	GuardDestructive bool `toml:"guard_destructive,omitempty"`
}

// Rules for a server's prompts.
const (
	// RuleAsk shows every prompt (the default).
	RuleAsk = "ask"
	// RuleDecline answers decline without showing anything.
	RuleDecline = "decline"
	// RuleCancel answers cancel without showing anything.
	RuleCancel = "cancel"
	// RuleAcceptDefaults accepts a form with its defaults when every
	// required field has one; otherwise it asks. URL prompts are always
	// asked: a link is never opened by a rule.
	RuleAcceptDefaults = "accept-defaults"
	// RuleAcceptDefaultsOrCancel is for unattended runs (a CI agent, a
	// test suite): no window ever opens. A form whose every required field
	// has a default (and at least one field has one) is accepted with its
	// defaults, as with RuleAcceptDefaults; every other prompt, and every
	// link, is answered cancel at once. History records both as decided by
	// "rule", with the reason.
	RuleAcceptDefaultsOrCancel = "accept-defaults-or-cancel"
)

var rules = []string{RuleAsk, RuleDecline, RuleCancel, RuleAcceptDefaults, RuleAcceptDefaultsOrCancel}

// Defaults when the config says nothing.
const (
	DefaultTimeout = 10 * time.Minute
	DefaultBurst   = 5
	DefaultEvery   = 3 * time.Second
	// DefaultKeepAlive is well inside the 60 s hosts often wait.
	DefaultKeepAlive = 15 * time.Second
	// MinKeepAlive is the shortest keep_alive other than "0s" (none).
	MinKeepAlive = time.Second
)

// KeepAliveFor returns the keep-alive interval for the server configured
// as name: its entry's, else the file's, else DefaultKeepAlive; zero means
// none.
func (c Config) KeepAliveFor(name string) time.Duration {
	if d := c.Servers[name].KeepAlive; d != nil {
		return d.Duration
	}
	if c.KeepAlive != nil {
		return c.KeepAlive.Duration
	}
	return DefaultKeepAlive
}

// Policy is the settings that apply to one server: its entry over the
// defaults over the built-in defaults.
type Policy struct {
	Rule    string
	Timeout time.Duration
	Burst   int
	Every   time.Duration
}

// Policy returns the settings for the server configured as name.
func (c Config) Policy(name string) Policy {
	p := Policy{Rule: RuleAsk, Timeout: c.Timeout.Duration, Burst: c.Rate.Burst, Every: c.Rate.Every.Duration}
	s := c.Servers[name]
	if s.Rule != "" {
		p.Rule = s.Rule
	}
	if s.Timeout.Duration > 0 {
		p.Timeout = s.Timeout.Duration
	}
	if s.Burst > 0 {
		p.Burst = s.Burst
	}
	if s.Every.Duration > 0 {
		p.Every = s.Every.Duration
	}
	if p.Timeout <= 0 {
		p.Timeout = DefaultTimeout
	}
	if p.Burst <= 0 {
		p.Burst = DefaultBurst
	}
	if p.Every <= 0 {
		p.Every = DefaultEvery
	}
	return p
}

// Duration is a time.Duration written as text in TOML ("90s", "10m").
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration such as "10m".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("not a duration like \"10m\" or \"90s\": %q", b)
	}
	if v < 0 {
		return fmt.Errorf("a duration cannot be negative: %q", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as Go does ("1m30s").
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Duration.String()), nil }

// IsZero lets omitempty leave out an unset duration.
func (d Duration) IsZero() bool { return d.Duration == 0 }

// LoadConfig reads the config file at path; a missing file is the default
// config. A file with mistakes is refused with a *ConfigErrors naming every
// one of them (see CheckConfig), and a Config holding only the Warnings;
// keys it does not know are ignored and named in Config.Warnings. Other
// errors name the file.
func Load(path string) (Config, error) {
	c, problems, err := Check(path)
	if err != nil {
		return Config{}, fmt.Errorf("reading %s: %w", path, err)
	}
	ce := &Errors{Path: path}
	for _, p := range problems {
		if p.Warning {
			c.Warnings = append(c.Warnings, path+": "+p.String())
		} else {
			ce.Problems = append(ce.Problems, p)
		}
	}
	if len(ce.Problems) > 0 {
		return Config{Warnings: c.Warnings}, ce
	}
	return c, nil
}

// SaveConfig writes c to path (0600, in a 0700 directory), replacing the
// file in one step so a crash never leaves half a config.
func Save(path string, c Config) error {
	var buf bytes.Buffer
	buf.WriteString("# elicitray settings; see `elicitray --help` and the README.\n")
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return platform.ReplaceFile(path, buf.Bytes())
}

// Remember is the [remember] table of config.toml.
type Remember struct {
	// For is how long a remembered answer holds. Zero: DefaultRememberFor.
	For Duration `toml:"for,omitempty"`
	// Prefill, when not false, pre-fills a form asked again with the values
	// last given for the same question (never a secret's). Nil: on.
	Prefill *bool `toml:"prefill,omitempty"`
}

// Holds returns how long a remembered answer holds.
func (r Remember) Holds() time.Duration {
	if r.For.Duration > 0 {
		return r.For.Duration
	}
	return DefaultRememberFor
}

// Prefills reports whether forms asked again are pre-filled.
func (r Remember) Prefills() bool { return r.Prefill == nil || *r.Prefill }

// DefaultRememberFor is how long a remembered answer holds when the config
// says nothing: 30 days.
const DefaultRememberFor = 30 * 24 * time.Hour

// Keeps is what c keeps of the history, as of now: what retention prunes.
func (c Config) Keeps(now time.Time) history.PruneOptions {
	keep := c.History.Keep.Duration
	if keep <= 0 {
		keep = defaultKeep
	}
	return history.PruneOptions{Before: now.Add(-keep), Keep: c.History.MaxRecords}
}
