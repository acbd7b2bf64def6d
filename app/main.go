package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/elicitray/elicitray/app/desktop"
	"github.com/elicitray/elicitray/app/hubapi"

	"github.com/elicitray/elicitray/app/session"
	"github.com/elicitray/elicitray/app/winui"
	"github.com/elicitray/elicitray/app/wrapper"

	"github.com/elicitray/elicitray/app/journal"

	"github.com/spf13/cobra"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/demo"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/bridge"
)

// Version is elicitray's version, set at build time with
// -ldflags "-X github.com/elicitray/elicitray/app.Version=…".
var Version = "0.1.0-dev"

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2 // unknown flag, missing command: like most Unix tools
)

// exitCode carries a command's exit status through cobra.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// usageError marks errors in how the command was called.
type usageError struct{ error }

// Main runs elicitray with args (without the program name) and returns the
// process exit code. It is the whole program: main.go only calls it, and
// tests call it in-process.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	log.SetOutput(stderr) // quiet until now: see package earlylog
	root := newRoot(ctx, paths.FromEnv(os.Getenv), stdin, stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	var code exitCode
	if errors.As(err, &code) {
		return int(code)
	}
	if errors.Is(err, syscall.EPIPE) {
		// The reader went away (`history show 12 | head`): as for any
		// command in a pipeline, that is no news to print.
		return exitError
	}
	var ue usageError
	if errors.As(err, &ue) || !errors.Is(err, errRun) {
		fmt.Fprintf(stderr, "elicitray: %v\n", err)
		if cmd != nil {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
		return exitUsage
	}
	fmt.Fprintf(stderr, "elicitray: %v\n", errors.Unwrap(err))
	return exitError
}

// errRun marks errors from running a command (as opposed to calling it
// wrongly); wrap them with runErr.
var errRun = errors.New("run error")

type runError struct{ err error }

func (e runError) Error() string        { return e.err.Error() }
func (e runError) Unwrap() error        { return e.err }
func (e runError) Is(target error) bool { return target == errRun }

func runErr(err error) error {
	if err == nil {
		return nil
	}
	return runError{err}
}

// newDemoServerCmd is `elicitray demo-server [--audit FILE]`.
func newDemoServerCmd(ctx context.Context, p paths.Paths, stdin io.Reader, stdout io.Writer) *cobra.Command {
	var audit string
	cmd := &cobra.Command{
		Use:   "demo-server",
		Short: "Run the built-in demo MCP server (stdio): tools that elicit every kind of field, and a change-approval flow",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if audit == "" {
				audit = filepath.Join(filepath.Dir(p.HubLog), "demo-audit.jsonl")
			}
			// Absolute: the tool results name it for the user to open.
			abs, err := filepath.Abs(audit)
			if err != nil {
				return usageError{fmt.Errorf("--audit %q: %w", audit, err)}
			}
			return runErr(demo.Server(ctx, stdin, stdout, &demo.Options{AuditLog: abs, NotShown: pausedNow(ctx, p)}))
		},
	}
	cmd.Flags().StringVar(&audit, "audit", "", "request_change appends each outcome to `FILE`, one JSON line each (default: demo-audit.jsonl next to hub.log)")
	return cmd
}

// pausedNow is the demo server's demo.Options.NotShown: whether the
// running hub (never one started for it) has prompts paused. The demo
// server is elicitray's own, so it may ask what a server cannot know: that
// its cancel came from the pause, not from someone dismissing the window
// (the history says "paused" too).
func pausedNow(ctx context.Context, p paths.Paths) func() string {
	return func() string {
		c := cliHub(p, nil)
		defer c.Close()
		r, err := c.Probe(ctx)
		if err != nil || !r.Paused {
			return ""
		}
		return "elicitray is paused (`elicitray resume` shows prompts again)"
	}
}

// newDemoCmd is `elicitray demo [--protocol VERSION] [--tool NAME]…`.
func newDemoCmd(ctx context.Context, p paths.Paths, stdout, stderr io.Writer) *cobra.Command {
	var protocol string
	var tools []string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run a built-in host against the demo server through `elicitray wrap`",
		Long: "Run a built-in host against `elicitray wrap --name demo -- elicitray demo-server`.\n" +
			"Without --protocol it runs both eras: every demo tool at " + demo.HostProtocolVersion + ",\n" +
			"then the change-approval flow (request_change) at " + demo.LegacyProtocolVersion + ".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			one := &demo.HostOptions{ProtocolVersion: protocol, Tools: tools}
			if err := one.Check(); err != nil {
				return usageError{err}
			}
			// The hub first: the demo's windows need one, and a desktop
			// that cannot show them is said before the demo starts.
			c := cliHub(p, stderr)
			defer c.Close()
			if _, err := c.Connect(ctx); err != nil {
				return runErr(fmt.Errorf("the demo shows desktop windows: %w", err))
			}
			exe, err := os.Executable()
			if err != nil {
				return runErr(err)
			}
			command := []string{exe, "wrap", "--name", "demo", "--", exe, "demo-server"}
			if protocol == "" {
				return runErr(demo.Tour(ctx, command, stdout, tools))
			}
			return runErr(demo.Host(ctx, command, stdout, one))
		},
	}
	cmd.Flags().StringVar(&protocol, "protocol", "", "speak only this protocol `VERSION`: "+demo.HostProtocolVersion+" or "+demo.LegacyProtocolVersion+" (default: both in turn)")
	cmd.Flags().StringArrayVar(&tools, "tool", nil, "call only this demo `TOOL`, in each era (repeatable; default: every tool, then request_change alone at "+demo.LegacyProtocolVersion+")")
	return cmd
}

