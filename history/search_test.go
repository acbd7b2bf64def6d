package history

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// searchWords are the words of searchRecords' texts: ASCII in every case,
// and text whose lower case is not byte for byte the same length or the
// same letters (the Kelvin sign lowers to ASCII k, İ to two runes, final
// sigma, a ligature, a titlecase digraph), CJK and an emoji.
var searchWords = strings.Fields("Deploy PROD staging Pick a branch merge PR #12 Token for the org " +
	"Ville d'ÉTÉ Temperature in \u212aelvin kelvin İstanbul ISTANBUL ΣΊΣΥΦΟΣ σίσυφος STRASSE Straße " +
	"ǅemal ﬁle naïve CAFÉ café 東京 🎉 Ωmega über ÜBER approve the invoice")

// searchSecrets are words that only fields a search never reads hold: the
// content (where secrets go), the URL, the reason, serverInfo's title and
// version.
var searchSecrets = []string{"hunter2", "s3cr3t-token", "passphrase", "oauthstate", "titleword", "9.9.9-beta"}

// searchRecords returns n random records for comparing searches with a plain
// scan: messages of searchWords, servers and tools with non-ASCII names,
// searchSecrets in the fields a search ignores, times over a day and not
// in ID order, and a Key on every third record.
func searchRecords(n int, seed uint64) []Record {
	rng := rand.New(rand.NewPCG(seed, 99))
	servers := []string{"github", "jira", "deploy", "Deploy", "", "Ünïcode-srv", "İzmir"}
	infos := []string{"GitHub-MCP", "atlassian", "Kubectl", "ΣΎΣΤΗΜΑ", ""}
	tools := []string{"", "create_issue", "rollout", "Überweisen"}
	base := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	var rs []Record
	for i := range n {
		var msg []string
		for range 1 + rng.IntN(12) {
			msg = append(msg, searchWords[rng.IntN(len(searchWords))])
		}
		r := Record{
			Time:       base.Add(time.Duration(rng.IntN(86400)) * time.Second),
			Server:     servers[rng.IntN(len(servers))],
			ServerInfo: ServerInfo{Name: infos[rng.IntN(len(infos))], Title: "titleword", Version: "9.9.9-beta"},
			Tool:       tools[rng.IntN(len(tools))],
			Mode:       "form",
			Message:    strings.Join(msg, " "),
			Action:     []string{"accept", "decline", "cancel", "error"}[rng.IntN(4)],
			DecidedBy:  []string{"user", "timeout", "error"}[rng.IntN(3)],
			Reason:     "passphrase expired",
		}
		if rng.IntN(4) == 0 {
			r.Mode, r.URL = "url", "https://auth.example.com/authorize?state=oauthstate"
		} else {
			r.RequestedSchema = []byte(`{"type":"object","properties":{"token":{"type":"string"}}}`)
		}
		if r.Action == "accept" {
			r.Content = map[string]any{"token": "s3cr3t-token", "password": "hunter2"}
		}
		if i%3 == 0 {
			r.Key = fmt.Sprintf("req-%d-%d", seed, i)
		}
		rs = append(rs, r)
	}
	return rs
}
