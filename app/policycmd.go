package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/elicitray/elicitray/app/hub"

	"github.com/elicitray/elicitray/app/hubapi"

	"github.com/elicitray/elicitray/app/journal"

	"github.com/spf13/cobra"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/chars"
)

// The tray's policy items as commands, for desktops without a tray and for
// scripts: pause, resume, mute, unmute, status and settings. They talk to
// the running hub, which holds the policy; settings starts one if needed.

// newPolicyCmds returns the policy commands.
func newPolicyCmds(ctx context.Context, p paths.Paths, stdout, stderr io.Writer) []*cobra.Command {
	var muteFor time.Duration
	var force bool
	mute := &cobra.Command{
		Use:   "mute SERVER",
		Short: "Answer a server's prompts cancel for a while (default an hour), as the tray's Mute does",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return usageError{errors.New("mute needs one server name (the name given to wrap --name)")}
			}
			if muteFor <= 0 {
				return usageError{fmt.Errorf("--for must be more than zero, not %s", formatAge(muteFor))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var r hubapi.MuteReply
			err := askHub(ctx, p, func(c *hubapi.Client) (err error) {
				r, err = c.Mute(ctx, hubapi.MuteRequest{Server: args[0], For: muteFor, Force: force})
				return err
			})
			if unknown := (hubapi.UnknownServerError{}); errors.As(err, &unknown) {
				why := unknown.Sentence
				if !strings.Contains(why, "--force") { // a hub of the last version says it itself
					why += " (to mute a server before it first asks, add --force)"
				}
				return usageError{errors.New(why)}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s is muted until %s\n", args[0], untilText(r.Until, time.Now()))
			return nil
		},
	}
	durationVar(mute.Flags(), &muteFor, "for", hub.MuteFor, "how long")
	mute.Flags().BoolVar(&force, "force", false, "mute a server the hub does not know yet (not configured, not asked yet, not in the history)")
	return []*cobra.Command{
		{
			Use:   "pause",
			Short: "Answer every prompt cancel until resume (the tray's Pause all prompts)",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				if err := askHub(ctx, p, func(c *hubapi.Client) error { return c.Pause(ctx, hubapi.PauseRequest{Paused: true}) }); err != nil {
					return err
				}
				fmt.Fprintln(stdout, "all prompts are paused; `elicitray resume` shows them again")
				return nil
			},
		},
		{
			Use:   "resume",
			Short: "Show prompts again after pause",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				if err := askHub(ctx, p, func(c *hubapi.Client) error { return c.Pause(ctx, hubapi.PauseRequest{Paused: false}) }); err != nil {
					return err
				}
				fmt.Fprintln(stdout, "prompts are shown again")
				return nil
			},
		},
		mute,
		{
			Use:   "unmute SERVER",
			Short: "Lift a server's mute",
			Args: func(cmd *cobra.Command, args []string) error {
				if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
					return usageError{errors.New("unmute needs one server name")}
				}
				return nil
			},
			RunE: func(cmd *cobra.Command, args []string) error {
				var r hubapi.MuteReply
				err := askHub(ctx, p, func(c *hubapi.Client) (err error) {
					r, err = c.Unmute(ctx, hubapi.UnmuteRequest{Server: args[0]})
					return err
				})
				if unknown := (hubapi.UnknownServerError{}); errors.As(err, &unknown) {
					return usageError{unknown}
				}
				if err != nil {
					return err
				}
				if r.Until.IsZero() {
					fmt.Fprintf(stdout, "%s was not muted\n", args[0])
				} else {
					fmt.Fprintf(stdout, "%s is no longer muted (it was until %s): its prompts are shown again\n", args[0], untilText(r.Until, time.Now()))
				}
				return nil
			},
		},
		{
			Use:   "status",
			Short: "Say whether prompts are paused, which servers are muted, and how many prompts wait",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				c := cliHub(p, nil)
				defer c.Close()
				r, err := c.Status(ctx)
				err = cliHubErr(err)
				if errors.Is(err, hubapi.ErrNotRunning) {
					// Nothing is paused or muted: say so, and what applies.
					fmt.Fprintln(stdout, "Hub      not running: the first prompt starts one, with nothing paused or muted")
					if n := journal.CountSpool(journal.SpoolDir(p)); n > 0 {
						fmt.Fprintf(stdout, "History  %s waiting in the spool, not yet in history (the next hub or `elicitray history list` takes them in)\n", journal.Decisions(n))
					}
					return nil
				}
				if err != nil {
					return runErr(err)
				}
				return runErr(writeStatus(stdout, r, time.Now()))
			},
		},
		{
			Use:   "settings",
			Short: "Open the Settings window (starts the hub if none runs)",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				return openWindow(ctx, p, cmd, (*hubapi.Client).Settings, "the Settings window")
			},
		},
	}
}

