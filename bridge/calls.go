package bridge

import (
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
)

// loopMethods are the host requests whose results may ask for input
// (PROTOCOL.md §1): the calls the relay follows.
var loopMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// calls are the tools/calls in flight, the host's and the relay's retries
// of them: a legacy elicitation belongs to the call in flight when there is
// exactly one, and its prompt names that call's tool
// (docs/prompt-window.md: the tool "when known"). A call leaves on its reply, or when the host cancels it.
type calls struct {
	mu sync.Mutex // guards the fields below
	// tools maps the id keys of the tools/calls in flight to their tool.
	tools map[string]string
	// lastTool and lastCall are the tool and id key of the most recent
	// tools/call in flight.
	lastTool, lastCall string
	// open is len(tools), stored under mu at each change: every reply
	// asks (any), without the lock.
	open atomic.Int32
}

// note notes a request of a loop method (the host's, or a retry); only a tools/call names
// a tool and counts as the call in flight.
func (c *calls) note(key, method, name string) {
	if method != "tools/call" {
		return
	}
	c.mu.Lock()
	c.tools[key] = name
	c.open.Store(int32(len(c.tools)))
	c.lastTool, c.lastCall = name, key
	c.mu.Unlock()
}

// tracked is how many calls the table keeps (Relay.tracked).
func (c *calls) tracked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.tools)
}

// any reports whether some tools/call is in flight.
func (c *calls) any() bool { return c.open.Load() > 0 }

// inFlight returns the tool and id key of the tools/call in flight when
// there is exactly one, or "" and "": with several, which one asks is not
// known, which several says.
func (c *calls) inFlight() (tool, key string, several bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tools) != 1 {
		return "", "", len(c.tools) > 1
	}
	return c.lastTool, c.lastCall, false
}

// end forgets the tools/call with id key, if in flight: its reply came, or
// the host cancelled it. It reports whether key was a call in flight.
func (c *calls) end(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.tools[key]; !ok {
		return false
	}
	delete(c.tools, key)
	c.open.Store(int32(len(c.tools)))
	c.lastTool, c.lastCall = "", ""
	if len(c.tools) == 1 {
		// Only the one call left is ever named (inFlight): no walk of a
		// long table on every reply.
		for k, name := range c.tools {
			c.lastTool, c.lastCall = name, k
		}
	}
	return true
}

// tracked counts the entries the relay keeps for calls, requests, progress
// tokens and elicitations in flight, in every feature: each lives exactly as
// long as what it is kept for (answered, cancelled by the host, or ended
// with the server), so the count is back to zero once nothing is in flight.
// Tests read it (TestRelayForgetsEndedCalls).
func (r *Relay) tracked() int {
	return r.calls.tracked() + r.loop.tracked() + r.keep.tracked() + r.forward.tracked() +
		r.legacy.tracked() + r.url.tracked() + r.guard.tracked()
}

// recentKeysMax is how many ended requests a recentKeys remembers.
const recentKeysMax = 64

// recentKeys are the keys of the last requests a feature ended whose late
// notice (the server's notifications/cancelled, notifications/elicitation/
// complete) it still recognises and keeps from the host, which never saw
// the request. Only the last recentKeysMax are kept: a server that never
// sends the notice leaves no more than that behind (issue 25), and a
// notice older than that passes to the host, which ignores a notice for a
// request it does not know (MCP: cancellation). The zero value is empty;
// the owner's lock guards it.
type recentKeys struct{ keys []string }

// add remembers key, forgetting the oldest past recentKeysMax.
func (r *recentKeys) add(key string) {
	if len(r.keys) == recentKeysMax {
		r.keys = append(r.keys[:0], r.keys[1:]...)
	}
	r.keys = append(r.keys, key)
}

// take forgets key and reports whether it was remembered.
func (r *recentKeys) take(key string) bool {
	i := slices.Index(r.keys, key)
	if i >= 0 {
		r.keys = slices.Delete(r.keys, i, i+1)
	}
	return i >= 0
}

// callName is what a prompt names as the call in flight.
func callName(method string, params []byte) string {
	switch method {
	case "prompts/get":
		return "prompt " + stringMember(params, "name")
	case "resources/read":
		return "resource " + stringMember(params, "uri")
	}
	return stringMember(params, "name")
}

// cancelledID is the requestId of a notifications/cancelled, as an id key.
func cancelledID(params json.RawMessage) (string, bool) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	return idKey(p.RequestID)
}
