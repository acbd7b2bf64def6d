package config

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/elicitray/elicitray/app/hosts"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/ui/lang"
)

// Reading config.toml a key at a time. toml.Decode into Config stops at
// the first value it cannot take, so a user fixing their file would meet
// its mistakes one reload at a time (issue 9). Here the file is parsed once,
// every value is kept as a toml.Primitive, and each is decoded on its own:
// one mistake does not hide the next, and each comes with its line.

// ConfigProblem is one thing wrong in a config file: a mistake (a value
// elicitray cannot use: the whole file is then not used) or a warning (a
// key it does not know, which is ignored).
type Problem struct {
	// Line is where in the file, from 1; 0 when the TOML library does not
	// say (a table only implied by its sub-tables, say).
	Line int
	// Table is the table the key is in ("rate", "servers.github"); "" for
	// a top-level key, for a key elicitray does not know, or for the file
	// as a whole when Key is "" too.
	Table string
	// Key is the key, as written in the table ("burst"); for a key
	// elicitray does not know, its whole path in quotes
	// (`"servers.github.rules"`); "" when the problem is the file itself
	// (not TOML).
	Key string
	// Message says what is wrong, to follow the key: `"maybe" is not one
	// of ask, decline, cancel, accept-defaults`.
	Message string
	// Warning is set for what is ignored rather than refused.
	Warning bool
}

// String is the problem as one sentence without a final stop:
// `line 4: servers.jira: rule "maybe" is not one of ask, decline, cancel,
// accept-defaults`.
func (p Problem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", p.Line)
	}
	if p.Table != "" {
		b.WriteString(p.Table + ": ")
	}
	if p.Key != "" {
		b.WriteString(p.Key + " ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// ConfigErrors is every mistake LoadConfig found in one config file, in
// the file's order. Its Error has a line per mistake, each starting with
// the file's path (as errors.Join would join them, and as Config.Warnings
// are written); Lines gives them without the path.
type Errors struct {
	Path     string
	Problems []Problem
}

func (e *Errors) Error() string {
	lines := e.Lines()
	for i, l := range lines {
		lines[i] = e.Path + ": " + l
	}
	return strings.Join(lines, "\n")
}

// Lines is each mistake as a sentence, in the file's order.
func (e *Errors) Lines() []string {
	out := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p.String()
	}
	return out
}

// What applies while config.toml cannot be used, as configTrouble's
// meanwhile says it.
const (
	KeptSettings    = "the settings in force stay until it is fixed"
	DefaultSettings = "the default settings apply until it is fixed"
)

// configTrouble is what the hub says of a config file it cannot use: in
// its log, a line per mistake; in a notification, a title and every
// mistake, the title and what applies meanwhile in the user's language
// (the mistakes quote the file, and stay as the log has them). meanwhile
// is keptSettings or defaultSettings.
func Trouble(err error, meanwhile string) (logLines []string, title, body string) {
	told := lang.L("The settings in force stay until it is fixed.")
	if meanwhile == DefaultSettings {
		told = lang.L("The default settings apply until it is fixed.")
	}
	var ce *Errors
	if !errors.As(err, &ce) || len(ce.Problems) < 2 {
		title = lang.L("elicitray: config.toml has a mistake")
		return []string{err.Error() + "; " + meanwhile}, title, err.Error() + ". " + told
	}
	logLines = []string{fmt.Sprintf("%s has %d mistakes; %s:", ce.Path, len(ce.Problems), meanwhile)}
	for _, l := range ce.Lines() {
		logLines = append(logLines, "  "+l)
	}
	title = lang.N("elicitray: config.toml has {{.Count}} mistakes", len(ce.Problems), map[string]any{"Count": len(ce.Problems)})
	shown := make([]string, len(ce.Problems))
	for i, p := range ce.Problems {
		shown[i] = p.Shown()
	}
	body = ce.Path + ":\n" + strings.Join(shown, "\n") + "\n" + told
	return logLines, title, body
}

// CheckConfig reads the config file at path and returns the config it
// holds and every problem in it at once, mistakes and warnings, in the
// file's order (what `elicitray doctor` prints). A missing file is the
// defaultConfig config with no problems. When any problem is a mistake
// (Warning false) the config is the default one, as LoadConfig would not
// use the file; otherwise it is what the file says, keys it does not know
// left out. err is set only when the file exists but cannot be read
// (permissions, a directory); problems are then nil.
func Check(path string) (Config, []Problem, error) {
	data, err := readConfigFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return defaultConfig(), nil, nil
	}
	if err != nil {
		return Config{}, nil, err
	}
	r := &ConfigReader{}
	var top map[string]toml.Primitive
	r.md, err = toml.Decode(string(data), &top)
	if err != nil {
		// Nothing in it can be read: this one mistake is all there is.
		p := Problem{Message: "the file is not TOML: " + err.Error()}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			p.Line, p.Message = pe.Position.Line, "the file is not TOML: "+pe.Message
		}
		return defaultConfig(), []Problem{p}, nil
	}
	var c Config
	r.config(top, &c)
	// In the file's order; a problem whose line is not known last.
	slices.SortStableFunc(r.problems, func(a, b Problem) int {
		if (a.Line == 0) != (b.Line == 0) {
			if a.Line == 0 {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Line, b.Line)
	})
	for _, p := range r.problems {
		if !p.Warning {
			return defaultConfig(), r.problems, nil
		}
	}
	if c.Timeout.Duration <= 0 {
		c.Timeout.Duration = DefaultTimeout
	}
	return c, r.problems, nil
}

