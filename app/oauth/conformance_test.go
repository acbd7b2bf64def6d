package oauth_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in testdata/npm) runs its authorization scenarios against
// confclient: the bridge's Streamable HTTP side with this package's
// sign-in, a browser that follows the authorization URL. Its servers and
// authorization servers are the suite's own: discovery (protected resource
// metadata named in the 401 or at either well-known URL, authorization
// server metadata at each RFC 8414 and OpenID location), dynamic
// registration, PKCE, the resource parameter, scope selection and each
// token endpoint authentication method. What elicitray does not do yet is
// listed in testdata/conformance-auth-baseline.yml.
func TestConformanceAuth(t *testing.T) {
	const npm = "../../testdata/npm/node_modules"
	suite := filepath.Join(npm, "@modelcontextprotocol/conformance/dist/index.js")
	node := filepath.Join(npm, "node/bin/node")
	for _, f := range []string{suite, node} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("the conformance suite needs %s (make deps-npm): %v", f, err)
		}
	}
	bin := filepath.Join(t.TempDir(), "confclient")
	if out, err := exec.Command("go", "build", "-o", bin, "./oauthtest/confclient").CombinedOutput(); err != nil {
		t.Fatalf("building confclient: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, suite, "client", "--command", bin, "--suite", "auth",
		"--spec-version", "2025-11-25", "--expected-failures", "testdata/conformance-auth-baseline.yml",
		"-o", t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the conformance suite's auth scenarios failed (%v):\n%s", err, tail(out, 6000))
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
