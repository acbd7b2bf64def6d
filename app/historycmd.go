package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"

	"github.com/elicitray/elicitray/app/journal"

	"github.com/spf13/cobra"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/history"
)

// historySource answers history queries through the running hub (bbolt
// admits one writer process, and the hub holds the file), or from the file
// itself when no hub runs (DESIGN.md, "Processes": the CLI).
type historySource struct {
	paths paths.Paths
	// warn receives a sentence when decisions are not in history yet (the
	// hub's journal, or a spool no hub took in); nil discards.
	warn io.Writer
}

// cliHistory is the history a command of cmd reads: the user's, with its
// warnings on the command's stderr.
func cliHistory(p paths.Paths, cmd *cobra.Command) historySource {
	return historySource{paths: p, warn: cmd.ErrOrStderr()}
}

// warnf says what keeps decisions out of what is shown.
func (s historySource) warnf(format string, args ...any) {
	if s.warn != nil {
		fmt.Fprintf(s.warn, "elicitray: "+format+"\n", args...)
	}
}

// openDirect opens the history file itself, for when no hub runs, and
// first takes in what waits in the spool, so that every decision kept shows
// (DESIGN.md: a decision lands in history exactly once).
func (s historySource) openDirect() (*history.Store, error) {
	if err := journal.CheckHistoryPath(s.paths.History); err != nil {
		return nil, err
	}
	st, err := history.Open(s.paths.History, &history.Options{Timeout: 2 * time.Second})
	if err != nil {
		if n := journal.CountSpool(journal.SpoolDir(s.paths)); n > 0 {
			s.warnf("%s waiting in the spool (%s), not yet in history", journal.Decisions(n), journal.SpoolDir(s.paths))
		}
		return nil, journal.OpenError(s.paths.History, err)
	}
	if _, err := journal.TakeSpool(journal.SpoolDir(s.paths), st); err != nil {
		s.warnf("%s in the spool could not be added to history: %v", journal.Decisions(journal.CountSpool(journal.SpoolDir(s.paths))), err)
	}
	return st, nil
}

func (s historySource) list(ctx context.Context, q history.Query) ([]history.Record, error) {
	return s.ask(ctx, func(c *hubapi.Client) (hubapi.HistoryReply, error) {
		return c.History(ctx, hubapi.HistoryRequest{Query: &q})
	}, func(st *history.Store) ([]history.Record, error) {
		return st.List(q)
	})
}

func (s historySource) get(ctx context.Context, id uint64) (history.Record, error) {
	recs, err := s.ask(ctx, func(c *hubapi.Client) (hubapi.HistoryReply, error) {
		return c.Get(ctx, hubapi.GetRequest{RecordID: id})
	}, func(st *history.Store) ([]history.Record, error) {
		r, err := st.Get(id)
		return []history.Record{r}, err
	})
	if err != nil {
		return history.Record{}, err
	}
	if len(recs) != 1 {
		return history.Record{}, history.ErrNotFound
	}
	return recs[0], nil
}

func (s historySource) ask(ctx context.Context, ask func(*hubapi.Client) (hubapi.HistoryReply, error), direct func(*history.Store) ([]history.Record, error)) ([]history.Record, error) {
	c := cliHub(s.paths, nil)
	defer c.Close()
	r, err := ask(c)
	if r.Problem != "" {
		s.warnf("%s", r.Problem)
	}
	switch {
	case err == nil:
		return r.Records, nil
	case errors.As(err, new(hubapi.NoAnswerError)):
		return nil, cliHubErr(err)
	case errors.Is(err, hubapi.ErrNotRunning), errors.Is(err, paths.ErrUntrusted), errors.Is(err, hubapi.ErrHubGone):
		// No hub listening, none to trust, or one that went away before
		// it answered (it was stopping, or was killed as the call came
		// in): read the file ourselves, it is the user's own (openDirect
		// waits for a dying hub's lock to go).
		st, err := s.openDirect()
		if err != nil {
			return nil, err
		}
		defer st.Close()
		return direct(st)
	case strings.Contains(err.Error(), history.ErrNotFound.Error()):
		return nil, history.ErrNotFound
	}
	return nil, err
}