// defaultConfig is the config of no file.
func defaultConfig() Config {
	return Config{Timeout: Duration{DefaultTimeout}}
}

// ConfigReader decodes the values of one parsed file into a Config,
// noting every problem.
type ConfigReader struct {
	md       toml.MetaData
	problems []Problem
}

// config reads the top level of the file into c.
func (r *ConfigReader) config(top map[string]toml.Primitive, c *Config) {
	for _, k := range slices.Sorted(maps.Keys(top)) {
		p := top[k]
		switch k {
		case "timeout":
			r.duration(p, nil, k, &c.Timeout)
		case "keep_alive":
			c.KeepAlive = new(Duration)
			r.keepAlive(p, nil, k, c.KeepAlive)
		case "rate":
			r.table(p, nil, k, func(t map[string]toml.Primitive) {
				r.rate(t, toml.Key{"rate"}, &c.Rate)
			})
		case "history":
			where := toml.Key{"history"}
			r.table(p, nil, k, func(t map[string]toml.Primitive) {
				r.keys(t, where, map[string]func(toml.Primitive, string){
					"keep":        func(p toml.Primitive, k string) { r.duration(p, where, k, &c.History.Keep) },
					"max_records": func(p toml.Primitive, k string) { r.count(p, where, k, 0, &c.History.MaxRecords) },
				})
			})
		case "notice":
			where := toml.Key{"notice"}
			r.table(p, nil, k, func(t map[string]toml.Primitive) {
				r.keys(t, where, map[string]func(toml.Primitive, string){
					"notification": func(p toml.Primitive, k string) {
						var on bool
						if r.flag(p, where, k, &on) {
							c.Notice.Notification = &on
						}
					},
					"sound": func(p toml.Primitive, k string) { r.flag(p, where, k, &c.Notice.Sound) },
				})
			})
		case "remember":
			where := toml.Key{"remember"}
			r.table(p, nil, k, func(t map[string]toml.Primitive) {
				r.keys(t, where, map[string]func(toml.Primitive, string){
					"for": func(p toml.Primitive, k string) { r.duration(p, where, k, &c.Remember.For) },
					"prefill": func(p toml.Primitive, k string) {
						var on bool
						if r.flag(p, where, k, &on) {
							c.Remember.Prefill = &on
						}
					},
				})
			})
		case "remote":
			where := toml.Key{"remote"}
			r.table(p, nil, k, func(t map[string]toml.Primitive) {
				r.keys(t, where, map[string]func(toml.Primitive, string){
					"max_message_mib": func(p toml.Primitive, k string) {
						v := CountValue{least: 1, most: maxMessageMiB}
						if r.decode(p, where, k, &v, false) {
							c.Remote.MaxMessageMiB = v.n
						}
					},
				})
			})
		case "servers":
			r.table(p, nil, k, func(t map[string]toml.Primitive) {
				for _, name := range slices.Sorted(maps.Keys(t)) {
					where := toml.Key{"servers", name}
					r.table(t[name], toml.Key{"servers"}, toml.Key{name}.String(), func(st map[string]toml.Primitive) {
						var sc Server
						if r.server(st, where, &sc) {
							if c.Servers == nil {
								c.Servers = map[string]Server{}
							}
							c.Servers[name] = sc
						}
					})
				}
			})
		default:
			r.unknown(p, nil, k)
		}
	}
}

