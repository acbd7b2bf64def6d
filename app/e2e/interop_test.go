//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hub"
	"github.com/elicitray/elicitray/app/internal/hubkit"
	"github.com/elicitray/elicitray/app/internal/testkit"

	"github.com/google/go-cmp/cmp"
	mcpgoclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
)

// The interop matrix (issue 3): every host SDK, at its default protocol
// version and pinned to the last legacy one, runs the real `elicitray wrap`
// in front of every server, and every kind of answer travels from the
// (scripted) hub to the server. Subtests are named
// HOST@VERSION/SERVER/ANSWER, e.g. gosdk-host@2026-07-28/mcpgo-server/accept.
//
// The hosts declare no elicitation of their own (neither SDK needs a handler
// to call tools): only the wrapper can answer. Were an elicitation to reach a
// host anyway, the host could not answer it and the call would fail.
//
// The go-sdk and mcp-go servers are this test binary run again with
// interopServerEnv set (see TestMain). Their tools echo, as JSON, what the
// server received: protocol version, action, content, requestState.

// interopServerEnv makes the test binary an MCP server on stdin/stdout
// instead of running tests: "gosdk" (the official Go SDK) or "mcpgo"
// (mark3labs/mcp-go). See TestMain.
const interopServerEnv = "ELICITRAY_INTEROP_SERVER"

// interopWait bounds each wait of the matrix (a prompt, a tool result, a
// wrapper's exit). A safety net only: a working run never comes close.
const interopWait = 30 * time.Second

const (
	modernVersion = "2026-07-28" // the SDKs' default: input_required (PROTOCOL.md §1)
	legacyVersion = "2025-11-25" // pinned: legacy push
)

// Names shared by the two SDK servers and the test.
const (
	interopKey   = "answer"               // the input request's key (PROTOCOL.md §1)
	interopState = "interop-state-1 ✓ \"" // opaque requestState, echoed byte for byte
)

// interopSchema is the form the SDK servers ask for: no defaults, so what
// the server receives is exactly what was answered.
const interopSchema = `{"type":"object","properties":{` +
	`"name":{"type":"string","title":"Name","minLength":1},` +
	`"count":{"type":"integer","title":"Count","minimum":1,"maximum":10},` +
	`"ok":{"type":"boolean","title":"OK"}},"required":["name"]}`

func interopFormMessage(cell string) string { return "Interop " + cell + ": who are you?" }
func interopPushMessage(cell string) string { return "Interop " + cell + ": legacy push" }
func interopURLMessage(cell string) string  { return "Interop " + cell + ": sign in" }
func interopURL(cell string) string         { return "https://auth.example.com/connect?cell=" + cell }

// interopEcho is what the SDK servers' tools answer, as JSON text: what
// reached the server.
type interopEcho struct {
	Server          string         `json:"server"` // "gosdk" or "mcpgo"
	Tool            string         `json:"tool"`
	ProtocolVersion string         `json:"protocolVersion"`
	Action          string         `json:"action,omitempty"`
	Content         map[string]any `json:"content,omitempty"`
	RequestState    string         `json:"requestState,omitempty"`
	Error           string         `json:"error,omitempty"`
}

func (e interopEcho) text() string {
	b, err := json.Marshal(e)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// interopServe runs the interop server sdk on stdin/stdout until stdin
// closes, and returns the process's exit code.
func interopServe(sdk string) int {
	ctx := context.Background()
	var err error
	switch sdk {
	case "gosdk":
		err = interopGoSDKServer().Run(ctx, &mcp.StdioTransport{})
	case "mcpgo":
		err = mcpgoserver.NewStdioServer(interopMCPGoServer()).Listen(ctx, os.Stdin, os.Stdout)
	default:
		fmt.Fprintf(os.Stderr, "%s=%q: want gosdk or mcpgo\n", interopServerEnv, sdk)
		return 2
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "interop %s server: %v\n", sdk, err)
		return 1
	}
	return 0
}

type interopArgs struct {
	Cell string `json:"cell"`
}

