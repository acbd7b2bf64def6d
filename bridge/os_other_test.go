//go:build !linux

package bridge

const isLinux = false
