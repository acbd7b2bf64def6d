package app

import (
	"context"

	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/paths"

	"github.com/spf13/cobra"
)

// newMenuCmd is `elicitray menu`: the tray's menu in a small window
// (menuwin.go), for desktops that show no tray icons; the launcher entry's
// Open Menu action runs it.
func newMenuCmd(ctx context.Context, p paths.Paths) *cobra.Command {
	return &cobra.Command{
		Use:   "menu",
		Short: "Open the tray's menu in a small window: pause, mute, History, Settings, Quit (starts the hub if none runs)",
		Long: "menu opens a small window with the tray menu's items, for desktops that show no tray\n" +
			"icons (GNOME without an extension): the prompts waiting, Pause all prompts or Resume,\n" +
			"Mute for an hour for each server, History, Settings and Quit. The app launcher's\n" +
			"entry offers it too (right-click elicitray: Open Menu).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return openWindow(ctx, p, cmd, (*hubapi.Client).Menu, "the menu window")
		},
	}
}
