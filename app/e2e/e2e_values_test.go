//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// rawAskServerEnv makes the test binary the "raw ask" server (see
// TestMain): the ask tool of askServe, but its result is the ElicitResult
// as the bytes the wrapper wrote. An SDK's server decodes numbers into
// float64s before anyone could see what it received.
const rawAskServerEnv = "ELICITRAY_RAW_ASK_SERVER"

// rawMsg is one JSON-RPC message as the raw ask server reads it.
type rawMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// rawAskServe serves MCP on stdin and stdout, one message a line, with
// nothing but what the ask tool needs: initialize, tools/list, ping, and
// tools/call ask, which elicits (a form, or a link when given a url) and
// answers with the response's result.
func rawAskServe() int {
	br := bufio.NewReaderSize(os.Stdin, 1<<20)
	write := func(v any) {
		b, _ := json.Marshal(v)
		os.Stdout.Write(append(b, '\n'))
	}
	reply := func(id json.RawMessage, result any) {
		write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	calls := map[string]json.RawMessage{} // elicitation id → the tools/call id
	for n := 0; ; {
		line, err := br.ReadBytes('\n')
		var m rawMsg
		if len(line) > 0 && json.Unmarshal(line, &m) == nil {
			switch m.Method {
			case "initialize":
				var p struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				_ = json.Unmarshal(m.Params, &p)
				reply(m.ID, map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
					"serverInfo": map[string]any{"name": "raw-ask-server", "version": "1"}})
			case "tools/list":
				reply(m.ID, map[string]any{"tools": []any{map[string]any{"name": "ask", "inputSchema": map[string]any{"type": "object"}}}})
			case "ping":
				reply(m.ID, map[string]any{})
			case "tools/call":
				var p struct {
					Arguments askArgs `json:"arguments"`
				}
				_ = json.Unmarshal(m.Params, &p)
				n++
				id := fmt.Sprintf("ask-%d", n)
				calls[id] = m.ID
				params := map[string]any{"message": p.Arguments.Message, "requestedSchema": json.RawMessage(p.Arguments.Schema)}
				if p.Arguments.URL != "" {
					params = map[string]any{"mode": "url", "message": p.Arguments.Message, "url": p.Arguments.URL, "elicitationId": id}
				}
				write(map[string]any{"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": params})
			case "":
				var id string
				if json.Unmarshal(m.ID, &id) == nil && calls[id] != nil {
					reply(calls[id], map[string]any{"content": []any{map[string]any{"type": "text", "text": string(m.Result)}}})
					delete(calls, id)
				}
			}
		}
		if err != nil {
			return 0
		}
	}
}

// TestEndToEndValuesOnDesktop (issue 10) answers real windows of a real
// hub, through the real wrapper: a default above 2^53 left as shown and a
// number above 2^53 typed into the entry reach the server with every
// digit, and `elicitray history list --json` and the CSV export show them
// so; a text default hiding a NUL, a bidi override and a second line
// reaches the server as the entry showed it, without them.
func TestEndToEndValuesOnDesktop(t *testing.T) {
	d := newParallelDesktop(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	d.env = append(d.environ(), rawAskServerEnv+"=1") // inherited by the wrapper, and so by its server
	cs := d.connect("bank", exe)

	if !t.Run("numbers above 2^53", func(t *testing.T) {
		d := d.with(t)
		call := d.callWith(cs, "ask", map[string]any{
			"message": "Transfer between which accounts?",
			"schema":  `{"type":"object","properties":{"from":{"type":"integer","title":"From account","default":9007199254740993},"to":{"type":"integer","title":"To account","minimum":9007199254740994}},"required":["from","to"]}`,
		})
		win, _ := d.window()
		// The first field, focused, shows its default; the second is typed.
		d.xdo("key", "--window", win, "Tab")
		d.xdo("type", "--window", win, "9007199254740995")
		d.screenshot("values-prompt.png")
		d.answer(win, "Return")
		want := `{"action":"accept","content":{"from":9007199254740993,"to":9007199254740995}}`
		if got := d.result(call); got != want {
			t.Errorf("the server received %s, want %s", got, want)
		}
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"history", "list", "--json"}, `"content":{"from":9007199254740993,"to":9007199254740995}`},
			{[]string{"history", "export", "--format", "csv"}, `"{""from"":9007199254740993,""to"":9007199254740995}"`},
		} {
			cmd := exec.Command(testkit.Binary(t), tt.args...)
			cmd.Env = d.env
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("elicitray %s: %v", strings.Join(tt.args, " "), err)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("elicitray %s does not show %s:\n%s", strings.Join(tt.args, " "), tt.want, out)
			}
		}
	}) {
		return
	}
	t.Run("default with hidden characters", func(t *testing.T) {
		d := d.with(t)
		call := d.callWith(cs, "ask", map[string]any{
			"message": "Push which branch?",
			"schema":  `{"type":"object","properties":{"branch":{"type":"string","title":"Branch","default":"main\u0000; git push --force\u202e\norigin"}}}`,
		})
		win, _ := d.window()
		d.screenshot("hidden-default-prompt.png")
		d.answer(win, "Return")
		want := `{"action":"accept","content":{"branch":"main; git push --force origin"}}`
		if got := d.result(call); got != want {
			t.Errorf("the server received %q, want %q: what the entry showed", got, want)
		}
		if rec := d.history()[0]; rec.Content["branch"] != "main; git push --force origin" {
			t.Errorf("history content %q, want what was sent", rec.Content)
		}
	})
}
