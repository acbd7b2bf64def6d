package history

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestQueryMode: Query.Mode selects one kind of request, a guarded tool
// call among elicitations included, in List and CountQuery alike (the
// mode "tool call" is stored as text, not one of the codec's words).
func TestQueryMode(t *testing.T) {
	s := openStore(t, nil)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i, mode := range []string{"form", "tool call", "url", "tool call"} {
		if _, err := s.Add(Record{Time: t0.Add(time.Duration(i) * time.Minute), Server: "prod", Tool: "deploy",
			Mode: mode, Message: "m", Action: "accept", DecidedBy: "user"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		mode string
		want []uint64
	}{
		{"tool call", []uint64{4, 2}},
		{"form", []uint64{1}},
		{"url", []uint64{3}},
		{"", []uint64{4, 3, 2, 1}},
	} {
		recs, err := s.List(Query{Mode: tt.mode})
		if err != nil {
			t.Fatal(err)
		}
		var got []uint64
		for _, r := range recs {
			got = append(got, r.ID)
			if tt.mode != "" && r.Mode != tt.mode {
				t.Errorf("--kind %q listed a %q record", tt.mode, r.Mode)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("mode %q: IDs mismatch (-want +got):\n%s", tt.mode, diff)
		}
		n, err := s.CountQuery(Query{Mode: tt.mode})
		if err != nil || n != len(tt.want) {
			t.Errorf("mode %q: CountQuery = %d, %v; want %d", tt.mode, n, err, len(tt.want))
		}
	}
}
