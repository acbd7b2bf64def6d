package app

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// longListSchema is a requestedSchema of one required titled single select
// "city" of n choices: "Place 00000" (value "p00000")… with "Zürich"
// ("ch-zrh") at 1234 and "Zug" ("ch-zug") at 4321.
func longListSchema(n int) string {
	items := make([]string, n)
	for i := range items {
		value, title := fmt.Sprintf("p%05d", i), fmt.Sprintf("Place %05d", i)
		switch i {
		case 1234:
			value, title = "ch-zrh", "Zürich"
		case 4321:
			value, title = "ch-zug", "Zug"
		}
		b, _ := json.Marshal(map[string]string{"const": value, "title": title})
		items[i] = string(b)
	}
	return `{"type":"object","properties":{"city":{"type":"string","title":"City","oneOf":[` +
		strings.Join(items, ",") + `]}},"required":["city"]}`
}

// TestEndToEndLongList (issue 10): a server asks for one of 10,000 choices
// through the real wrapper and hub. The window opens with the focus in the
// list's filter; typing "zu" leaves Zürich and Zug, Down goes into the list
// on Zürich, Down moves to Zug, Space picks it and Return submits: the
// server receives exactly Zug's value, and the history records it.
func TestEndToEndLongList(t *testing.T) {
	d := newDesktop(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(askServerEnv, "1") // inherited by the wrapper, and so by its server
	cs := d.connect("travel", exe)
	call := d.callWith(cs, "ask", map[string]any{
		"message": "Which office do you visit?",
		"schema":  longListSchema(10000),
	})
	win, _ := d.window()
	d.typeInto(win, "zu")
	for _, key := range []string{"Down", "Down", "space"} {
		d.xdo("key", "--window", win, key)
	}
	d.screenshot("long-list.png")
	d.answer(win, "Return")
	if got, want := d.result(call), `{"action":"accept","content":{"city":"ch-zug"}}`; got != want {
		t.Errorf("the server received %s, want %s", got, want)
	}
	if got := d.history()[0].Content["city"]; got != "ch-zug" {
		t.Errorf("history records city %v, want ch-zug", got)
	}
}
