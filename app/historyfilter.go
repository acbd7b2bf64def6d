package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"

	"github.com/elicitray/elicitray/app/journal"

	"github.com/spf13/cobra"

	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
)

// The values history records have in action and decidedBy.
var (
	actions  = []string{bridge.ActionAccept, bridge.ActionDecline, bridge.ActionCancel, "error", journal.ActionForwarded}
	deciders = []string{bridge.DecidedByUser, bridge.DecidedByRule, bridge.DecidedByTimeout, bridge.DecidedByRateLimit,
		bridge.DecidedByPaused, bridge.DecidedByMuted, bridge.DecidedByServerCancelled, bridge.DecidedByHostCancelled,
		bridge.DecidedByNoDesktop, bridge.DecidedByHost, bridge.DecidedByCommandLine, bridge.DecidedByError}
)

// historyFilter is the selection flags `history list` and `history export`
// share.
type historyFilter struct {
	server, action, decidedBy, kind, since, until, text string
}

// kinds are the kinds of request history records (Record.Mode).
var kinds = []string{"form", "url", bridge.ModeToolCall, bridge.ModeToolChange}

func (f *historyFilter) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.server, "server", "", "only this server's decisions (the name given to wrap --name)")
	cmd.Flags().StringVar(&f.action, "action", "", "only this action: accept, decline, cancel, error or forwarded")
	cmd.Flags().StringVar(&f.decidedBy, "decided-by", "", "only decisions made by: user, rule, timeout, rate-limit, paused, muted, server-cancelled, host-cancelled, no-display, host (a guarded call asked in the host, with no desktop), command-line (elicitray tools accept) or error")
	cmd.Flags().StringVar(&f.kind, "kind", "", `only this kind of request: form, url, "tool call" (a guarded tool call approved or denied) or "tool change" (a tool's changed definition accepted or kept waiting)`)
	cmd.Flags().StringVar(&f.since, "since", "", "only decisions since a time: a duration ago (30m, 12h, 7d) or a date (2026-11-01, or RFC 3339)")
	cmd.Flags().StringVar(&f.until, "until", "", "only decisions before a time (same forms as --since; a date includes its whole day)")
	cmd.Flags().StringVar(&f.text, "text", "", "only decisions whose message, server or tool contains this text")
}

// query is the history query the flags select, times relative to now.
func (f *historyFilter) query(now time.Time) (history.Query, error) {
	q := history.Query{Server: f.server, Action: f.action, DecidedBy: f.decidedBy, Mode: f.kind, Text: f.text}
	if q.Mode != "" && !slices.Contains(kinds, q.Mode) {
		return q, usageError{fmt.Errorf("--kind: %q is not one of form, url, \"tool call\", \"tool change\"", q.Mode)}
	}
	if q.Action != "" && !slices.Contains(actions, q.Action) {
		return q, usageError{fmt.Errorf("--action: %q is not one of %s", q.Action, strings.Join(actions, ", "))}
	}
	if q.DecidedBy != "" && !slices.Contains(deciders, q.DecidedBy) {
		return q, usageError{fmt.Errorf("--decided-by: %q is not one of %s", q.DecidedBy, strings.Join(deciders, ", "))}
	}
	var err error
	if q.Since, err = parseWhen(f.since, now, false); err != nil {
		return q, usageError{fmt.Errorf("--since %v", err)}
	}
	if q.Until, err = parseWhen(f.until, now, true); err != nil {
		return q, usageError{fmt.Errorf("--until %v", err)}
	}
	return q, nil
}

