//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatusShowsGuardAndKeepAlive: `elicitray status` says, for each server
// config.toml names, how long its prompts wait (timeout), its rate limit
// (burst, every), its tool-call guard (guard, guard_destructive) and how
// often the host hears that a prompt is still open (keep_alive): a user who
// set them sees whether the running hub has them, in the config's words.
func TestStatusShowsGuardAndKeepAlive(t *testing.T) {
	d := newParallelDesktop(t)
	d.config(`keep_alive = "10s"

[servers.ci]
rule = "decline"

[servers.github]
timeout = "20s"
burst = 2
every = "1m"
guard = ["deploy_*", "delete_*"]
guard_destructive = true
keep_alive = "0s"

[servers.shell]
guard_destructive = true
keep_alive = "5s"
`)
	startWinHub(d, "0s")
	var got []string
	for l := range strings.SplitSeq(d.status(), "\n") {
		if strings.HasPrefix(l, "Server") {
			got = append(got, strings.Join(strings.Fields(l), " "))
		}
	}
	want := []string{
		"Server ci rule decline, timeout 10m0s, burst 5, every 3s, guard none, keep_alive 10s",
		"Server github rule ask, timeout 20s, burst 2, every 1m0s, guard deploy_* delete_*, guard_destructive, keep_alive off",
		"Server shell rule ask, timeout 10m0s, burst 5, every 3s, guard_destructive, keep_alive 5s",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("elicitray status's server lines mismatch (-want +got):\n%s", diff)
	}
}
