// Command confclient is a client for the official MCP conformance suite's
// authorization scenarios (@modelcontextprotocol/conformance, `client
// --suite auth`): it reaches the scenario's server as `elicitray wrap
// --url` does — bridge.HTTP with app/oauth's sign-in — with a consent that
// agrees at once and a "browser" that follows the authorization URL to the
// loopback redirect (the suite's authorization server approves at once).
// It initializes, lists the tools and calls each, and exits 1 on an error.
//
//	conformance client --command "confclient" --scenario auth/metadata-default
//
// The suite appends the server URL; MCP_CONFORMANCE_PROTOCOL_VERSION, when
// set, is the protocol version to initialize with.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/elicitray/elicitray/app/oauth"
	"github.com/elicitray/elicitray/app/oauth/oauthtest"
	"github.com/elicitray/elicitray/bridge"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: confclient SERVER_URL")
		os.Exit(2)
	}
	if err := run(os.Args[len(os.Args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, "confclient:", err)
		os.Exit(1)
	}
}

func run(serverURL string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "confclient-auth-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	pages := make(chan string, 8)
	go func() {
		for p := range pages {
			logf("browser: %.200s", p)
		}
	}()
	// A scenario with a client registered beforehand gives its
	// credentials in the context, as a user gives them to wrap with
	// --client-id and --client-secret-env.
	var scenario struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	_ = json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &scenario)
	// The browser comes back at once; an answer the sign-in turns away (a
	// wrong or missing iss) leaves it waiting for a good one until Wait is
	// up, which the iss scenarios end with: 5 s, not the 25 s of the run.
	srv, err := oauth.New(oauth.Options{Name: "conformance", URL: serverURL, Dir: dir, Consent: oauthtest.Agree(pages), Logf: logf,
		Wait:   5 * time.Second,
		Client: oauth.Registration{ClientID: scenario.ClientID, ClientSecret: scenario.ClientSecret}})
	if err != nil {
		return err
	}
	remote := bridge.HTTP(bridge.HTTPOptions{URL: serverURL, OAuth: srv.Config(), Authorize: srv.Authorize,
		Client: &http.Client{Transport: srv.RoundTripper(nil)}})
	conn, err := remote.Start(ctx, logf)
	if err != nil {
		return err
	}
	defer func() {
		conn.CloseWrite()
		remote.Wait()
	}()
	id := 0
	call := func(method string, params any) (json.RawMessage, error) {
		id++
		p, _ := json.Marshal(params)
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, p)
		if err := conn.Write([]byte(line), true); err != nil {
			return nil, err
		}
		for {
			msg, err := conn.Read()
			if err != nil {
				return nil, fmt.Errorf("reading the reply to %s: %w", method, err)
			}
			var m struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(msg, &m) != nil || m.ID == nil || *m.ID != id || m.Method != "" {
				continue
			}
			if m.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, m.Error)
			}
			return m.Result, nil
		}
	}
	version := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")
	if version == "" {
		version = "2025-11-25"
	}
	// 2026-07-28 has no initialize: each request carries the version and
	// the client's capabilities in _meta (PROTOCOL.md §3).
	modern := version >= "2026"
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": version,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "elicitray-conformance", "version": "1.0.0"}}
	params := func(p map[string]any) map[string]any {
		if modern {
			p["_meta"] = meta
		}
		return p
	}
	if !modern {
		if _, err := call("initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "elicitray-conformance", "version": "1.0.0"}}); err != nil {
			return err
		}
		if err := conn.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"), true); err != nil {
			return err
		}
	}
	res, err := call("tools/list", params(map[string]any{}))
	if err != nil {
		return err
	}
	var tools struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(res, &tools)
	for _, t := range tools.Tools {
		if _, err := call("tools/call", params(map[string]any{"name": t.Name, "arguments": map[string]any{}})); err != nil {
			return err
		}
	}
	return nil
}
