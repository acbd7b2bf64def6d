package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/elicitray/elicitray/app/hosts"
	"github.com/elicitray/elicitray/chars"
)

// `elicitray hosts list|wrap|unwrap`: the hosts' MCP configs, read and
// edited by package hosts (issue 9).

// hostsBinary is the elicitray that `hosts wrap` puts into configs: this
// one, by the path it was run as (wrapBinary; tests running in-process set
// the built binary).
var hostsBinary = func() (string, error) {
	return wrapBinary(os.Args[0], os.Executable, exec.LookPath)
}

// wrapBinary returns the path of this binary to write into configs. The
// path the user ran (argv0: as given when it has a directory, else as found
// in PATH) comes first, then an elicitray found in PATH, when it is this
// binary (the same file once symbolic links are followed) and is named
// elicitray, so that ~/.local/bin/elicitray, a link to
// /opt/elicitray/v1/elicitray or to elicitray-linux-amd64, stays in configs
// as the link: the resolved path would break when an upgrade points the
// link at a new version, and an entry whose binary is not named elicitray is not recognised
// as wrapped. Otherwise it is exe's path, which Wrap refuses when it is not
// named elicitray.
func wrapBinary(argv0 string, exe func() (string, error), lookPath func(string) (string, error)) (string, error) {
	self, err := exe()
	if err != nil {
		return "", err
	}
	selfInfo, err := os.Stat(self)
	if err != nil {
		return "", err
	}
	var candidates []string
	if strings.ContainsAny(argv0, `/\`) {
		candidates = append(candidates, argv0)
	} else if p, err := lookPath(argv0); err == nil {
		candidates = append(candidates, p)
	}
	if p, err := lookPath("elicitray"); err == nil {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		abs, err := filepath.Abs(c)
		if err != nil || !hosts.IsElicitray(abs) {
			continue
		}
		if fi, err := os.Stat(abs); err == nil && os.SameFile(fi, selfInfo) {
			return abs, nil
		}
	}
	return filepath.Abs(self)
}

// sameBinary reports whether binaries a and b are the same file once
// symbolic links are followed (a link to this binary is this binary); a
// bare name (a wrapped entry's "elicitray") is looked up in PATH.
func sameBinary(a, b string) bool {
	if !strings.ContainsAny(a, `/\`) {
		if p, err := exec.LookPath(a); err == nil {
			a = p
		}
	}
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}

// hostsFlags are the flags the hosts subcommands share.
type hostsFlags struct {
	project string // --project: the project of project and local scopes; "" is the current directory
	config  string // --config: a file named directly instead of a host
	format  string // --format: whose shape --config has ("" guesses)
	scope   string // --scope: only this scope of the host
	all     bool   // --all: every entry
	asJSON  bool   // list --json
	quiet   bool   // say only the files changed (unwrap --all with no host)
}

func newHostsCmd(stdout, stderr io.Writer) *cobra.Command {
	var f hostsFlags
	cmd := &cobra.Command{
		Use:   "hosts",
		Short: "List MCP hosts' server entries and put elicitray into their configs (or take it out)",
		Long: "hosts finds the MCP configs of the hosts elicitray knows, shows which server entries\n" +
			"run through `elicitray wrap`, and rewrites entries to do so or not. Only the values that\n" +
			"change are touched: comments and formatting stay, and a backup of the file is made first.\n\n" +
			"Hosts: " + strings.Join(hosts.Names(), ", ") + ".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError{errors.New("hosts needs a subcommand: list, wrap HOST or unwrap HOST")}
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "Show each installed host's config files and whether each server entry is wrapped",
		Example: `  elicitray hosts list
  elicitray hosts list --json
  elicitray hosts list --config ./mcp.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runErr(hostsList(stdout, f))
		},
	}
	wrap := &cobra.Command{
		Use:   "wrap HOST [SERVER...|--all]",
		Short: "Make a host's server entries run through `elicitray wrap` (a backup of the file first)",
		Long: "wrap rewrites each named entry (every one with --all) from COMMAND ARGS… to\n" +
			"  THIS_BINARY wrap --name KEY -- COMMAND ARGS…\n" +
			"keeping env, cwd and every other key, and each remote (url) entry to\n" +
			"  THIS_BINARY wrap --name KEY --url URL [--header …]\n" +
			"with the values of secret headers in the entry's env (--header-env, --bearer-env), never\n" +
			"on the command line; a remote entry whose URL may hold a secret is left alone. Running it\n" +
			"again changes nothing, except that an entry whose elicitray binary was moved away is\n" +
			"pointed at this one.",
		Example: `  elicitray hosts wrap cursor --all
  elicitray hosts wrap claude-code github --scope user
  elicitray hosts wrap --config ./mcp.json --all
  elicitray hosts wrap cursor --config ./mcp.json --all`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return hostsEdit(stdout, f, args, false)
		},
	}
	unwrap := &cobra.Command{
		Use:   "unwrap [HOST] [SERVER...|--all]",
		Short: "Take `elicitray wrap` out of a host's server entries again (a backup of the file first)",
		Long: "unwrap gives each named entry (every wrapped one with --all) its own command, or its\n" +
			"url and headers, back: after wrap, the file is byte for byte what it was. --all with no\n" +
			"host does so in every host's configs found here (the uninstaller does this).",
		Example: `  elicitray hosts unwrap cursor --all
  elicitray hosts unwrap --all`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && f.all && f.config == "" {
				return unwrapEveryHost(stdout, stderr, f)
			}
			return hostsEdit(stdout, f, args, true)
		},
	}
	for _, c := range []*cobra.Command{list, wrap, unwrap} {
		c.Flags().StringVar(&f.project, "project", "", "the project directory for project and local scopes (default: the current directory)")
		c.Flags().StringVar(&f.config, "config", "", "a config file to use instead of a host's")
		c.Flags().StringVar(&f.format, "format", "", "with --config: the host whose format the file has (default: guessed)")
	}
	for _, c := range []*cobra.Command{wrap, unwrap} {
		c.Flags().BoolVar(&f.all, "all", false, "every server entry of the host")
		c.Flags().StringVar(&f.scope, "scope", "", "only the host's config of this scope: user, local, project or workspace")
	}
	list.Flags().BoolVar(&f.asJSON, "json", false, "print every known config file and entry as JSON")
	cmd.AddCommand(list, wrap, unwrap)
	return cmd
}

