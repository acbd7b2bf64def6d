//go:build linux

package app

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRemoteFlags: what `wrap --url` sends for each header flag, and the
// sentence a user gets for each mistake, which never holds a header's value.
func TestRemoteFlags(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret-token", "TENANT": "acme", "BAD": "a\nb"}
	getenv := func(k string) string { return env[k] }
	for _, tt := range []struct {
		name    string
		flags   remoteFlags
		args    []string
		want    http.Header
		wantErr string
	}{
		{name: "headers of every kind",
			flags: remoteFlags{url: "https://example.com/mcp", headers: []string{"X-Client: elicitray", "X-Empty:"},
				headerEnv: []string{"X-Tenant=TENANT"}, bearerEnv: "TOKEN"},
			want: http.Header{"X-Client": {"elicitray"}, "X-Empty": {""}, "X-Tenant": {"acme"}, "Authorization": {"Bearer s3cret-token"}}},
		{name: "a command and a URL", flags: remoteFlags{url: "https://example.com/mcp"}, args: []string{"npx"},
			wantErr: "give either --url or a server command after --, not both"},
		{name: "neither", wantErr: "wrap needs the server command after --, or --url URL"},
		{name: "a header without a URL", flags: remoteFlags{headers: []string{"A: b"}}, args: []string{"npx"},
			wantErr: "--header, --header-env and --bearer-env go with --url"},
		{name: "not http", flags: remoteFlags{url: "ws://example.com/mcp"}, wantErr: "is not an http:// or https:// address"},
		{name: "credentials in the URL", flags: remoteFlags{url: "https://me:pw@example.com/mcp"}, wantErr: "carries a user name or password"},
		{name: "a header without a colon", flags: remoteFlags{url: "https://example.com/mcp", headers: []string{"Authorization Bearer x"}},
			wantErr: "write it as 'Name: value'"},
		{name: "a bad header name", flags: remoteFlags{url: "https://example.com/mcp", headers: []string{"Bad Name: x"}},
			wantErr: `"Bad Name" is not a header name`},
		{name: "a variable that is not set", flags: remoteFlags{url: "https://example.com/mcp", bearerEnv: "NOPE"},
			wantErr: "the environment variable NOPE is not set or empty"},
		{name: "a value with a line break", flags: remoteFlags{url: "https://example.com/mcp", headerEnv: []string{"X-Bad=BAD"}},
			wantErr: "the value of header X-Bad has characters a header cannot carry"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.flags.check(tt.args)
			var h http.Header
			if err == nil {
				h, err = tt.flags.header(getenv)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				for _, v := range append(slices.Collect(maps.Values(env)), ":pw@") {
					if strings.Contains(err.Error(), v) {
						t.Errorf("the error shows a header value: %v", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, h); diff != "" {
				t.Errorf("headers mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRemoteName: the default --name of a remote server is its host.
func TestRemoteName(t *testing.T) {
	for url, want := range map[string]string{
		"https://mcp.github.com/mcp":    "github.com",
		"https://www.example.org:8443/": "example.org",
		"http://127.0.0.1:3001/mcp":     "127.0.0.1",
		"https://mcp.local/x":           "mcp.local",
	} {
		if got := remoteName(url); got != want {
			t.Errorf("remoteName(%q) = %q, want %q", url, got, want)
		}
	}
}
