//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/journal"
)

// TestEndToEndNoSecretInHistory (issue 25): a bank's server asks for a PIN
// whose default it sends, answered by the accept-defaults rule and in a
// window, and for a link carrying a token, while another process holds
// history.db so that every decision goes through the spool first. The
// server gets the PIN; no byte of the spool, history.db or hub.log, and
// nothing `history list --json`, `history show` or `history export`
// prints, holds the PIN or the token; `history show` prints the schema in
// the server's order with the marker in place of each secret value.
func TestEndToEndNoSecretInHistory(t *testing.T) {
	// Eight digits: a date or a duration in the files could hold four by
	// chance.
	const pin, token = "48213957", "tk-7731-bearer"
	d := newParallelDesktop(t)
	d.config("[servers.bank]\nrule = \"accept-defaults\"\n")
	_, release := testkit.HoldLock(t, d.paths.History)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	d.env = append(d.environ(), rawAskServerEnv+"=1") // the schema reaches the wrapper as written
	cs := d.connect("bank", exe)

	// The server's order, which no encoder sorting keys would give.
	byRule := `{"type":"object","properties":{"bank_pin":{"type":"string","title":"Bank PIN","default":"` + pin +
		`","examples":["` + pin + `"]},"account":{"type":"string","title":"Account","default":"acme"}},"required":["bank_pin","account"]}`
	if got := d.result(d.callWith(cs, "ask", map[string]any{"message": "Confirm the transfer", "schema": byRule})); !strings.Contains(got, `"bank_pin":"`+pin+`"`) {
		t.Fatalf("the server received %s, want its PIN default", got)
	}

	// No default for the memo: the rule asks, and the user accepts in the
	// window with the PIN the server suggested.
	call := d.callWith(cs, "ask", map[string]any{"message": "Pay the rent",
		"schema": `{"type":"object","properties":{"memo":{"type":"string","title":"Memo"},"bank_pin":{"type":"string","title":"Bank PIN","default":"` + pin + `"}},"required":["memo","bank_pin"]}`})
	win, _ := d.window()
	d.typeInto(win, "rent")
	d.answer(win, "Return")
	if got := d.result(call); !strings.Contains(got, `"bank_pin":"`+pin+`"`) || !strings.Contains(got, `"memo":"rent"`) {
		t.Fatalf("the server received %s, want the memo and its PIN default", got)
	}

	link := "https://bank.example/verify?account=acme&token=" + token + "#sig=" + token
	call = d.callWith(cs, "ask", map[string]any{"message": "Verify your account", "url": link})
	win, _ = d.window()
	d.answer(win, "Escape")
	if got := d.result(call); !strings.Contains(got, `"action":"cancel"`) {
		t.Fatalf("the server received %s, want cancel", got)
	}

	noSecret := func(what string, b []byte) {
		t.Helper()
		for _, s := range []string{pin, token} {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds %q:\n%s", what, s, b)
			}
		}
	}
	spooled, err := filepath.Glob(filepath.Join(journal.SpoolDir(d.paths), "*"))
	if err != nil || journal.CountSpool(journal.SpoolDir(d.paths)) != 3 {
		t.Fatalf("the spool holds %d records in %v (%v), want the 3 decisions", journal.CountSpool(journal.SpoolDir(d.paths)), spooled, err)
	}
	for _, f := range spooled {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		noSecret("spool file "+filepath.Base(f), b)
	}

	release()
	d.status() // the hub takes the spool in now
	recs := d.history()
	if len(recs) != 4 { // and the one testkit.HoldLock made
		t.Fatalf("history holds %d records, want 4: %+v", len(recs), recs)
	}
	for _, p := range []string{d.paths.History, d.paths.HubLog} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		noSecret(filepath.Base(p), b)
	}
	noSecret("history list --json", []byte(d.elicitray("history", "list", "--json")))
	noSecret("history export", []byte(d.elicitray("history", "export")))
	noSecret("history export --format csv", []byte(d.elicitray("history", "export", "--format", "csv")))

	for _, r := range recs {
		show := d.elicitray("history", "show", strconv.FormatUint(r.ID, 10))
		noSecret("history show of "+r.Message, []byte(show))
		switch r.Message {
		case "Confirm the transfer":
			want := `
Requested schema:
{
  "type": "object",
  "properties": {
    "bank_pin": {
      "type": "string",
      "title": "Bank PIN",
      "default": "[redacted]",
      "examples": [
        "[redacted]"
      ]
    },
    "account": {
      "type": "string",
      "title": "Account",
      "default": "acme"
    }
  },
  "required": [
    "bank_pin",
    "account"
  ]
}
`
			if !strings.HasSuffix(show, want) {
				t.Errorf("history show of the rule's decision does not end with the schema in the server's order, redacted:\n%s", show)
			}
			if r.DecidedBy != "rule" || r.Content["bank_pin"] != journal.Redacted || r.Content["account"] != "acme" {
				t.Errorf("the rule's record: decided by %q, content %v", r.DecidedBy, r.Content)
			}
		case "Pay the rent":
			if r.DecidedBy != "user" || r.Content["bank_pin"] != journal.Redacted || r.Content["memo"] != "rent" {
				t.Errorf("the window's record: decided by %q, content %v", r.DecidedBy, r.Content)
			}
		case "Verify your account":
			if want := "https://bank.example/verify?account=acme&token=[redacted]#sig=[redacted]"; r.URL != want || !strings.Contains(show, "\nURL:\n"+want+"\n") {
				t.Errorf("the link's record keeps %q, want %q; history show:\n%s", r.URL, want, show)
			}
		}
	}
}