// interopGoSDKServer is the official Go SDK's server: "form" and "url" are
// written multi-round-trip style (the SDK turns them into legacy pushes for
// legacy clients), "push" calls ServerSession.Elicit (legacy clients only).
func interopGoSDKServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "interop-gosdk", Version: "1.0.0"}, nil)
	result := func(e interopEcho) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: e.Error != "", Content: []mcp.Content{&mcp.TextContent{Text: e.text()}}}, nil, nil
	}
	echo := func(req *mcp.CallToolRequest, tool string) interopEcho {
		return interopEcho{Server: "gosdk", Tool: tool, ProtocolVersion: req.ProtocolVersion()}
	}
	elicitation := func(req *mcp.CallToolRequest) *mcp.ElicitationCapabilities {
		if caps := req.ClientCapabilities(); caps != nil {
			return caps.Elicitation
		}
		return nil
	}
	// ask returns the input request, or on the retry reports its answer.
	ask := func(req *mcp.CallToolRequest, e interopEcho, params *mcp.ElicitParams) (*mcp.CallToolResult, any, error) {
		res, ok := req.Params.InputResponses[interopKey].(*mcp.ElicitResult)
		if !ok {
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{interopKey: params},
				RequestState:  interopState,
			}, nil, nil
		}
		e.Action, e.Content, e.RequestState = res.Action, res.Content, req.Params.RequestState
		return result(e)
	}

	mcp.AddTool(s, &mcp.Tool{Name: "form", Description: "asks for a form, multi-round-trip style"},
		func(ctx context.Context, req *mcp.CallToolRequest, in interopArgs) (*mcp.CallToolResult, any, error) {
			e := echo(req, "form")
			if c := elicitation(req); c == nil || (c.Form == nil && c.URL != nil) {
				e.Error = "the client declared no form elicitation"
				return result(e)
			}
			return ask(req, e, &mcp.ElicitParams{Mode: "form", Message: interopFormMessage(in.Cell), RequestedSchema: json.RawMessage(interopSchema)})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "url", Description: "asks to open a link, multi-round-trip style"},
		func(ctx context.Context, req *mcp.CallToolRequest, in interopArgs) (*mcp.CallToolResult, any, error) {
			e := echo(req, "url")
			if c := elicitation(req); c == nil || c.URL == nil {
				e.Error = "the client declared no URL elicitation"
				return result(e)
			}
			params := &mcp.ElicitParams{Mode: "url", Message: interopURLMessage(in.Cell), URL: interopURL(in.Cell)}
			if e.ProtocolVersion < modernVersion {
				params.ElicitationID = in.Cell // 2026-07-28 has none (PROTOCOL.md §6)
			}
			return ask(req, e, params)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "push", Description: "asks for a form with a legacy elicitation/create"},
		func(ctx context.Context, req *mcp.CallToolRequest, in interopArgs) (*mcp.CallToolResult, any, error) {
			e := echo(req, "push")
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: interopPushMessage(in.Cell), RequestedSchema: json.RawMessage(interopSchema)})
			if err != nil {
				e.Error = err.Error()
				return result(e)
			}
			e.Action, e.Content = res.Action, res.Content
			return result(e)
		})
	return s
}

// interopMCPGoServer is mcp-go's server with the same three tools: "form"
// and "url" built with InputRequestBuilder (mcp-go bridges them to legacy
// pushes for legacy clients), "push" with RequestElicitation.
func interopMCPGoServer() *mcpgoserver.MCPServer {
	s := mcpgoserver.NewMCPServer("interop-mcpgo", "1.0.0", mcpgoserver.WithToolCapabilities(false))
	var schema map[string]any
	if err := json.Unmarshal([]byte(interopSchema), &schema); err != nil {
		panic(err)
	}
	result := func(e interopEcho) (*mcpgo.CallToolResult, error) {
		if e.Error != "" {
			return mcpgo.NewToolResultError(e.text()), nil
		}
		return mcpgo.NewToolResultText(e.text()), nil
	}
	echo := func(ctx context.Context, tool string) interopEcho {
		return interopEcho{Server: "mcpgo", Tool: tool, ProtocolVersion: mcpgoserver.RequestProtocolVersion(ctx)}
	}
	// elicitation is the elicitation capability of this request: from its
	// _meta when modern, else from initialize (PROTOCOL.md §3).
	elicitation := func(ctx context.Context) *mcpgo.ElicitationCapability {
		if info := mcpgoserver.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
			if info.ClientCapabilities == nil {
				return nil
			}
			return info.ClientCapabilities.Elicitation
		}
		if sess, ok := mcpgoserver.ClientSessionFromContext(ctx).(mcpgoserver.SessionWithClientInfo); ok {
			return sess.GetClientCapabilities().Elicitation
		}
		return nil
	}
	report := func(e interopEcho, res mcpgo.ElicitationResponse) (*mcpgo.CallToolResult, error) {
		e.Action = string(res.Action)
		if res.Content != nil {
			b, _ := json.Marshal(res.Content)
			if err := json.Unmarshal(b, &e.Content); err != nil {
				e.Error = fmt.Sprintf("content %s is no object: %v", b, err)
			}
		}
		return result(e)
	}
	ask := func(req mcpgo.CallToolRequest, e interopEcho, params mcpgo.ElicitationParams) (*mcpgo.CallToolResult, error) {
		if res := mcpgoserver.ElicitationResponse(req.Params.InputResponses, interopKey); res != nil {
			e.RequestState = req.Params.RequestState
			return report(e, res.ElicitationResponse)
		}
		return mcpgoserver.NewInputRequestBuilder(interopState).Elicit(interopKey, params).ToolResult(), nil
	}

	s.AddTool(mcpgo.NewTool("form", mcpgo.WithDescription("asks for a form, multi-round-trip style"), mcpgo.WithString("cell")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			e := echo(ctx, "form")
			if c := elicitation(ctx); c == nil || (c.Form == nil && c.URL != nil) {
				e.Error = "the client declared no form elicitation"
				return result(e)
			}
			cell := req.GetString("cell", "")
			return ask(req, e, mcpgo.ElicitationParams{Mode: "form", Message: interopFormMessage(cell), RequestedSchema: schema})
		})
	s.AddTool(mcpgo.NewTool("url", mcpgo.WithDescription("asks to open a link, multi-round-trip style"), mcpgo.WithString("cell")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			e := echo(ctx, "url")
			if c := elicitation(ctx); c == nil || c.URL == nil {
				e.Error = "the client declared no URL elicitation"
				return result(e)
			}
			cell := req.GetString("cell", "")
			params := mcpgo.ElicitationParams{Mode: "url", Message: interopURLMessage(cell), URL: interopURL(cell)}
			if e.ProtocolVersion < modernVersion {
				params.ElicitationID = cell // 2026-07-28 has none (PROTOCOL.md §6)
			}
			return ask(req, e, params)
		})
	s.AddTool(mcpgo.NewTool("push", mcpgo.WithDescription("asks for a form with a legacy elicitation/create"), mcpgo.WithString("cell")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			e := echo(ctx, "push")
			res, err := s.RequestElicitation(ctx, mcpgo.ElicitationRequest{
				Request: mcpgo.Request{Method: string(mcpgo.MethodElicitationCreate)},
				Params:  mcpgo.ElicitationParams{Mode: "form", Message: interopPushMessage(req.GetString("cell", "")), RequestedSchema: schema},
			})
			if err != nil {
				e.Error = err.Error()
				return result(e)
			}
			return report(e, res.ElicitationResponse)
		})
	return s
}