func (f hostsFlags) env() (hosts.Env, error) {
	if f.project != "" {
		return hosts.EnvFromOS(f.project)
	}
	env, err := hosts.EnvFromOS(".")
	if err != nil {
		// The current directory is gone: the user scopes are still
		// there.
		return hosts.EnvFromOS("")
	}
	return env, nil
}

// configLocation is the Location of --config.
func configLocation(f hostsFlags) (hosts.Location, error) {
	path, err := filepath.Abs(f.config)
	if err != nil {
		return hosts.Location{}, err
	}
	data, err := hosts.ReadConfig(path)
	if err != nil {
		return hosts.Location{}, err
	}
	loc, err := hosts.ForFile(path, data, f.format)
	if err != nil && f.format != "" {
		return loc, usageError{err}
	}
	return loc, err
}

// configHasServer reports whether the --config file, read in the format
// it looks like, has a server entry named name.
func configHasServer(f hostsFlags, name string) bool {
	loc, err := configLocation(f)
	if err != nil {
		return false
	}
	es, err := hosts.ReadFile(loc)
	return err == nil && slices.ContainsFunc(es, func(e hosts.Entry) bool { return e.Key == name })
}

// target is one config file hosts wrap or unwrap edits, and the locations
// in it (Claude Code's user and local scopes share ~/.claude.json).
type target struct {
	path string
	data []byte
	locs []hosts.Location
	keys [][]string // per location: the keys to edit; nil means all

	out     []byte         // data edited
	changes []hosts.Change // what the edits did, in locs order
	scopes  []string       // the scopes edited
}

