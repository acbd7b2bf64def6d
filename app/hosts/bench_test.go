package hosts

import (
	"fmt"
	"strings"
	"testing"
)

// manyEntries returns a config of n server entries in the shape of loc's
// format, as a host writes them: JSON with two-space indent (Claude Code's
// ~/.claude.json), or one [mcp_servers.KEY] table per entry (Codex).
func manyEntries(loc Location, n int) []byte {
	var b strings.Builder
	if loc.Format == FormatTOML {
		for i := range n {
			fmt.Fprintf(&b, "[mcp_servers.srv-%d]\ncommand = \"npx\"\nargs = [\"-y\", \"@example/server-%d\"]\n\n[mcp_servers.srv-%d.env]\nTOKEN = \"t%d\"\n\n", i, i, i, i)
		}
		return []byte(b.String())
	}
	b.WriteString("{\n  \"s\": {\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    \"srv-%d\": {\n      \"type\": \"stdio\",\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"@example/server-%d\"\n      ],\n      \"env\": {\"TOKEN\": \"t%d\"}\n    }", i, i, i)
	}
	b.WriteString("\n  }\n}\n")
	return []byte(b.String())
}

// BenchmarkWrap wraps every entry of a config of 1k and 16k entries (0.2
// and 3 MB of JSON). Wrap is linear in the size of the file: the 16k run
// takes at most 16 times the 1k one (13 to 15 measured on two cores), where
// it took minutes when each key was looked up by a scan and each splice
// copied the file (`go test -run '^$' -bench Wrap ./app/hosts/`).
func BenchmarkWrap(b *testing.B) {
	for _, loc := range []Location{jsonLoc, tomlLoc} {
		for _, n := range []int{1000, 16000} {
			data := manyEntries(loc, n)
			b.Run(fmt.Sprintf("%s/%dk", loc.Format, n/1000), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					_, changes, err := Wrap(data, loc, nil, "/usr/local/bin/elicitray")
					if err != nil || len(changes) != n {
						b.Fatalf("%d changes, %v", len(changes), err)
					}
				}
			})
		}
	}
}
