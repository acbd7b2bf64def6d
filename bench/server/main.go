// Command server is the MCP server of `make bench` (bench/run): as small as
// a server can be, so that what is measured is the path to it. It speaks
// line-delimited JSON-RPC on stdio at protocol version 2025-11-25
// (legacy elicitation, PROTOCOL.md §1) and answers:
//
//   - initialize, ping, tools/list;
//   - tools/call "echo": a one-line text result at once;
//   - tools/call "ask": an elicitation/create request to the client
//     (PROTOCOL.md §9), and, once the client answers it, a text result
//     "action=ACTION sent=NS answered=NS": the wall-clock times (Unix
//     nanoseconds) at which the request was written and its answer read, for
//     the harness to time the window against.
//
// Notifications and unknown responses are ignored.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// message is the part of a JSON-RPC message the server looks at.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params struct {
		Name            string `json:"name"`
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"params"`
	Result struct {
		Action string `json:"action"`
	} `json:"result"`
}

// askSchema is the requestedSchema of every "ask": one optional field, so
// that Escape (cancel) is the whole answer.
const askSchema = `{"type":"object","properties":{"note":{"type":"string","title":"Note"}}}`

func main() {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	send := func(line string) {
		out.WriteString(line)
		out.WriteByte('\n')
		if err := out.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, "server: writing:", err)
			os.Exit(1)
		}
	}
	// asks are the tools/call "ask" requests waiting for their elicitation's
	// answer, by the elicitation's id.
	type ask struct {
		callID json.RawMessage
		sent   int64
	}
	asks := map[string]ask{}
	next := 0
	for {
		line, err := in.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			return
		}
		if err != nil && err != io.EOF {
			fmt.Fprintln(os.Stderr, "server: reading:", err)
			os.Exit(1)
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			fmt.Fprintf(os.Stderr, "server: not JSON-RPC (%v): %.80s\n", err, line)
			continue
		}
		id := string(m.ID)
		switch {
		case m.Method == "" && id != "":
			a, ok := asks[id]
			if !ok {
				continue
			}
			delete(asks, id)
			answered := time.Now().UnixNano()
			text := fmt.Sprintf("action=%s sent=%d answered=%d", m.Result.Action, a.sent, answered)
			send(`{"jsonrpc":"2.0","id":` + string(a.callID) + `,"result":{"content":[{"type":"text","text":` + strconv.Quote(text) + `}]}}`)
		case id == "":
			// A notification: nothing to answer.
		case m.Method == "initialize":
			v := m.Params.ProtocolVersion
			if v == "" {
				v = "2025-11-25"
			}
			send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":` + strconv.Quote(v) +
				`,"capabilities":{"tools":{}},"serverInfo":{"name":"elicitray-bench-server","version":"1.0.0"}}}`)
		case m.Method == "ping":
			send(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
		case m.Method == "tools/list":
			send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[` +
				`{"name":"echo","inputSchema":{"type":"object"}},` +
				`{"name":"ask","inputSchema":{"type":"object"}}]}}`)
		case m.Method == "tools/call" && m.Params.Name == "echo":
			send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"ok"}]}}`)
		case m.Method == "tools/call" && m.Params.Name == "ask":
			next++
			eid := strconv.Quote("bench-ask-" + strconv.Itoa(next))
			asks[eid] = ask{callID: m.ID, sent: time.Now().UnixNano()}
			send(`{"jsonrpc":"2.0","id":` + eid + `,"method":"elicitation/create","params":{"mode":"form",` +
				`"message":"elicitray bench: press Escape","requestedSchema":` + askSchema + `}}`)
		default:
			send(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":` + strconv.Quote("method not found: "+m.Method) + `}}`)
		}
	}
}
