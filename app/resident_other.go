//go:build !linux

package app

// dropStartupPages is a Linux measure (resident_linux.go).
func dropStartupPages() {}
