package app

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/elicitray/elicitray/app/remember"

	"github.com/spf13/cobra"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/chars"
)

// newRulesCmd is `elicitray rules list|forget`: the remembered answers
// (remember.go). It reads and changes the rules file itself, hub or no
// hub: a running hub reads the file afresh for each prompt, so a rule
// forgotten here is gone for the next request.
func newRulesCmd(p paths.Paths, stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List or forget the answers remembered with \"Always answer this way\"",
		Long: "A prompt window offers \"Always answer this way\": the answer then goes, without a window,\n" +
			"to every later request of that server with the same message and the same form, until the\n" +
			"rule expires ([remember] for = \"720h\" in config.toml; 30 days unless set). Forms that ask for a\n" +
			"secret and links (URL mode) are never remembered. History shows each answer a rule gave.",
		Args: cobra.NoArgs,
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the remembered answers in force",
		Example: "  elicitray rules list",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			m := &remember.Memory{Path: remember.Path(p)}
			rules, err := m.Rules(time.Now())
			if err != nil {
				return runErr(err)
			}
			writeRules(stdout, rules)
			return nil
		},
	}
	var all bool
	forget := &cobra.Command{
		Use:     "forget ID|--all",
		Short:   "Forget a remembered answer (or all of them): its question shows a window again",
		Example: "  elicitray rules forget 3\n  elicitray rules forget --all",
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case all && len(args) > 0:
				return usageError{errors.New("forget takes a rule number or --all, not both")}
			case !all && len(args) != 1:
				return usageError{errors.New("forget takes the number of one rule (see `elicitray rules list`), or --all")}
			}
			if len(args) == 1 {
				if n, err := strconv.Atoi(args[0]); err != nil || n <= 0 {
					return usageError{fmt.Errorf("%q is not a rule number: `elicitray rules list` shows them", args[0])}
				}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			m := &remember.Memory{Path: remember.Path(p)}
			id := 0
			if len(args) == 1 {
				id, _ = strconv.Atoi(args[0])
			}
			gone, err := m.Forget(id, all)
			if err != nil {
				return runErr(err)
			}
			switch {
			case len(gone) == 0:
				fmt.Fprintln(stdout, "No answers were remembered.")
			case len(gone) == 1:
				fmt.Fprintf(stdout, "Forgot %s: its question shows a window again.\n", gone[0].Describe())
			default:
				fmt.Fprintf(stdout, "Forgot %d remembered answers: their questions show a window again.\n", len(gone))
			}
			return nil
		},
	}
	forget.Flags().BoolVar(&all, "all", false, "forget every remembered answer")
	cmd.AddCommand(list, forget)
	return cmd
}

// writeRules prints rules as a table, or a sentence when there are none.
func writeRules(w io.Writer, rules []remember.Rule) {
	if len(rules) == 0 {
		fmt.Fprintln(w, "No answers are remembered. A prompt window's \"Always answer this way\" remembers one.")
		return
	}
	tw := chars.NewColumns(w)
	fmt.Fprintln(tw, "ID\tSERVER\tTOOL\tANSWER\tMESSAGE\tSAVED\tEXPIRES")
	for _, r := range rules {
		expires := "never"
		if !r.Expires.IsZero() {
			expires = r.Expires.Local().Format("2006-01-02 15:04")
		}
		tool := r.Tool
		if r.Input != "" {
			tool += " (" + r.Input + ")"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, oneLineClip(r.Server, 30), oneLineClip(cmp.Or(tool, "-"), 30), oneLineClip(r.Answer(), 60),
			oneLineClip(r.Message, 60), r.Saved.Local().Format("2006-01-02 15:04"), expires)
	}
	tw.Flush()
}

// oneLineClip is server text s made safe for a terminal on one line: control
// characters (escape sequences, newlines) become spaces, and it is cut to n
// terminal columns.
func oneLineClip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return chars.CutWidth(s, n)
}
