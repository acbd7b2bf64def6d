//go:build linux

package e2e

// binary runs the built elicitray with args in d's environment, as Main
// would run in a test alone, and returns what it wrote and its exit code.
func (d *testDesktop) binary(args ...string) (stdout, stderr string, code int) {
	d.t.Helper()
	return runElicitrayEnv(d.t, d.env, nil, nil, args...)
}
