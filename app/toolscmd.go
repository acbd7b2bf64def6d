package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
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
					return runErr(fmt.Errorf("no tools of %s are pinned: they are when it lists them through `elicitray wrap --name %s`", args[0], args[0]))
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
	accept := &cobra.Command{
		Use:     "accept SERVER [TOOL…]",
		Short:   "Accept the changed definitions of a server's tools (all of its changed tools unless named)",
		Example: "  elicitray tools accept github deploy\n  elicitray tools accept github",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("accept takes the server's name, and the tools' names or none for all its changed tools (see `elicitray tools list`)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			done, err := store.Accept(args[0], args[1:], time.Now())
			if err != nil {
				return runErr(err)
			}
			keepAccepted(cmd.Context(), p, args[0], done, cmd.ErrOrStderr())
			if len(done) == 0 {
				fmt.Fprintf(stdout, "No tool of %s has a change waiting.\n", displayText(args[0]))
				return nil
			}
			calls := "their calls no longer wait"
			if len(done) == 1 {
				calls = "its calls no longer wait"
			}
			names := make([]string, len(done))
			for i, a := range done {
				names[i] = a.Name
			}
			fmt.Fprintf(stdout, "Accepted the new definition of %s's %s: %s for you unless guarded.\n", displayText(args[0]), quotedList(names), calls)
			return nil
		},
	}
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
			what := fmt.Sprintf("%d pinned tools", n)
			if n == 1 {
				what = "1 pinned tool"
			}
			fmt.Fprintf(stdout, "Forgot %s of %s: the next list pins what it says.\n", what, displayText(args[0]))
			return nil
		},
	}
	cmd.AddCommand(list, accept, forget)
	return cmd
}

// keepAccepted keeps in history each change of server's tools that the
// user accepted with the command (journal.ToolAccepted): through the
// running hub, which also answers a window telling of the change with it
// (Hub.ToolAccepted), else in the spool, which the next hub or history
// command takes in. What cannot be kept is said on stderr; the acceptance
// stands.
func keepAccepted(ctx context.Context, p paths.Paths, server string, done []toolpins.Accepted, stderr io.Writer) {
	c := cliHub(p, nil)
	defer c.Close()
	var spool *journal.Spool
	for _, a := range done {
		rec := journal.ToolAccepted(server, a.Name, a.Change, bridge.DecidedByCommandLine, "accepted with `elicitray tools accept`")
		// A hub that missed one (none runs, or it is stuck) is not waited
		// for again: the rest go straight to the spool.
		if spool == nil && c.ToolAccepted(ctx, hubapi.ToolAcceptedRequest{Record: &rec}) == nil {
			continue
		}
		if spool == nil {
			spool = &journal.Spool{Dir: journal.SpoolDir(p), Role: "cli"}
			defer spool.Close()
		}
		if err := spool.Add(rec); err != nil {
			fmt.Fprintf(stderr, "elicitray: that you accepted the change of %s could not be kept in history (%s)\n", quotedList([]string{a.Name}), journal.StorageSentence(err))
		}
	}
}

// quotedList is names quoted and joined for a sentence.
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "“" + oneLineClip(displayText(n), 40) + "”"
	}
	return strings.Join(q, ", ")
}