// interopPrompt is one prompt a cell expects the hub to show, in order, and
// the scripted person's answer to it.
type interopPrompt struct {
	mode, message, url string
	answer             bridge.Result
}

// interopCase is one answer column of the matrix: a tool call, the prompts
// it causes, and a check of the host's reply (which reports what the
// server received).
type interopCase struct {
	name    string
	tool    string
	args    map[string]any
	prompts []interopPrompt
	want    func(t *testing.T, r hostReply)
}

// hostReply is the host's outcome of one tools/call.
type hostReply struct {
	text    string
	isError bool
	err     error
}

func (r hostReply) String() string {
	switch {
	case r.err != nil:
		return "error: " + r.err.Error()
	case r.isError:
		return "error result: " + r.text
	}
	return r.text
}

// hostSession is an MCP client session of one host SDK.
type hostSession interface {
	protocolVersion() string
	call(ctx context.Context, tool string, args map[string]any) hostReply
	close() error
}

type gosdkHost struct{ cs *mcp.ClientSession }

// connectGoSDKHost connects the official Go SDK's client at version ("":
// its default). No ElicitationHandler: it declares no elicitation.
func connectGoSDKHost(ctx context.Context, version string, r io.ReadCloser, w io.WriteCloser) (hostSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "interop-gosdk-host", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: r, Writer: w}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, err
	}
	return gosdkHost{cs}, nil
}

func (h gosdkHost) protocolVersion() string { return h.cs.InitializeResult().ProtocolVersion }
func (h gosdkHost) close() error            { return h.cs.Close() }

func (h gosdkHost) call(ctx context.Context, tool string, args map[string]any) hostReply {
	res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return hostReply{err: err}
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return hostReply{text: strings.Join(texts, "\n"), isError: res.IsError}
}

type mcpgoHost struct {
	c       *mcpgoclient.Client
	version string
}

// connectMCPGoHost connects mcp-go's client at version ("": its default).
// No elicitation handler: it declares no elicitation.
func connectMCPGoHost(ctx context.Context, version string, r io.ReadCloser, w io.WriteCloser) (hostSession, error) {
	// Its server/discover probe waits as long as the matrix's other waits:
	// on a loaded machine the wrapper and its server may take longer to
	// start than mcp-go's default 5 s, and the host would fall back to
	// initialize at a legacy version.
	c := mcpgoclient.NewClient(transport.NewIO(r, w, nil), mcpgoclient.WithDiscoverTimeout(interopWait))
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcpgo.Implementation{Name: "interop-mcpgo-host", Version: "1.0.0"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		c.Close()
		return nil, err
	}
	return mcpgoHost{c, res.ProtocolVersion}, nil
}

