package bridge

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestSetAndDeleteMember: one member changes, every other byte stays.
func TestSetAndDeleteMember(t *testing.T) {
	for _, tt := range []struct{ obj, key, value, set, del string }{
		{`{}`, "a", `1`, `{"a":1}`, `{}`},
		{` { "a" : 1 } `, "a", `2`, ` { "a" : 2 } `, ` { } `},
		{`{"a":1, "b":[1,{"c":"}"}], "z":null}`, "b", `"x"`, `{"a":1, "b":"x", "z":null}`, `{"a":1, "z":null}`},
		{`{"a":1,"b":2}`, "b", `{}`, `{"a":1,"b":{}}`, `{"a":1}`},
		{`{"a":"\"}","b":2}`, "c", `true`, `{"a":"\"}","b":2,"c":true}`, `{"a":"\"}","b":2}`},
		{`{"\u0061":1,"b":2}`, "a", `3`, `{"\u0061":3,"b":2}`, `{"b":2}`},
	} {
		got, err := setMember([]byte(tt.obj), tt.key, []byte(tt.value))
		if err != nil || string(got) != tt.set {
			t.Errorf("setMember(%s, %q): %s, %v; want %s", tt.obj, tt.key, got, err, tt.set)
		}
		got, err = deleteMember([]byte(tt.obj), tt.key)
		if err != nil || string(got) != tt.del {
			t.Errorf("deleteMember(%s, %q): %s, %v; want %s", tt.obj, tt.key, got, err, tt.del)
		}
	}
	for _, bad := range []string{``, `[]`, `{"a"}`, `{"a":1,}`, `{"a":1`, `"x"`} {
		if _, err := setMember([]byte(bad), "a", []byte("1")); err == nil {
			t.Errorf("setMember(%q) accepted a non-object", bad)
		}
	}
}

// FuzzSetMember: whatever object comes in, setting and deleting a member
// gives the object encoding/json would build.
func FuzzSetMember(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":{"b":[1,2]},"c":"\\\""}`, ` {"x" : "y" , "a":null } `} {
		f.Add(s, "a")
	}
	f.Fuzz(func(t *testing.T, obj, key string) {
		var want map[string]any
		// Keys the relay sets are its own, in valid UTF-8.
		if !utf8.ValidString(key) || json.Unmarshal([]byte(obj), &want) != nil || want == nil || hasDuplicateKeys(obj) {
			return
		}
		got, err := setMember([]byte(obj), key, []byte(`"set"`))
		if err != nil {
			t.Fatalf("setMember(%q): %v", obj, err)
		}
		want[key] = "set"
		var m map[string]any
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatalf("setMember(%q) = %q: %v", obj, got, err)
		}
		if diff := cmp.Diff(want, m); diff != "" {
			t.Fatalf("setMember(%q) mismatch (-want +got):\n%s", obj, diff)
		}
		got, err = deleteMember(got, key)
		delete(want, key)
		m = nil
		if err != nil || json.Unmarshal(got, &m) != nil {
			t.Fatalf("deleteMember: %q, %v", got, err)
		}
		if diff := cmp.Diff(want, m); diff != "" {
			t.Fatalf("deleteMember mismatch (-want +got):\n%s", diff)
		}
	})
}

// hasDuplicateKeys reports whether obj repeats a top-level key, where
// encoding/json keeps the last and the splice edits the first.
func hasDuplicateKeys(obj string) bool {
	ms, err := members([]byte(obj))
	if err != nil {
		return true
	}
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.key] {
			return true
		}
		seen[m.key] = true
	}
	return false
}
