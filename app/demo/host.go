package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "elicitray-demo-host", Version: version}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: HostProtocolVersion})
	if err != nil {
		return fmt.Errorf("connecting to %q: %w", command[0], err)
	}
	defer func() {
		if cerr := cs.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing %q: %w", command[0], cerr)
		}
	}()

	listed := make(map[string]bool)
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing the tools of %q: %w", command[0], err)
		}
		listed[tool.Name] = true
	}

	var errs []error
	for _, f := range forms {
		if _, err := fmt.Fprintf(out, "→ %s\n", f.name); err != nil {
			return err
		}
		text, err := callTool(ctx, cs, f.name, listed[f.name])
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

// callTool calls the tool name and returns the text to print for it, and an
// error if the call failed or the tool reported one.
func callTool(ctx context.Context, cs *mcp.ClientSession, name string, listed bool) (string, error) {
	if !listed {
		return "the server does not offer this tool", fmt.Errorf("tool %q: not listed by the server", name)
	}
	ctx, cancel := context.WithTimeout(ctx, ToolCallTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name})
	if err != nil {
		return err.Error(), fmt.Errorf("calling %q: %w", name, err)
	}
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError {
		return text, fmt.Errorf("tool %q: %s: %w", name, text, ErrToolFailed)
	}
	return text, nil
}
