//go:build !race

package testkit

const raceBuild = false
