package bridge

import (
	"encoding/json"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// paramHeaders keeps what SEP-2243 asks of a Streamable HTTP client on
// 2026-07-28 (PROTOCOL.md §11: headers the server checks): a tools/call
// mirrors the arguments its tool annotates with x-mcp-header into
// Mcp-Param-* headers, and a tool whose annotations break the rules is left
// out of the tools/list result, so that one bad definition does not stop the
// others from being used. mcp-go's client does both on its own connections;
// the wrapper's host talks stdio, so the wrapper, being the HTTP client,
// does them here with mcp-go's functions.
type paramHeaders struct {
	// mu guards tools: the definitions of the last tools/list, by name.
	mu    sync.Mutex
	tools map[string]*mcp.Tool
}

// headers returns the Mcp-Param-* headers for a tools/call's params, from
// the tool's listed definition (none before the host listed tools).
func (p *paramHeaders) headers(params json.RawMessage) map[string]string {
	var call struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(params, &call) != nil || call.Name == "" {
		return nil
	}
	p.mu.Lock()
	tool := p.tools[call.Name]
	p.mu.Unlock()
	if tool == nil {
		return nil
	}
	return mcp.GenerateParamHeaders(tool, params)
}

// listed takes a tools/list response: it remembers the valid definitions
// and returns the message without the invalid ones, or msg itself when
// every tool is valid (every other byte stays the server's). dropped names
// the tools left out, for the log.
func (p *paramHeaders) listed(msg []byte, result json.RawMessage) (out []byte, dropped []string) {
	raw, ok := getMember(result, "tools")
	if !ok {
		return msg, nil
	}
	var entries []json.RawMessage
	if json.Unmarshal(raw, &entries) != nil {
		return msg, nil
	}
	keep := make([]json.RawMessage, 0, len(entries))
	tools := map[string]*mcp.Tool{}
	var droppedNames []string
	for _, e := range entries {
		var tool mcp.Tool
		if json.Unmarshal(e, &tool) != nil {
			keep = append(keep, e) // not ours to judge: the host sees it
			continue
		}
		if err := mcp.ValidateParamHeaderAnnotations(&tool); err != nil {
			dropped = append(dropped, tool.Name+" ("+err.Error()+")")
			droppedNames = append(droppedNames, tool.Name)
			continue
		}
		tools[tool.Name] = &tool
		keep = append(keep, e)
	}
	p.mu.Lock()
	// A paged listing adds to what the first page gave.
	if p.tools == nil {
		p.tools = map[string]*mcp.Tool{}
	}
	for name, t := range tools {
		p.tools[name] = t
	}
	for _, name := range droppedNames {
		delete(p.tools, name)
	}
	p.mu.Unlock()
	if len(dropped) == 0 {
		return msg, nil
	}
	list, err := json.Marshal(keep)
	if err != nil {
		return msg, nil
	}
	newResult, err := setMember(result, "tools", list)
	if err != nil {
		return msg, nil
	}
	out, err = setMember(msg, "result", newResult)
	if err != nil {
		return msg, nil
	}
	return out, dropped
}
