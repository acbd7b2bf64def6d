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
// token endpoint authentication method; at 2026-07-28 also the iss of the
// authorization response (RFC 9207), a moved authorization server, offline
// access and a mismatched resource. What elicitray does not do yet is
// listed in testdata/conformance-auth-baseline.yml.
func TestConformanceAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the conformance suite's scenarios on Node: not in the short tier (-short)")
	}
	const npm = "../../testdata/npm/node_modules"
	suite := filepath.Join(npm, "@modelcontextprotocol/conformance/dist/index.js")
	node := filepath.Join(npm, "node/bin/node")
	for _, f := range []string{suite, node} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("the conformance suite needs %s (make deps-npm): %v", f, err)
		}
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no Go toolchain where the test runs (a Windows test binary under Wine) to build the conformance client")
	}
	bin := filepath.Join(t.TempDir(), "confclient")
	if out, err := exec.Command("go", "build", "-o", bin, "./oauthtest/confclient").CombinedOutput(); err != nil {
		t.Fatalf("building confclient: %v\n%s", err, out)
	}
	run := func(t *testing.T, args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		args = append([]string{suite, "client", "--command", bin, "--expected-failures",
			"testdata/conformance-auth-baseline.yml", "-o", t.TempDir()}, args...)
		out, err := exec.CommandContext(ctx, node, args...).CombinedOutput()
		if err != nil {
			t.Errorf("the conformance suite failed (%v):\n%s", err, tail(out, 6000))
		}
	}
	// Each scenario has servers and a client of its own: they run in
	// parallel, most of their time spent waiting (the iss scenarios until
	// confclient's sign-in gives up).
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run("suite auth at "+version, func(t *testing.T) {
			t.Parallel()
			run(t, "--suite", "auth", "--spec-version", version)
		})
	}
	// Required at 2026-07-28 (the suite's requirements/2026-07-28.yaml)
	// and not in its auth suite.
	for _, scenario := range []string{
		"auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
		"auth/authorization-server-migration", "auth/iss-supported", "auth/iss-not-advertised",
		"auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected",
		"auth/iss-normalized", "auth/metadata-issuer-mismatch",
	} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			run(t, "--scenario", scenario, "--spec-version", "2026-07-28")
		})
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
