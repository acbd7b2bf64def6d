// Package config is the user's config.toml: its settings (Config, one
// Server table per wrapped server, the remembered answers' Remember), the
// defaults, and reading it a key at a time so that every mistake is named
// with its line (Check) and the rest still holds.
//
// Files: config.go (the settings and their defaults, Load and Save),
// configcheck.go (reading and checking the file; it stays whole: one
// reader walks every table), configshown.go (a mistake in the user's
// language).
package config
