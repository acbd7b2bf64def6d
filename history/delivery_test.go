package history

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDeliverySettlesOnce: a record kept before its answer left is pending
// until the word on its delivery comes, which settles it once; replays
// change nothing, and a word without its record adds none.
func TestDeliverySettlesOnce(t *testing.T) {
	for _, tt := range []struct {
		name string
		recs []Record // added in order after the pending hub record
		want string   // Delivery of the one record
	}{
		{"delivered", []Record{{Key: "k", Source: SourceDelivery}}, ""},
		{"not delivered", []Record{{Key: "k", Source: SourceDelivery, Delivery: "the wrapper ended before it wrote the answer"}},
			"the wrapper ended before it wrote the answer"},
		{"settled stays", []Record{{Key: "k", Source: SourceDelivery}, {Key: "k", Source: SourceDelivery, Delivery: "late"}}, ""},
		{"replay of the pending record", []Record{{Key: "k", Source: SourceDelivery, Delivery: "gone"},
			{Key: "k", Server: "s", Action: "accept", DecidedBy: "user", Delivery: DeliveryPending}}, "gone"},
		{"wrapper's record, then its word", []Record{
			{Key: "k", Server: "s", Action: "cancel", DecidedBy: "error", Source: SourceWrapper, Delivery: DeliveryPending},
			{Key: "k", Source: SourceDelivery, Delivery: "the server stopped"}}, "the server stopped"},
		{"no word yet", nil, DeliveryPending},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, err := Open(filepath.Join(t.TempDir(), "history.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			first, err := st.Add(Record{Key: "k", Server: "s", Message: "Deploy?", Action: "accept", DecidedBy: "user",
				Content: map[string]any{"go": true}, Delivery: DeliveryPending})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tt.recs {
				if _, err := st.Add(r); err != nil {
					t.Fatal(err)
				}
			}
			all, err := st.List(Query{})
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 1 || all[0].ID != first.ID {
				t.Fatalf("history holds %d records, want the one", len(all))
			}
			if diff := cmp.Diff(tt.want, all[0].Delivery); diff != "" {
				t.Errorf("delivery mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("word without a record", func(t *testing.T) {
		st, err := Open(filepath.Join(t.TempDir(), "history.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := st.Add(Record{Key: "gone", Source: SourceDelivery, Delivery: "x"}); err != nil {
			t.Fatal(err)
		}
		if n, _ := st.Count(); n != 0 {
			t.Errorf("a word on delivery without its record made %d records", n)
		}
	})
}
