package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/elicitray/elicitray/ui/lang"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/journal"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/toolpins"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/history"
)

// newToolsCmd is `elicitray tools list|accept|forget`: the tool
// definitions pinned per server (app/toolpins). It reads and changes the
// pins file itself, hub or no hub: a running wrapper reads it afresh at
// the next call of a changed tool, so a change accepted here lets that
// call pass.
func newToolsCmd(p paths.Paths, stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List, accept or forget the tool definitions pinned for each server",
		Long: "The first time a wrapped server lists a tool, elicitray pins what it said of it: its title,\n" +
			"description, input schema and annotations. When a later list says otherwise, every call of\n" +
			"that tool waits for your approval in a window that shows what changed, until you accept the\n" +
			"new definition here. A server that rewrites a tool you trusted is caught so.",
		Args: cobra.NoArgs,
	}
	store := toolpins.New(p)
	list := &cobra.Command{
		Use:     "list [SERVER]",
		Short:   "List the pinned tools (of one server), and the changes waiting for you",
		Example: "  elicitray tools list\n  elicitray tools list github",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			servers, err := store.Servers()
			if err != nil {
				return runErr(err)
			}
			if len(args) == 1 {
				if !slices.Contains(servers, args[0]) {
					return runErr(fmt.Errorf("no tools of %q are pinned: they are when it lists them through `elicitray wrap --name %s`", args[0], displayText(args[0])))
				}
				servers = args
			}
			if len(servers) == 0 {
				fmt.Fprintln(stdout, "No tools are pinned. A wrapped server's tools are pinned the first time it lists them.")
				return nil
			}
			tw := chars.NewColumns(stdout)
			fmt.Fprintln(tw, "SERVER\tTOOL\tPINNED\tSTATE")
			for _, server := range servers {
				pins, err := store.Server(server)
				if err != nil {
					return runErr(err)
				}
				for _, name := range slices.Sorted(maps.Keys(pins)) {
					t := pins[name]
					state := "as pinned"
					if t.Changed != nil {
						// The command quoted for a shell, so that it names
						// this tool whatever its name holds.
						state = "changed " + t.ChangedAt.Local().Format("2006-01-02 15:04") + ": calls wait for you (" +
							shellJoin([]string{"elicitray", "tools", "accept", server, name}) + ")"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", oneLineClip(displayText(server), 30), oneLineClip(displayText(name), 40),
						t.Since.Local().Format("2006-01-02 15:04"), state)
				}
			}
			return tw.Flush()
		},
	}
	var yes bool
	accept := &cobra.Command{
		Use:   "accept SERVER [TOOL…]",
		Short: "Show the changed definitions of a server's tools (all of its changed tools unless named), and accept them",
		Long: "Shows what changed in each tool and asks before accepting it, as the window that tells of a change\n" +
			"does; what is accepted is what was shown (a tool the server changed again meanwhile is not).\n" +
			"With --yes, or with no terminal to ask on, nothing is asked: --yes accepts what is shown.",
		Example: "  elicitray tools accept github deploy\n  elicitray tools accept github\n  elicitray tools accept --yes github deploy",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("accept takes the server's name, and the tools' names or none for all its changed tools (see `elicitray tools list`)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			server := args[0]
			changes, err := store.Changes(server, args[1:])
			if err != nil {
				return runErr(err)
			}
			if len(changes) == 0 {
				fmt.Fprintf(stdout, "No tool of %s has a change waiting.\n", displayText(server))
				return nil
			}
			names := slices.Sorted(maps.Keys(changes))
			for _, name := range names {
				showChange(stdout, server, name, changes[name])
			}
			if !yes {
				in := cmd.InOrStdin()
				if !isTerminal(in) {
					return runErr(errors.New("nothing was accepted: with no terminal to ask on, add --yes to accept the changes shown above"))
				}
				fmt.Fprintf(stdout, "Accept %s? [y/N] ", plural(len(names), "this change", "these changes"))
				answer, _ := bufio.NewReader(in).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
					fmt.Fprintln(stdout, "Nothing was accepted: the changes still wait.")
					return nil
				}
			}
			err = store.Accept(server, changes, time.Now())
			if errors.Is(err, toolpins.ErrChangedAgain) {
				return runErr(fmt.Errorf("nothing was accepted: %w; run the command again to see what changed", err))
			} else if err != nil {
				return runErr(err)
			}
			keepAccepted(cmd.Context(), p, server, names, changes, cmd.ErrOrStderr())
			fmt.Fprintf(stdout, "Accepted the new definition of %s's %s: %s for you unless guarded.\n", displayText(server), quotedList(names),
				plural(len(names), "its calls no longer wait", "their calls no longer wait"))
			return nil
		},
	}
	accept.Flags().BoolVarP(&yes, "yes", "y", false, "accept the changes shown without asking")
	forget := &cobra.Command{
		Use:     "forget SERVER [TOOL…]",
		Short:   "Forget a server's pinned tools (all of them unless named): the next list pins them anew",
		Example: "  elicitray tools forget github deploy\n  elicitray tools forget github",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("forget takes the server's name, and the tools' names or none for all of them (see `elicitray tools list`)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := store.Forget(args[0], args[1:])
			if err != nil {
				return runErr(err)
			}
			what := fmt.Sprintf("%d %s", n, plural(n, "pinned tool", "pinned tools"))
			fmt.Fprintf(stdout, "Forgot %s of %s: the next list pins what it says.\n", what, displayText(args[0]))
			return nil
		},
	}
	cmd.AddCommand(list, accept, forget)
	return cmd
}

