package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The environment the MCP conformance suite (@modelcontextprotocol/conformance)
// gives the client command of a client scenario, which it starts with the
// scenario's server URL as the last argument.
const (
	// ScenarioEnv names the scenario being run.
	ScenarioEnv = "MCP_CONFORMANCE_SCENARIO"
	// ProtocolVersionEnv is the protocol version the client must speak:
	// dated versions up to 2025-11-25 use the initialize handshake,
	// 2026-07-28 the stateless lifecycle with per-request _meta
	// (PROTOCOL.md §1, §2).
	ProtocolVersionEnv = "MCP_CONFORMANCE_PROTOCOL_VERSION"
	// ContextEnv, when set, is a JSON object of scenario data: the suite's
	// "toolCalls" (name and arguments of each call to make), or
	// credentials for the auth scenarios.
	ContextEnv = "MCP_CONFORMANCE_CONTEXT"
)

// ConformanceProtocolVersion is the protocol version [Conformance] speaks
// when the suite names none (what the suite itself defaults to).
const ConformanceProtocolVersion = "2025-11-25"

// ConformanceOptions is what [Conformance] runs.
type ConformanceOptions struct {
	// Command is the server command in argv form, meant to be
	// `elicitray wrap --name NAME --url URL`; its stderr goes to os.Stderr.
	Command []string
	// Scenario is the suite's scenario name (ScenarioEnv); "" runs the
	// plain exercise every scenario gets.
	Scenario string
	// ProtocolVersion is the version to speak (ProtocolVersionEnv);
	// "": ConformanceProtocolVersion.
	ProtocolVersion string
	// Context is the suite's scenario data (ContextEnv); nil: none.
	Context json.RawMessage
}

