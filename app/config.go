package app

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is the user's config.toml. Every field's zero value means the
// default.
//
//	# ~/.config/elicitray/config.toml
//	timeout = "10m"   # a prompt nobody answers is cancel after this long
type Config struct {
	// Timeout is how long a prompt waits for a person before it is answered
	// cancel (decided by "timeout"). Zero: 10 minutes.
	Timeout Duration `toml:"timeout"`
}

// DefaultTimeout is how long a prompt waits when the config says nothing.
const DefaultTimeout = 10 * time.Minute

// Duration is a time.Duration written as text in TOML ("90s", "10m").
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration such as "10m".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("not a duration like \"10m\" or \"90s\": %q", b)
	}
	d.Duration = v
	return nil
}

// LoadConfig reads the config file at path; a missing file is the default
// config.
func LoadConfig(path string) (Config, error) {
	var c Config
	if _, err := toml.DecodeFile(path, &c); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Config{}, fmt.Errorf("reading %s: %w", path, err)
	}
	if c.Timeout.Duration <= 0 {
		c.Timeout.Duration = DefaultTimeout
	}
	return c, nil
}
