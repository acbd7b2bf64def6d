package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// JSON-RPC error codes the relay sends (PROTOCOL.md §8).
const (
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// envelope is the part of a JSON-RPC message the relay routes on, as found
// by scanEnvelope: raw slices of the line, valid while the line is.
type envelope struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  json.RawMessage
	// Methods counts the top-level members "method"; Method is the last
	// one's, as JSON parsers keep it.
	Methods int
	// FoldedMethod is set by a top-level key that reads "method" only when
	// case is ignored ("Method"): encoding/json, mcp-go's parser, takes it
	// for the method, JavaScript's JSON.parse for another member.
	FoldedMethod bool
}

func (e *envelope) isRequest() bool      { return e.Method != "" && len(e.ID) > 0 && !isNull(e.ID) }
func (e *envelope) isNotification() bool { return e.Method != "" && (len(e.ID) == 0 || isNull(e.ID)) }
func (e *envelope) isResponse() bool     { return e.Method == "" && len(e.ID) > 0 }

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// validUTF8 returns raw with every invalid UTF-8 sequence replaced by
// U+FFFD, or raw itself when it is valid. JSON text is UTF-8 (PROTOCOL.md
// §7), and encoding/json turns invalid bytes in strings into U+FFFD when it
// decodes them, but copies a RawMessage byte for byte: a requestedSchema
// passed on as sent would carry a server's invalid bytes into every window,
// history record and `history list --json` line. In valid JSON such bytes
// can only sit inside strings, so the result is the same JSON, spelt validly.
func validUTF8(raw json.RawMessage) json.RawMessage {
	if utf8.Valid(raw) {
		return raw
	}
	return bytes.ToValidUTF8(raw, []byte("\uFFFD"))
}

// idKey turns a JSON-RPC id into a map key that ignores spelling: 7, 7.0 and
// "7" stay distinct (ids are strings or integers, PROTOCOL.md §7), while
// whitespace and escapes do not matter.
func idKey(raw json.RawMessage) (string, bool) {
	// Every reply passes here: plain integers and strings without escapes,
	// which are nearly all ids, need no decoder.
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw[1:n-1], '\\') < 0 && bytes.IndexByte(raw[1:n-1], '"') < 0 {
		return "s:" + string(raw[1:n-1]), true
	}
	if plainInteger(raw) {
		return "n:" + string(raw), true
	}
	return idKeyDecoded(raw)
}

// idKeyDecoded is idKey for any spelling, through a decoder.
func idKeyDecoded(raw json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", false
	}
	switch id := v.(type) {
	case string:
		return "s:" + id, true
	case json.Number:
		if strings.ContainsAny(id.String(), ".eE") {
			return "", false // PROTOCOL.md §7: ids are strings or integers
		}
		return "n:" + id.String(), true
	}
	return "", false
}

// plainInteger reports whether raw is an integer as JSON writes it
// canonically: an optional minus, then digits without a leading zero.
func plainInteger(raw []byte) bool {
	d := raw
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 19 || (d[0] == '0' && len(d) > 1) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// response is a JSON-RPC response the relay writes itself.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// elicitResult is the ElicitResult of PROTOCOL.md §5. Content is omitted,
// never null, for decline and cancel: some SDKs reject null.
type elicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

func encodeResult(id json.RawMessage, result any) []byte {
	b, err := json.Marshal(response{JSONRPC: "2.0", ID: id, Result: result})
	if err != nil {
		// Only content values can fail to encode, and those were produced by
		// package elicit from JSON types; an error here is a bug.
		return encodeError(id, codeInternalError, fmt.Sprintf("encoding the answer: %v", err))
	}
	return b
}

func encodeError(id json.RawMessage, code int, msg string) []byte {
	b, _ := json.Marshal(response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: msg}})
	return b
}
