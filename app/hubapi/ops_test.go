package hubapi

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
	"github.com/google/go-cmp/cmp"
)

// TestRequestsOnTheWire checks that each operation's request is the JSON
// wire.go documents: a hub of the last version reads it as it did.
func TestRequestsOnTheWire(t *testing.T) {
	t.Parallel()
	rec := &history.Record{Server: "github"}
	tests := []struct {
		name string
		id   uint64
		m    Message
		want string
	}{
		{"prompt", 1, PromptRequest{Request: &bridge.Request{Server: "github", Mode: "form", Message: "Name?"}}.Message(),
			`{"op":"prompt","id":1,"request":{"server":"github","serverInfo":{"name":""},"mode":"form","message":"Name?"}}`},
		{"cancel", 0, CancelRequest{ID: 1, Result: &bridge.Result{Action: "cancel", DecidedBy: "server-cancelled", Reason: "gone"}}.Message(),
			`{"op":"cancel","id":1,"result":{"action":"cancel","decidedBy":"server-cancelled","reason":"gone"}}`},
		{"delivered", 0, DeliveredRequest{Key: "elicitray-1-3"}.Message(), `{"op":"delivered","key":"elicitray-1-3"}`},
		{"not delivered", 0, DeliveredRequest{Key: "k", Error: "broken pipe"}.Message(), `{"op":"delivered","key":"k","error":"broken pipe"}`},
		{"record", 4, RecordRequest{Record: rec}.Message(), `{"op":"record","id":4,"record":` + mustJSON(t, rec) + `}`},
		{"tool-accepted", 5, ToolAcceptedRequest{Records: []history.Record{*rec}}.Message(), `{"op":"tool-accepted","id":5,"records":[` + mustJSON(t, rec) + `]}`},
		{"history", 2, HistoryRequest{Query: &history.Query{Limit: 5}}.Message(), `{"op":"history","id":2,"query":` + mustJSON(t, &history.Query{Limit: 5}) + `}`},
		{"get", 3, GetRequest{RecordID: 42}.Message(), `{"op":"get","id":3,"recordId":42}`},
		{"export", 6, ExportRequest{Format: "csv", Query: &history.Query{}}.Message(), `{"op":"export","id":6,"format":"csv","query":` + mustJSON(t, &history.Query{}) + `}`},
		{"prune", 7, PruneRequest{Prune: &history.PruneOptions{Keep: 10}}.Message(), `{"op":"prune","id":7,"prune":` + mustJSON(t, &history.PruneOptions{Keep: 10}) + `}`},
		{"pause", 8, PauseRequest{Paused: true}.Message(), `{"op":"pause","id":8,"paused":true}`},
		{"resume", 8, PauseRequest{}.Message(), `{"op":"pause","id":8}`},
		{"mute", 9, MuteRequest{Server: "github", For: time.Hour}.Message(), `{"op":"mute","id":9,"server":"github","for":3600000000000}`},
		{"mute --force", 9, MuteRequest{Server: "github", For: time.Hour, Force: true}.Message(), `{"op":"mute","id":9,"server":"github","for":3600000000000,"force":true}`},
		{"unmute", 10, UnmuteRequest{Server: "github"}.Message(), `{"op":"unmute","id":10,"server":"github"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.id != 0 {
				tt.m.ID = tt.id
			}
			got, err := json.Marshal(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decoded(t, tt.want), decoded(t, string(got))); diff != "" {
				t.Errorf("%s on the wire mismatch (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

// TestRepliesOffTheWire checks that each reply wire.go documents reads
// into its operation's reply type, and that the hub writes that type as
// the same line.
func TestRepliesOffTheWire(t *testing.T) {
	t.Parallel()
	until := time.Date(2026, 12, 6, 15, 4, 0, 0, time.UTC)
	tests := []struct {
		name string
		line string
		got  func(Message) any
		want any
	}{
		{"prompt", `{"id":1,"result":{"action":"accept","content":{"n":12345678901234567890},"decidedBy":"user"}}`,
			func(m Message) any { return promptReplyOf(m) },
			PromptReply{Result: &bridge.Result{Action: "accept", Content: map[string]any{"n": json.Number("12345678901234567890")}, DecidedBy: "user"}}},
		{"prompt not saved", `{"id":1,"result":{"action":"decline","decidedBy":"rule"},"record":` + mustJSON(t, &history.Record{Server: "github"}) + `}`,
			func(m Message) any { return promptReplyOf(m) },
			PromptReply{Result: &bridge.Result{Action: "decline", DecidedBy: "rule"}, Record: &history.Record{Server: "github"}}},
		{"history", `{"id":2,"records":[` + mustJSON(t, &history.Record{ID: 7, Server: "github"}) + `],"problem":"3 decisions not saved"}`,
			func(m Message) any { return historyReplyOf(m) },
			HistoryReply{Records: []history.Record{{ID: 7, Server: "github"}}, Problem: "3 decisions not saved"}},
		{"mute", `{"id":9,"until":"2026-12-06T15:04:00Z"}`,
			func(m Message) any { return MuteReply{Until: m.Until} }, MuteReply{Until: until}},
		{"status", `{"id":11,"paused":true,"count":2,"servers":[{"Name":"github","MutedUntil":"2026-12-06T15:04:00Z","Rule":"decline"}],"version":"1.2.3","display":":0","spooled":1,"unsaved":3,"problem":"3 decisions not saved: the disk is full"}`,
			func(m Message) any { return statusReplyOf(m) },
			StatusReply{Paused: true, Waiting: 2, Servers: []ServerState{{Name: "github", MutedUntil: until, Rule: "decline"}},
				Version: "1.2.3", Display: ":0", SavedState: SavedState{Spooled: 1, Unsaved: 3, Problem: "3 decisions not saved: the disk is full"}}},
		{"quit", `{"id":4,"unsaved":3,"problem":"p"}`,
			func(m Message) any { return savedStateOf(m) }, SavedState{Unsaved: 3, Problem: "p"}},
		{"prune", `{"id":7,"count":12}`, func(m Message) any { return CountReply{Count: m.Count} }, CountReply{Count: 12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m Message
			if err := Decode([]byte(tt.line), &m); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tt.got(m)); diff != "" {
				t.Errorf("%s reply mismatch (-want +got):\n%s", tt.name, diff)
			}
			// And the hub writes the reply as the line says.
			sent, err := json.Marshal(tt.want.(interface{ Reply(uint64) Message }).Reply(m.ID))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decoded(t, tt.line), decoded(t, string(sent))); diff != "" {
				t.Errorf("%s reply on the wire mismatch (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

// TestConnReadsLines checks the framing every reader uses: a bad line is
// said and skipped, a last line without its newline is read, and a line
// past the bound ends the connection.
func TestConnReadsLines(t *testing.T) {
	t.Parallel()
	in := `{"id":1}` + "\n" + "not json\n" + `{"id":2}`
	c := NewConn(struct {
		io.Reader
		io.Writer
	}{strings.NewReader(in), io.Discard}, 16)
	var ids []uint64
	var bad int
	for {
		var m Message
		err := c.Read(&m)
		if errors.As(err, new(BadLineError)) {
			bad++
			continue
		}
		if err != nil {
			if err != io.EOF {
				t.Fatalf("Read: %v, want io.EOF at the end", err)
			}
			break
		}
		ids = append(ids, m.ID)
	}
	if diff := cmp.Diff([]uint64{1, 2}, ids); diff != "" || bad != 1 {
		t.Errorf("ids mismatch (-want +got):\n%s; %d bad lines, want 1", diff, bad)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decoded(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}