// rate reads a [rate] table.
func (r *ConfigReader) rate(t map[string]toml.Primitive, where toml.Key, rt *Rate) {
	r.keys(t, where, map[string]func(toml.Primitive, string){
		"burst": func(p toml.Primitive, k string) { r.count(p, where, k, 1, &rt.Burst) },
		"every": func(p toml.Primitive, k string) { r.duration(p, where, k, &rt.Every) },
	})
}

// server reads a [servers.NAME] table; it reports whether every value in
// it was good.
func (r *ConfigReader) server(t map[string]toml.Primitive, where toml.Key, sc *Server) bool {
	before := r.mistakes()
	r.keys(t, where, map[string]func(toml.Primitive, string){
		"rule":    func(p toml.Primitive, k string) { r.rule(p, where, k, &sc.Rule) },
		"timeout": func(p toml.Primitive, k string) { r.duration(p, where, k, &sc.Timeout) },
		"burst":   func(p toml.Primitive, k string) { r.count(p, where, k, 1, &sc.Burst) },
		"every":   func(p toml.Primitive, k string) { r.duration(p, where, k, &sc.Every) },
		"keep_alive": func(p toml.Primitive, k string) {
			sc.KeepAlive = new(Duration)
			r.keepAlive(p, where, k, sc.KeepAlive)
		},
		"guard": func(p toml.Primitive, k string) {
			var v GuardValue
			if r.decode(p, where, k, &v, false) {
				sc.Guard = v
			}
		},
		"guard_destructive": func(p toml.Primitive, k string) { r.flag(p, where, k, &sc.GuardDestructive) },
	})
	return r.mistakes() == before
}

// keys reads each key of table t with its reader in known; the others are
// warned about and ignored.
func (r *ConfigReader) keys(t map[string]toml.Primitive, where toml.Key, known map[string]func(toml.Primitive, string)) {
	for _, k := range slices.Sorted(maps.Keys(t)) {
		if read, ok := known[k]; ok {
			read(t[k], k)
		} else {
			r.unknown(t[k], where, k)
		}
	}
}

func (r *ConfigReader) mistakes() int {
	n := 0
	for _, p := range r.problems {
		if !p.Warning {
			n++
		}
	}
	return n
}

// decode decodes p into v, whose UnmarshalTOML says in a sentence what
// is wrong; a problem is noted at p's line.
func (r *ConfigReader) decode(p toml.Primitive, table toml.Key, key string, v toml.Unmarshaler, warning bool) bool {
	err := r.md.PrimitiveDecode(p, v)
	if err == nil {
		return true
	}
	prob := Problem{Table: table.String(), Key: key, Message: err.Error(), Warning: warning}
	var pe toml.ParseError
	if errors.As(err, &pe) {
		prob.Line, prob.Message = pe.Position.Line, pe.Message
	}
	r.problems = append(r.problems, prob)
	return false
}

// table reads p as a table and hands it to read.
func (r *ConfigReader) table(p toml.Primitive, table toml.Key, key string, read func(map[string]toml.Primitive)) {
	if !r.decode(p, table, key, &TableValue{}, false) {
		return
	}
	var t map[string]toml.Primitive
	if err := r.md.PrimitiveDecode(p, &t); err != nil {
		r.problems = append(r.problems, Problem{Table: table.String(), Key: key, Message: err.Error()})
		return
	}
	read(t)
}