func newRoot(ctx context.Context, p paths.Paths, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "elicitray",
		Short: "Answer MCP servers' elicitations in native desktop windows",
		Long: "elicitray shows the questions MCP servers ask mid tool call (elicitations) as desktop\n" +
			"windows, for any host. Wrap a server in your host's MCP config:\n\n" +
			"  elicitray wrap --name github -- npx -y some-mcp-server\n\n" +
			"With no command, elicitray runs the hub: the tray icon and the windows.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return unknownCommand(cmd, args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHub(ctx, p, false, stderr)
		},
	}
	root.Version = Version
	root.SuggestionsMinimumDistance = 2
	root.SetVersionTemplate("elicitray {{.Version}}\n")
	root.SetContext(ctx)
	root.SetIn(stdin)
	// Help and --version go to stdout, as people pipe them (`--help | less`);
	// wrap's go to stderr: in a wrapper, stdout is MCP's (newWrapCmd).
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	root.CompletionOptions.DisableDefaultCmd = true

	root.AddCommand(newPolicyCmds(ctx, p, stdout, stderr)...)
	root.AddCommand(newConformanceHostCmd(ctx, p, stdout, stderr))
	root.AddCommand(
		newWrapCmd(ctx, p, stdin, stdout, stderr),
		newHubCmd(ctx, p, stderr),
		&cobra.Command{
			// The hub's window process (wincmd.go): started by the hub,
			// with its socket as fd 3; not for people.
			Use:    "ui",
			Short:  "The hub's window process (started by the hub)",
			Hidden: true,
			Args:   cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				return winui.Run(stderr)
			},
		},
		newHistoryCmd(ctx, p, stdout),
		newAutostartCmd(stdout),
		newRulesCmd(p, stdout),
		newToolsCmd(p, stdout),
		newMenuCmd(ctx, p),
		newDoctorCmd(ctx, p, stdout),
		newHostsCmd(stdout, stderr),
		newAuthCmd(ctx, p, stdout, stderr),
		newDemoServerCmd(ctx, p, stdin, stdout),
		newDemoCmd(ctx, p, stdout, stderr),
		&cobra.Command{
			Use:   "quit",
			Short: "Stop the running hub (as its tray menu's Quit does)",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				c := cliHub(p, nil)
				defer c.Close()
				r, err := c.Quit(ctx)
				if errors.Is(err, hubapi.ErrNotRunning) {
					fmt.Fprintln(stderr, "elicitray: no hub is running")
					return nil
				}
				if err == nil {
					fmt.Fprintln(stderr, "elicitray: the hub stopped")
					if r.Unsaved > 0 {
						// Said where the user looks: they are lost now.
						fmt.Fprintf(stderr, "elicitray: %s could not be saved before the hub stopped (%s); the wrappers that asked keep copies and save them when they stop, if the disk has room by then; hub.log lists what was decided\n", journal.Decisions(r.Unsaved), r.Problem)
						return exitCode(exitError)
					}
				}
				return runErr(cliHubErr(err))
			},
		},
		&cobra.Command{
			// Run by doctor, or a hub started without DISPLAY, that
			// found a desktop session, with that session's environment
			// (display.go).
			Use:    "probe-display",
			Short:  "Exit 0 when this environment's display opens",
			Hidden: true,
			Args:   cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				release, _, err := session.OpenDisplay()
				release()
				return runErr(err)
			},
		},
		&cobra.Command{
			Use:   "version",
			Short: "Print elicitray's version",
			Args:  cobra.NoArgs,
			Run: func(cmd *cobra.Command, args []string) {
				fmt.Fprintf(stdout, "elicitray %s\n", Version)
			},
		},
	)

	return root
}

// unknownCommand is the usage error for a command name cmd does not have,
// with cobra's suggestions: "unknown command "wrapp" for "elicitray"",
// then "Did you mean this?" and "wrap".
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // what cobra's own suggestions use
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return usageError{errors.New(msg)}
}