// hostsEdit is `hosts wrap` (unwrap false) and `hosts unwrap`.
func hostsEdit(w io.Writer, f hostsFlags, args []string, unwrap bool) error {
	verb := "wrap"
	if unwrap {
		verb = "unwrap"
	}
	env, err := f.env()
	if err != nil {
		return runErr(err)
	}
	var title, host string
	var locs []hosts.Location
	var servers []string
	if f.config != "" {
		// `wrap cursor --config FILE`: a host named first says the file's
		// format, as --format does, unless --format is given or the file
		// has a server of that name ("codex" is one in many .mcp.json).
		if len(args) > 0 && f.format == "" {
			if h, ok := hosts.Lookup(args[0]); ok && !configHasServer(f, args[0]) {
				f.format, args = h.Name, args[1:]
			}
		}
		loc, err := configLocation(f)
		if err != nil {
			return runErr(err)
		}
		title, host, locs, servers = loc.Path, "file", []hosts.Location{loc}, args
	} else {
		if len(args) == 0 {
			if unwrap {
				return usageError{fmt.Errorf("unwrap needs a host (%s), --config FILE, or --all for every host", strings.Join(hosts.Names(), ", "))}
			}
			return usageError{fmt.Errorf("%s needs a host (%s) or --config FILE", verb, strings.Join(hosts.Names(), ", "))}
		}
		h, err := lookupHost(args[0])
		if err != nil {
			return err
		}
		title, host, servers = h.Title, h.Name, args[1:]
		locs = h.Locations(env)
		if f.scope != "" {
			var scopes []string
			locs = slices.DeleteFunc(locs, func(l hosts.Location) bool {
				scopes = append(scopes, l.Scope)
				return l.Scope != f.scope
			})
			if len(locs) == 0 {
				return usageError{fmt.Errorf("%s has no scope %q (it has %s)", h.Name, f.scope, strings.Join(scopes, ", "))}
			}
		}
	}
	if f.all && len(servers) > 0 {
		return usageError{fmt.Errorf("%s takes server names or --all, not both", verb)}
	}
	return editLocations(w, f, env, title, host, locs, servers, unwrap)
}