func (r *ConfigReader) duration(p toml.Primitive, table toml.Key, key string, d *Duration) {
	var v DurationValue
	if r.decode(p, table, key, &v, false) {
		*d = Duration{v.d}
	}
}

// keepAlive reads a keep_alive: "0s" (none), or at least MinKeepAlive, so
// that a host is not flooded with progress ("1us" sent 120,000 in 4 s).
func (r *ConfigReader) keepAlive(p toml.Primitive, table toml.Key, key string, d *Duration) {
	v := DurationValue{least: MinKeepAlive}
	if r.decode(p, table, key, &v, false) {
		*d = Duration{v.d}
	}
}

func (r *ConfigReader) count(p toml.Primitive, table toml.Key, key string, least int, n *int) {
	v := CountValue{least: least}
	if r.decode(p, table, key, &v, false) {
		*n = v.n
	}
}

// flag reads a true/false setting; it reports whether it was one.
func (r *ConfigReader) flag(p toml.Primitive, table toml.Key, key string, on *bool) bool {
	var v FlagValue
	if !r.decode(p, table, key, &v, false) {
		return false
	}
	*on = bool(v)
	return true
}

func (r *ConfigReader) rule(p toml.Primitive, table toml.Key, key string, rule *string) {
	var v RuleValue
	if r.decode(p, table, key, &v, false) {
		*rule = string(v)
	}
}

// unknown warns about a key elicitray does not know (a misspelt
// `[server.github]` or `rules = …`): one warning for a whole table.
func (r *ConfigReader) unknown(p toml.Primitive, table toml.Key, key string) {
	path := toml.Key{key}
	// A table only implied by `[server.github]` has no line of its own:
	// name the path down to the header that has one.
	for {
		var sub map[string]toml.Primitive
		if r.line(p, UnknownKey{}) > 0 || r.md.PrimitiveDecode(p, &sub) != nil || len(sub) != 1 {
			break
		}
		for k, v := range sub {
			path, p = append(path, k), v
		}
	}
	path = append(append(toml.Key{}, table...), path...)
	r.decode(p, nil, `"`+path.String()+`"`, UnknownKey{}, true)
}

// line is where p is in the file, as decoding it into v (which must fail)
// tells; 0 when it does not.
func (r *ConfigReader) line(p toml.Primitive, v toml.Unmarshaler) int {
	var pe toml.ParseError
	if errors.As(r.md.PrimitiveDecode(p, v), &pe) {
		return pe.Position.Line
	}
	return 0
}

// The values of config.toml, each saying what is wrong with it in the
// words of the README's Configuration.
type (
	TableValue    struct{}
	DurationValue struct{ d, least time.Duration } // least: a value other than 0 is at least this
	CountValue    struct{ n, least, most int }
	RuleValue     string
	FlagValue     bool
	GuardValue    []string
	UnknownKey    struct{}
)

func (g *GuardValue) UnmarshalTOML(v any) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("must be a list of tool names or patterns in quotes, like [\"delete_*\", \"deploy\"], not %s", tomlValue(v))
	}
	out := make([]string, 0, len(list))
	for _, item := range list {
		s, ok := item.(string)
		if !ok || s == "" {
			return fmt.Errorf("must list tool names or patterns in quotes, like \"delete_*\", not %s", tomlValue(item))
		}
		// path.Match reports a malformed pattern only when it meets it:
		// try it once here, so the mistake is said now, with its line.
		if _, err := path.Match(s, ""); err != nil {
			return fmt.Errorf("%q is not a pattern: \"*\" matches any characters, \"?\" one, \"[abc]\" one of those (%w)", s, err)
		}
		out = append(out, s)
	}
	*g = out
	return nil
}

func (TableValue) UnmarshalTOML(v any) error {
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("must be a table (a [section]), not %s", tomlValue(v))
	}
	return nil
}