// keepAccepted keeps in history each change of server's tools named that
// the user accepted with the command (changes, by name; journal.
// ToolAccepted): through the
// running hub, which also answers the windows telling of those changes
// (Hub.ToolAccepted), in one request; else, or when the hub does not say
// they are kept in time, in the spool, which the next hub or history
// command takes in (the hub keeps one of each, should the request reach
// it after all). What cannot be kept is said on stderr; the acceptance
// stands.
func keepAccepted(ctx context.Context, p paths.Paths, server string, names []string, changes map[string]string, stderr io.Writer) {
	recs := make([]history.Record, len(names))
	for i, name := range names {
		recs[i] = journal.ToolAccepted(server, name, changes[name], bridge.DecidedByCommandLine, "accepted with `elicitray tools accept`")
	}
	c := cliHub(p, nil)
	defer c.Close()
	if c.ToolAccepted(ctx, hubapi.ToolAcceptedRequest{Records: recs}) == nil {
		return
	}
	spool := &journal.Spool{Dir: journal.SpoolDir(p), Role: "cli"}
	defer spool.Close()
	for i, rec := range recs {
		if err := spool.Add(rec); err != nil {
			fmt.Fprintf(stderr, "elicitray: that you accepted the change of %s could not be kept in history (%s)\n", quotedList(names[i:i+1]), journal.StorageSentence(err))
		}
	}
}

// showChange shows the change of server's tool name that waits, as the
// window telling of it does: Be careful and what it found first, then
// what changed, every line escaped for the terminal.
func showChange(w io.Writer, server, name, account string) {
	fmt.Fprintf(w, "%s's tool %s changed its definition:\n", displayText(server), quotedList([]string{name}))
	text := account
	if said := bridge.SuspicionsSaid(account, lang.English); said != "" {
		text = said + "\n" + account
	}
	for line := range strings.SplitSeq(text, "\n") {
		fmt.Fprintf(w, "  %s\n", displayText(line))
	}
}

// isTerminal reports whether r is a terminal a person types at.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// quotedList is names quoted and joined for a sentence.
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "“" + oneLineClip(displayText(n), 40) + "”"
	}
	return strings.Join(q, ", ")
}
