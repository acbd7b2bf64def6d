//go:build !linux

package hosts

// exchange is not to be had here (swap.go says what is done instead).
var exchange = func(a, b string) error { return errNoExchange }