func newWrapCmd(ctx context.Context, p paths.Paths, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var name string
	var grace time.Duration
	var remote remoteFlags
	cmd := &cobra.Command{
		Use:   "wrap [--name NAME] -- COMMAND [ARGS...]\n  elicitray wrap [--name NAME] --url URL [--header 'Name: value']...",
		Short: "Run an MCP server and answer its elicitations in desktop windows",
		Long: "wrap starts COMMAND, relays MCP between the host (this process's stdin/stdout) and\n" +
			"the server, and shows each elicitation the server sends as a desktop window.\n" +
			"With --url it connects to a remote server over Streamable HTTP instead (or the older\n" +
			"HTTP+SSE transport when the server has only that); the host still talks stdio to wrap.\n" +
			"NAME is how windows and history name the server; it defaults to the command's name,\n" +
			"or the URL's host name.",
		Example: `  elicitray wrap --name everything -- npx -y @modelcontextprotocol/server-everything
  elicitray wrap --name github --url https://api.githubcopilot.com/mcp/ --bearer-env GITHUB_TOKEN`,
		Args: func(cmd *cobra.Command, args []string) error {
			return remote.check(args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			client, err := wrapper.New(p, stderr)
			if err != nil {
				return runErr(err)
			}
			client.SayHub = true
			if name == "" && remote.url != "" {
				name = remoteName(remote.url)
			} else if name == "" {
				name = serverName(args)
			}
			cfgPath := p.Config
			stamp := config.StampOf(cfgPath) // before the read: a change after it is caught
			settings := wrapperConfig(cfgPath, name, stderr)
			var srv bridge.Server
			what := ""
			if remote.url != "" {
				// A server that answers 401 gets the sign-in, asked of
				// the hub like a URL-mode link (PROTOCOL.md §12).
				s, err := remote.server(grace, settings.maxMessage, stderr, func(o *bridge.HTTPOptions) error {
					pre, err := remote.preRegistered(os.Getenv)
					if err != nil {
						return err
					}
					return wrapper.WithRemoteOAuth(o, p, name, pre, client, func(format string, args ...any) {
						fmt.Fprintf(stderr, "elicitray: "+format+"\n", args...)
					})
				})
				if err != nil {
					return err
				}
				srv, what = s, remote.url
			} else {
				srv, what = bridge.Command(exec.Command(args[0], args[1:]...), grace), args[0]
			}
			relay := bridge.NewRelay(srv, &bridge.Options{
				Server:           name,
				Approver:         client,
				Rejected:         client.Reject,
				NoDesktop:        client.NoDesktop,
				Overruled:        client.Overruled,
				Delivered:        client.Delivered,
				HostDecided:      client.HostDecided,
				KeepAlive:        settings.keepAlive,
				Guard:            settings.guard.Guard,
				GuardDestructive: settings.guard.GuardDestructive,
				Pins:             wrapper.Pins(p, name, stderr),
				PromptTimeout:    settings.timeout,
				Log:              stderr,
			})
			// The guard and keep-alive follow config.toml while the wrapper runs (wrapper.WatchGuard).
			watchCtx, stopWatch := context.WithCancel(ctx)
			wrapper.WatchGuard(watchCtx, cfgPath, name, settings.guard, settings.keepAlive, stamp, relay, stderr)
			dropStartupPages()
			code, err := relay.Run(ctx, stdin, stdout)
			stopWatch()
			client.Close()
			if err != nil {
				fmt.Fprintf(stderr, "elicitray: %v\n", startError(what, err))
			}
			if code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
	cmd.SetOut(stderr) // stdout carries MCP messages only
	cmd.Flags().StringVar(&name, "name", "", "the server's name in windows and history (default: from the command, or the URL's host)")
	remote.register(cmd.Flags())
	// A server's own flags before `--` look like ours: say how to pass them.
	cmd.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		// A flag wrap does not know is most likely the server's own.
		if strings.Contains(err.Error(), "unknown flag") || strings.Contains(err.Error(), "unknown shorthand") {
			return usageError{fmt.Errorf("%v (put the server command after --: elicitray wrap --name NAME -- COMMAND ARGS…)", err)}
		}
		return flagError(cmd, err)
	})
	cmd.DisableFlagsInUseLine = true // flags go before --, as Use shows
	durationVar(cmd.Flags(), &grace, "grace", 2*time.Second, "on shutdown, wait this long after closing the server's input before SIGTERM, and again before SIGKILL; with --url, how long requests still in flight may take before the session ends")
	return cmd
}

// startError is err, from running the server command named command, in
// a sentence when the command could not be started: "the server command
// "nosuchcmd" could not be started: it is not in PATH …", not Go's
// "fork/exec …" or "exec: …: executable file not found in $PATH".
func startError(command string, err error) error {
	if !errors.Is(err, bridge.ErrStart) {
		return err
	}
	var ee *exec.Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &ee) && errors.Is(ee.Err, exec.ErrNotFound):
		return fmt.Errorf("the server command %q could not be started: it is not in PATH (hosts often start servers with a short PATH: give its full path)", command)
	case errors.As(err, &pe):
		return fmt.Errorf("the server command %q could not be started: %v", command, pe.Err)
	}
	return err
}

