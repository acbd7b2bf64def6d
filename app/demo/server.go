package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ServerName is the name the demo server gives in its serverInfo.
const ServerName = "elicitray-demo"

// demoVersion is the demo server's serverInfo version.
const demoVersion = "1.0.0"

// inputKey is the key of the demo's one input request per tool call; the
// retry carries the answer under the same key (PROTOCOL.md §1).
const inputKey = "form"

// Options configure [Server]. A nil *Options is the zero value.
type Options struct {
	// AuditLog is the file request_change appends one JSON line to for each
	// outcome (created 0600, never followed through a symbolic link). Empty
	// means no audit log: request_change then makes no change and says why,
	// and the other tools work as usual.
	AuditLog string
	// NotShown, when set, says why the client shows no prompts now (as
	// "elicitray is paused"), or returns "" when it does; it is asked when
	// an elicitation is answered cancel, so that the tool says the prompt
	// was not shown for that reason rather than dismissed: a cancel does
	// not say which it was (PROTOCOL.md §5), and elicitray's demo server
	// can ask its own hub. Nil: a cancel is told as dismissed.
	NotShown func() string
}

// Server runs the demo MCP server over newline-delimited JSON-RPC, reading
// from in and writing to out, until the client closes in (then it returns
// nil or the session's error) or ctx is done (then it returns ctx.Err()).
// If in or out also implements io.Closer, Server closes it on return.
//
// Each form tool elicits one form and answers with a text result naming
// the action and, for accept, the content received as JSON with the form's
// defaults applied, e.g. `accept: {"name":"Ada"}`, `decline` or `cancel`.
// request_change asks up to three rounds and answers with its outcome and
// the audit log it was recorded in (see the package doc).
// A client that declared no form elicitation gets an error instead of a
// form: a tool result with isError set on 2025-11-25 and older, and the
// JSON-RPC error -32021 on 2026-07-28 (PROTOCOL.md §3).
//
// Server writes nothing but MCP messages to out. mcp-go's stdio server has
// one session per process: run one Server at a time.
func Server(ctx context.Context, in io.Reader, out io.Writer, opts *Options) error {
	defer closeIf(in)
	defer closeIf(out)
	if opts == nil {
		opts = &Options{}
	}
	stdio := server.NewStdioServer(newServer(opts))
	stdio.SetErrorLogger(log.New(io.Discard, "", 0)) // its errors are returned
	err := stdio.Listen(ctx, in, &capabilityErrors{w: out})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// newServer returns the demo server with all its tools.
func newServer(opts *Options) *server.MCPServer {
	s := server.NewMCPServer(ServerName, demoVersion, server.WithTitle("elicitray demo"), server.WithToolCapabilities(false))
	for _, f := range forms {
		s.AddTool(mcp.NewTool(f.name, mcp.WithToolTitle(f.title), mcp.WithDescription(f.description)),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return f.handle(ctx, req, opts.NotShown)
			})
	}
	change := newChangeTool(opts.AuditLog)
	change.notShown = opts.NotShown
	s.AddTool(change.tool(), change.handle)
	return s
}

// toolNames are the names of the demo's tools, sorted.
func toolNames() []string {
	names := []string{changeToolName}
	for _, f := range forms {
		names = append(names, f.name)
	}
	slices.Sort(names)
	return names
}

// handle is the tool handler of f. It runs twice per call: first it returns
// the elicitation as an input request, then, on the retry, it reports the
// ElicitResult found in the input responses. mcp-go turns the input request
// into a legacy elicitation/create push for hosts on 2025-11-25 and older,
// and sends it as an input_required result to 2026-07-28 hosts. A cancel
// while notShown gives a reason is told as not shown (Options.NotShown).
func (f *form) handle(ctx context.Context, req mcp.CallToolRequest, notShown func() string) (*mcp.CallToolResult, error) {
	caps, modern := elicitationOf(ctx)
	if !declaresForm(caps) {
		if modern {
			return nil, errMissingForm
		}
		return mcp.NewToolResultError(fmt.Sprintf("This host did not declare form elicitation, so %s cannot show its form. Run the server through `elicitray wrap`, which declares it.", f.name)), nil
	}
	res := server.ElicitationResponse(req.Params.InputResponses, inputKey)
	if res == nil {
		return server.NewInputRequestBuilder("").Elicit(inputKey, mcp.ElicitationParams{
			Mode: "form", Message: f.message, RequestedSchema: f.wire,
		}).ToolResult(), nil
	}
	text, err := f.describe(res.ElicitationResponse)
	if err != nil {
		return mcp.NewToolResultError(fmt.Sprintf("%s: %v", f.name, err)), nil
	}
	if why := whyNotShown(res.Action, notShown); why != "" {
		text += ": the form was not shown, because " + why
	}
	return mcp.NewToolResultText(text), nil
}

