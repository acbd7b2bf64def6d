//go:build linux

package app

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// runBinVars is runBin with the environment vars instead of the test
// process's: the built elicitray with args in directory dir, HOME set to
// home and no host config directory of the test process's.
func runBinVars(t *testing.T, vars []string, home, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(elicitrayBin(t), args...)
	cmd.Dir = dir
	for _, kv := range vars {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "HOME", "XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "APPDATA":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// binary runs the built elicitray with args in d's environment, as Main
// would run in a test alone, and returns what it wrote and its exit code.
func (d *testDesktop) binary(args ...string) (stdout, stderr string, code int) {
	d.t.Helper()
	return runElicitrayEnv(d.t, d.env, nil, nil, args...)
}