// editLocations is hosts wrap or unwrap of servers (all of them with
// --all) in locs, the config files of host (titled title; "file" for
// --config): each file read and parsed once, edited in memory for all its
// locations, and written once, with one backup.
func editLocations(w io.Writer, f hostsFlags, env hosts.Env, title, host string, locs []hosts.Location, servers []string, unwrap bool) error {
	verb := "wrap"
	if unwrap {
		verb = "unwrap"
	}
	// Read every file first: nothing is written unless every name is found
	// and every file parses.
	var targets []*target
	var entries [][]hosts.Entry // per location, in locs order
	var found []hosts.Location
	var absent []string
	for _, l := range locs {
		var data []byte
		var err error
		if i := slices.IndexFunc(targets, func(t *target) bool { return t.path == l.Path }); i >= 0 {
			data = targets[i].data // read once
		} else if data, err = hosts.ReadForEdit(l.Path); errors.Is(err, fs.ErrNotExist) {
			absent = append(absent, tildePath(l.Path, env.Home))
			continue
		} else if err != nil {
			return runErr(err)
		}
		es, err := hosts.Read(data, l)
		if err != nil {
			return runErr(fmt.Errorf("%w (nothing was changed)", err))
		}
		i := slices.IndexFunc(targets, func(t *target) bool { return t.path == l.Path })
		if i < 0 {
			targets = append(targets, &target{path: l.Path, data: data})
			i = len(targets) - 1
		}
		targets[i].locs = append(targets[i].locs, l)
		targets[i].keys = append(targets[i].keys, nil)
		entries = append(entries, es)
		found = append(found, l)
	}
	if len(found) == 0 {
		return runErr(fmt.Errorf("%s has no config file here (%s does not exist)", title, strings.Join(absent, ", ")))
	}
	if !f.all && len(servers) == 0 {
		var keys []string
		for _, es := range entries {
			for _, e := range es {
				keys = append(keys, displayKey(e.Key))
			}
		}
		has := "no servers"
		if len(keys) > 0 {
			has = strings.Join(keys, ", ")
		}
		return usageError{fmt.Errorf("%s needs the names of the servers to %s, or --all (%s has %s)", verb, verb, title, has)}
	}
	if !f.all {
		if err := chooseKeys(targets, found, entries, servers, host, unwrap); err != nil {
			return err
		}
	}
	if !unwrap {
		wrapping := make([][]hosts.Entry, len(entries))
		for i, es := range entries {
			for _, e := range es {
				if e.Wrappable() && (f.all || slices.Contains(servers, e.Key)) {
					wrapping[i] = append(wrapping[i], e)
				}
			}
		}
		if err := sameNameElsewhere(env, found, wrapping); err != nil {
			return runErr(err)
		}
	}

	bin, err := hostsBinary()
	if err != nil {
		return runErr(fmt.Errorf("finding this binary's path: %w", err))
	}
	// Every edit is made in memory first: a file that cannot be edited
	// stops the command before anything is written.
	for _, t := range targets {
		if _, err := t.edit(t.data, f.all, unwrap, bin); err != nil {
			return runErr(err)
		}
	}
	// What WriteFile would refuse (a read-only file, someone else's link
	// or file) stops the command before the first file is written.
	for _, t := range targets {
		if len(t.scopes) > 0 && !bytes.Equal(t.out, t.data) {
			if err := hosts.Writable(t.path); err != nil {
				return runErr(fmt.Errorf("%w (nothing was changed)", err))
			}
		}
	}
	changed := false
	for _, t := range targets {
		if len(t.scopes) == 0 {
			continue
		}
		var backup string
		tries := 1
		if !bytes.Equal(t.out, t.data) {
			// The host may write the file meanwhile: the edit is made
			// again on its version (package hosts, swap.go).
			redo := func(data []byte) ([]byte, error) { return t.edit(data, f.all, unwrap, bin) }
			if backup, tries, err = hosts.EditFile(t.path, t.data, t.out, redo, time.Now()); err != nil {
				if changed {
					err = fmt.Errorf("%w (the files above were changed; this one was not)", err)
				}
				return runErr(err)
			}
			changed = changed || backup != ""
		}
		if f.quiet && backup == "" {
			continue
		}
		heading := title
		if host != "file" {
			heading += " (" + strings.Join(t.scopes, ", ") + ") — " + t.path
		}
		fmt.Fprintln(w, heading)
		tw := chars.NewColumns(w)
		for _, c := range t.changes {
			what := string(c.Outcome)
			switch {
			case c.Outcome == hosts.Skipped:
				what = "left alone (" + displayText(c.Note) + ")"
			case c.Note != "":
				what += " (" + displayText(c.Note) + ")"
			case c.Entry.State == hosts.StateRemote:
				what += " (remote " + displayText(c.Entry.URL) + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\n", displayKey(c.Key), what)
		}
		if len(t.changes) == 0 {
			fmt.Fprintln(tw, "  no servers")
		}
		tw.Flush()
		if tries > 1 {
			fmt.Fprintf(w, "  the host rewrote the file while elicitray was editing it: edited its new version (%d tries)\n", tries)
		}
		if backup == "" {
			fmt.Fprintln(w, "  nothing to change: the file was not written")
		} else {
			fmt.Fprintf(w, "  backup of the file as it was: %s\n", backup)
		}
	}
	if changed && host != "file" {
		fmt.Fprintf(w, "Restart %s (or reload its MCP servers) for the change to take effect.\n", title)
	}
	if home := os.Getenv("ELICITRAY_HOME"); home != "" && !unwrap && wrappedAny(targets) {
		fmt.Fprint(w, homeNotPassed(home))
	}
	return nil
}

// unwrapEveryHost is `hosts unwrap --all` with no host: every host's
// configs found here, in every scope: the user's, the current project's,
// and those of every project Claude Code has on record (.claude.json), so
// that an uninstall leaves no host running a program that is gone. A file
// that does not name elicitray has nothing to unwrap and is not read
// further (nor does it fail the command when it does not parse). Each
// host's files are edited once, for all their scopes; only the files that
// change are said. A host that fails does not stop the others (its error
// goes to errw), and the command fails at the end if any did.
func unwrapEveryHost(w, errw io.Writer, f hostsFlags) error {
	if f.scope != "" {
		return usageError{errors.New("unwrap --all with no host takes no --scope: name a host to unwrap one scope of it")}
	}
	env, err := f.env()
	if err != nil {
		return runErr(err)
	}
	dirs := []string{env.Project}
	for _, d := range hosts.ClaudeProjects(env, "elicitray") {
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	mentions := map[string]bool{} // per file: whether it names elicitray
	names := func(path string) bool {
		if m, ok := mentions[path]; ok {
			return m
		}
		data, err := hosts.ReadConfig(path)
		mentions[path] = err == nil && bytes.Contains(bytes.ToLower(data), []byte("elicitray"))
		return mentions[path]
	}
	f.quiet = true
	var failed []string
	changed := false
	for _, name := range hosts.Names() {
		h, _ := hosts.Lookup(name)
		var locs []hosts.Location
		for i, dir := range dirs {
			e := env
			e.Project = dir
			for _, l := range h.Locations(e) {
				if l.Scope == "user" && i > 0 || !names(l.Path) ||
					slices.ContainsFunc(locs, func(m hosts.Location) bool { return m.Path == l.Path && slices.Equal(m.Servers, l.Servers) }) {
					continue
				}
				locs = append(locs, l)
			}
		}
		if len(locs) == 0 {
			continue
		}
		var out bytes.Buffer
		err := editLocations(&out, f, env, h.Title, h.Name, locs, nil, true)
		changed = changed || out.Len() > 0
		w.Write(out.Bytes())
		if err != nil {
			fmt.Fprintf(errw, "elicitray: %s: %v\n", h.Title, err)
			failed = append(failed, h.Title)
		}
	}
	if !changed && len(failed) == 0 {
		fmt.Fprintln(w, "no host's config runs a server through elicitray: nothing to unwrap")
	}
	if len(failed) > 0 {
		return runErr(fmt.Errorf("could not unwrap the configs of %s (said above); the others were unwrapped", strings.Join(failed, ", ")))
	}
	return nil
}

// edit makes the command's edits of t's locations on data, the file's
// contents, into t.out, t.changes and t.scopes, and returns t.out: first on
// what was read, and again on each version the host writes before the
// edit is in place.
func (t *target) edit(data []byte, all, unwrap bool, bin string) ([]byte, error) {
	t.data, t.out, t.changes, t.scopes = data, data, nil, nil
	for i, l := range t.locs {
		if !all && t.keys[i] == nil {
			continue
		}
		var cs []hosts.Change
		var err error
		if unwrap {
			// The backups hold each entry as it was before wrap: an
			// empty args there comes back from them.
			t.out, cs, err = hosts.Unwrap(t.out, l, t.keys[i], &hosts.UnwrapOptions{Earlier: hosts.Earlier(t.path)})
		} else {
			t.out, cs, err = hosts.Wrap(t.out, l, t.keys[i], bin)
		}
		if err != nil {
			return nil, fmt.Errorf("%w (nothing was changed)", err)
		}
		t.changes = append(t.changes, cs...)
		if !slices.Contains(t.scopes, l.Scope) { // the local scopes of several projects are one
			t.scopes = append(t.scopes, l.Scope)
		}
	}
	return t.out, nil
}

// wrappedAny reports whether an edit put elicitray in front of an entry.
func wrappedAny(targets []*target) bool {
	for _, t := range targets {
		for _, c := range t.changes {
			if c.Outcome == hosts.Wrapped || c.Outcome == hosts.AlreadyWrapped || c.Outcome == hosts.Repointed {
				return true
			}
		}
	}
	return false
}

// homeNotPassed says, after a wrap run with ELICITRAY_HOME set, that the
// wrapped servers will not see it: hosts start servers with an environment
// of their own (DESIGN.md, "Hosts strip the environment"), and what is set
// in this shell is not in it. Their prompts would go to the hub, settings
// and history of the usual place while the user looks in home.
func homeNotPassed(home string) string {
	return fmt.Sprintf("Note: ELICITRAY_HOME is set in this shell (%s), but hosts start their servers with an\n"+
		"environment of their own (those built on the TypeScript SDK pass on only HOME, LOGNAME,\n"+
		"PATH, SHELL, TERM and USER). The servers wrapped above will use elicitray's usual\n"+
		"settings, hub and history, not those in %s, unless their entries set ELICITRAY_HOME\n"+
		"in their own env.\n", home, home)
}

// chooseKeys finds the location of each named server and sets the targets'
// keys. A name in no location, or in several, is a usage error; naming a
// remote entry that cannot be wrapped, or an unsupported entry, to wrap is a
// run error. Both come before any
// file is written.
func chooseKeys(targets []*target, locs []hosts.Location, entries [][]hosts.Entry, servers []string, host string, unwrap bool) error {
	// Keys indexed once per location: a config can hold thousands of
	// entries, and looking each name up by a scan would be quadratic.
	var all []string
	seen := map[string]bool{}
	index := make([]map[string]int, len(entries))
	for i, es := range entries {
		index[i] = make(map[string]int, len(es))
		for j, e := range es {
			index[i][e.Key] = j
			if !seen[e.Key] {
				seen[e.Key] = true
				all = append(all, e.Key) // shown through displayText
			}
		}
	}
	for _, s := range servers {
		var in []int
		for i, es := range entries {
			if j, ok := index[i][s]; ok {
				in = append(in, i)
				e := es[j]
				if !unwrap && e.State == hosts.StateRemote && e.Note != "" {
					return runErr(fmt.Errorf("%s is a remote server (%s) that elicitray cannot wrap: %s; it was left as it is", displayText(s), displayText(e.URL), e.Note))
				}
				if e.State == hosts.StateUnsupported {
					return runErr(fmt.Errorf("%s cannot be edited: %s; it was left as it is", displayText(s), e.Note))
				}
			}
		}
		switch len(in) {
		case 0:
			msg := fmt.Sprintf("%s has no server %q", host, s)
			if host == "file" {
				msg = fmt.Sprintf("%s has no server %q", locs[0].Path, s)
			}
			if sug := hosts.Suggest(s, all); len(sug) > 0 {
				msg += "\n\nDid you mean this?\n\t" + strings.Join(displayAll(sug), "\n\t")
			} else if len(all) > 0 {
				msg += " (it has " + strings.Join(displayAll(all), ", ") + ")"
			}
			return usageError{errors.New(msg)}
		case 1:
		default:
			var scopes []string
			for _, i := range in {
				scopes = append(scopes, locs[i].Scope)
			}
			return usageError{fmt.Errorf("%q is in %s's %s scopes: say which with --scope", s, host, strings.Join(scopes, " and "))}
		}
		l := locs[in[0]]
		for _, t := range targets {
			for i, tl := range t.locs {
				if tl.Path == l.Path && tl.Scope == l.Scope {
					t.keys[i] = append(t.keys[i], s)
				}
			}
		}
	}
	return nil
}

// displayAll is displayText of each of ss.
func displayAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = displayText(s)
	}
	return out
}

// lookupHost finds a host by name, ignoring case; an unknown one is a usage
// error with suggestions.
func lookupHost(name string) (hosts.Host, error) {
	if h, ok := hosts.Lookup(name); ok {
		return h, nil
	}
	msg := fmt.Sprintf("unknown host %q", name)
	if sug := hosts.Suggest(name, hosts.Names()); len(sug) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(sug, "\n\t") + "\n"
	}
	msg += "\nelicitray knows " + strings.Join(hosts.Names(), ", ") + " (or name a file with --config)"
	return hosts.Host{}, usageError{errors.New(msg)}
}
