// Command tryout is a throwaway: it shows one prompt for a real-window check.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui"
)

type src []history.Record

func (s src) List(q history.Query) ([]history.Record, error) { return s, nil }
func (s src) Get(id uint64) (history.Record, error) {
	for _, r := range s {
		if r.ID == id {
			return r, nil
		}
	}
	return history.Record{}, fmt.Errorf("no record %d", id)
}

func main() {
	path := flag.String("case", "../shared/cases/all-kinds.json", "")
	mode := flag.String("mode", "prompt", "")
	flag.Parse()
	b, err := os.ReadFile(*path)
	if err != nil {
		panic(err)
	}
	var req struct {
		Params struct {
			Message         string          `json:"message"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	json.Unmarshal(b, &req)
	form, err := elicit.Parse(req.Params.RequestedSchema)
	if err != nil {
		panic(err)
	}
	a := app.NewWithID("io.github.elicitray.tryout")
	a.Lifecycle().SetOnStarted(func() {
		fyne.Do(func() {
			if *mode == "history" {
				now := time.Now()
				ui.ShowHistory(a, src{
					{ID: 2, Time: now, Server: "github", ServerInfo: history.ServerInfo{Name: "github-mcp", Version: "1.2"}, Tool: "create_repo", Mode: "form", Message: "Name for the new repository?", RequestedSchema: req.Params.RequestedSchema, Action: "accept", Content: map[string]any{"fullName": "Ada", "copies": 7}, DecidedBy: "user", Elapsed: 4 * time.Second},
					{ID: 1, Time: now.Add(-time.Hour), Server: "everything", Mode: "form", Message: "Configure the export", Action: "cancel", DecidedBy: "timeout", Reason: "no answer", Elapsed: 10 * time.Minute},
				})
				return
			}
			ui.ShowPrompt(a, &ui.Prompt{Server: "demo", ServerInfo: "mcp-servers/everything 2.0.0", Tool: "export_report", Message: req.Params.Message, Form: form}, func(an ui.Answer) {
				out, _ := json.Marshal(an)
				fmt.Println("ANSWER", string(out))
				a.Quit()
			})
		})
	})
	a.Run()
}
