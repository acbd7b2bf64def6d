package bridge

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

var scanSeeds = []string{
	`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"x"}}`,
	`{ "method" : "tools/call" , "id" : "a\"b", "params" : {"n":[1,2,{"x":"}"}]} }`,
	`{"result":{"content":[{"type":"text","text":"\\\"method\\\": \"elicitation/create\""}]},"jsonrpc":"2.0","id":2}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
	`{"\u006dethod":"notifications/cancelled","params":{"requestId":"e-1"}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{}`, `[]`, `"x"`, `{"id":1`, `{"id" 1}`, `{"a":"\\"}`,
}

// TestScanEnvelope: the scanner finds the same id and method as
// encoding/json, including where "method" appears inside content or keys
// are escaped; what is not an object is left to the peer.
func TestScanEnvelope(t *testing.T) {
	for _, s := range scanSeeds {
		checkScan(t, []byte(s))
	}
	if _, err := scanEnvelope([]byte(`[{"id":1,"method":"ping"}]`)); err == nil {
		t.Error("a batch was taken for a message (batches are gone since 2025-06-18)")
	}
	env, _ := scanEnvelope([]byte(scanSeeds[2]))
	if env.Method != "" || string(env.ID) != "2" {
		t.Errorf("a result whose text mentions a method was routed as a call: %+v", env)
	}
}

func checkScan(t *testing.T, line []byte) {
	t.Helper()
	// Keys are case-sensitive in JSON-RPC, unlike encoding/json's struct
	// matching: the oracle is a map.
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return // invalid JSON: the relay forwards it whatever the scanner says
	}
	want := struct {
		ID, Params json.RawMessage
		Method     string
	}{ID: m["id"], Params: m["params"]}
	if raw, ok := m["method"]; ok && json.Unmarshal(raw, &want.Method) != nil {
		return
	}
	got, err := scanEnvelope(line)
	if err != nil {
		t.Fatalf("scanEnvelope(%q): %v", line, err)
	}
	if got.Method != want.Method || !bytes.Equal(compact(got.ID), compact(want.ID)) || !bytes.Equal(compact(got.Params), compact(want.Params)) {
		t.Fatalf("scanEnvelope(%q) = id %s method %q params %s; encoding/json: id %s method %q params %s",
			line, got.ID, got.Method, got.Params, want.ID, want.Method, want.Params)
	}
}

func compact(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

func FuzzScanEnvelope(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkScan(t, line)
	})
}

// FuzzIDKey: the fast paths of idKey agree with decoding the id.
func FuzzIDKey(f *testing.F) {
	for _, s := range []string{`7`, `-3`, `0`, `007`, `"a"`, `"\u0061"`, `"é"`, `1.0`, `1e3`, `null`, `" x "`, `"\""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) || !utf8.ValidString(raw) {
			return
		}
		k1, ok1 := idKey(json.RawMessage(raw))
		k2, ok2 := idKeyDecoded(json.RawMessage(raw))
		if k1 != k2 || ok1 != ok2 {
			t.Fatalf("idKey(%s) = %q %v, decoding gives %q %v", raw, k1, ok1, k2, ok2)
		}
	})
}
