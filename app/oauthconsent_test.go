//go:build linux

package app

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/app/oauth"
)

// TestPreRegisteredFlags: --client-id and --client-secret-env give the
// client a user registered beforehand; the secret comes from the
// environment only, and a mistake is a sentence that never holds it.
func TestPreRegisteredFlags(t *testing.T) {
	env := map[string]string{"SECRET": "s3cret-client"}
	getenv := func(k string) string { return env[k] }
	for _, tt := range []struct {
		name    string
		flags   remoteFlags
		args    []string
		want    oauth.Registration
		wantErr string
	}{
		{name: "an id and a secret", flags: remoteFlags{url: "https://example.com/mcp", clientID: "desk", clientSecretEnv: "SECRET"},
			want: oauth.Registration{ClientID: "desk", ClientSecret: "s3cret-client"}},
		{name: "an id alone (a public client)", flags: remoteFlags{url: "https://example.com/mcp", clientID: "desk"},
			want: oauth.Registration{ClientID: "desk"}},
		{name: "none: elicitray registers itself", flags: remoteFlags{url: "https://example.com/mcp"}},
		{name: "a secret without an id", flags: remoteFlags{url: "https://example.com/mcp", clientSecretEnv: "SECRET"},
			wantErr: "--client-secret-env goes with --client-id"},
		{name: "an id without a URL", flags: remoteFlags{clientID: "desk"}, args: []string{"npx"},
			wantErr: "as do --client-id and --client-secret-env"},
		{name: "a secret variable that is not set", flags: remoteFlags{url: "https://example.com/mcp", clientID: "desk", clientSecretEnv: "NOPE"},
			wantErr: "--client-secret-env: the environment variable NOPE is not set or empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.flags.check(tt.args)
			var got oauth.Registration
			if err == nil {
				got, err = tt.flags.preRegistered(getenv)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), env["SECRET"]) {
					t.Fatalf("error %v, want one saying %q (and not the secret)", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("client mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