func (h mcpgoHost) protocolVersion() string { return h.version }
func (h mcpgoHost) close() error            { return h.c.Close() }

func (h mcpgoHost) call(ctx context.Context, tool string, args map[string]any) hostReply {
	req := mcpgo.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := h.c.CallTool(ctx, req)
	if err != nil {
		return hostReply{err: err}
	}
	var texts []string
	for _, c := range res.Content {
		texts = append(texts, mcpgo.GetTextFromContent(c))
	}
	return hostReply{text: strings.Join(texts, "\n"), isError: res.IsError}
}

// rpcLine is one JSON-RPC message between the host and the wrapper.
type rpcLine struct {
	raw    string
	id     string // the id as JSON ("" when none)
	method string
	result json.RawMessage
	error  json.RawMessage
}

func parseRPCLine(line []byte) rpcLine {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(line, &m)
	return rpcLine{raw: strings.TrimSpace(string(line)), id: string(m.ID), method: m.Method, result: m.Result, error: m.Error}
}

func (l rpcLine) isResponse() bool { return l.method == "" && l.id != "" && l.id != "null" }

// hostWire records every line between the host and the wrapper, both ways.
type hostWire struct {
	mu       sync.Mutex
	fromHost []rpcLine
	toHost   []rpcLine
}

func (w *hostWire) add(fromHost bool, line []byte) {
	l := parseRPCLine(line)
	w.mu.Lock()
	defer w.mu.Unlock()
	if fromHost {
		w.fromHost = append(w.fromHost, l)
	} else {
		w.toHost = append(w.toHost, l)
	}
}

func (w *hostWire) mark() (fromHost, toHost int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.fromHost), len(w.toHost)
}

func (w *hostWire) since(fromHost, toHost int) ([]rpcLine, []rpcLine) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]rpcLine(nil), w.fromHost[fromHost:]...), append([]rpcLine(nil), w.toHost[toHost:]...)
}

// tapWriter records each complete line written through it.
type tapWriter struct {
	w    io.WriteCloser
	wire *hostWire
	mu   sync.Mutex
	buf  []byte
}

func (t *tapWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.wire.add(true, t.buf[:i+1])
		t.buf = t.buf[i+1:]
	}
	return t.w.Write(p)
}

func (t *tapWriter) Close() error { return t.w.Close() }

// interopSession is one host session through one wrapper to one server,
// reused for all the answers of a host×server pair.
type interopSession struct {
	name    string // --name: what the hub and the history call the server
	host    hostSession
	wire    *hostWire
	logPath string // the wrapper's stderr (and its server's)
	hung    bool   // a call got no reply: the cells after it are not run
}

// startInteropSession starts `elicitray wrap --name name -- server…` with env
// added to its environment, and connects the host to it. Cleanup closes the
// session, waits for the wrapper to exit, and checks that every tools/call
// of the host got exactly one reply.
func startInteropSession(t *testing.T, connect func(context.Context, string, io.ReadCloser, io.WriteCloser) (hostSession, error),
	version, name string, env []string, server ...string) *interopSession {
	t.Helper()
	s := &interopSession{name: name, wire: &hostWire{}, logPath: filepath.Join(t.TempDir(), "wrapper.log")}
	logf, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testkit.Binary(t), append([]string{"wrap", "--name", name, "--"}, server...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = logf
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
	// Everything the wrapper writes is recorded before the host reads it,
	// and recorded even after the host stopped reading.
	pr, pw := io.Pipe()
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				s.wire.add(false, line)
				_, _ = pw.Write(line) // fails once the host closed: go on recording
			}
			if err != nil {
				pw.CloseWithError(io.EOF)
				return
			}
		}
	}()
	stop := func() {
		_ = stdin.Close()
		select {
		case <-copied:
		case <-time.After(interopWait):
			t.Errorf("the wrapper did not exit %v after its host closed the session: killing it%s", interopWait, s.diagnostics())
			_ = cmd.Process.Kill()
			<-copied
		}
		_ = cmd.Wait()
		logf.Close()
	}
	ctx, cancel := context.WithTimeout(t.Context(), interopWait)
	defer cancel()
	s.host, err = connect(ctx, version, pr, &tapWriter{w: stdin, wire: s.wire})
	if err != nil {
		stop()
		t.Fatalf("connecting to elicitray wrap: %v%s", err, s.diagnostics())
	}
	s.checkHostDeclaresNoElicitation(t)
	t.Cleanup(func() {
		if err := s.host.close(); err != nil {
			t.Logf("closing the host session: %v", err)
		}
		stop()
		s.checkWholeSession(t)
	})
	return s
}