// whyNotShown is why an elicitation answered action was not shown: the
// reason notShown gives for a cancel, "" otherwise (Options.NotShown).
func whyNotShown(action mcp.ElicitationResponseAction, notShown func() string) string {
	if action != mcp.ElicitationResponseActionCancel || notShown == nil {
		return ""
	}
	return notShown()
}

// elicitationOf is the elicitation capability the client declared for the
// request in ctx: in its _meta on 2026-07-28 (every request carries it),
// else at initialize (PROTOCOL.md §3); and whether the request is modern.
func elicitationOf(ctx context.Context) (caps *mcp.ElicitationCapability, modern bool) {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		if info.ClientCapabilities == nil {
			return nil, true
		}
		return info.ClientCapabilities.Elicitation, true
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return s.GetClientCapabilities().Elicitation, false
	}
	return nil, false
}

// describe returns the text of the tool result for res: the action, and for
// accept the content as JSON (keys sorted). The content is checked against
// the form's schema and completed with its defaults, so that both eras
// report the same.
func (f *form) describe(res mcp.ElicitationResponse) (string, error) {
	switch res.Action {
	case "decline", "cancel":
		return string(res.Action), nil
	case "accept":
	default:
		return "", fmt.Errorf("the client answered with the unknown action %q", res.Action)
	}
	content, err := asObject(res.Content)
	if err != nil {
		return "", err
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

// asObject is an accepted content as a JSON object (mcp-go keeps it as
// decoded: any).
func asObject(content any) (map[string]any, error) {
	if m, ok := content.(map[string]any); ok {
		return maps.Clone(m), nil
	}
	out := map[string]any{}
	if content == nil {
		return out, nil
	}
	b, err := json.Marshal(content)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		return nil, fmt.Errorf("the accepted content is not an object: %w", err)
	}
	return out, nil
}

// declaresForm reports whether caps declare form-mode elicitation:
// `elicitation: {}` means form only, and so does a capability naming neither
// mode (PROTOCOL.md §3).
func declaresForm(caps *mcp.ElicitationCapability) bool {
	return caps != nil && (caps.Form != nil || caps.URL == nil)
}

// errMissingForm is what a tool returns to a 2026-07-28 request that
// declared no form elicitation; capabilityErrors writes it as -32021.
var errMissingForm = errors.New("this tool elicits a form, and this host did not declare form elicitation: run the server through `elicitray wrap`, which declares it")

// capabilityErrors writes the server's messages to w, turning the error
// response of errMissingForm into the -32021 error a 2026-07-28 server
// answers when a request lacks a client capability it needs, with
// data.requiredCapabilities (PROTOCOL.md §3, §8). mcp-go v1.2.1 gives every
// error a tool handler returns the code -32603, but for URL elicitation.
// Each Write is one message line (mcp-go's stdio server writes them whole).
type capabilityErrors struct{ w io.Writer }

func (c *capabilityErrors) Write(p []byte) (int, error) {
	if !bytes.Contains(p, []byte(`"code":-32603`)) {
		return c.w.Write(p)
	}
	var msg struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(p, &msg) != nil || msg.Error.Message != errMissingForm.Error() {
		return c.w.Write(p)
	}
	line, err := json.Marshal(mcp.JSONRPCError{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(rawID(msg.ID)),
		Error: mcp.NewJSONRPCErrorDetails(mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, errMissingForm.Error(),
			json.RawMessage(`{"requiredCapabilities":{"elicitation":{"form":{}}}}`)),
	})
	if err != nil {
		return 0, err
	}
	if _, err := c.w.Write(append(line, '\n')); err != nil {
		return 0, err
	}
	return len(p), nil
}

// rawID is a JSON-RPC id as mcp-go keeps one: a string or a number.
func rawID(id json.RawMessage) any {
	var v any
	dec := json.NewDecoder(bytes.NewReader(id))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
	}
	return v
}

// closeIf closes v when it can be closed.
func closeIf(v any) {
	if c, ok := v.(io.Closer); ok {
		c.Close()
	}
}
