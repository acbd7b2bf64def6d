package ui

import (
	"errors"
	"strings"
	"time"

	"github.com/elicitray/elicitray/ui/lang"
)

// The keep-alive of a policy row (config.toml's keep_alive, PROTOCOL.md
// §10): how often the host hears progress for a tool call while one of
// its prompts is open, so that a host which resets its timeout on progress
// keeps waiting for the person. Unlike the row's other durations, zero is
// a value here ("0s": none), and empty is one too: the defaults' field
// empty is the built-in interval, a server's follows the defaults'.

// builtInKeepAlive is the interval when config.toml says nothing (app's
// DefaultKeepAlive).
const builtInKeepAlive = 15 * time.Second

// keepAliveHelp is the line under a row's Keep-alive field.
const keepAliveHelp = "While a prompt is open, the host hears progress for its tool call this often, " +
	"so that it does not give up on the call while you answer; 0s sends none."

// parseKeepAlive reads a keep-alive: a Go duration, zero or more.
func parseKeepAlive(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, errors.New(lang.L("must be a duration like 15s or 1m, or 0s for none"))
	case d < 0:
		return 0, errors.New(lang.L("cannot be negative: 0s sends none"))
	case d > 0 && d < time.Second:
		// More often floods the host (config.MinKeepAlive).
		return 0, errors.New(lang.L("must be at least 1s, or 0s for none"))
	}
	return d, nil
}

func checkKeepAlive(s string) error {
	_, err := parseKeepAlive(s)
	return err
}

// formatKeepAlive writes a keep-alive as people type it; "" for nil (it
// follows), "0s" for none.
func formatKeepAlive(d *time.Duration) string {
	switch {
	case d == nil:
		return ""
	case *d <= 0:
		return "0s"
	}
	return formatDuration(*d)
}

// followKeepAlive makes the placeholder of a server's Keep-alive say what
// it follows when empty: the defaults' value d (nil: the built-in one),
// or "as the defaults" while the defaults' field is not valid.
func (f *settingField) followKeepAlive(d *time.Duration, defaults *settingField) {
	p := lang.L("as the defaults")
	if defaults.check(defaults.entry.Text) == nil {
		v := builtInKeepAlive
		if d != nil {
			v = *d
		}
		p = formatKeepAlive(&v) + lang.L(" (default)")
		if v == 0 {
			p = lang.L("0s, none (default)")
		}
	}
	if f.entry.PlaceHolder != p {
		f.entry.SetPlaceHolder(p)
	}
}
