package bridge

import (
	"encoding/json"
	"sync"
	"sync/atomic"
)

// Keys of the request _meta of 2026-07-28 (PROTOCOL.md §2, §3).
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// serverInfoMeta is where a 2026-07-28 result names its server: there
	// is no initialize reply to do it, and servers should send it in every
	// result's _meta (mcp-go and go-sdk servers do).
	serverInfoMeta = "io.modelcontextprotocol/serverInfo"
)

// session is what the relay knows of the MCP session between the host and
// the server (PROTOCOL.md §2, §3): what the server calls itself, the
// version they agreed, and the elicitation capability the host declared.
// It adds the relay's own elicitation capability wherever the host
// declares capabilities: its initialize, and the _meta of every modern
// request.
type session struct {
	w *wires

	mu sync.Mutex // guards the fields below
	// info is the server's serverInfo: from its initialize reply, or from
	// the _meta of a modern result when there was none.
	info ServerInfo
	// version is the protocol version the initialize reply agreed.
	version string
	// initID is the id key of the host's initialize request until its
	// reply passes (PROTOCOL.md §2: the reply names the agreed version).
	initID string
	// hostElicitation is the elicitation capability the host declared in
	// its initialize (before the relay added its own), or nil.
	hostElicitation json.RawMessage
	// initWaits is initID != "", stored under mu at each change: every
	// reply asks (awaitsInit), without the lock.
	initWaits atomic.Bool
}

// fromHost adds the elicitation capability to a host request that
// declares capabilities, and returns the line to send on. For a modern
// request it also returns the protocol version in its _meta and the
// capabilities the host declared there itself. ok is false when a modern
// request's capabilities could not be edited: the request then passes as
// the host wrote it, and is not the relay's to follow.
func (s *session) fromHost(env *envelope, line []byte) (out []byte, version string, hostCaps json.RawMessage, ok bool) {
	if version = modernVersion(env.Params); version != "" {
		// PROTOCOL.md §2, §3: a modern request declares the client's
		// capabilities itself, every time.
		edited, hostCaps, err := injectMeta(line)
		if err != nil {
			s.w.log.printf("could not add the elicitation capability to %s: %v", env.Method, err)
			return line, "", nil, false
		}
		return withNewline(edited), version, hostCaps, true
	}
	if env.Method != "initialize" {
		return line, "", nil, true
	}
	key, _ := idKey(env.ID)
	params, _ := getMember(line, "params")
	caps, _ := getMember(params, "capabilities")
	el, _ := getMember(caps, "elicitation")
	s.mu.Lock()
	s.initID = key
	s.initWaits.Store(key != "")
	s.hostElicitation = append(json.RawMessage(nil), el...)
	s.mu.Unlock()
	edited, err := injectInitialize(line)
	if err != nil {
		s.w.log.printf("could not add the elicitation capability to initialize: %v", err)
		return line, "", nil, true
	}
	return withNewline(edited), "", nil, true
}

// awaitsInit reports whether the host's initialize still awaits its reply.
func (s *session) awaitsInit() bool { return s.initWaits.Load() }

// fromServer takes serverInfo and the agreed protocol version from the
// reply to the host's initialize; it reports whether the reply with id key
// was that one. The reply itself goes on to the host.
func (s *session) fromServer(key string, result json.RawMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if key != s.initID {
		return false
	}
	s.initID = ""
	s.initWaits.Store(false)
	var init struct {
		ProtocolVersion string     `json:"protocolVersion"`
		ServerInfo      ServerInfo `json:"serverInfo"`
	}
	if json.Unmarshal(result, &init) == nil {
		s.info, s.version = init.ServerInfo, init.ProtocolVersion
	}
	return true
}

// hostCancelled forgets the host's initialize with id key, if it still
// waits: the host cancelled it, and the server may never answer it (until
// it does, every reply takes the full path and elicitations are refused
// as early, legacy.go).
func (s *session) hostCancelled(key string) {
	s.mu.Lock()
	if key == s.initID {
		s.initID = ""
		s.initWaits.Store(false)
	}
	s.mu.Unlock()
}

// noteServerInfo takes what the server calls itself from the _meta of a
// modern result, when no initialize reply named it: the prompt shows it
// second, after the configured name (PROTOCOL.md §6).
func (s *session) noteServerInfo(result []byte) {
	meta, ok := getMember(result, "_meta")
	if !ok {
		return
	}
	raw, ok := getMember(meta, serverInfoMeta)
	if !ok {
		return
	}
	var info ServerInfo
	if json.Unmarshal(raw, &info) != nil || info.Name == "" {
		return
	}
	s.mu.Lock()
	if s.info.Name == "" {
		s.info = info
	}
	s.mu.Unlock()
}

// server returns the server's serverInfo and the agreed protocol version.
func (s *session) server() (ServerInfo, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info, s.version
}

// hostDeclared is the elicitation capability the host declared in its
// initialize, or nil.
func (s *session) hostDeclared() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hostElicitation
}

// hostDeclares reports whether an elicitation capability the host declared
// (el, nil when none) covers mode: an empty object means form only
// (PROTOCOL.md §3).
func hostDeclares(el json.RawMessage, mode string) bool {
	ms, err := members(el)
	if err != nil {
		return false
	}
	if len(ms) == 0 {
		return mode == "form"
	}
	_, ok := getMember(el, mode)
	return ok
}

// modernVersion returns the protocol version in a request's
// params._meta, or "" for a legacy request (PROTOCOL.md §2).
func modernVersion(params []byte) string {
	meta, ok := getMember(params, "_meta")
	if !ok {
		return ""
	}
	return stringMember(meta, metaProtocolVersion)
}

// injectMeta returns a modern request with elicitation (form and url)
// merged into params._meta's client capabilities (PROTOCOL.md §3: every
// request carries them, and the server elicits only what they declare). It
// also returns the capabilities the host declared itself.
func injectMeta(line []byte) (out []byte, hostCaps json.RawMessage, err error) {
	params, _ := getMember(line, "params")
	meta, _ := getMember(params, "_meta")
	hostCaps, _ = getMember(meta, metaClientCapabilities)
	out, err = mergeCapabilities(line, "params", "_meta", metaClientCapabilities)
	return out, hostCaps, err
}

// injectInitialize returns the host's initialize request with the
// elicitation capability merged into params.capabilities (PROTOCOL.md §3),
// or line itself when nothing had to change. Only that member is spliced:
// every other byte stays the host's.
func injectInitialize(line []byte) ([]byte, error) {
	if p, ok := getMember(line, "params"); ok && (len(p) == 0 || p[0] != '{') {
		return line, nil // not an initialize the server can accept: leave it be
	}
	return mergeCapabilities(line, "params", "capabilities")
}

// mergeCapabilities merges elicitation (form and url) into the
// capabilities object at path inside line, creating the objects on the way
// when absent; it returns line itself when nothing had to change.
func mergeCapabilities(line []byte, path ...string) ([]byte, error) {
	var edit func(obj []byte, path []string) ([]byte, bool, error)
	edit = func(obj []byte, path []string) ([]byte, bool, error) {
		if len(path) == 0 {
			return mergeElicitationRaw(obj)
		}
		return editMember(obj, path[0], func(child []byte) ([]byte, bool, error) { return edit(child, path[1:]) })
	}
	out, _, err := edit(line, path)
	return out, err
}
