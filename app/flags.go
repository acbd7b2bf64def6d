package app

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Command-line values. Every flag that takes a duration reads it with
// parseAge, every flag that takes a number with countVar, and each says
// what is wrong in a sentence; flagError turns what pflag reports into
// that sentence (issue 9: `mute --for 7d` failed while `history list
// --since 7d` worked, and `--limit abc` printed strconv's error).

// parseAge reads a duration as Go writes them ("90m", "12h", "1h30m"),
// plus days: "7d", "1d12h". It refuses negative durations. Its errors are
// sentences to follow a flag's name: `must be a duration like 30m, 12h or
// 7d, not "soon"`.
func parseAge(s string) (time.Duration, error) {
	bad := fmt.Errorf("must be a duration like 30m, 12h or 7d, not %q", s)
	rest := strings.TrimSpace(s)
	if rest == "" {
		return 0, bad
	}
	var days time.Duration
	if i := strings.IndexByte(rest, 'd'); i > 0 {
		n, err := strconv.Atoi(rest[:i])
		if err != nil {
			return 0, bad
		}
		days, rest = time.Duration(n)*24*time.Hour, rest[i+1:]
	}
	var d time.Duration
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil {
			return 0, bad
		}
	}
	if days+d < 0 {
		return 0, fmt.Errorf("cannot be negative, as %q is", s)
	}
	return days + d, nil
}

// formatAge writes d as parseAge reads it, the way people type it: "7d",
// "1h", "2s", "1h30m".
func formatAge(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// durationFlag is a flag value holding a duration read by parseAge.
type durationFlag struct{ d *time.Duration }

// durationVar defines a duration flag on fs, as pflag's DurationVar does,
// that also takes days.
func durationVar(fs *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var(durationFlag{p}, name, usage+" (e.g. 30m, 12h, 7d)")
}

func (f durationFlag) String() string {
	if f.d == nil || *f.d == 0 {
		return "0" // pflag's help shows no default for it
	}
	return formatAge(*f.d)
}

func (f durationFlag) Set(s string) error {
	d, err := parseAge(s)
	if err != nil {
		return flagValueError{err}
	}
	*f.d = d
	return nil
}

func (f durationFlag) Type() string { return "duration" }

// countFlag is a flag value holding a whole number of things.
type countFlag struct {
	n  *int
	of string // what it counts: "records"
}

// countVar defines a flag on fs holding a whole number of of (say
// "records"), as pflag's IntVar does, that says so when given anything
// else.
func countVar(fs *pflag.FlagSet, p *int, name string, value int, of, usage string) {
	*p = value
	fs.Var(countFlag{p, of}, name, usage)
}

func (f countFlag) String() string {
	if f.n == nil {
		return "0"
	}
	return strconv.Itoa(*f.n)
}

func (f countFlag) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return flagValueError{fmt.Errorf("must be a whole number of %s, not %q", f.of, s)}
	}
	*f.n = n
	return nil
}

func (f countFlag) Type() string { return "int" }

// flagValueError is what a flag value of ours says is wrong: a sentence
// to follow the flag's name.
type flagValueError struct{ error }

// flagError is err, from parsing cmd's flags, as a usage error in a
// sentence: `--for must be a duration like 30m, 12h or 7d, not "soon"`
// rather than pflag's `invalid argument "soon" for "--for" flag: …`.
//
// An unknown flag after an unknown command (`elicitray wrapp --name x`)
// is reported as the unknown command, with cobra's "Did you mean this?":
// cobra parses the flags of the command it found (the root) before its
// Args sees the misspelt name.
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && cmd.HasAvailableSubCommands() {
		if args := cmd.Flags().Args(); len(args) > 0 {
			return unknownCommand(cmd, args[0])
		}
	}
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return usageError{err}
	}
	name := "--" + iv.GetFlag().Name
	var fv flagValueError
	if errors.As(err, &fv) {
		return usageError{fmt.Errorf("%s %w", name, fv.error)}
	}
	if iv.GetFlag().NoOptDefVal == "true" {
		// A bool flag given a value (--json=maybe): strconv.ParseBool's
		// error says nothing to a person.
		return usageError{fmt.Errorf("%s is a switch: give it alone, or as %s=false, not %s=%s", name, name, name, iv.GetValue())}
	}
	return usageError{fmt.Errorf("%s cannot take %q", name, iv.GetValue())}
}