// launchers are commands that run another program named by their first
// argument that is not a flag.
var launchers = map[string]bool{
	"npx": true, "uvx": true, "uv": true, "pnpm": true, "bunx": true, "bun": true, "node": true,
	"deno": true, "python": true, "python3": true, "docker": true, "pipx": true, "go": true,
}

// serverName derives a server's display name from its command line when
// --name is not given: `npx -y @modelcontextprotocol/server-everything`
// becomes "server-everything".
func serverName(args []string) string {
	name := filepath.Base(args[0])
	if !launchers[name] {
		return name
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") || a == "run" || a == "exec" || a == "dlx" || a == "tool" {
			continue
		}
		a = filepath.Base(a)
		if i := strings.LastIndex(a, "@"); i > 0 {
			a = a[:i] // drop a version: pkg@1.2.3
		}
		a = strings.TrimSuffix(strings.TrimSuffix(a, ".js"), ".py")
		if a != "" {
			return a
		}
	}
	return name
}

// runHub runs the hub here: `elicitray hub`, or elicitray with no command.
func runHub(ctx context.Context, p paths.Paths, forWindow bool, stderr io.Writer) error {
	if platform.LeaveOwnConsole() {
		// Windows: started by the Run key, the Start menu or the
		// installer, its console window closed; what it says goes to
		// its log.
		stderr = io.Discard
	}
	return hubExit(desktop.Run(ctx, p, Version, forWindow, stderr))
}

// hubExit is the hub command's outcome for runHub's err: a hub that could
// not start said why in its log, and ends with status 1, or
// session.HubExitNoDisplay when its display did not open.
func hubExit(err error) error {
	var se *desktop.StartError
	if !errors.As(err, &se) {
		return err
	}
	if se.NoDisplay {
		return exitCode(session.HubExitNoDisplay)
	}
	return exitCode(exitError)
}

func dirOf(path string) string { return filepath.Dir(path) }

func newHubCmd(ctx context.Context, p paths.Paths, stderr io.Writer) *cobra.Command {
	var home string
	var forWindow bool
	cmd := &cobra.Command{
		Use:   "hub",
		Short: "Run the hub: tray icon, prompt windows, history (started by wrappers when needed)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if home != "" {
				// An autostart entry's way to ELICITRAY_HOME, which not
				// every OS's entry can set (autostart.go).
				// Set in the environment too: the window process
				// inherits it.
				if err := os.Setenv("ELICITRAY_HOME", home); err != nil {
					return runErr(err)
				}
				p = paths.FromEnv(os.Getenv)
			}
			return runHub(ctx, p, forWindow, stderr)
		},
	}
	cmd.Flags().StringVar(&home, "home", "", "run the hub of this `ELICITRAY_HOME` (for autostart entries)")
	cmd.Flags().BoolVar(&forWindow, "for-window", false, "started to show a window (session.StartHub)")
	_ = cmd.Flags().MarkHidden("for-window")
	return cmd
}

// wrapperSettings are what the wrapper of one server reads of the config.
type wrapperSettings struct {
	// keepAlive is Config.KeepAliveFor the server.
	keepAlive time.Duration
	// guard holds the tools it guards (ServerConfig.Guard,
	// GuardDestructive).
	guard config.Server
	// timeout is the server's prompt timeout (Policy.Timeout): how long a
	// guarded call asked in the host, with no desktop, waits for it.
	timeout time.Duration
	// maxMessage is Remote.MaxMessage: for wrap --url.
	maxMessage int
}

// wrapperConfig is what the wrapper of the server configured as name reads
// of the config file at path when it starts; wrapper.WatchGuard follows later
// changes of its keep-alive and guard. A config file the wrapper cannot
// use gives the defaults, said once in the host's log: the hub says what
// is wrong with it in full.
func wrapperConfig(path, name string, stderr io.Writer) wrapperSettings {
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintf(stderr, "elicitray: %s: progress while a prompt is open comes every %v (the default), and no tool call waits for approval: %v\n", name, config.DefaultKeepAlive, err)
		return wrapperSettings{keepAlive: config.DefaultKeepAlive, timeout: config.DefaultTimeout}
	}
	return wrapperSettings{keepAlive: cfg.KeepAliveFor(name), guard: cfg.Servers[name], timeout: cfg.Policy(name).Timeout,
		maxMessage: cfg.Remote.MaxMessage()}
}
