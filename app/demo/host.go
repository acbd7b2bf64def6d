package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// HostProtocolVersion is the protocol version the demo host asks for:
// 2026-07-28, in which the server answers a tool call with input_required
// and the wrapper finishes the round trip (PROTOCOL.md §1).
const HostProtocolVersion = "2026-07-28"

// ToolCallTimeout bounds each tools/call the demo host makes. A person fills
// in the form meanwhile, so it is far longer than a typical host's 60 s
// (PROTOCOL.md §7).
const ToolCallTimeout = 10 * time.Minute

// ErrNoCommand is returned by [Host] when it is given no command to run.
var ErrNoCommand = errors.New("no server command given")

// ErrToolFailed is wrapped by the error [Host] returns when a demo tool
// answered with a tool result that has isError set, e.g. because the server
// was not run through the wrapper and so was never offered elicitation.
var ErrToolFailed = errors.New("demo tool reported an error")

// Host runs the demo host: it starts command (argv form; the child's stderr
// goes to os.Stderr), connects to it as an MCP client at
// [HostProtocolVersion], lists its tools and calls each of the demo's tools
// in turn, sorted by name and without arguments. For each it prints to out a
// line "→ NAME" followed by the text of the tool result, or a line "error:
// …" when the call or the tool failed.
//
// The host declares no elicitation capability of its own: the elicitray
// wrapper it is meant to start adds it (PROTOCOL.md §3). It calls only the
// tools the demo server defines, so a command running another server never
// has that server's tools run; a demo tool the server does not list is
// reported as missing.
//
// Host returns an error if the command cannot be started or does not speak
// MCP, or, after calling every tool, the errors of the calls that failed
// (wrapping [ErrToolFailed] for tool results with isError set). It closes the
// child's stdin before returning and waits for it to exit.
func Host(ctx context.Context, command []string, out io.Writer) (err error) {
	if len(command) == 0 {
		return ErrNoCommand
	}
	t := transport.NewStdioWithOptions(command[0], nil, command[1:], transport.WithCommandStderrWriter(os.Stderr))
	if err := t.Start(ctx); err != nil {
		return fmt.Errorf("connecting to %q: %w", command[0], err)
	}
	c := client.NewClient(t)
	defer func() {
		if cerr := c.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing %q: %w", command[0], cerr)
		}
	}()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = HostProtocolVersion
	init.Params.ClientInfo = mcp.Implementation{Name: "elicitray-demo-host", Version: version}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("connecting to %q: %w", command[0], err)
	}

	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("listing the tools of %q: %w", command[0], err)
	}
	listed := make(map[string]bool)
	for _, tool := range tools.Tools {
		listed[tool.Name] = true
	}

	var errs []error
	for _, f := range forms {
		if _, err := fmt.Fprintf(out, "→ %s\n", f.name); err != nil {
			return err
		}
		text, err := callTool(ctx, c, f.name, listed[f.name])
		if err != nil {
			errs = append(errs, err)
			text = "error: " + text
		}
		if _, err := fmt.Fprintln(out, text); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return errors.Join(append(errs, ctx.Err())...)
		}
	}
	return errors.Join(errs...)
}

// needsWrapper is what Host prints for a tool the server refused with
// -32021: the demo server needs form elicitation, which only a wrapper in
// front of it declares (PROTOCOL.md §3).
const needsWrapper = "the server needs form elicitation, which this host does not declare: run it through `elicitray wrap`, which declares it"

// callTool calls the tool name and returns the text to print for it, and an
// error if the call failed or the tool reported one.
func callTool(ctx context.Context, c *client.Client, name string, listed bool) (string, error) {
	if !listed {
		return "the server does not offer this tool", fmt.Errorf("tool %q: not listed by the server", name)
	}
	ctx, cancel := context.WithTimeout(ctx, ToolCallTimeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	res, err := c.CallTool(ctx, req)
	if mcp.IsMissingRequiredClientCapability(err) {
		// -32021: mcp-go keeps the code, not the server's sentence.
		return needsWrapper, fmt.Errorf("calling %q: %w", name, err)
	}
	if err != nil {
		return err.Error(), fmt.Errorf("calling %q: %w", name, err)
	}
	var texts []string
	for _, content := range res.Content {
		if t, ok := content.(mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError {
		return text, fmt.Errorf("tool %q: %s: %w", name, text, ErrToolFailed)
	}
	return text, nil
}
