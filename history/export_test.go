package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestExportCSV(t *testing.T) {
	s := openStore(t, nil)
	mustAdd(t, s, Record{
		Time: t0, Server: "github", ServerInfo: ServerInfo{Name: "github-mcp", Title: "GitHub <Enterprise>", Version: "1.2.3"},
		Tool: "create_issue", Mode: "form", Message: "Who, \"exactly\",\nshould be assigned?",
		RequestedSchema: json.RawMessage(spacedSchema), Action: "accept",
		Content:   map[string]any{"name": "Ada <admin>", "age": 36.0, "token": "[redacted]"},
		DecidedBy: "user", Elapsed: 4*time.Second + 123456789*time.Nanosecond,
	})
	mustAdd(t, s, Record{
		Time: t0.Add(time.Minute).In(time.FixedZone("CET", 3600)), Server: "stripe", ServerInfo: ServerInfo{Name: "stripe"},
		Mode: "url", Message: "=HYPERLINK(\"x\")", URL: "https://connect.stripe.com/oauth?state=x&y=1",
		Action: "cancel", DecidedBy: "timeout", Reason: "no answer within 10m0s", Elapsed: 10 * time.Minute,
	})
	var b strings.Builder
	n, err := s.Export(&b, FormatCSV, Query{})
	if err != nil || n != 2 {
		t.Fatalf("Export = %d, %v; want 2 records", n, err)
	}
	want := "time,id,server,serverInfo,tool,mode,message,url,action,decidedBy,reason,elapsedMs,content\n" +
		`2025-03-14T16:10:26.535+01:00,2,stripe,"{""name"":""stripe""}",,url,"=HYPERLINK(""x"")",https://connect.stripe.com/oauth?state=x&y=1,cancel,timeout,no answer within 10m0s,600000,` + "\n" +
		`2025-03-14T15:09:26.535Z,1,github,"{""name"":""github-mcp"",""title"":""GitHub <Enterprise>"",""version"":""1.2.3""}",create_issue,form,"Who, ""exactly"",` + "\n" +
		`should be assigned?",,accept,user,,4123,"{""age"":36,""name"":""Ada <admin>"",""token"":""[redacted]""}"` + "\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("CSV mismatch (-want +got):\n%s", diff)
	}
}

func TestExportJSONLines(t *testing.T) {
	lower(t, &exportChunk, 100)
	s := openStore(t, nil)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	// More records than one chunk, so that chunks join.
	n := 2*exportChunk + 345
	var rs []Record
	for i := range n {
		r := Record{Time: at(i / 2), Server: []string{"github", "jira"}[i%2], Mode: "form",
			Message: []string{"plain", "needle"}[i%7/6], Action: "accept", DecidedBy: "user",
			Content: map[string]any{"i": json.Number(strconv.Itoa(i))}}
		if i%3 == 0 {
			r.RequestedSchema = json.RawMessage(spacedSchema)
		}
		rs = append(rs, r)
	}
	if err := bulkAdd(s, slices.Values(rs)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		q    Query
	}{
		{"everything", Query{}},
		{"limit and scan limit are ignored", Query{Limit: 5, ScanLimit: 10}},
		{"server", Query{Server: "jira"}},
		{"text", Query{Text: "NEEDLE"}},
		{"time range", Query{Since: at(10), Until: at(120)}},
		{"before and after", Query{Before: 200, After: 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			got, err := s.Export(&b, FormatJSONL, tt.q)
			if err != nil {
				t.Fatalf("Export: %v", err)
			}
			all := tt.q
			all.Limit, all.ScanLimit = n+1, 0
			want := mustList(t, s, all)
			if got != len(want) {
				t.Errorf("Export returned %d, want %d records", got, len(want))
			}
			// Each line is the record's line of `history list --json`,
			// with the chain's members at its end.
			chained := regexp.MustCompile(`,"prev":"[0-9a-f]{32}","hash":"[0-9a-f]{32}"}\n`)
			if n := len(chained.FindAllString(b.String(), -1)); n != len(want) {
				t.Errorf("%d lines end with prev and hash, want %d", n, len(want))
			}
			if diff := cmp.Diff(jsonLines(t, want), chained.ReplaceAllString(b.String(), "}\n")); diff != "" {
				t.Errorf("JSON Lines differ from `history list --json` (-want +got):\n%s", diff)
			}
		})
	}
}