// parseWhen reads a point in time: empty (none), a duration ago ("7d",
// "12h", "90m", as parseAge reads it), a date ("2026-11-01", local
// midnight; the next day's when wholeDay, for an end that takes the day
// in) or RFC 3339. Its errors follow a flag's name, as parseAge's.
func parseWhen(s string, now time.Time, wholeDay bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := parseAge(s); err == nil {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		if wholeDay {
			// An end named by a date takes in its day: "--until
			// 2026-12-02" lists that day's decisions too.
			return t.AddDate(0, 0, 1), nil
		}
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("must be a duration ago like 30m, 12h or 7d, or a date like 2026-11-01, not %q", s)
}

// exportTo writes the export of q to the file output, or to stdout when
// output is empty; with a file, it says how many decisions went there.
func exportTo(ctx context.Context, src historySource, q history.Query, format, output string, stdout io.Writer) error {
	w := stdout
	var f *os.File
	if output != "" && output != "-" {
		var err error
		// 0600: the history is private (DESIGN.md), and so is an export.
		if f, err = os.OpenFile(output, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600); err != nil {
			// "no such file or directory", not "open x: …": the path is said once.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("cannot write the export to %s: %w", output, err)
		}
		w = f
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	n, err := src.export(ctx, q, format, bw)
	err = history.EndExport(bw, err)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil || errors.Is(err, history.ErrUnreadable) {
			fmt.Fprintf(stdout, "%s written to %s\n", journal.Decisions(n), output)
		}
	}
	if errors.Is(err, history.ErrUnreadable) {
		return fmt.Errorf("%w; %s", err, unreadableAdvice)
	}
	return err
}

// export streams the export of q: from the hub when one runs (it holds
// the file), else from the file itself.
func (s historySource) export(ctx context.Context, q history.Query, format string, w io.Writer) (int, error) {
	// Only a hub verified to be the user's own (trust.go).
	direct := func() (int, error) {
		st, err := s.openDirect()
		if err != nil {
			return 0, err
		}
		defer st.Close()
		return st.Export(w, format, q)
	}
	c := cliHub(s.paths, nil)
	defer c.Close()
	// A hub that goes away before it sent anything (it was stopping, or
	// was killed as the connection came in) leaves the file to read
	// directly: once it is gone its lock is too (openDirect waits for it).
	cw := &countingWriter{w: w}
	r, err := c.Export(ctx, hubapi.ExportRequest{Format: format, Query: &q}, cw)
	switch {
	case err == nil, errors.Is(err, history.ErrUnreadable):
		return r.Count, err
	case errors.Is(err, hubapi.ErrNotRunning), errors.Is(err, paths.ErrUntrusted):
		return direct()
	case errors.Is(err, hubapi.ErrHubGone) && cw.n == 0 && ctx.Err() == nil:
		return direct()
	case errors.Is(err, hubapi.ErrHubGone):
		return 0, fmt.Errorf("%w during the export", hubapi.ErrHubGone)
	}
	return 0, err
}

// countingWriter counts what passes through it to w.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// verify checks the history's chain through the hub, or in the file itself
// when no hub runs.
func (s historySource) verify(ctx context.Context) (history.Verification, error) {
	c := cliHub(s.paths, nil)
	defer c.Close()
	v, err := c.Verify(ctx, hubapi.VerifyRequest{})
	switch {
	case err == nil:
		return v, nil
	case !errors.Is(err, hubapi.ErrNotRunning) && !errors.Is(err, paths.ErrUntrusted):
		return v, err
	}
	st, err := s.openDirect()
	if err != nil {
		return history.Verification{}, err
	}
	defer st.Close()
	return st.Verify()
}

// writeVerification says what `history verify` found in the history at
// path: the problems first, else that it holds; then the checkpoints and
// the head.
func writeVerification(w io.Writer, path string, v history.Verification) {
	if len(v.Problems) == 0 {
		fmt.Fprintf(w, "%s: the chain holds: %s checked, each matches its seal.\n", path, journal.Decisions(v.Records))
	} else {
		fmt.Fprintf(w, "%s: the chain does not hold at %s:\n", path, problemCount(len(v.Problems)))
		const most = 10
		for i, pr := range v.Problems {
			if i == most {
				fmt.Fprintf(w, "  … and %d more\n", len(v.Problems)-most)
				break
			}
			fmt.Fprintf(w, "  %s\n", pr.Text)
		}
		fmt.Fprintf(w, "%s checked.\n", journal.Decisions(v.Records))
	}
	for _, c := range v.Checkpoints {
		var spans []string
		for _, r := range c.Removed {
			if r[0] == r[1] {
				spans = append(spans, strconv.FormatUint(r[0], 10))
			} else {
				spans = append(spans, fmt.Sprintf("%d to %d", r[0], r[1]))
			}
		}
		what := "decisions "
		if len(c.Removed) == 1 && c.Removed[0][0] == c.Removed[0][1] {
			what = "decision "
		}
		fmt.Fprintf(w, "Checkpoint %d: %s%s removed (%s, %s).\n", c.N, what, strings.Join(spans, ", "), c.Why, c.At.Local().Format("2006-01-02 15:04"))
	}
	fmt.Fprintf(w, "Head: %s (the newest decision's seal)\n", v.Head)
	if len(v.Checkpoints) > 0 {
		fmt.Fprintf(w, "Checkpoints head: %s (the newest checkpoint's seal)\n", v.CheckpointsHead)
	}
}

// problemCount says n places.
func problemCount(n int) string {
	if n == 1 {
		return "one place"
	}
	return fmt.Sprintf("%d places", n)
}

// prune applies opts (nil: the config's retention) through the hub, or to
// the file itself when no hub runs, and says how many decisions went.
func (s historySource) prune(ctx context.Context, opts *history.PruneOptions) (int, error) {
	c := cliHub(s.paths, nil)
	defer c.Close()
	r, err := c.Prune(ctx, hubapi.PruneRequest{Prune: opts})
	switch {
	case err == nil:
		return r.Count, nil
	case !errors.Is(err, hubapi.ErrNotRunning) && !errors.Is(err, paths.ErrUntrusted):
		return 0, err
	}
	if opts == nil {
		cfg, err := config.Load(s.paths.Config)
		if err != nil {
			return 0, err
		}
		o := cfg.Keeps(time.Now())
		opts = &o
	}
	st, err := s.openDirect()
	if err != nil {
		return 0, err
	}
	defer st.Close()
	n, err := st.Prune(*opts)
	if err != nil || n == 0 {
		return n, err
	}
	return n, st.Compact()
}