// checkHostDeclaresNoElicitation checks what the host sent so far (its
// initialize): were it to declare elicitation itself, the matrix would not
// show that the wrapper answers.
func (s *interopSession) checkHostDeclaresNoElicitation(t *testing.T) {
	t.Helper()
	from, _ := s.wire.since(0, 0)
	for _, l := range from {
		if strings.Contains(l.raw, `"elicitation"`) {
			t.Errorf("the host declared elicitation itself, so the matrix would not show that the wrapper answers: %s", l.raw)
		}
	}
}

// checkWholeSession checks, once the wrapper has written all it ever will,
// that every tools/call of the host got exactly one reply: a late second
// reply to a call shows here.
func (s *interopSession) checkWholeSession(t *testing.T) {
	t.Helper()
	from, to := s.wire.since(0, 0)
	for _, l := range from {
		if l.method == "tools/call" {
			if n := countReplies(to, l.id); n != 1 {
				t.Errorf("over the whole session the host got %d replies to its tools/call id %s, want exactly one%s", n, l.id, s.diagnostics())
			}
		}
	}
}

func countReplies(lines []rpcLine, id string) int {
	n := 0
	for _, l := range lines {
		if l.isResponse() && l.id == id {
			n++
		}
	}
	return n
}

// diagnostics is the wrapper's stderr and the end of the host's wire, for
// failure messages.
func (s *interopSession) diagnostics() string {
	var b strings.Builder
	log, err := os.ReadFile(s.logPath)
	if err != nil {
		log = []byte(err.Error())
	}
	b.WriteString("\n--- wrapper stderr ---\n")
	b.Write(log)
	from, to := s.wire.since(0, 0)
	writeLines := func(title string, lines []rpcLine) {
		b.WriteString("\n--- " + title + " (last 8) ---\n")
		if len(lines) > 8 {
			lines = lines[len(lines)-8:]
		}
		for _, l := range lines {
			raw := l.raw
			if len(raw) > 700 {
				raw = raw[:700] + "…"
			}
			b.WriteString(raw + "\n")
		}
	}
	writeLines("host → wrapper", from)
	writeLines("wrapper → host", to)
	return b.String()
}

// rootsAnswered waits, in a session whose host declared roots, until the
// host has answered the server's roots/list, if the server asks for them
// once initialized (server-everything does, 350 ms after): that exchange
// belongs to the session's start, not to its first cells, whose wire check
// would take the host's answer for an answer to an elicitation. On a loaded
// machine it may come seconds late.
func (s *interopSession) rootsAnswered(t *testing.T) {
	t.Helper()
	from, _ := s.wire.since(0, 0)
	if !slices.ContainsFunc(from, func(l rpcLine) bool { return l.method == "initialize" && strings.Contains(l.raw, `"roots"`) }) {
		return
	}
	deadline := time.Now().Add(interopWait)
	for {
		if ts, ok := s.host.(*tsHost); ok {
			ts.readWire()
		}
		from, to := s.wire.since(0, 0)
		for _, l := range to {
			if l.method == "roots/list" && countReplies(from, l.id) > 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server asked the host for no roots within %v%s", interopWait, s.diagnostics())
		}
		time.Sleep(pollEvery)
	}
}

// checkWire checks what crossed between host and wrapper during one cell:
// the host sent one tools/call and got exactly one reply for it, and never
// saw the server's elicitations, an input_required result or an id of the
// wrapper's own retries (PROTOCOL.md §1, §7).
func (s *interopSession) checkWire(t *testing.T, fromMark, toMark int) {
	t.Helper()
	from, to := s.wire.since(fromMark, toMark)
	var calls []string
	for _, l := range from {
		switch {
		case l.method == "tools/call":
			calls = append(calls, l.id)
		case l.isResponse():
			t.Errorf("the host answered a request of the wrapper or server: %s", l.raw)
		}
	}
	if len(calls) != 1 {
		t.Errorf("the host sent %d tools/call requests for one call, want one (the wrapper retries, not the host): ids %v%s", len(calls), calls, s.diagnostics())
	}
	for _, id := range calls {
		if n := countReplies(to, id); n != 1 {
			t.Errorf("the host got %d replies to its tools/call id %s, want exactly one%s", n, id, s.diagnostics())
		}
	}
	for _, l := range to {
		switch {
		case l.method == "elicitation/create":
			t.Errorf("the server's elicitation/create reached the host: %s", l.raw)
		case strings.HasPrefix(l.id, `"elicitray-`):
			t.Errorf("a message with one of the wrapper's own ids reached the host: %s", l.raw)
		case l.isResponse() && bytes.Contains(l.result, []byte(`"input_required"`)):
			t.Errorf("an input_required result reached the host: %s", l.raw)
		}
	}
}

