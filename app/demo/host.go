package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// HostProtocolVersion is the protocol version the demo host asks for by
// default: 2026-07-28, in which the server answers a tool call with
// input_required and the wrapper finishes the round trips (PROTOCOL.md §1).
const HostProtocolVersion = "2026-07-28"

// LegacyProtocolVersion is the other protocol version the demo host can
// speak: 2025-11-25, in which the server pushes elicitation/create requests
// in the middle of the tool call and the wrapper answers each
// (PROTOCOL.md §1).
const LegacyProtocolVersion = "2025-11-25"

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

// ErrBadHostOptions is wrapped by the error [HostOptions.Check] returns for
// a protocol version the demo host does not speak or a tool the demo does
// not have.
var ErrBadHostOptions = errors.New("bad demo host options")

// HostOptions configure one run of [Host]. A nil *HostOptions is the zero
// value.
type HostOptions struct {
	// ProtocolVersion is the version the host asks for at initialize:
	// HostProtocolVersion or LegacyProtocolVersion. Empty is
	// HostProtocolVersion.
	ProtocolVersion string
	// Tools are the demo tools to call, in this order. Nil calls every demo
	// tool, sorted by name.
	Tools []string
}

// Check returns an error that is ErrBadHostOptions (errors.Is) and reads as
// a sentence naming what is allowed, when o names a protocol version other than the two the demo
// host speaks or a tool the demo server does not define.
func (o *HostOptions) Check() error {
	if o == nil {
		return nil
	}
	switch o.ProtocolVersion {
	case "", HostProtocolVersion, LegacyProtocolVersion:
	default:
		return badHostOption(fmt.Sprintf("the demo host speaks protocol %s or %s, not %q", HostProtocolVersion, LegacyProtocolVersion, o.ProtocolVersion))
	}
	for _, name := range o.Tools {
		if !slices.Contains(toolNames(), name) {
			return badHostOption(fmt.Sprintf("the demo has no tool %q; its tools are %s", name, strings.Join(toolNames(), ", ")))
		}
	}
	return nil
}

// badHostOption is the sentence Check returns; it is ErrBadHostOptions.
type badHostOption string

func (e badHostOption) Error() string        { return string(e) }
func (e badHostOption) Is(target error) bool { return target == ErrBadHostOptions }

// eraNotes say, for each protocol version the host speaks, how the server
// asks: the first line Host prints.
var eraNotes = map[string]string{
	HostProtocolVersion:   "the server asks by answering each tool call with input_required, and the wrapper runs the rounds",
	LegacyProtocolVersion: "the server asks by sending elicitation/create requests (the legacy push), and the wrapper answers each",
}

// Host runs the demo host: it starts command (argv form; the child's stderr
// goes to os.Stderr), connects to it as an MCP client at opts'
// ProtocolVersion, lists its tools and calls the demo's tools in turn,
// without arguments. It prints to out a line "Protocol VERSION: how the
// server asks", then for each tool a line "→ NAME" followed by the text of
// the tool result, or a line "error: …" when the call or the tool failed.
//
// The host declares no elicitation capability of its own: the elicitray
// wrapper it is meant to start adds it (PROTOCOL.md §3). It calls only the
// tools the demo server defines, so a command running another server never
// has that server's tools run; a demo tool the server does not list is
// reported as missing.
//
// Host returns an error if opts fail [HostOptions.Check], the command cannot
// be started or does not speak MCP, or, after calling every tool, the errors
// of the calls that failed (wrapping [ErrToolFailed] for tool results with
// isError set). It closes the child's stdin before returning and waits for
// it to exit.
func Host(ctx context.Context, command []string, out io.Writer, opts *HostOptions) (err error) {
	if err := opts.Check(); err != nil {
		return err
	}
	if len(command) == 0 {
		return ErrNoCommand
	}
	version, tools := HostProtocolVersion, toolNames()
	if opts != nil && opts.ProtocolVersion != "" {
		version = opts.ProtocolVersion
	}
	if opts != nil && opts.Tools != nil {
		tools = opts.Tools
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
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "elicitray-demo-host", Version: demoVersion}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("connecting to %q: %w", command[0], err)
	}

	listed, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("listing the tools of %q: %w", command[0], err)
	}
	offered := make(map[string]bool)
	for _, tool := range listed.Tools {
		offered[tool.Name] = true
	}

	if _, err := fmt.Fprintf(out, "Protocol %s: %s.\n", version, eraNotes[version]); err != nil {
		return err
	}
	var errs []error
	for _, name := range tools {
		if _, err := fmt.Fprintf(out, "→ %s\n", name); err != nil {
			return err
		}
		text, err := callTool(ctx, c, name, offered[name])
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

// Tour is what `elicitray demo` runs: [Host] once per era, first every demo
// tool at HostProtocolVersion, then the change-approval flow
// (request_change) again at LegacyProtocolVersion, so that one run shows
// both eras without asking every form twice. A blank line separates the two
// runs. Non-nil tools replace the tools of both runs. Tour runs the second
// even when tools of the first failed, and returns the errors of both.
func Tour(ctx context.Context, command []string, out io.Writer, tools []string) error {
	runs := []HostOptions{
		{ProtocolVersion: HostProtocolVersion, Tools: tools},
		{ProtocolVersion: LegacyProtocolVersion, Tools: tools},
	}
	if tools == nil {
		runs[1].Tools = []string{changeToolName}
	}
	var errs []error
	for i := range runs {
		if err := runs[i].Check(); err != nil {
			return err
		}
	}
	for i := range runs {
		if i > 0 {
			if _, err := fmt.Fprintln(out); err != nil {
				return err
			}
		}
		if err := Host(ctx, command, out, &runs[i]); err != nil {
			errs = append(errs, fmt.Errorf("at protocol %s: %w", runs[i].ProtocolVersion, err))
		}
		if ctx.Err() != nil {
			break
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
