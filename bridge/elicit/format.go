package elicit

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Messages for formats, completing the field's label. Formats without one
// get "must be a valid <format>".
var formatMessages = map[string]string{
	"email":     "must be a valid email address such as name@example.com",
	"uri":       "must be a full web address such as https://example.com",
	"date":      "must be a date such as 2025-12-31 (year-month-day)",
	"date-time": "must be a date and time such as 2025-12-31T09:30:00Z",
	"time":      "must be a time such as 09:30:00Z",
	"uuid":      "must be a UUID such as 123e4567-e89b-12d3-a456-426614174000",
	"ipv4":      "must be an IPv4 address such as 192.0.2.1",
	"ipv6":      "must be an IPv6 address such as 2001:db8::1",
	"hostname":  "must be a host name such as example.com",
	"duration":  "must be a duration such as P3DT4H (ISO 8601)",
}

// checkFormat returns the message for s if it is not of the given format,
// "" if it is or if the format is one nobody checks ("password"…).
//
// PROTOCOL.md §4 names email, uri, date and date-time; this package checks
// those itself, by rules a person expects (a bare address, a web address
// with a host). The final check's validator asserts its own rules for
// every format it knows, and the answer must pass both, so they run here
// too: the user sees the message under the field rather than a refused
// Submit.
func checkFormat(format, s string) string {
	if format == "" {
		return ""
	}
	ok := true
	switch format {
	case "email":
		ok = validEmail(s)
	case "uri":
		u, err := url.Parse(s)
		ok = err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "")
	case "date":
		_, err := time.Parse(layoutDate, s)
		ok = err == nil
	case "date-time":
		ok = validDateTime(s)
	}
	if ok {
		ok = validatorFormat(format, s)
	}
	if ok {
		return ""
	}
	if msg, found := formatMessages[format]; found {
		return msg
	}
	return fmt.Sprintf("must be a valid %s", format)
}

// validEmail accepts a bare address: no display name, no angle brackets.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s && strings.Contains(s, "@")
}

// validDateTime accepts an RFC 3339 date-time, including a leap second
// (RFC 3339 §5.6: time-second may be 60), which Go's time.Parse refuses.
// As in the validator, second 60 is only valid at 23:59 UTC, when leap
// seconds are inserted.
func validDateTime(s string) bool {
	if _, err := time.Parse(time.RFC3339, s); err == nil {
		return true
	}
	// "2016-12-31T23:59:60Z": seconds at s[17:19].
	if len(s) < 20 || s[16] != ':' || s[17:19] != "60" {
		return false
	}
	t, err := time.Parse(time.RFC3339, s[:17]+"59"+s[19:])
	if err != nil {
		return false
	}
	t = t.UTC()
	return t.Hour() == 23 && t.Minute() == 59
}

// validatorFormat runs the final check's own test for format on s; true
// for a format the validator does not know.
func validatorFormat(format, s string) bool {
	sch := formatSchema(format)
	if sch == nil {
		return true
	}
	return sch.Validate(s) == nil
}

// Compiled {"format": name} schemas. Names the validator knows are few and
// kept; other names come from servers, so only a bounded number of them is
// remembered as unknown.
var (
	knownFormats   sync.Map // name → *jsonschema.Schema
	unknownFormats = newCache[string, bool](maxCachedPatterns)
)

// formatSchema returns a schema asserting format, nil when the validator
// does not know the format and so does not check it.
func formatSchema(format string) *jsonschema.Schema {
	if sch, ok := knownFormats.Load(format); ok {
		return sch.(*jsonschema.Schema)
	}
	if _, ok := unknownFormats.get(format); ok {
		return nil
	}
	name, err := json.Marshal(format)
	if err != nil {
		return nil
	}
	sch, err := compileSchema(json.RawMessage(`{"format":` + string(name) + `}`))
	if err != nil || sch.Format == nil {
		unknownFormats.put(format, true)
		return nil
	}
	knownFormats.Store(format, sch)
	return sch
}