func newHistoryCmd(ctx context.Context, p paths.Paths, stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List, show, export, prune and verify past decisions, or open the history window",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError{errors.New("history needs a subcommand: list, show ID, export, prune, verify or window")}
		},
	}
	var asJSON bool
	var limit int
	var filter historyFilter
	list := &cobra.Command{
		Use:   "list",
		Short: "List decisions, newest first",
		Example: `  elicitray history list --server github --since 7d
  elicitray history list --action decline --decided-by rule --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 {
				return usageError{fmt.Errorf("--limit must be at least 1, not %d", limit)}
			}
			q, err := filter.query(time.Now())
			if err != nil {
				return err
			}
			q.Limit = limit
			recs, err := cliHistory(p, cmd).list(ctx, q)
			if err != nil {
				return runErr(err)
			}
			unread := 0
			for _, r := range recs {
				if r.Unreadable != "" {
					unread++
				}
			}
			if unread > 0 {
				defer cliHistory(p, cmd).warnf("%s could not be read, as the history file is damaged there; %s", journal.Decisions(unread), unreadableAdvice)
			}
			if asJSON {
				return runErr(writeJSONLines(stdout, recs))
			}
			tw := chars.NewColumns(stdout)
			fmt.Fprintln(tw, "ID\tASKED\tSERVER\tTOOL\tACTION\tDECIDED BY\tMESSAGE")
			for _, r := range recs {
				r = printable(r)
				message := firstLine(r.Message, 60)
				if r.Unreadable != "" {
					message = "(cannot be read: the history file is damaged here)"
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Time.Local().Format("2006-01-02 15:04:05 MST"),
					dash(chars.CutWidth(cell(r.Server), 30)), dash(chars.CutWidth(cell(r.Tool), 40)), dash(actionCell(r)), dash(r.DecidedBy), message)
			}
			if err := tw.Flush(); err != nil {
				return runErr(err)
			}
			if len(recs) == limit {
				fmt.Fprintf(stdout, "(the newest %d that match; --limit N shows more)\n", limit)
			}
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "one JSON object per line")
	countVar(list.Flags(), &limit, "limit", 50, "records", "at most this many decisions")
	filter.flags(list)

	var format, output string
	var exportFilter historyFilter
	export := &cobra.Command{
		Use:   "export",
		Short: "Write decisions to a file as JSON Lines or CSV, newest first",
		Example: `  elicitray history export --format csv -o decisions.csv
  elicitray history export --server github --since 2026-11-01 > github.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != history.FormatJSONL && format != history.FormatCSV {
				return usageError{fmt.Errorf("--format must be jsonl or csv, not %q", format)}
			}
			q, err := exportFilter.query(time.Now())
			if err != nil {
				return err
			}
			return runErr(exportTo(ctx, cliHistory(p, cmd), q, format, output, stdout))
		},
	}
	export.Flags().StringVar(&format, "format", history.FormatJSONL, "jsonl or csv")
	export.Flags().StringVarP(&output, "output", "o", "", "write to this file (default, or -: standard output)")
	exportFilter.flags(export)

	var olderThan time.Duration
	var keep int
	prune := &cobra.Command{
		Use:   "prune",
		Short: "Delete old decisions now, as config.toml's [history] says (default: keep a year)",
		Example: `  elicitray history prune
  elicitray history prune --older-than 30d --keep 10000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts *history.PruneOptions
			byAge := cmd.Flags().Changed("older-than")
			if byAge || keep > 0 {
				opts = &history.PruneOptions{Keep: keep}
				if byAge {
					opts.Before = time.Now().Add(-olderThan)
				}
			}
			if keep < 0 {
				return usageError{fmt.Errorf("--keep must be 0 (no limit) or more, not %d", keep)}
			}
			n, err := cliHistory(p, cmd).prune(ctx, opts)
			if err != nil {
				return runErr(err)
			}
			fmt.Fprintf(stdout, "%s deleted\n", journal.Decisions(n))
			return nil
		},
	}
	durationVar(prune.Flags(), &olderThan, "older-than", 0, "delete decisions older than this")
	countVar(prune.Flags(), &keep, "keep", 0, "records", "keep at most this many of the newest decisions")

	verify := &cobra.Command{
		Use:   "verify",
		Short: "Check that no decision was changed or removed outside elicitray",
		Long: `Check the history's chain: every decision is sealed with a hash of its text
and of the seal before it, and decisions elicitray removed (history prune,
delete, clear) are stood for by checkpoints. Names the first decision that
does not match, and exits 1 then. docs/history.md says how to check an
export the same way without elicitray.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src := cliHistory(p, cmd)
			v, err := src.verify(ctx)
			if err != nil {
				return runErr(err)
			}
			writeVerification(stdout, p.History, v)
			if len(v.Problems) > 0 {
				return runErr(fmt.Errorf("the history does not hold: %s", v.Problems[0].Text))
			}
			return nil
		},
	}

	var showJSON bool
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show one decision in full",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{errors.New("show needs one decision ID (see `elicitray history list`)")}
			}
			if _, err := strconv.ParseUint(args[0], 10, 64); err != nil {
				return usageError{fmt.Errorf("%q is not a decision ID (a number from `elicitray history list`)", args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id, _ := strconv.ParseUint(args[0], 10, 64)
			r, err := cliHistory(p, cmd).get(ctx, id)
			if errors.Is(err, history.ErrNotFound) {
				return runErr(fmt.Errorf("no decision with ID %d", id))
			}
			if errors.Is(err, history.ErrUnreadable) {
				return runErr(fmt.Errorf("decision %d could not be read, as the history file is damaged there; %s", id, unreadableAdvice))
			}
			if err != nil {
				return runErr(err)
			}
			if showJSON {
				return runErr(writeJSONLines(stdout, []history.Record{r}))
			}
			return runErr(writeRecord(stdout, r))
		},
	}
	show.Flags().BoolVar(&showJSON, "json", false, "the record as JSON")
	window := &cobra.Command{
		Use:   "window",
		Short: "Open the history window (starts the hub if none runs)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return openWindow(ctx, p, cmd, (*hubapi.Client).ShowHistory, "the history window")
		},
	}
	cmd.AddCommand(list, show, export, prune, verify, window)
	return cmd
}