// run plays one cell: the call, each prompt shown and answered in turn, the
// reply; then what the server received, the wire and the history.
func (s *interopSession) run(t *testing.T, h *hub.Hub, sp *hubkit.ScriptedPrompter, c interopCase) {
	if s.hung {
		t.Fatal("not run: an earlier call of this session got no reply")
	}
	fromMark, toMark := s.wire.mark()
	before := len(interopHistory(t, h))

	ctx, cancel := context.WithTimeout(t.Context(), interopWait)
	defer cancel()
	replies := make(chan hostReply, 1)
	go func() { replies <- s.host.call(ctx, c.tool, c.args) }()

	for i, want := range c.prompts {
		var shown hubkit.ShownPrompt
		select {
		case shown = <-sp.Shown:
		case r := <-replies:
			t.Fatalf("the call ended before prompt %d of %d was shown; the host got: %s%s", i+1, len(c.prompts), r, s.diagnostics())
		case <-ctx.Done():
			s.hung = true
			t.Fatalf("prompt %d of %d not shown within %v%s", i+1, len(c.prompts), interopWait, s.diagnostics())
		}
		// Whatever happens below, the hub must not stay stuck on this prompt.
		defer shown.Answer(bridge.Result{Action: bridge.ActionCancel})
		req := shown.Prompt.Request
		got := interopPrompt{mode: req.Mode, message: req.Message, url: req.URL}
		if got.mode == "" {
			got.mode = "form"
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(interopPrompt{}), cmp.FilterPath(func(p cmp.Path) bool {
			return p.Last().String() == ".answer"
		}, cmp.Ignore())); diff != "" {
			t.Errorf("prompt %d mismatch (-want +got):\n%s", i+1, diff)
		}
		if req.Server != s.name || req.Tool != c.tool {
			t.Errorf("prompt %d names server %q, tool %q; want %q, %q", i+1, req.Server, req.Tool, s.name, c.tool)
		}
		shown.Answer(want.answer)
	}

	var r hostReply
	select {
	case r = <-replies:
	case <-ctx.Done():
		s.hung = true
		t.Fatalf("no reply to the tools/call within %v%s", interopWait, s.diagnostics())
	}
	t.Logf("the host got: %s", r)
	c.want(t, r)
	if t.Failed() {
		t.Log(s.diagnostics())
	}
	s.checkWire(t, fromMark, toMark)

	// The hub records a decision before it answers: it is there now.
	recs := interopHistory(t, h)
	if n := len(recs) - before; n != len(c.prompts) {
		t.Fatalf("history holds %d new decisions, want %d (one per prompt)", n, len(c.prompts))
	}
	type decision struct {
		Server, Tool, Mode, URL, Action, DecidedBy string
		Content                                    string // as JSON: numbers as the server got them
	}
	for k, p := range c.prompts {
		rec := recs[len(c.prompts)-1-k] // newest first
		want := decision{s.name, c.tool, p.mode, p.url, p.answer.Action, "user", testkit.JSONText(p.answer.Content)}
		got := decision{rec.Server, rec.Tool, rec.Mode, rec.URL, rec.Action, rec.DecidedBy, testkit.JSONText(rec.Content)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("history record of prompt %d mismatch (-want +got):\n%s", k+1, diff)
		}
	}
}

