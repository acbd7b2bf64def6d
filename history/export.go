package history

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Export formats.
const (
	// FormatJSONL is JSON Lines: one Record per line, as encoding/json's
	// Encoder writes it (the JSON of `elicitray history list --json`),
	// followed by the members "prev" and "hash" of the chain (doc.go, "The
	// chain"); an export of every record ends with a line per gap and per
	// checkpoint.
	FormatJSONL = "jsonl"
	// FormatCSV is CSV (RFC 4180) with a header row; see Export.
	FormatCSV = "csv"
)

// csvHeader names the columns of FormatCSV.
var csvHeader = []string{"time", "id", "server", "serverInfo", "tool", "mode", "message", "url",
	"action", "decidedBy", "reason", "elapsedMs", "content"}

// exportChunk is how many records Export reads per transaction. It writes
// them to w outside the transaction: a slow reader of w must not hold a
// transaction open, which would keep bbolt from growing the file for Add.
// Tests lower it.
var exportChunk = 1000

// Export writes every record q selects to w, newest first, in format, and
// returns how many it wrote. q.Limit and q.ScanLimit are ignored; Before
// and After bound the selection as in List. It reads exportChunk records at
// a time, so memory does not grow with the history, and records added or
// deleted meanwhile may or may not be written.
//
// FormatCSV writes the columns of csvHeader: time is RFC 3339 with
// milliseconds in the record's zone, elapsedMs whole milliseconds, and
// serverInfo and content JSON text (content empty when none). Cells are the
// server's text as recorded: a spreadsheet may read a cell that starts with
// '=' as a formula.
//
// Export fails for an unknown format before writing anything, with
// ErrNotFound when q.Before or q.After names no record, and with the error
// of w. A record it cannot read (Record.Unreadable) is left out, and
// Export then ends with an error wrapping ErrUnreadable that names it,
// once it has written every other record.
func (s *Store) Export(w io.Writer, format string, q Query) (int, error) {
	var write func(r Record, prev, seal link) error
	var flush func() error
	var tail [][]byte
	switch format {
	case FormatJSONL:
		bw := bufio.NewWriter(w)
		write = func(r Record, prev, seal link) error {
			form, err := sealedForm(r, prev)
			if err == nil {
				_, err = bw.Write(exportLine(form, seal))
			}
			return err
		}
		flush = func() error {
			for _, l := range tail {
				if _, err := bw.Write(l); err != nil {
					return err
				}
			}
			return bw.Flush()
		}
	case FormatCSV:
		cw := csv.NewWriter(w)
		if err := cw.Write(csvHeader); err != nil {
			return 0, fmt.Errorf("exporting history: %w", err)
		}
		write = func(r Record, _, _ link) error { return cw.Write(csvRow(r)) }
		flush = func() error { cw.Flush(); return cw.Error() }
	default:
		return 0, fmt.Errorf("exporting history: unknown format %q (want %q or %q)", format, FormatJSONL, FormatCSV)
	}

	all := q == Query{}
	q.Limit, q.ScanLimit = exportChunk, 0
	n := 0
	var unread []uint64 // IDs of the records left out (Record.Unreadable)
	var within span
	for {
		var res scanResult
		var prevs, seals []link
		err := s.view(func(tx *bolt.Tx) error {
			var err error
			res, err = scan(tx, q, false, within)
			prevs, seals = chainOf(tx, res.records)
			if all && !res.more && format == FormatJSONL {
				tail = exportTail(tx)
			}
			return err
		})
		if err != nil {
			return n, fmt.Errorf("exporting history: %w", err)
		}
		for i, r := range res.records {
			if r.Unreadable != "" {
				unread = append(unread, r.ID)
				continue
			}
			if err := write(r, prevs[i], seals[i]); err != nil {
				return n, fmt.Errorf("exporting history: %w", err)
			}
			n++
		}
		if !res.more {
			break
		}
		// The next chunk continues below the last key, and within the keys
		// that Before and After named, whether or not their records still
		// exist by then.
		within = span{lo: res.span.lo, hi: res.last}
		q.Before, q.After = 0, 0
	}
	if err := flush(); err != nil {
		return n, fmt.Errorf("exporting history: %w", err)
	}
	if len(unread) > 0 {
		verb := "was"
		if len(unread) > 1 {
			verb = "were"
		}
		return n, fmt.Errorf("exporting history: %w: %s could not be read and %s left out", ErrUnreadable, idList(unread), verb)
	}
	return n, nil
}

// EndExport ends an export that Export wrote through bw and that ended
// with err (nil for none): it flushes bw unless writing failed, and
// returns the error that remains. An export that left out records it could
// not read (ErrUnreadable) wrote every other record, which must reach the
// user as any other export's.
func EndExport(bw *bufio.Writer, err error) error {
	if err != nil && !errors.Is(err, ErrUnreadable) {
		return err
	}
	if ferr := bw.Flush(); ferr != nil {
		return ferr
	}
	return err
}

// idList names records by ID for a sentence: "record 7", "records 7 and
// 9", "records 12, 9, 7 and 5 more".
func idList(ids []uint64) string {
	const named = 3
	s := make([]string, 0, named)
	for _, id := range ids[:min(len(ids), named)] {
		s = append(s, strconv.FormatUint(id, 10))
	}
	switch {
	case len(ids) == 1:
		return "record " + s[0]
	case len(ids) <= named:
		return "records " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
	}
	return fmt.Sprintf("records %s and %d more", strings.Join(s, ", "), len(ids)-named)
}

// csvRow returns the cells of r in the order of csvHeader.
func csvRow(r Record) []string {
	content := ""
	if r.Content != nil {
		content = jsonText(r.Content)
	}
	return []string{
		r.Time.Format("2006-01-02T15:04:05.000Z07:00"),
		strconv.FormatUint(r.ID, 10),
		r.Server,
		jsonText(r.ServerInfo),
		r.Tool,
		r.Mode,
		r.Message,
		r.URL,
		r.Action,
		r.DecidedBy,
		r.Reason,
		strconv.FormatInt(r.Elapsed.Milliseconds(), 10),
		content,
	}
}

// jsonText returns v as one line of JSON, with '<', '>' and '&' as they are:
// a CSV cell is read by people, not embedded in HTML.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// Content came out of JSON and ServerInfo is strings: neither can fail.
	_ = enc.Encode(v)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