func (d *DurationValue) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("must be a duration in quotes, like \"10m\" or \"90s\", not %s", tomlValue(v))
	}
	dur, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a duration like \"10m\" or \"90s\"", s)
	case dur < 0:
		return fmt.Errorf("cannot be negative: %q", s)
	case dur > 0 && dur < d.least:
		return fmt.Errorf("must be \"0s\" (never) or at least %q, not %q", d.least.String(), s)
	}
	d.d = dur
	return nil
}

func (c *CountValue) UnmarshalTOML(v any) error {
	n, ok := v.(int64)
	if !ok {
		return fmt.Errorf("must be a whole number, not %s", tomlValue(v))
	}
	switch {
	case n < 0 && c.least > 0:
		return fmt.Errorf("must be %d or more, not %d", c.least, n)
	case n < 0:
		return fmt.Errorf("cannot be negative: %d", n)
	case c.most > 0 && n > int64(c.most):
		return fmt.Errorf("must be %d or less, not %d", c.most, n)
	}
	c.n = int(n)
	return nil
}

func (r *RuleValue) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok || !slices.Contains(rules, s) {
		return fmt.Errorf("%s is not one of %s", tomlValue(v), strings.Join(rules, ", "))
	}
	*r = RuleValue(s)
	return nil
}

func (f *FlagValue) UnmarshalTOML(v any) error {
	b, ok := v.(bool)
	if !ok {
		return fmt.Errorf("must be true or false (without quotes), not %s", tomlValue(v))
	}
	*f = FlagValue(b)
	return nil
}

func (UnknownKey) UnmarshalTOML(any) error {
	return errors.New("is not a setting elicitray knows; it is ignored (see the README's Configuration)")
}

// tomlValue writes v as it appears in the file: "ten" with its quotes, 5,
// a table.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "a list"
	}
	return fmt.Sprint(v)
}

// maxConfigSize bounds config.toml: a real one is a few hundred bytes, and
// the TOML parser recurses into nested arrays, so a file of megabytes of
// "[[[[" would end the hub with a stack overflow.
const maxSize = 256 << 10

// readConfigFile reads config.toml as host configs are read (a regular
// file only: a FIFO would block the hub for ever), of at most
// maxConfigSize bytes.
func readConfigFile(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxSize {
		return nil, fmt.Errorf("%s is %s, and elicitray reads a config of at most %s", path, lang.Bytes(fi.Size()), lang.Bytes(maxSize))
	}
	if err := checkConfigOwner(path); err != nil {
		return nil, err
	}
	return hosts.ReadConfig(path)
}

// checkConfigOwner refuses a config file another user can change: its rules
// answer prompts for the user (accept-defaults, decline), so a config.toml
// planted by someone else (an ELICITRAY_HOME in a shared directory, say)
// must not be followed. The file, and a symbolic link to it, must be the
// user's own or root's, and not writable by group or others. A missing
// file is the default config.
func checkConfigOwner(path string) error {
	owned := func(fi fs.FileInfo) (platform.User, bool) {
		o, ok := platform.FileOwner(path, fi)
		if !ok {
			return o, true
		}
		return o, o.IsMe() || o.IsAdmin()
	}
	li, err := os.Lstat(path)
	if err != nil {
		return nil // missing: the defaults; other errors are ReadConfig's to say
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		if uid, ok := owned(li); !ok {
			return fmt.Errorf("%s is a symbolic link of %s, not yours; elicitray does not take its rules from it: %w", path, uid, paths.ErrUntrusted)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if uid, ok := owned(fi); !ok {
		return fmt.Errorf("%s belongs to %s, not to you; elicitray does not take its rules from a file another user wrote: %w", path, uid, paths.ErrUntrusted)
	}
	if why := platform.WritableByOthers(path, fi); fi.Mode().IsRegular() && why != "" {
		return fmt.Errorf("%s can be changed by other users (%s); elicitray does not take its rules from it until it is 0600 or 0644: %w", path, why, paths.ErrUntrusted)
	}
	return nil
}
