package history

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// FuzzRecordValue checks that any record comes back from its value as it
// went in, whether its Mode, Action and DecidedBy are words or other text,
// and that parse takes any bytes without panicking.
func FuzzRecordValue(f *testing.F) {
	f.Add("github", "github-mcp", "Deploy <prod>?\n\u202e", "accept", int64(4123456789), 3600, []byte{valueV2, 0})
	f.Add("", "", "", "", int64(-1), -12600, []byte(`{"id":1}`))
	f.Add("ünï", "x", string(make([]byte, 300)), "cancel", int64(0), 0, []byte{valueV2, 0xff, 0xff, 0xff})
	f.Add("jira", "", "Close?", "server-cancelled", int64(2), 0, []byte{valueV4, 0, 0, 0, 0, 0, 0, byte(len(words) + 1)})
	f.Add("jira", "", "Close?", "cancelled", int64(3), 60, []byte{valueV4, 0, 0, 0, 0, 0, 0, wordText, 0x80})
	f.Fuzz(func(t *testing.T, server, name, message, action string, elapsed int64, zone int, raw []byte) {
		var rr rawRecord
		_ = rr.parse(raw) // must not panic

		zone %= 24 * 3600
		in := Record{
			ID:         7,
			Time:       time.Unix(0, t0.UnixNano()).In(time.FixedZone("", zone)),
			Server:     server,
			ServerInfo: ServerInfo{Name: name, Title: name + "!", Version: "1"},
			Tool:       name,
			Mode:       action,
			Message:    message,
			URL:        message,
			Action:     action,
			DecidedBy:  action,
			Reason:     message,
			Elapsed:    time.Duration(elapsed),
		}
		if elapsed%2 == 0 {
			in.RequestedSchema = json.RawMessage(`{"type":"object"}`)
		}
		v, err := encode(in, nil)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		if err := rr.parse(v); err != nil {
			t.Fatalf("parse of an encoded record: %v", err)
		}
		out, err := (&reader{}).record(recordKey(uint64(t0.UnixNano()), 7), &rr)
		if err != nil {
			t.Fatalf("record: %v", err)
		}
		if diff := cmp.Diff(in, out); diff != "" {
			t.Errorf("record mismatch (-in +out):\n%s", diff)
		}
		if _, off := out.Time.Zone(); off != zone {
			t.Errorf("time has zone offset %d, want %d", off, zone)
		}
	})
}