// conformanceContext is the part of the suite's scenario data the host
// uses: the tool calls a scenario asks for by name and arguments.
type conformanceContext struct {
	ToolCalls []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"toolCalls"`
}

// Conformance is the host the conformance suite's client scenarios start
// (`elicitray conformance-host URL`): a plain MCP host, on mcp-go, whose
// server is the elicitray wrapper in front of the scenario's server, so
// that the suite checks elicitray as the client's elicitation layer.
//
// Like [Host] it declares no elicitation capability and answers no
// elicitation: the wrapper adds the capability (PROTOCOL.md §3) and the
// hub's policy for the wrapper's server name answers (for unattended runs,
// the rule accept-defaults-or-cancel in config.toml). A scenario whose
// server elicits therefore passes only if elicitray answers correctly.
//
// It connects at opts.ProtocolVersion, lists the tools, and calls them:
// the calls the scenario's context names, else every listed tool in the
// order listed, with arguments made from its inputSchema (see
// exampleArguments); for json-schema-2020-12-preservation, the echo tool
// with the focal tool's inputSchema as mcp-go parsed it. It then lists
// and reads the resources and lists and gets the prompts, when the server
// declares them. Each step prints one line to out ("tools/call NAME: …").
//
// Conformance returns an error when the command cannot be started, the
// connection or tools/list fails, or a request fails at the protocol
// level; a tool result with isError set is printed, not an error: the
// suite's checks judge it.
func Conformance(ctx context.Context, opts ConformanceOptions, out io.Writer) (err error) {
	if len(opts.Command) == 0 {
		return ErrNoCommand
	}
	protocol := opts.ProtocolVersion
	if protocol == "" {
		protocol = ConformanceProtocolVersion
	}
	var sc conformanceContext
	if len(opts.Context) > 0 {
		if err := json.Unmarshal(opts.Context, &sc); err != nil {
			return fmt.Errorf("reading %s: %w", ContextEnv, err)
		}
	}

	t := transport.NewStdioWithOptions(opts.Command[0], nil, opts.Command[1:], transport.WithCommandStderrWriter(os.Stderr))
	if err := t.Start(ctx); err != nil {
		return fmt.Errorf("starting %q: %w", opts.Command[0], err)
	}
	c := client.NewClient(t, client.WithProtocolVersion(protocol))
	defer func() {
		if cerr := c.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing %q: %w", opts.Command[0], cerr)
		}
	}()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = protocol
	init.Params.ClientInfo = mcp.Implementation{Name: "elicitray-conformance-host", Version: demoVersion}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		return fmt.Errorf("connecting to %q at %s: %w", opts.Command[0], protocol, err)
	}
	say(out, "connected at %s to %s", res.ProtocolVersion, res.ServerInfo.Name)

	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("listing tools: %w", err)
	}
	var errs []error
	call := func(name string, args map[string]any) {
		req := mcp.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		r, err := c.CallTool(ctx, req)
		if err != nil {
			say(out, "tools/call %s: error: %v", name, err)
			errs = append(errs, fmt.Errorf("calling %q: %w", name, err))
			return
		}
		var texts []string
		for _, content := range r.Content {
			if t, ok := content.(mcp.TextContent); ok {
				texts = append(texts, t.Text)
			}
		}
		mark := ""
		if r.IsError {
			mark = " (isError)"
		}
		say(out, "tools/call %s%s: %s", name, mark, strings.Join(texts, "\n"))
	}
	switch {
	case len(sc.ToolCalls) > 0:
		for _, tc := range sc.ToolCalls {
			call(tc.Name, tc.Arguments)
		}
	case opts.Scenario == "json-schema-2020-12-preservation":
		// The scenario's echo tool takes the other tool's inputSchema
		// back, to see what the host kept of it. mcp-go's Tool keeps only
		// the members it knows ($schema, $defs go), so the schema is
		// taken from the raw tools/list result, as the server wrote it.
		schema, err := rawInputSchema(ctx, t)
		if err != nil {
			errs = append(errs, err)
			break
		}
		call(schemaEcho, map[string]any{"schema": schema})
	default:
		for _, tool := range tools.Tools {
			call(tool.Name, exampleArguments(tool.InputSchema))
		}
	}

	caps := c.GetServerCapabilities()
	if caps.Resources != nil {
		if r, err := c.ListResources(ctx, mcp.ListResourcesRequest{}); err != nil {
			errs = append(errs, fmt.Errorf("listing resources: %w", err))
		} else {
			for _, res := range r.Resources {
				req := mcp.ReadResourceRequest{}
				req.Params.URI = res.URI
				if _, err := c.ReadResource(ctx, req); err != nil {
					errs = append(errs, fmt.Errorf("reading %q: %w", res.URI, err))
				}
				say(out, "resources/read %s", res.URI)
			}
		}
	}
	if caps.Prompts != nil {
		if p, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{}); err != nil {
			errs = append(errs, fmt.Errorf("listing prompts: %w", err))
		} else {
			for _, prompt := range p.Prompts {
				req := mcp.GetPromptRequest{}
				req.Params.Name = prompt.Name
				req.Params.Arguments = map[string]string{}
				for _, a := range prompt.Arguments {
					if a.Required {
						req.Params.Arguments[a.Name] = exampleString
					}
				}
				if _, err := c.GetPrompt(ctx, req); err != nil {
					errs = append(errs, fmt.Errorf("getting prompt %q: %w", prompt.Name, err))
				}
				say(out, "prompts/get %s", prompt.Name)
			}
		}
	}
	return errors.Join(errs...)
}

// rawInputSchema lists the tools once more, through the transport itself
// (under an id of its own, a string, which mcp-go's numbered ids never
// are), and returns the inputSchema of the first tool other than
// schemaEcho, byte for byte.
func rawInputSchema(ctx context.Context, t transport.Interface) (json.RawMessage, error) {
	res, err := t.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("raw-tools-list"), Method: "tools/list"})
	if err != nil {
		return nil, fmt.Errorf("listing tools raw: %w", err)
	}
	if res.Error != nil {
		return nil, fmt.Errorf("listing tools raw: %s", res.Error.Message)
	}
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res.Result, &list); err != nil {
		return nil, fmt.Errorf("listing tools raw: %w", err)
	}
	for _, tool := range list.Tools {
		if tool.Name != schemaEcho {
			return tool.InputSchema, nil
		}
	}
	return nil, errors.New("the server lists no tool besides " + schemaEcho)
}

// schemaEcho is the tool of json-schema-2020-12-preservation that takes
// another tool's inputSchema back.
const schemaEcho = "json_schema_echo"

// exampleString is the value exampleArguments gives a string.
const exampleString = "elicitray"

// exampleArguments are arguments for a tool with this inputSchema, as a
// host's model would fill them in: every required property gets its
// default, else its first enum value, else a value of its type.
func exampleArguments(schema mcp.ToolInputSchema) map[string]any {
	args := map[string]any{}
	required := slices.Clone(schema.Required)
	sort.Strings(required)
	for _, name := range required {
		prop, _ := schema.Properties[name].(map[string]any)
		if d, ok := prop["default"]; ok {
			args[name] = d
			continue
		}
		if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
			args[name] = enum[0]
			continue
		}
		switch prop["type"] {
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = true
		case "array":
			args[name] = []any{}
		case "object":
			args[name] = map[string]any{}
		case "null":
			args[name] = nil
		default:
			args[name] = exampleString
		}
	}
	return args
}

// say prints one line of what the host did; the suite keeps stdout.
func say(out io.Writer, format string, args ...any) {
	fmt.Fprintf(out, format+"\n", args...)
}