// deletingWriter deletes records from its Store at its first write, as
// someone pruning the history while an export runs would.
type deletingWriter struct {
	t   *testing.T
	s   *Store
	ids []uint64
	buf bytes.Buffer
}

func (w *deletingWriter) Write(p []byte) (int, error) {
	for _, id := range w.ids {
		if err := w.s.Delete(id); err != nil {
			w.t.Errorf("Delete(%d) during Export: %v", id, err)
		}
	}
	w.ids = nil
	return w.buf.Write(p)
}

func TestExportWhileDeleting(t *testing.T) {
	lower(t, &exportChunk, 100)
	s := openStore(t, &Options{Now: scriptedClock(t0)})
	n := 3 * exportChunk
	rs := slices.Repeat([]Record{{Server: "github", Message: strings.Repeat("x", 100)}}, n)
	if err := bulkAdd(s, slices.Values(rs)); err != nil {
		t.Fatal(err)
	}
	// The bounds of the export and the last record of its first chunk go
	// while it runs.
	w := &deletingWriter{t: t, s: s, ids: []uint64{10, uint64(n - 1), uint64(n - exportChunk - 1)}}
	got, err := s.Export(w, FormatJSONL, Query{After: 10, Before: uint64(n - 1)})
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	// 11 … n-2, all read before the first write.
	if want := n - 12; got != want {
		t.Errorf("Export wrote %d records, want %d", got, want)
	}
	if lines := strings.Count(w.buf.String(), "\n"); lines != got {
		t.Errorf("Export wrote %d lines and said %d", lines, got)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

var errDiskFull = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestExportErrors(t *testing.T) {
	s := openStore(t, nil)
	mustAdd(t, s, Record{Time: t0, Server: "github"})
	if _, err := s.Export(io.Discard, "xml", Query{}); err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("Export as xml: err = %v, want one naming the format", err)
	}
	for _, format := range []string{FormatJSONL, FormatCSV} {
		if _, err := s.Export(failingWriter{}, format, Query{}); !errors.Is(err, errDiskFull) {
			t.Errorf("Export %s to a failing writer: err = %v, want the writer's", format, err)
		}
	}
	if _, err := s.Export(io.Discard, FormatJSONL, Query{Before: 99}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Export before a missing record: err = %v, want ErrNotFound", err)
	}
}

// TestExportKeepsEveryDigit: numbers the server received come out of both
// export formats with every digit, however many a float64 could hold
// (issue 10, "values exactly as shown"), as does Get.
func TestExportKeepsEveryDigit(t *testing.T) {
	s := openStore(t, nil)
	content := map[string]any{
		"id":    json.Number("9007199254740993"),
		"big":   json.Number("1e400"),
		"ratio": json.Number("0.1000000000000000000001"),
	}
	added := mustAdd(t, s, Record{Time: t0, Server: "bank", Mode: "form", Message: "Transfer?", Action: "accept", Content: content, DecidedBy: "user"})
	got, err := s.Get(added.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(content, got.Content); diff != "" {
		t.Errorf("Get content mismatch (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		format string
		want   string // the content as the line or cell holds it
	}{
		{FormatJSONL, `"content":{"big":1e400,"id":9007199254740993,"ratio":0.1000000000000000000001}`},
		{FormatCSV, `"{""big"":1e400,""id"":9007199254740993,""ratio"":0.1000000000000000000001}"`},
	} {
		t.Run(tt.format, func(t *testing.T) {
			var b strings.Builder
			if _, err := s.Export(&b, tt.format, Query{}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tt.want) {
				t.Errorf("export does not hold %s:\n%s", tt.want, b.String())
			}
		})
	}
}
