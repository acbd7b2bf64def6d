//go:build linux

package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/elicitray/elicitray/app/internal/hubkit"
	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/bridge"
)

// The smaller cases of issue 10 that a transcript cannot write down (its
// text is valid UTF-8) or that need the real hub; the rest are transcripts
// (id-null, bom, mrtr-malformed, host-cancels).

// invalidUTF8Elicitation is an elicitation whose message, field title,
// help text and options carry bytes that are not UTF-8 (Latin-1, as a
// server that builds JSON by hand from a Windows string may send).
const invalidUTF8Elicitation = "{\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"O\xf9 allez-vous\xa0?\"," +
	"\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\",\"title\":\"Ville d'arriv\xe9e\"," +
	"\"description\":\"\xabla gare\xbb\",\"enum\":[\"Paris\",\"Z\xfcrich\"]}},\"required\":[\"city\"]}}}"

// TestInvalidUTF8History: whatever bytes a server sends, the JSON the CLI
// prints is valid: `history list --json` and `history export` print one
// JSON object a line, valid UTF-8, with U+FFFD where the server's invalid
// bytes were; the window shows the same. Once through a hub (with a
// scripted person), once with no desktop at all, where every process is
// the real binary and the wrapper writes the history file itself.
func TestInvalidUTF8History(t *testing.T) {
	t.Run("hub", func(t *testing.T) {
		th := startTranscriptHub(t)
		w := startWrapper(t, []string{"--name", "trips"}, false)
		utf8Call(t, w)
		var p hubkit.ShownPrompt
		select {
		case p = <-th.sp.Shown:
		case <-time.After(transcriptWait):
			t.Fatalf("no prompt was shown within %v", transcriptWait)
		}
		f := p.Prompt.Form.Fields[0]
		shown := []string{p.Prompt.Request.Message, f.Label(), f.Description, f.Options[1].Label}
		if want := []string{"O\uFFFD allez-vous\uFFFD?", "Ville d'arriv\uFFFDe", "\uFFFDla gare\uFFFD", "Z\uFFFDrich"}; strings.Join(shown, "|") != strings.Join(want, "|") {
			t.Errorf("the window shows %q, want %q", shown, want)
		}
		p.Answer(bridge.Result{Action: bridge.ActionAccept, Content: map[string]any{"city": "Paris"}, DecidedBy: bridge.DecidedByUser})
		utf8Answer(t, w, `{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{"city":"Paris"}}}`)
		// The hub records a decision before it answers: it is there.
		utf8CheckCLI(t, nil, "accept")
	})
	t.Run("no desktop", func(t *testing.T) {
		prefix := testkit.NoSession(t)
		testkit.Home(t)
		w := startWrapper(t, []string{"--name", "trips"}, true)
		utf8Call(t, w)
		// The wrapper keeps the record in the history file before it
		// answers (transcript checkFileHistory).
		utf8Answer(t, w, `{"jsonrpc":"2.0","id":"e1","result":{"action":"cancel"}}`)
		utf8CheckCLI(t, prefix, "cancel")
	})
}

func utf8Call(t *testing.T, w *wrapperProc) {
	t.Helper()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","arguments":{}}}`
	fmt.Fprintln(w.host, call)
	if got := utf8Next(t, w.toServer, "server"); string(got) != call {
		t.Fatalf("the server got %q", got)
	}
	fmt.Fprintln(w.server, invalidUTF8Elicitation)
}

func utf8Answer(t *testing.T, w *wrapperProc, want string) {
	t.Helper()
	got := utf8Next(t, w.toServer, "server")
	var g, wv any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("the server got %q: %v", got, err)
	}
	_ = json.Unmarshal([]byte(want), &wv)
	if testkit.JSONText(g) != testkit.JSONText(wv) {
		t.Fatalf("the server got %s, want %s", got, want)
	}
}

func utf8Next(t *testing.T, ch <-chan streamItem, who string) []byte {
	t.Helper()
	select {
	case it := <-ch:
		if it.err != nil {
			t.Fatalf("the %s's input ended: %v", who, it.err)
		}
		return it.line
	case <-time.After(transcriptWait):
		t.Fatalf("nothing reached the %s within %v", who, transcriptWait)
	}
	return nil
}

// utf8CheckCLI runs `history list --json` and `history export` (behind
// prefix) and checks that each line is valid UTF-8 and valid JSON, and
// that the record shows U+FFFD where the invalid bytes were.
func utf8CheckCLI(t *testing.T, prefix []string, action string) {
	t.Helper()
	for _, args := range [][]string{{"history", "list", "--json"}, {"history", "export"}} {
		argv := append(append(append([]string{}, prefix...), testkit.Binary(t)), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("elicitray %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
		}
		lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
		if len(lines) != 1 {
			t.Fatalf("elicitray %s printed %d lines, want the one record:\n%s", strings.Join(args, " "), len(lines), out)
		}
		if !utf8.Valid(lines[0]) || !json.Valid(lines[0]) {
			t.Fatalf("elicitray %s printed a line that is not valid JSON (UTF-8): %q", strings.Join(args, " "), lines[0])
		}
		var rec struct {
			Message         string
			Action          string
			RequestedSchema struct {
				Properties struct {
					City struct {
						Title       string
						Description string
						Enum        []string
					}
				}
			}
		}
		if err := json.Unmarshal(lines[0], &rec); err != nil {
			t.Fatal(err)
		}
		city := rec.RequestedSchema.Properties.City
		got := []string{rec.Action, rec.Message, city.Title, city.Description, strings.Join(city.Enum, ",")}
		want := []string{action, "O\uFFFD allez-vous\uFFFD?", "Ville d'arriv\uFFFDe", "\uFFFDla gare\uFFFD", "Paris,Z\uFFFDrich"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("elicitray %s: the record reads %q, want %q", strings.Join(args, " "), got, want)
		}
	}
}
