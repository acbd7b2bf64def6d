package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerName is the name the demo server gives in its serverInfo.
const ServerName = "elicitray-demo"

// version is the demo server's serverInfo version.
const version = "1.0.0"

// inputKey is the key of the demo's one input request per tool call; the
// retry carries the answer under the same key (PROTOCOL.md §1).
const inputKey = "form"

// Server runs the demo MCP server over newline-delimited JSON-RPC, reading
// from in and writing to out, until the client closes in (then it returns
// nil or the session's error) or ctx is done (then it returns ctx.Err()).
// If in or out also implements io.Closer, Server closes it on return.
//
// Every tool elicits one form and answers with a text result naming the
// action and, for accept, the content received as JSON with the form's
// defaults applied, e.g. `accept: {"name":"Ada"}`, `decline` or `cancel`.
// A client that declared no form elicitation gets an error instead of a
// form: a tool result with isError set on 2025-11-25 and older, and the
// JSON-RPC error -32021 on 2026-07-28 (PROTOCOL.md §3).
//
// Server writes nothing but MCP messages to out.
func Server(ctx context.Context, in io.Reader, out io.Writer) error {
	t := &mcp.IOTransport{Reader: readCloser(in), Writer: writeCloser(out)}
	return newServer().Run(ctx, t)
}

// newServer returns the demo server with all its tools.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "elicitray demo", Version: version}, nil)
	for _, f := range forms {
		mcp.AddTool(s, &mcp.Tool{Name: f.name, Title: f.title, Description: f.description}, f.handle)
	}
	return s
}

// handle is the tool handler of f. It runs twice per call: first it returns
// the elicitation as an input request, then, on the retry, it reports the
// ElicitResult found in the input responses.
func (f *form) handle(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	if !declaresForm(req.ClientCapabilities()) {
		// Revisions are dates, so they compare as strings.
		if req.ProtocolVersion() >= "2026-07-28" {
			return nil, nil, missingFormCapability()
		}
		return errorResult("This host did not declare form elicitation, so %s cannot show its form. Run the server through `elicitray wrap`, which declares it.", f.name), nil, nil
	}
	res, ok := req.Params.InputResponses[inputKey].(*mcp.ElicitResult)
	if !ok {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
			inputKey: &mcp.ElicitParams{Mode: "form", Message: f.message, RequestedSchema: f.schema},
		}}, nil, nil
	}
	text, err := f.describe(res)
	if err != nil {
		return errorResult("%s: %v", f.name, err), nil, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// describe returns the text of the tool result for res: the action, and for
// accept the content as JSON (keys sorted). The content is checked against
// the form's schema and completed with its defaults, as the go-sdk already
// does for a legacy elicitation/create answer, so both eras report the same.
func (f *form) describe(res *mcp.ElicitResult) (string, error) {
	switch res.Action {
	case "decline", "cancel":
		return res.Action, nil
	case "accept":
	default:
		return "", fmt.Errorf("the client answered with the unknown action %q", res.Action)
	}
	content := maps.Clone(res.Content)
	if content == nil {
		content = map[string]any{}
	}
	if err := f.resolved.Validate(content); err != nil {
		return "", fmt.Errorf("the accepted content does not match the form: %w", err)
	}
	if err := f.resolved.ApplyDefaults(&content); err != nil {
		return "", fmt.Errorf("applying the form's defaults: %w", err)
	}
	b, err := json.Marshal(content)
	if err != nil {
		return "", fmt.Errorf("encoding the accepted content: %w", err)
	}
	return "accept: " + string(b), nil
}

// declaresForm reports whether caps declare form-mode elicitation:
// `elicitation: {}` means form only, and so does a capability naming neither
// mode (PROTOCOL.md §3).
func declaresForm(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil
}

// missingFormCapability is the -32021 error a 2026-07-28 server answers when
// a request lacks a client capability it needs (PROTOCOL.md §3, §8). Its
// data is written out by hand: marshalling mcp.ClientCapabilities would also
// claim a "roots" capability, which the demo does not need.
func missingFormCapability() error {
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "this tool elicits a form, and this host did not declare form elicitation: run the server through `elicitray wrap`, which declares it",
		Data:    json.RawMessage(`{"requiredCapabilities":{"elicitation":{"form":{}}}}`),
	}
}

// errorResult returns a tool result with isError set and a formatted text.
func errorResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}},
	}
}

// readCloser returns r as an io.ReadCloser, closing r only if it can be closed.
func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

// writeCloser returns w as an io.WriteCloser, closing w only if it can be
// closed.
func writeCloser(w io.Writer) io.WriteCloser {
	if wc, ok := w.(io.WriteCloser); ok {
		return wc
	}
	return nopWriteCloser{w}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