// unreadableAdvice follows the news that records could not be read
// (history.Record.Unreadable).
const unreadableAdvice = "`elicitray history verify` checks the rest of the file, and Delete in the history window removes what cannot be read"

func writeJSONLines(w io.Writer, recs []history.Record) error {
	enc := json.NewEncoder(w)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

func writeRecord(w io.Writer, r history.Record) error {
	r = printable(r)
	tw := chars.NewColumns(w)
	who := bridge.ServerInfo(r.ServerInfo).Called()
	fmt.Fprintf(tw, "ID\t%d\n", r.ID)
	fmt.Fprintf(tw, "Time\t%s\n", r.Time.Local().Format(time.RFC3339))
	fmt.Fprintf(tw, "Server\t%s (calls itself %s)\n", cell(r.Server), dash(cell(who)))
	fmt.Fprintf(tw, "Tool\t%s\n", dash(cell(r.Tool)))
	fmt.Fprintf(tw, "Mode\t%s\n", r.Mode)
	fmt.Fprintf(tw, "Action\t%s\n", r.Action)
	fmt.Fprintf(tw, "Decided by\t%s\n", r.DecidedBy)
	if r.Reason != "" {
		fmt.Fprintf(tw, "Reason\t%s\n", r.Reason)
	}
	if !bridge.Guards(r.Mode) { // nothing was sent to the server for it to get
		fmt.Fprintf(tw, "Delivered\t%s\n", delivered(r))
	}
	if d, ok := r.AnsweredIn(); ok {
		fmt.Fprintf(tw, "Time to answer\t%s\n", d.Round(time.Millisecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nMessage:\n%s\n", r.Message)
	if r.URL != "" {
		fmt.Fprintf(w, "\nURL:\n%s\n", r.URL)
	}
	if r.Content != nil {
		b, _ := json.MarshalIndent(r.Content, "", "  ")
		fmt.Fprintf(w, "\nContent sent:\n%s\n", b)
	}
	if len(r.RequestedSchema) > 0 {
		// Indented as the server wrote it: its properties in its order
		// (the order of the form's fields), numbers as written. Its
		// strings are the server's text, which JSON lets carry
		// bidirectional overrides unescaped: made visible as the rest.
		var b bytes.Buffer
		if json.Indent(&b, r.RequestedSchema, "", "  ") == nil {
			schema, _ := elicit.Visible(b.String())
			fmt.Fprintf(w, "\nRequested schema:\n%s\n", schema)
		}
	}
	return nil
}

// actionCell is the ACTION of `history list`: the action, marked when the
// server did not get it, or not for sure.
func actionCell(r history.Record) string {
	switch {
	case r.Delivered():
		return r.Action
	case r.Delivery == history.DeliveryPending:
		return r.Action + " (not confirmed delivered)"
	}
	return r.Action + " (NOT DELIVERED)"
}

// delivered says whether the server got r's answer, for `history show`.
func delivered(r history.Record) string {
	switch {
	case r.Delivered():
		return "yes"
	case r.Delivery == history.DeliveryPending:
		return "not confirmed: sent to the wrapper, which has not said it wrote it to the server"
	}
	return "no: " + r.Delivery
}

// printable is r with the server's text made safe for a terminal: no
// escape sequences or bidi overrides from a server reach the user's screen.
// --json output is left whole: JSON escapes control characters itself.
func printable(r history.Record) history.Record {
	for _, s := range []*string{&r.Server, &r.ServerInfo.Name, &r.ServerInfo.Version, &r.Tool, &r.Message, &r.URL, &r.Reason, &r.Delivery} {
		*s, _ = elicit.Visible(*s)
	}
	return r
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// firstLine is s's first line, cut to n terminal columns.
func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return chars.CutWidth(cell(s), n)
}

// cell is server text as one cell of a table: its tabs and line breaks,
// which would start a column or a row of their own (a server could make a
// row that looks like a record), become spaces.
func cell(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
