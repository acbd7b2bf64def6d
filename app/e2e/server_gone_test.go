//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// goneServerEnv makes the test binary goneServe: its value is how many
// elicitations a call asks before the server exits.
const goneServerEnv = "ELICITRAY_GONE_SERVER"

// goneServe serves MCP on stdin and stdout, one message a line: it
// answers initialize, and on a tools/call sends n elicitation/create at
// once and exits without waiting for any answer.
func goneServe(n string) int {
	asks, _ := strconv.Atoi(n)
	br := bufio.NewReader(os.Stdin)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var m rawMsg
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch m.Method {
		case "initialize":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"gone","version":"1"}}}`+"\n", m.ID)
		case "tools/call":
			var out []byte
			for i := range asks {
				out = fmt.Appendf(out, `{"jsonrpc":"2.0","id":"ask-%d","method":"elicitation/create","params":{"message":"gone #%d","requestedSchema":{"type":"object","properties":{"go":{"type":"boolean"}}}}}`+"\n", i, i)
			}
			os.Stdout.Write(out)
			return 0
		}
	}
}

// TestServerGoneBeforeAnyoneAnswered (break-it): twenty servers that ask
// five questions at once and exit at once, behind wrappers that find no
// desktop (a PID namespace of their own, no DISPLAY): nobody answers, and
// history keeps every question, once. Before, the wrapper kept only those
// it had found no desktop for before its server exited: 17 of 100 in the
// break-it session's run; the same happened with a hub still starting.
func TestServerGoneBeforeAnyoneAnswered(t *testing.T) {
	launcher := testkit.NoSession(t)
	d := newParallelDesktop(t)
	d.env = append(slices.Clone(d.env), "DISPLAY=", "WAYLAND_DISPLAY=", goneServerEnv+"=5")
	const wrappers = 20
	var calls sync.WaitGroup
	for i := range wrappers {
		cs := d.connectVia(launcher, fmt.Sprintf("gone-%d", i), os.Args[0])
		calls.Go(func() {
			// The call fails: its server is gone. Close waits for the
			// wrapper to exit, with what it kept on disk.
			_, _ = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask"})
			cs.Close()
		})
	}
	calls.Wait()
	kept := map[string]int{}
	for _, r := range d.history("--limit", "1000") {
		kept[r.Server+" "+r.Message]++
	}
	var wrong []string
	for i := range wrappers {
		for q := range 5 {
			if n := kept[fmt.Sprintf("gone-%d gone #%d", i, q)]; n != 1 {
				wrong = append(wrong, fmt.Sprintf("gone-%d's question %d %d times", i, q, n))
			}
		}
	}
	if len(wrong) > 0 {
		t.Errorf("history keeps each of %d questions once, but %d are not: %s%s", wrappers*5, len(wrong), strings.Join(wrong, ", "), d.diagnostics())
	}
}