// askHub asks the running hub through ask; with none, it says so.
func askHub(ctx context.Context, p paths.Paths, ask func(*hubapi.Client) error) error {
	c := cliHub(p, nil)
	defer c.Close()
	err := cliHubErr(ask(c))
	if errors.Is(err, hubapi.ErrNotRunning) {
		return runErr(errors.New("no hub is running, so there is nothing to change (a wrapper starts one when a server asks)"))
	}
	return runErr(err)
}

// writeStatus writes the hub's status r: whether prompts are paused, how
// many wait, and each server the hub knows with the rule in force for it,
// whether it is muted, its timeout and rate limit, its tool-call guard and
// its keep-alive, named as config.toml names them.
//
//	Paused   no
//	Waiting  0
//	Server   ci      rule decline, timeout 10m0s, burst 5, every 3s, guard none, keep_alive 15s
//	Server   github  rule ask, muted until 15:04, timeout 20s, burst 5, every 3s, guard deploy_* delete_*, guard_destructive, keep_alive off
func writeStatus(w io.Writer, r hubapi.StatusReply, now time.Time) error {
	tw := chars.NewColumns(w)
	paused := "no"
	if r.Paused {
		paused = "yes (elicitray resume)"
	}
	fmt.Fprintf(tw, "Paused\t%s\n", paused)
	fmt.Fprintf(tw, "Waiting\t%d\n", r.Waiting)
	if r.Problem != "" {
		fmt.Fprintf(tw, "History\t%s\n", r.Problem)
	}
	for _, s := range r.Servers {
		state := "rule " + cmp.Or(s.Rule, config.RuleAsk)
		if !s.MutedUntil.IsZero() {
			state += ", muted until " + untilText(s.MutedUntil, now)
		}
		if s.Timeout > 0 {
			state += fmt.Sprintf(", timeout %s, burst %d, every %s", s.Timeout, s.Burst, s.Every)
		}
		state += ", " + guardText(s.Guard, s.GuardDestructive)
		if s.KeepAlive != nil {
			keepAlive := "off"
			if *s.KeepAlive > 0 {
				keepAlive = s.KeepAlive.String()
			}
			state += ", keep_alive " + keepAlive
		}
		fmt.Fprintf(tw, "Server\t%s\t%s\n", s.Name, state)
	}
	return tw.Flush()
}

// guardText is a server's tool-call guard as status shows it: its
// patterns, and guard_destructive when set; "guard none" without either.
func guardText(patterns []string, destructive bool) string {
	if len(patterns) == 0 && !destructive {
		return "guard none"
	}
	var parts []string
	if len(patterns) > 0 {
		parts = append(parts, "guard "+strings.Join(patterns, " "))
	}
	if destructive {
		parts = append(parts, "guard_destructive")
	}
	return strings.Join(parts, ", ")
}

// untilText is when a mute ends, as people read it: the time of day when
// it is today, else the date too.
func untilText(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04")
	}
	return t.Format("2006-01-02 15:04")
}

// openWindow asks the hub, started when none runs, to open a window;
// what names the window in errors.
func openWindow(ctx context.Context, p paths.Paths, cmd *cobra.Command, open func(*hubapi.Client, context.Context) error, what string) error {
	c := cliHub(p, cmd.ErrOrStderr())
	if err := open(c, ctx); err != nil {
		return runErr(fmt.Errorf("%s: %w", what, err))
	}
	return nil
}
