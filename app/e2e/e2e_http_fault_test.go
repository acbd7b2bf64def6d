//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// TestEndToEndHTTPHostileServer: the real wrapper, started with only the
// variables hosts pass, in front of a server that answers garbage: a reply
// with another id, a 500 with a JSON body, an HTML page, a body that is
// not JSON, messages spread over SSE data lines with CRLF and over a
// pretty-printed body. The host's stdout carries nothing but JSON-RPC
// messages, one a line; each of the host's requests is answered exactly
// once; the log speaks in sentences; and when the host goes the session is
// ended with DELETE and the wrapper exits 0.
func TestEndToEndHTTPHostileServer(t *testing.T) {
	t.Parallel()
	var deleted atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodDelete:
			deleted.Store(true)
			return
		case http.MethodPost:
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "hostile")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}}`, m.ID)
		case string(m.ID) == "2":
			io.WriteString(w, `{"jsonrpc":"2.0","id":99,"result":{}}`)
		case string(m.ID) == "3":
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"detail":"database down"}`)
		case string(m.ID) == "4":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\r\ndata: \"params\":{\"level\":\"info\",\"data\":\"hi\"}}\r\n\r\n"+
				"data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":%s,\"result\":{\"tools\":[]}}\r\n\r\n", m.ID)
		case string(m.ID) == "5":
			fmt.Fprintf(w, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": %s,\n  \"result\": {}\n}\n", m.ID)
		case string(m.ID) == "6":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body>Welcome to our site</body></html>\n")
		case string(m.ID) == "7":
			io.WriteString(w, "upstream connect error or disconnect/reset before headers\n")
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	}))
	t.Cleanup(ts.Close)

	home := t.TempDir()
	cmd := exec.Command(testkit.Binary(t), "wrap", "--name", "hostile", "--url", ts.URL+"/mcp")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "USER=" + os.Getenv("USER"),
		"LOGNAME=" + os.Getenv("LOGNAME"), "SHELL=/bin/sh", "TERM=xterm"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-host","version":"1"}}}`+"\n")
	first, err := out.ReadString('\n')
	if err != nil || !strings.Contains(first, `"hostile"`) {
		t.Fatalf("initialize reply %q, %v; log:\n%s", first, err, stderr.String())
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	ids := []string{"2", "3", "4", "5", "6", "7", `"a\"b"`}
	for _, id := range ids {
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`+"\n")
	}
	stdin.Close() // the host goes: the wrapper answers what is in flight, then exits
	rest, _ := io.ReadAll(out)
	if err := cmd.Wait(); err != nil {
		t.Errorf("the wrapper exited with %v; log:\n%s", err, stderr.String())
	}

	answers := map[string]int{}
	if !strings.HasSuffix(string(rest), "\n") {
		t.Errorf("stdout does not end with a whole line: %q", rest)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(rest), "\n"), "\n") {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(line), &msg) != nil {
			t.Errorf("stdout carried a line that is not one JSON-RPC message: %q", line)
			continue
		}
		if msg.ID != nil {
			var v any
			_ = json.Unmarshal(msg.ID, &v)
			answers[fmt.Sprint(v)]++
		}
	}
	for _, id := range ids {
		var v any
		_ = json.Unmarshal([]byte(id), &v)
		if n := answers[fmt.Sprint(v)]; n != 1 {
			t.Errorf("request %s was answered %d times; stdout:\n%s", id, n, rest)
		}
	}
	log := stderr.String()
	for _, chain := range []string{"failed to", `Post "`, "invalid character", "unexpected"} {
		if strings.Contains(log, chain) {
			t.Errorf("the log speaks Go's error chains (%q):\n%s", chain, log)
		}
	}
	for _, said := range []string{"500 Internal Server Error: {\"detail\":\"database down\"}", "text/html, not JSON", "not JSON"} {
		if !strings.Contains(log, said) {
			t.Errorf("the log does not say %q:\n%s", said, log)
		}
	}
	if !deleted.Load() {
		t.Error("the session was not ended with DELETE")
	}
}
