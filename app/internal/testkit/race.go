//go:build race

package testkit

// raceBuild: the tests run under the race detector, and so does the
// binary they start.
const raceBuild = true