func interopHistory(t *testing.T, h *hub.Hub) []history.Record {
	t.Helper()
	recs, err := h.Store.List(history.Query{})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// The answers a person gives in the matrix.
var (
	interopContent = map[string]any{"name": "Ada Lovelace", "count": 3.0, "ok": true}
	acceptContent  = bridge.Result{Action: bridge.ActionAccept, Content: interopContent}
	acceptURL      = bridge.Result{Action: bridge.ActionAccept}
	decline        = bridge.Result{Action: bridge.ActionDecline}
	cancelAnswer   = bridge.Result{Action: bridge.ActionCancel}
)

// sdkCases are the answers to the go-sdk and mcp-go servers. era is the
// protocol version the server must see; push (a legacy push) only exists
// at legacy versions.
func sdkCases(sdk, era string, cell func(string) string) []interopCase {
	echoIs := func(want interopEcho) func(*testing.T, hostReply) {
		return func(t *testing.T, r hostReply) {
			t.Helper()
			if r.err != nil || r.isError {
				t.Fatalf("the call failed: %s", r)
			}
			var got interopEcho
			if err := json.Unmarshal([]byte(r.text), &got); err != nil {
				t.Fatalf("the tool result is not the server's echo: %v\n%s", err, r.text)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("what the server received mismatch (-want +got):\n%s", diff)
			}
		}
	}
	form := func(name string, answer bridge.Result) interopCase {
		c := cell(name)
		return interopCase{
			name: name, tool: "form", args: map[string]any{"cell": c},
			prompts: []interopPrompt{{mode: "form", message: interopFormMessage(c), answer: answer}},
			want: echoIs(interopEcho{Server: sdk, Tool: "form", ProtocolVersion: era,
				Action: answer.Action, Content: answer.Content, RequestState: interopState}),
		}
	}
	cases := []interopCase{
		form("accept", acceptContent),
		form("decline", decline),
		form("cancel", cancelAnswer),
	}
	c := cell("url-accept")
	cases = append(cases, interopCase{
		name: "url-accept", tool: "url", args: map[string]any{"cell": c},
		prompts: []interopPrompt{{mode: "url", message: interopURLMessage(c), url: interopURL(c), answer: acceptURL}},
		want:    echoIs(interopEcho{Server: sdk, Tool: "url", ProtocolVersion: era, Action: "accept", RequestState: interopState}),
	})
	if era < modernVersion {
		c := cell("push-accept")
		cases = append(cases, interopCase{
			name: "push-accept", tool: "push", args: map[string]any{"cell": c},
			prompts: []interopPrompt{{mode: "form", message: interopPushMessage(c), answer: acceptContent}},
			want:    echoIs(interopEcho{Server: sdk, Tool: "push", ProtocolVersion: era, Action: "accept", Content: interopContent}),
		})
	}
	return cases
}

// everythingCases are the answers to server-everything (TypeScript SDK 1.x,
// legacy push only), which echoes the ElicitResult it received after "Raw
// result: ".
func everythingCases(cell func(string) string) []interopCase {
	const formMessage = "Please provide inputs for the following fields:"
	raw := func(want rawResult, says string) func(*testing.T, hostReply) {
		return func(t *testing.T, r hostReply) {
			t.Helper()
			if r.err != nil || r.isError {
				t.Fatalf("the call failed: %s", r)
			}
			if !strings.Contains(r.text, says) {
				t.Errorf("the tool result does not say %q", says)
			}
			if diff := cmp.Diff(want, parseRawResult(t, r.text)); diff != "" {
				t.Errorf("ElicitResult the server received mismatch (-want +got):\n%s", diff)
			}
		}
	}
	form := func(name string, answer bridge.Result, says string) interopCase {
		return interopCase{
			name: name, tool: "trigger-elicitation-request", args: map[string]any{},
			prompts: []interopPrompt{{mode: "form", message: formMessage, answer: answer}},
			want:    raw(rawResult{Action: answer.Action, Content: answer.Content}, says),
		}
	}
	// url is a trigger-url-elicitation call; with errorPath, the server
	// first answers -32042 naming a prerequisite link, and expects the same
	// call again once the user went there.
	url := func(name string, errorPath bool) (interopCase, string) {
		c := cell(name)
		return interopCase{
			name: name, tool: "trigger-url-elicitation",
			args: map[string]any{"url": interopURL(c), "message": interopURLMessage(c), "elicitationId": c, "errorPath": errorPath},
		}, c
	}
	prerequisite := func(answer bridge.Result) interopPrompt {
		return interopPrompt{mode: "url", url: "https://modelcontextprotocol.io",
			message: "Open this link to satisfy the prerequisite, then retry the request.", answer: answer}
	}
	completed := raw(rawResult{Action: "accept"}, "User completed the URL elicitation flow.")

	urlAccept, c := url("url-accept", false)
	urlAccept.prompts = []interopPrompt{{mode: "url", message: interopURLMessage(c), url: interopURL(c), answer: acceptURL}}
	urlAccept.want = completed

	errorAccept, c := url("url-error-accept", true)
	errorAccept.prompts = []interopPrompt{prerequisite(acceptURL),
		{mode: "url", message: interopURLMessage(c), url: interopURL(c), answer: acceptURL}}
	errorAccept.want = completed

	// Declining the prerequisite: no retry, and the host learns the call
	// failed (how, the wrapper decides: -32042 itself or an error result).
	errorDecline, _ := url("url-error-decline", true)
	errorDecline.prompts = []interopPrompt{prerequisite(decline)}
	errorDecline.want = func(t *testing.T, r hostReply) {
		t.Helper()
		if r.err == nil && !r.isError {
			t.Errorf("declining the prerequisite link ended the call with a result, want an error: %s", r)
		}
	}

	// Fields of server-everything's own form: the wrapper sends only what
	// the schema has.
	accept := bridge.Result{Action: bridge.ActionAccept, Content: map[string]any{"name": "Ada Lovelace", "check": true, "integer": 7.0}}
	return []interopCase{
		form("accept", accept, "User inputs:\n- Name: Ada Lovelace\n- Agreed to terms: true\n- Favorite Integer: 7"),
		form("decline", decline, "User declined to provide the requested information."),
		form("cancel", cancelAnswer, "User cancelled the elicitation dialog."),
		urlAccept,
		errorAccept,
		errorDecline,
	}
}

// interopEverything is the pinned server-everything's command, or a skip
// (a failure in CI) when it is not installed. It needs no display: the
// hub here is scripted.
func interopEverything(t *testing.T) string {
	t.Helper()
	server, err := filepath.Abs(everythingBin)
	if err == nil {
		_, err = os.Stat(server)
	}
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("server-everything cannot run (%v): run make deps-npm", err)
		}
		t.Skipf("server-everything cannot run (%v): run make deps-npm", err)
	}
	return server
}

