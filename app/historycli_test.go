//go:build linux

package app

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/internal/hubkit"
	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/remember"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/history/historytest"
)

// seedHistory adds decisions a day apart, newest now: github accepts by
// the user, jira declines by a rule, and one very old timeout.
func seedHistory(t *testing.T, st *history.Store, now time.Time) {
	t.Helper()
	for i, r := range []history.Record{
		{Server: "github", Tool: "deploy", Message: "Deploy build 7?", Action: "accept", DecidedBy: "user", Content: map[string]any{"ok": true}},
		{Server: "jira", Tool: "close", Message: "Close ticket, \"quoted\", with a comma?", Action: "decline", DecidedBy: "rule"},
		{Server: "github", Tool: "deploy", Message: "Deploy build 6?", Action: "cancel", DecidedBy: "timeout"},
		{Server: "jira", Tool: "open", Message: "Open a ticket?", Action: "accept", DecidedBy: "user"},
	} {
		r.Mode = "form"
		r.Time = now.Add(-time.Duration(i) * 24 * time.Hour)
		if i == 3 {
			r.Time = now.Add(-400 * 24 * time.Hour)
		}
		if _, err := st.Add(r); err != nil {
			t.Fatal(err)
		}
	}
}

// cli runs the elicitray command line in this process and returns its
// stdout; it fails the test on a non-zero exit.
func cli(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(context.Background(), args, nil, &out, &errb); code != 0 {
		t.Fatalf("elicitray %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

func messages(t *testing.T, jsonl string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		if line == "" {
			continue
		}
		var r history.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not a record: %q", line)
		}
		out = append(out, r.Message)
	}
	return out
}

// TestHistoryCLI: list's filters, export in both formats and prune give the
// same answers whether a hub holds the history file or none runs.
func TestHistoryCLI(t *testing.T) {
	for _, withHub := range []bool{false, true} {
		name := map[bool]string{false: "no hub", true: "through the hub"}[withHub]
		t.Run(name, func(t *testing.T) {
			now := time.Now()
			if withHub {
				h, _, _ := runTestHub(t, time.Hour)
				seedHistory(t, h.Store, now)
			} else {
				testkit.Home(t)
				st, err := history.Open(paths.FromEnv(os.Getenv).History, nil)
				if err != nil {
					t.Fatal(err)
				}
				seedHistory(t, st, now)
				st.Close()
			}
			for _, tt := range []struct {
				args []string
				want []string
			}{
				{[]string{"--server", "github"}, []string{"Deploy build 7?", "Deploy build 6?"}},
				{[]string{"--action", "accept"}, []string{"Deploy build 7?", "Open a ticket?"}},
				{[]string{"--decided-by", "rule"}, []string{`Close ticket, "quoted", with a comma?`}},
				{[]string{"--since", "36h"}, []string{"Deploy build 7?", `Close ticket, "quoted", with a comma?`}},
				{[]string{"--until", "1d12h"}, []string{"Deploy build 6?", "Open a ticket?"}},
				// A date ends after its day: today's decisions are in.
				{[]string{"--until", now.Format("2006-01-02")}, []string{"Deploy build 7?", `Close ticket, "quoted", with a comma?`, "Deploy build 6?", "Open a ticket?"}},
				{[]string{"--since", now.AddDate(0, 0, -10).Format("2006-01-02"), "--text", "DEPLOY"}, []string{"Deploy build 7?", "Deploy build 6?"}},
				{[]string{"--limit", "1"}, []string{"Deploy build 7?"}},
			} {
				got := messages(t, cli(t, append([]string{"history", "list", "--json"}, tt.args...)...))
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("list %v (-want +got):\n%s", tt.args, diff)
				}
			}

			// JSON Lines on stdout: the same records list --json gives.
			if diff := cmp.Diff([]string{"Deploy build 7?", "Deploy build 6?"}, messages(t, cli(t, "history", "export", "--server", "github"))); diff != "" {
				t.Errorf("export jsonl (-want +got):\n%s", diff)
			}
			// CSV to a file: a header, one row per decision, quotes kept.
			path := filepath.Join(t.TempDir(), "decisions.csv")
			if out := cli(t, "history", "export", "--format", "csv", "-o", path); out != "4 decisions written to "+path+"\n" {
				t.Errorf("export -o says %q", out)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(f).ReadAll()
			f.Close()
			if err != nil || len(rows) != 5 {
				t.Fatalf("csv: %d rows, %v", len(rows), err)
			}
			col := map[string]int{}
			for i, h := range rows[0] {
				col[h] = i
			}
			if got := rows[2][col["message"]]; got != `Close ticket, "quoted", with a comma?` {
				t.Errorf("csv message %q", got)
			}
			if got := rows[1][col["content"]]; got != `{"ok":true}` {
				t.Errorf("csv content %q", got)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("export file mode %v, want 0600: the history is private", fi.Mode().Perm())
			}

			// The default retention keeps a year: the 400-day-old one goes.
			if out := cli(t, "history", "prune"); out != "1 decision deleted\n" {
				t.Errorf("prune says %q", out)
			}
			if out := cli(t, "history", "prune", "--keep", "2"); out != "1 decision deleted\n" {
				t.Errorf("prune --keep 2 says %q", out)
			}
			want := []string{"Deploy build 7?", `Close ticket, "quoted", with a comma?`}
			if diff := cmp.Diff(want, messages(t, cli(t, "history", "list", "--json"))); diff != "" {
				t.Errorf("after prune (-want +got):\n%s", diff)
			}

			// The pruned decisions are stood for by one checkpoint: the
			// chain holds.
			out := cli(t, "history", "verify")
			for _, want := range []string{": the chain holds: 2 decisions checked, each matches its seal.\n",
				"Checkpoint 1: decision 4 removed (pruned, ", "Checkpoint 2: decision 3 removed (pruned, ", "\nHead: ", "\nCheckpoints head: "} {
				if !strings.Contains(out, want) {
					t.Errorf("verify lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestHistoryVerifyCLI: `history verify` on a file whose decision was
// changed with a hex editor names it and exits 1; the text of each run
// says what a user needs to act.
func TestHistoryVerifyCLI(t *testing.T) {
	testkit.Home(t)
	path := paths.FromEnv(os.Getenv).History
	st, err := history.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	seedHistory(t, st, time.Now())
	st.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte("Deploy build 6?"), []byte("Deploy build 9?")), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"history", "verify"}, nil, &out, &errb)
	want := "record 3 does not match its seal: it was changed outside elicitray after it was kept"
	if code != 1 || !strings.Contains(out.String(), ": the chain does not hold at one place:\n  "+want+"\n4 decisions checked.\n") ||
		!strings.Contains(errb.String(), "the history does not hold: "+want) {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}

// TestHistoryCLIUsage: bad filter values are usage errors that say what
// was expected.
func TestHistoryCLIUsage(t *testing.T) {
	testkit.Home(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"history", "list", "--since", "yesterday"}, `--since must be a duration ago like 30m, 12h or 7d, or a date like 2026-11-01, not "yesterday"`},
		{[]string{"history", "export", "--format", "xml"}, `--format must be jsonl or csv, not "xml"`},
		{[]string{"history", "list", "--action", "declined"}, `--action: "declined" is not one of accept, decline, cancel, error, forwarded`},
		{[]string{"history", "export", "--decided-by", "person"}, `--decided-by: "person" is not one of user, rule,`},
		{[]string{"history", "list", "--kind", "tool"}, `--kind: "tool" is not one of form, url, "tool call"`},
		{[]string{"history", "prune", "--older-than", "soon"}, `--older-than must be a duration like 30m, 12h or 7d, not "soon"`},
		// Numbers and switches say what they take, not strconv's error.
		{[]string{"history", "list", "--limit", "abc"}, `--limit must be a whole number of records, not "abc"`},
		{[]string{"history", "prune", "--keep", "many"}, `--keep must be a whole number of records, not "many"`},
		{[]string{"history", "prune", "--keep", "-1"}, `--keep must be 0 (no limit) or more, not -1`},
		{[]string{"history", "list", "--json=maybe"}, `--json is a switch: give it alone, or as --json=false, not --json=maybe`},
	} {
		var out, errb bytes.Buffer
		if code := Main(context.Background(), tt.args, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), tt.want) || out.Len() != 0 ||
			strings.Contains(errb.String(), "strconv") || strings.Contains(errb.String(), "invalid argument") {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want 2 and %q", tt.args, code, errb.String(), out.String(), tt.want)
		}
	}
	// A file that cannot be written is named once, in a sentence.
	var out, errb bytes.Buffer
	missing := filepath.Join(t.TempDir(), "no-such-dir", "out.csv")
	if code := Main(context.Background(), []string{"history", "export", "-o", missing}, nil, &out, &errb); code != 1 ||
		errb.String() != "elicitray: cannot write the export to "+missing+": no such file or directory\n" {
		t.Errorf("export to a missing directory: exit %d, stderr %q", code, errb.String())
	}
}

// TestHistoryCLIKeepsEveryDigit (issue 10): numbers beyond what a float64
// holds come out of list --json, show and both exports as the server
// received them, whether a hub holds the history file or none runs.
func TestHistoryCLIKeepsEveryDigit(t *testing.T) {
	rec := history.Record{Server: "bank", Tool: "transfer", Mode: "form", Message: "Transfer?", Action: "accept", DecidedBy: "user",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"from":{"type":"integer","default":9007199254740993}}}`),
		Content:         map[string]any{"from": json.Number("9007199254740993"), "ceiling": json.Number("1e400")}}
	for _, withHub := range []bool{false, true} {
		name := map[bool]string{false: "no hub", true: "through the hub"}[withHub]
		t.Run(name, func(t *testing.T) {
			if withHub {
				h, _, _ := runTestHub(t, time.Hour)
				if _, err := h.Store.Add(rec); err != nil {
					t.Fatal(err)
				}
			} else {
				testkit.Home(t)
				st, err := history.Open(paths.FromEnv(os.Getenv).History, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := st.Add(rec); err != nil {
					t.Fatal(err)
				}
				st.Close()
			}
			for _, tt := range []struct {
				args []string
				want []string
			}{
				{[]string{"history", "list", "--json"}, []string{`"content":{"ceiling":1e400,"from":9007199254740993}`}},
				{[]string{"history", "show", "1"}, []string{`"from": 9007199254740993`, `"ceiling": 1e400`, `"default": 9007199254740993`}},
				{[]string{"history", "export"}, []string{`"content":{"ceiling":1e400,"from":9007199254740993}`}},
				{[]string{"history", "export", "--format", "csv"}, []string{`"{""ceiling"":1e400,""from"":9007199254740993}"`}},
			} {
				out := cli(t, tt.args...)
				for _, want := range tt.want {
					if !strings.Contains(out, want) {
						t.Errorf("%s does not show %s:\n%s", strings.Join(tt.args, " "), want, out)
					}
				}
			}
		})
	}
}

// TestHistoryListHubGoneAtOnce: a hub that takes the connection and goes
// away before it answers (it was stopping, or was killed as `history list`
// came in) leaves the file: the list is read from it, not refused with "the
// hub stopped before anyone answered".
func TestHistoryListHubGoneAtOnce(t *testing.T) {
	home := testkit.Home(t)
	p := paths.Under(home)
	st, err := history.Open(p.History, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := st.Add(history.Record{Server: "gone", Message: fmt.Sprintf("asked #%d", i), Action: "accept", DecidedBy: "user"}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if err := os.MkdirAll(p.RunDir, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close() // the hub is gone before it answers
		}
	}()
	out, stderr, code := testkit.RunBinary(t, os.Environ(), nil, nil, "history", "list", "--json")
	if code != 0 {
		t.Fatalf("history list with a hub gone at once: exit %d: %s", code, stderr)
	}
	if n := strings.Count(out, `"asked #`); n != 3 {
		t.Errorf("history list printed %d of the 3 decisions:\n%s", n, out)
	}
}

// TestCLIReaderGone: a command whose output's reader went away (`history
// list | head -1`) stops without an error line of its own.
func TestCLIReaderGone(t *testing.T) {
	testkit.Home(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	var stderr strings.Builder
	if code := Main(t.Context(), []string{"history", "list"}, strings.NewReader(""), w, &stderr); code == exitOK {
		t.Errorf("history list into a closed pipe exited 0")
	}
	if stderr.Len() > 0 {
		t.Errorf("history list into a closed pipe said %q, want nothing", stderr.String())
	}
}

// TestHistoryListColumns (issue 24): `history list` lines its columns up
// by display width, so a server named 数据库 (three characters, six
// columns) or with an emoji does not push the columns after it to the
// right on its row; text/tabwriter padded by runes and did. The long
// message is cut to its column's width, between characters.
func TestHistoryListColumns(t *testing.T) {
	testkit.Home(t)
	st, err := history.Open(paths.FromEnv(os.Getenv).History, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	rows := []struct{ server, tool, message string }{
		{"github", "deploy", "Deploy build 7?"},
		{"数据库", "备份", "备份数据库？"},
		{"👍🏽 votes", "count", "Count the 👍🏽?"},
		{"خادم", "نسخ", "ملاحظة: تم النسخ الاحتياطي"},
		{"שרת", "גיבוי", "לגבות?"},
		{"सेवा", "अभिवादन", "नमस्ते"},
		{"e\u0301tat", "x", strings.Repeat("数据库👍🏽", 20)},
	}
	for i, r := range rows {
		rec := history.Record{Server: r.server, Tool: r.tool, Message: r.message, Mode: "form", Action: "accept", DecidedBy: "user",
			Time: now.Add(-time.Duration(i) * time.Minute)}
		if _, err := st.Add(rec); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	out := cli(t, "history", "list")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(rows)+1 {
		t.Fatalf("%d lines, want a header and %d rows:\n%s", len(lines), len(rows), out)
	}
	// The display column where a cell starts, measured as a terminal
	// shows what precedes it on its line.
	column := func(line string, at int) int { return chars.Width(line[:at]) }
	tool, message := column(lines[0], strings.Index(lines[0], "TOOL")), column(lines[0], strings.Index(lines[0], "MESSAGE"))
	for i, r := range rows {
		l := lines[i+1]
		at := strings.Index(l, "  "+r.server+"  ")
		if at < 0 {
			t.Fatalf("no SERVER cell %q on the line %q", r.server, l)
		}
		at += 2 + len(r.server)
		at += len(l[at:]) - len(strings.TrimLeft(l[at:], " "))
		if !strings.HasPrefix(l[at:], r.tool+" ") {
			t.Fatalf("the cell after %q is not the tool %q: %q", r.server, r.tool, l)
		}
		if got := column(l, at); got != tool {
			t.Errorf("row of %q: TOOL starts at column %d, the header's at %d:\n%s", r.server, got, tool, out)
		}
		// The message is the last cell, after at least two spaces; none
		// of the messages has two spaces in a row.
		at = strings.LastIndex(l, "  ") + 2
		if got := column(l, at); got != message {
			t.Errorf("row of %q: MESSAGE starts at column %d, the header's at %d:\n%s", r.server, got, message, out)
		}
		if w := chars.Width(l[at:]); w > 60 {
			t.Errorf("row of %q: the message takes %d columns, more than 60:\n%s", r.server, w, out)
		}
	}
	last := lines[len(lines)-1]
	shown, cut := strings.CutSuffix(last[strings.LastIndex(last, "  ")+2:], "…")
	if !cut || !strings.HasPrefix(rows[len(rows)-1].message, shown) || strings.HasSuffix(shown, "👍") {
		t.Errorf("the long message is not cut between characters with …: %q", last)
	}
}

// TestRulesListColumns (issue 24): `rules list` lines up by display width
// too, and cuts a long message to its 60 columns between characters.
func TestRulesListColumns(t *testing.T) {
	var out bytes.Buffer
	writeRules(&out, []remember.Rule{
		{ID: 1, Server: "github", Action: "decline", Message: "Deploy?"},
		{ID: 2, Server: "数据库", Action: "decline", Message: strings.Repeat("备份数据库👍🏽", 20)},
		{ID: 3, Server: "👩‍👩‍👧‍👦", Action: "decline", Message: "ملاحظة: تم النسخ الاحتياطي"},
	})
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	answer := chars.Width(lines[0][:strings.Index(lines[0], "ANSWER")])
	for _, l := range lines[1:] {
		if got := chars.Width(l[:strings.Index(l, "decline")]); got != answer {
			t.Errorf("ANSWER starts at column %d, the header's at %d:\n%s", got, answer, out.String())
		}
	}
	msg := strings.Fields(lines[2])[4] // ID, SERVER, TOOL, ANSWER, MESSAGE
	if chars.Width(msg) > 60 || !strings.HasSuffix(msg, "…") || !strings.HasPrefix(strings.Repeat("备份数据库👍🏽", 20), strings.TrimSuffix(msg, "…")) || strings.HasSuffix(msg, "👍…") {
		t.Errorf("the long message shown as %q, want at most 60 columns cut between characters", msg)
	}
}

// TestHistoryListServerTextStaysInItsCell: a tab or a line break in a
// server's name or tool stays in its cell of `history list`: it neither
// shifts the columns nor starts a row that looks like a record (a
// break-it session's finding).
func TestHistoryListServerTextStaysInItsCell(t *testing.T) {
	testkit.Home(t)
	st, err := history.Open(paths.FromEnv(os.Getenv).History, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Add(history.Record{Server: "evil\tserver", Tool: "x\n99  2026-01-01 00:00:00 UTC  github  deploy  accept  user  fake", Message: "m",
		Mode: "form", Action: "accept", DecidedBy: "user", Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	out := cli(t, "history", "list")
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); len(lines) != 2 {
		t.Errorf("one record made %d lines:\n%s", len(lines), out)
	}
}

// TestHistoryCLIUnreadableRecord: with one record the file cannot give
// back, list shows every other one and a row saying that one cannot be
// read; export writes every other one to the file, says how many, and
// exits 1 naming what it left out; show says the same of that one. Both
// from the file and through a hub that holds it. Before, list, export and
// show all failed whole.
func TestHistoryCLIUnreadableRecord(t *testing.T) {
	for _, withHub := range []bool{false, true} {
		t.Run(map[bool]string{false: "no hub", true: "through the hub"}[withHub], func(t *testing.T) {
			home := testkit.Home(t)
			p := paths.Under(home)
			st, err := history.Open(p.History, nil)
			if err != nil {
				t.Fatal(err)
			}
			seedHistory(t, st, time.Now())
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if err := historytest.Damage(p.History, 2, historytest.CutShort); err != nil { // jira's rule decline
				t.Fatal(err)
			}
			if withHub {
				hubkit.ServeHub(t, p, nil)
			}
			run := func(args ...string) (string, string, int) {
				var out, errb bytes.Buffer
				code := Main(context.Background(), args, nil, &out, &errb)
				return out.String(), errb.String(), code
			}

			out, stderr, code := run("history", "list")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != 0 || len(lines) != 5 || !strings.Contains(lines[2], "(cannot be read: the history file is damaged here)") ||
				!strings.HasPrefix(lines[2], "2 ") || !strings.Contains(out, "Deploy build 6?") {
				t.Errorf("history list: exit %d\n%s", code, out)
			}
			if want := "elicitray: 1 decision could not be read, as the history file is damaged there; `elicitray history verify` checks the rest of the file, and Delete in the history window removes what cannot be read\n"; stderr != want {
				t.Errorf("history list said %q, want %q", stderr, want)
			}
			out, stderr, code = run("history", "list", "--json")
			if got := messages(t, out); code != 0 || len(got) != 4 || got[1] != "" || !strings.Contains(stderr, "1 decision could not be read") {
				t.Errorf("history list --json: exit %d, messages %q; want 4, the second empty, and the same word on stderr: %q", code, got, stderr)
			}

			file := filepath.Join(t.TempDir(), "decisions.csv")
			out, stderr, code = run("history", "export", "--format", "csv", "-o", file)
			if code != 1 || out != "3 decisions written to "+file+"\n" ||
				!strings.Contains(stderr, "record 2 could not be read and was left out; `elicitray history verify` checks the rest") {
				t.Errorf("history export: exit %d\nstdout: %s\nstderr: %s", code, out, stderr)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil || len(rows) != 4 || rows[1][6] != "Deploy build 7?" || rows[3][6] != "Open a ticket?" {
				t.Errorf("the export holds %q, %v; want a header and the 3 others", rows, err)
			}

			_, stderr, code = run("history", "show", "2")
			if code != 1 || !strings.Contains(stderr, "decision 2 could not be read, as the history file is damaged there") {
				t.Errorf("history show 2: exit %d: %s", code, stderr)
			}
		})
	}
}