// TestInterop is the interop matrix: host SDK × protocol version × server ×
// answer, through the real wrapper binary and a scripted hub.
func TestInterop(t *testing.T) {
	t.Parallel()
	home := testkit.TempHome(t)
	h, sp, _ := hubkit.RunHub(t, home, 10*time.Minute)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}

	type version struct {
		label, pin string // pin "" is the SDK's default
	}
	// start starts a session of the host through `elicitray wrap --name
	// name -- server…`, env added to the wrapper's and the server's
	// environment: ELICITRAY_HOME (the test's hub is there) first.
	type start func(t *testing.T, pin, name string, env []string, server ...string) *interopSession
	goHost := func(connect func(context.Context, string, io.ReadCloser, io.WriteCloser) (hostSession, error)) start {
		return func(t *testing.T, pin, name string, env []string, server ...string) *interopSession {
			t.Helper()
			return startInteropSession(t, connect, pin, name, env, server...)
		}
	}
	goVersions := []version{{modernVersion, ""}, {legacyVersion, legacyVersion}}
	hosts := []struct {
		name     string
		versions []version
		start    start
	}{
		{"gosdk-host", goVersions, goHost(connectGoSDKHost)},
		{"mcpgo-host", goVersions, goHost(connectMCPGoHost)},
		// The TypeScript SDK 1.x host (testdata/npm/tshost.mjs) starts the
		// wrapper itself, with the SDK's default environment and what its
		// config's env adds; it only ever asks for 2025-11-25.
		{"tssdk-host", []version{{legacyVersion, ""}}, startTSInteropSession},
	}
	servers := []struct {
		name string
		// command is the server's command line and environment.
		command func(t *testing.T) (env, argv []string)
		// era is the version the session ends up at for a host asking for
		// version.
		era   func(version string) string
		cases func(era string, cell func(string) string) []interopCase
	}{
		{
			name: "gosdk-server",
			command: func(*testing.T) ([]string, []string) {
				return []string{interopServerEnv + "=gosdk"}, []string{self}
			},
			era:   func(v string) string { return v },
			cases: func(era string, cell func(string) string) []interopCase { return sdkCases("gosdk", era, cell) },
		},
		{
			name: "mcpgo-server",
			command: func(*testing.T) ([]string, []string) {
				return []string{interopServerEnv + "=mcpgo"}, []string{self}
			},
			era:   func(v string) string { return v },
			cases: func(era string, cell func(string) string) []interopCase { return sdkCases("mcpgo", era, cell) },
		},
		{
			name:    "everything",
			command: func(t *testing.T) ([]string, []string) { return nil, []string{interopEverything(t)} },
			// TypeScript SDK 1.x: a modern host falls back to initialize.
			era:   func(string) string { return legacyVersion },
			cases: func(_ string, cell func(string) string) []interopCase { return everythingCases(cell) },
		},
	}

	n := 0
	for _, host := range hosts {
		for _, v := range host.versions {
			t.Run(host.name+"@"+v.label, func(t *testing.T) {
				for _, srv := range servers {
					t.Run(srv.name, func(t *testing.T) {
						env, argv := srv.command(t)
						env = append([]string{"ELICITRAY_HOME=" + home}, env...)
						era := srv.era(v.label)
						s := host.start(t, v.pin, srv.name, env, argv...)
						if got := s.host.protocolVersion(); got != era {
							t.Errorf("the session runs at protocol version %q, want %q%s", got, era, s.diagnostics())
						}
						if srv.name == "everything" {
							s.rootsAnswered(t)
						}
						// cell tags each call, so that every prompt and link
						// is told apart from the others of the run.
						cell := func(answer string) string {
							n++
							return fmt.Sprintf("c%d-%s", n, answer)
						}
						for _, c := range srv.cases(era, cell) {
							t.Run(c.name, func(t *testing.T) { s.run(t, h, sp, c) })
						}
					})
				}
			})
		}
	}
}
